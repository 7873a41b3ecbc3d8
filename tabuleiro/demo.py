"""The demo (`make demo` / `tabuleiro demo`): seeded random-vs-random games of Capivari, a result table, speed;
then a short arena (``DEMO_ARENA``): the heuristic against random, IS-MCTS and the reference policy's guided search
against the heuristic."""

import time

import numpy as np
from tqdm import tqdm

import envs
from agents import RandomAgent
from agents.match import play_game


def run_demo(games: int = 300, seed: int = 0, game: str = "capivari_v0") -> dict:
    """Play ``games`` seeded games between two random agents (seats alternate) and report."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    env = envs.make(game)
    if len(env.possible_agents) != 2:
        raise ValueError("the demo pits two agents against each other; pick a two-player game")
    agents = [RandomAgent(), RandomAgent()]
    wins = [0, 0]
    draws = 0
    steps = 0
    rounds = []
    play_game(env, agents, seed=-1 % 2**32)  # warm-up: first call loads the compiled core
    start = time.perf_counter()
    for g in tqdm(range(games), desc=f"{game} random vs random", unit="game", leave=False):
        order = [0, 1] if g % 2 == 0 else [1, 0]  # agent order[i] sits in seat i
        result = play_game(env, [agents[i] for i in order], seed=seed + g)
        steps += result.steps
        rounds.append(result.infos[0].get("rounds_played", 0))
        best = max(result.returns)
        if result.returns.count(best) == 2:
            draws += 1
        else:
            wins[order[result.returns.index(best)]] += 1
    elapsed = time.perf_counter() - start
    report = {
        "game": game,
        "games": games,
        "seed": seed,
        "wins": wins,
        "draws": draws,
        "mean_turns": steps / games,
        "mean_rounds": float(np.mean(rounds)),
        "steps_per_second": steps / elapsed,
        "games_per_second": games / elapsed,
    }
    return report


def format_report(r: dict) -> str:
    """The demo's result table as text."""
    g = r["games"]
    lines = [
        f"{r['game']}: {g} games, random (A) vs random (B), seats alternating, seeds {r['seed']}..{r['seed'] + g - 1}",
        "",
        f"{'agent':<12}{'wins':>8}{'win rate':>10}",
        f"{'random A':<12}{r['wins'][0]:>8}{r['wins'][0] / g:>10.1%}",
        f"{'random B':<12}{r['wins'][1]:>8}{r['wins'][1] / g:>10.1%}",
        f"{'draws':<12}{r['draws']:>8}{r['draws'] / g:>10.1%}",
        "",
        f"mean turns per game {r['mean_turns']:.1f}, mean rounds {r['mean_rounds']:.2f}",
        f"AEC env() loop with random agents: {r['steps_per_second']:,.0f} steps/s, "
        f"{r['games_per_second']:,.0f} games/s",
    ]
    return "\n".join(lines)


# the demo's short arena after its table: each lineup plays `tabuleiro arena capivari --agents a,b`
DEMO_ARENA = (
    ("heuristic", "random"),
    ("ismcts:iterations=500", "heuristic"),
    ("guided:reference,iterations=200", "heuristic"),  # the shipped reference policy guiding the search
)
