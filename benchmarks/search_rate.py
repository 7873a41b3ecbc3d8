"""Search iterations per second of agent specs, each timed on the same positions: those of random games where the
acting seat has more than one legal action, about one in ``--every`` of them. Median over the positions, after one
untimed search per position (so no compile or first-touch cost is counted).

    python -m benchmarks.search_rate capivari --agents ismcts:seconds=0.05 \\
        --agents guided:reference,seconds=0.05 --agents guided:reference,seconds=0.05,network_depth=1
"""

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

import envs
from agents.registry import check_spec, make_agent
from envs.engine.config import key_value, key_values
from envs.files import write_atomic


def measure(
    game: str, specs: list[str], games: int = 6, every: int = 7, seed: int = 0, config: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One row per spec: positions timed, median iterations per second and median seconds per search. The games
    are played at random once; every spec is timed at each sampled position."""
    env = envs.make(game, **(config or {}))
    agents = [make_agent(spec, game, seed=seed) for spec in specs]
    rates: list[list[float]] = [[] for _ in specs]
    seconds: list[list[float]] = [[] for _ in specs]
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        while env.agents:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            if len(legal) > 1 and rng.integers(every) == 0:
                for k, agent in enumerate(agents):
                    agent.act(observation, env)  # untimed: compiles and touches the buffers
                    start = time.perf_counter()
                    agent.act(observation, env)
                    spent = time.perf_counter() - start
                    rates[k].append(agent.last_iterations / spent)
                    seconds[k].append(spent)
            env.step(int(rng.choice(legal)))
    if not rates[0]:
        raise ValueError(f"no position with a choice in {games} random game(s) of {game}")
    return [
        {
            "agent": spec,
            "positions": len(rates[k]),
            "iterations_per_second": float(np.median(rates[k])),
            "seconds_per_search": float(np.median(seconds[k])),
        }
        for k, spec in enumerate(specs)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--agents", action="append", required=True, help="a search agent spec (repeatable)")
    parser.add_argument("--games", type=int, default=6, help="random games the positions come from (default 6)")
    parser.add_argument("--every", type=int, default=7, help="about one position in this many is timed (default 7)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", type=key_value, action="append", default=[], help="a game config knob KEY=VALUE")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    if args.games < 1 or args.every < 1:
        parser.error("--games and --every must be at least 1")
    try:
        game = envs.game_name(args.game)
        for spec in args.agents:
            check_spec(spec)
            if not hasattr(make_agent(spec, game), "last_iterations"):
                raise ValueError(f"{spec} is not a search agent (it reports no iterations)")
        rows = measure(game, args.agents, args.games, args.every, args.seed, key_values(args.config, "--config"))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for row in rows:
        print(
            f"{row['agent']:70s} {row['positions']:4d} positions  {row['iterations_per_second']:>12,.0f} iterations/s"
            f"  {row['seconds_per_search']:.4f} s/search"
        )
    if args.json:
        write_atomic(args.json, json.dumps({"game": game, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
