"""Which turns of a Capivari round a policy loses on: the policy hands the moves of some turns of each round to a
search agent and plays that search agent. If searching turns a-b brings the mixed player from the policy's win rate
up to 50% (the search against itself), the policy's loss lies in those turns.

    python -m benchmarks.search_turns --policy reference --search ismcts:iterations=1000 --turns 0-4 4-10 10-14
"""

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

import envs
from agents.arena import game_seed, rotation
from agents.match import play_game
from agents.registry import check_spec, make_agent
from agents.results import wilson_interval
from envs.capivari.core import O_TURNS
from envs.files import write_atomic

GAME = "capivari"
TURNS_PER_ROUND = 14  # the observation's turns_taken is the turns of this round over 14


class SearchOnTurns:
    """The policy's move, except on turns ``first`` to ``last - 1`` of each round (counted from 0), the search's."""

    def __init__(self, policy: str, search: str, first: int, last: int, seed: int | None) -> None:
        self.policy = make_agent(policy, GAME, seed)
        self.search = make_agent(search, GAME, seed)
        self.first, self.last = first, last
        self.name = f"search on turns {first}-{last}"

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)
        self.search.reset(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        turn = int(round(float(observation["observation"][O_TURNS]) * TURNS_PER_ROUND))
        agent = self.search if self.first <= turn < self.last else self.policy
        return agent.act(observation, env)


def _wins(task: tuple[str, str, int, int, int, list[int]]) -> int:
    """Games won by the mixed player among ``indices`` (arena seeds and seat rotation)."""
    policy, search, first, last, seed, indices = task
    env = envs.make(GAME)
    wins = 0
    for g in indices:
        deal = game_seed(seed, g, 2)
        lineup = [SearchOnTurns(policy, search, first, last, deal), make_agent(search, GAME, deal + 1)]
        seats = [lineup[p] for p in rotation(g, 2)]
        result = play_game(env, seats, deal)
        wins += result.returns[rotation(g, 2).index(0)] > 0  # +1 for the match's winner
    return int(wins)


def parse_turns(text: str) -> tuple[int, int]:
    """``"a-b"``: turns a to b - 1 of a round searched (0 <= a <= b <= TURNS_PER_ROUND)."""
    first, dash, last = text.partition("-")
    if not dash or not first.isdigit() or not last.isdigit() or not 0 <= int(first) <= int(last) <= TURNS_PER_ROUND:
        raise argparse.ArgumentTypeError(f"--turns {text!r}: give a-b with 0 <= a <= b <= {TURNS_PER_ROUND}")
    return int(first), int(last)


def measure(
    policy: str, search: str, turns: list[tuple[int, int]], games: int = 1000, workers: int = 2, seed: int = 1
) -> list[dict[str, Any]]:
    """The mixed player's wins against ``search`` for each range of searched turns, ``games`` games each."""
    check_spec(policy)
    check_spec(search)
    rows = []
    with ProcessPoolExecutor(workers) as pool:
        for first, last in turns:
            parts = [list(range(k, games, workers)) for k in range(workers)]
            wins = sum(pool.map(_wins, [(policy, search, first, last, seed, p) for p in parts]))
            low, high = wilson_interval(wins, games)
            rows.append({"searched_turns": [first, last], "games": games, "wins": wins, "win_rate": wins / games,
                         "ci95": [low, high]})  # fmt: skip
            print(f"search on turns {first:2d}-{last:2d}: {wins / games:6.1%} [{low:.1%}, {high:.1%}] of {games}",
                  file=sys.stderr, flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--policy", default="policy:reference", help="the agent whose turns are handed over (a spec)")
    p.add_argument("--search", default="ismcts:iterations=1000", help="the search: opponent and stand-in (a spec)")
    p.add_argument("--turns", nargs="+", type=parse_turns, default=[(0, 0), (0, 14)], help="ranges a-b to search")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the rows here too")
    a = p.parse_args(argv)
    if a.games < 2 or a.games % 2 or a.workers < 1:
        p.error("--games must be even and at least 2 (both seats of each deal); --workers at least 1")
    rows = measure(a.policy, a.search, a.turns, a.games, a.workers, a.seed)
    text = json.dumps({"policy": a.policy, "search": a.search, "seed": a.seed, "rows": rows}, indent=1)
    if a.json:
        write_atomic(a.json, text + "\n")
    print(text)


if __name__ == "__main__":
    main()
