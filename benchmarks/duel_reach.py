"""How far from the origin the Duel's boards reach when agents play (seats/rules: seeds/dorfromantik_duel.md).

Plays whole games on a board far larger than any game needs (radius 24 by default), so the rim never
steers a placement, and counts each board's farthest tile from the origin (the state's ``extent``) and
the passes. The rules document's "How large" table comes from this script; the default radius is
chosen from it. ``python -m benchmarks.duel_reach --agents heuristic --games 2000``.
"""

import argparse
from collections import Counter
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.match import play_game
from agents.registry import make_agent
from envs import dorfromantik_duel_v0
from envs.dorfromantik_duel.reach import board_reach as reach_of

GAME = "dorfromantik_duel_v0"


def board_reach(
    agent_spec: str, games: int, radius: int = 24, seed: int = 0, progress: bool = True, log: Any = None
) -> dict:
    """Farthest tile of each board (2 per game, both seats played by ``agent_spec``) as a histogram,
    the passes, and the turns, over ``games`` games seeded ``seed``, ``seed + 1``, ... A board that
    never reaches the rim (``radius``) was never steered by it: a tile beyond needs a tile on it first.
    ``log``: a text file that gets one line per game (seed, both reaches, passes, turns)."""
    env = dorfromantik_duel_v0.raw_env(board_radius=radius)
    agents = [make_agent(agent_spec, GAME, seed=seed + i) for i in range(2)]
    reach: Counter[int] = Counter()
    passes = 0
    turns: list[int] = []
    for g in tqdm(range(games), desc=f"reach {agent_spec}", unit="game", disable=not progress):
        play_game(env, agents, seed=seed + g)
        extents, passed, turn = reach_of(env.core_state)
        reach.update(extents)
        passes += passed
        turns.append(turn)
        if log is not None:
            print(seed + g, *extents, passed, turn, file=log)
            log.flush()
    return {
        "agent": agent_spec,
        "games": games,
        "radius": radius,
        "reach": dict(sorted(reach.items())),
        "passes": passes,
        "turns": (min(turns), max(turns)),
        "at_rim": reach[radius],
    }


def markdown(result: dict) -> str:
    """The histogram as a rules-document table row pair."""
    keys = list(result["reach"])
    head = "| farthest tile | " + " | ".join(str(k) for k in keys) + " |"
    rule = "|---|" + "---|" * len(keys)
    row = f"| boards ({result['agent']}) | " + " | ".join(f"{v:,}" for v in result["reach"].values()) + " |"
    return "\n".join([head, rule, row])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="heuristic", help="agent spec for both seats, e.g. ismcts:iterations=50")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--radius", type=int, default=24, help="board radius to play on (the rim must not matter)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", help="file that gets one line per game: seed, both boards' reach, passes, turns")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be positive")
    if args.log:
        with open(args.log, "w") as log:
            result = board_reach(args.agents, args.games, args.radius, args.seed, log=log)
    else:
        result = board_reach(args.agents, args.games, args.radius, args.seed)
    print(
        f"{result['games']} games of {result['agent']} on a radius-{result['radius']} board, "
        f"turns {result['turns'][0]}-{result['turns'][1]}, passes {result['passes']}, "
        f"farthest tile {max(result['reach'])}, boards on the rim {result['at_rim']}"
    )
    print(markdown(result))
    print("mean reach", np.average(list(result["reach"]), weights=list(result["reach"].values())))


if __name__ == "__main__":
    main()
