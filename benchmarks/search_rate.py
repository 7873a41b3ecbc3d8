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


def positions(game: str, games: int, every: int, seed: int, config: dict[str, Any]) -> list[tuple[Any, int, int]]:
    """``(env state copy, game seed, move index)`` of the sampled positions (the env replays each to time it)."""
    env = envs.make(game, **config)
    rng = np.random.default_rng(seed)
    found = []
    for g in range(games):
        env.reset(seed=seed + g)
        moves: list[int] = []
        while env.agents:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            if len(legal) > 1 and rng.integers(every) == 0:
                found.append((seed + g, list(moves)))
            action = int(rng.choice(legal))
            moves.append(action)
            env.step(action)
    return found


def _replay(env: Any, game_seed: int, moves: list[int]) -> None:
    env.reset(seed=game_seed)
    for action in moves:
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        env.step(action)
    while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(None)


def measure(
    game: str, specs: list[str], games: int = 6, every: int = 7, seed: int = 0, config: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One row per spec: positions timed, median iterations per second and median seconds per search."""
    config = config or {}
    found = positions(game, games, every, seed, config)
    if not found:
        raise ValueError(f"no position with a choice in {games} random game(s) of {game}")
    env = envs.make(game, **config)
    rows = []
    for spec in specs:
        agent = make_agent(spec, game, seed=seed)
        rates, seconds = [], []
        for game_seed, moves in found:
            _replay(env, game_seed, moves)
            observation = env.observe(env.agent_selection)
            agent.act(observation, env)  # untimed: compiles and touches the buffers
            start = time.perf_counter()
            agent.act(observation, env)
            spent = time.perf_counter() - start
            rates.append(agent.last_iterations / spent)
            seconds.append(spent)
        rows.append(
            {
                "agent": spec,
                "positions": len(found),
                "iterations_per_second": float(np.median(rates)),
                "seconds_per_search": float(np.median(seconds)),
            }
        )
    return rows


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
