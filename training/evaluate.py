"""Final evaluation of a trained policy: seeded games against one opponent spec, win rate with a 95% interval.

Uses the shared game loop (``agents.match.play_game``); the trained agent rotates through every
seat, the opponent spec (``random``, ``heuristic``, ...) fills the others. A win is finishing
strictly first (highest return, no tie), as in the training metrics.
"""

from typing import Any

import numpy as np

import envs
from agents.match import play_game
from agents.registry import make_agent
from agents.results import wilson_interval


def evaluate(
    agent: Any, game: str, opponent: str, games: int, seed: int = 0, game_config: dict | None = None
) -> dict[str, Any]:
    """Play ``games`` games of ``agent`` against ``opponent`` agents; wins, draws, losses, win rate, its CI."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    env = envs.make(game, **(game_config or {}))
    n = len(env.possible_agents)
    opponents = [make_agent(opponent, game, seed + k) for k in range(n - 1)]
    wins = draws = 0
    scores, illegal = [], 0
    seeds = np.random.SeedSequence([seed, 0xE7A1]).generate_state(games)
    for i in range(games):
        seat = i % n
        lineup = list(opponents)
        lineup.insert(seat, agent)
        result = play_game(env, lineup, int(seeds[i]))
        returns = np.asarray(result.returns)
        others = np.delete(returns, seat)
        if returns[seat] > others.max():
            wins += 1
        elif returns[seat] == others.max():
            draws += 1
        scores.append(float(returns[seat]))
        illegal += bool(result.infos[seat].get("illegal_move", False))
    lo, hi = wilson_interval(wins, games)
    return {
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": games - wins - draws,
        "win_rate": wins / games,
        "ci95": [lo, hi],
        "mean_score": float(np.mean(scores)),
        "illegal_moves": illegal,
    }


def format_row(r: dict[str, Any]) -> str:
    """One line: ``vs heuristic  win 61.2% [58.1, 64.2] (612/1000, 12 draws)  mean return +0.24``."""
    lo, hi = r["ci95"]
    return (
        f"vs {r['opponent']:<10} win {100 * r['win_rate']:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"
        f"  ({r['wins']}/{r['games']}, {r['draws']} draws)  mean return {r['mean_score']:+.3f}"
    )
