"""Which turns a policy loses on: the policy hands the moves of some turns to a search agent and plays that search
agent. If searching turns a-b brings the mixed player from the policy's win rate up to 50% (the search against
itself), the policy's loss lies in those turns. A turn is the game record's public ``turn`` counter: in Capivari the
turns taken in the current round (0-13), in the Duel the turns of the game (both seats place each turn).

    python -m benchmarks.search_turns --policy policy:reference --search ismcts:iterations=1000 --turns 0-4 4-10 10-14
    python -m benchmarks.search_turns --game dorfromantik_duel --search ismcts:iterations=200 --turns 0-20 20-58
"""

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np
from tqdm import tqdm

import envs
from agents.arena import game_seed, rotation
from agents.match import play_game
from agents.registry import check_spec, make_agent
from agents.results import wilson_interval
from envs.files import write_atomic

MAX_TURN = 10_000  # a bound for --turns, above any game's turns
CHUNK = 10  # games a worker plays per task (the progress bar moves by them)


class SearchOnTurns:
    """The policy's move, except on turns ``first`` to ``last - 1`` (counted from 0), the search's. It reads the
    record's ``turn``, a counter every seat sees, and nothing else of the state."""

    def __init__(self, game: str, policy: str, search: str, first: int, last: int, seed: int | None) -> None:
        self.policy = make_agent(policy, game, seed)
        self.search = make_agent(search, game, seed)
        self.first, self.last = first, last
        self.name = f"search on turns {first}-{last}"

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)
        self.search.reset(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        turn = int(env.core_state["turn"])
        agent = self.search if self.first <= turn < self.last else self.policy
        return agent.act(observation, env)


def _wins(task: tuple[str, str, str, int, int, int, list[int]]) -> tuple[int, int]:
    """Games won and drawn by the mixed player among ``indices`` (arena seeds and seat rotation)."""
    game, policy, search, first, last, seed, indices = task
    env = envs.make(game)
    wins = draws = 0
    for g in indices:
        deal = game_seed(seed, g, 2)
        lineup = [SearchOnTurns(game, policy, search, first, last, deal), make_agent(search, game, deal + 1)]
        seats = [lineup[p] for p in rotation(g, 2)]
        result = play_game(env, seats, deal)
        mine = rotation(g, 2).index(0)
        wins += result.returns[mine] > result.returns[1 - mine]
        draws += result.returns[mine] == result.returns[1 - mine]
    return int(wins), int(draws)


def parse_turns(text: str) -> tuple[int, int]:
    """``"a-b"``: turns a to b - 1 searched (0 <= a <= b)."""
    first, dash, last = text.partition("-")
    if not dash or not first.isdigit() or not last.isdigit() or not 0 <= int(first) <= int(last) <= MAX_TURN:
        raise argparse.ArgumentTypeError(f"--turns {text!r}: give a-b with 0 <= a <= b <= {MAX_TURN}")
    return int(first), int(last)


def measure(
    policy: str,
    search: str,
    turns: list[tuple[int, int]],
    games: int = 1000,
    workers: int = 2,
    seed: int = 1,
    game: str = "capivari",
) -> list[dict[str, Any]]:
    """The mixed player's wins against ``search`` for each range of searched turns, ``games`` games each; ValueError
    for a game of other than two seats or without a ``turn`` counter in its record."""
    check_spec(policy)
    check_spec(search)
    env = envs.make(game)
    env.reset(seed=0)
    if len(env.possible_agents) != 2 or "turn" not in (env.core_state.dtype.names or ()):
        raise ValueError(f"{game}: search_turns needs a two-seat game whose record counts its turns ('turn')")
    rows = []
    with ProcessPoolExecutor(workers) as pool:
        for first, last in turns:
            parts = [list(range(k, min(k + CHUNK, games))) for k in range(0, games, CHUNK)]
            jobs = {pool.submit(_wins, (game, policy, search, first, last, seed, p)): len(p) for p in parts}
            wins = draws = 0
            with tqdm(total=games, desc=f"turns {first}-{last}", unit="game", file=sys.stderr) as bar:
                for job in as_completed(jobs):
                    won, drawn = job.result()
                    wins, draws = wins + won, draws + drawn
                    bar.update(jobs[job])
            low, high = wilson_interval(wins, games)
            rows.append({"searched_turns": [first, last], "games": games, "wins": wins, "draws": draws,
                         "win_rate": wins / games, "ci95": [low, high]})  # fmt: skip
            print(f"search on turns {first:2d}-{last:2d}: {wins / games:6.1%} [{low:.1%}, {high:.1%}] of {games}",
                  file=sys.stderr, flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="capivari", help="a two-seat game whose record counts turns")
    p.add_argument("--policy", default="policy:reference", help="the agent whose turns are handed over (a spec)")
    p.add_argument("--search", default="ismcts:iterations=1000", help="the search: opponent and stand-in (a spec)")
    p.add_argument("--turns", nargs="+", type=parse_turns, default=[(0, 0), (0, MAX_TURN)], help="ranges a-b to search")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the rows here too")
    a = p.parse_args(argv)
    if a.games < 2 or a.games % 2 or a.workers < 1:
        p.error("--games must be even and at least 2 (both seats of each deal); --workers at least 1")
    try:
        rows = measure(a.policy, a.search, a.turns, a.games, a.workers, a.seed, a.game)
    except ValueError as exc:
        p.error(str(exc))
    text = json.dumps({"game": a.game, "policy": a.policy, "search": a.search, "seed": a.seed, "rows": rows}, indent=1)
    if a.json:
        write_atomic(a.json, text + "\n")
    print(text)


if __name__ == "__main__":
    main()
