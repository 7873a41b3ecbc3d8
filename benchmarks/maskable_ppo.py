"""sb3-contrib's MaskablePPO, default settings, on a game's single-agent env: train, then play seat-rotated games.

    python -m benchmarks.maskable_ppo capivari --steps 100000 --games 200

Trains ``MaskablePPO("MlpPolicy", env)`` with sb3-contrib's defaults on ``training.single_agent.SingleAgentEnv``
(the learner's seat rotating game by game, the opponents moving inside the compiled step), then plays ``--games``
games against the same opponents from a different seed, seats rotated evenly, the policy's most likely legal
action each turn, and prints the win rate (the learner alone first) with a 95% Wilson interval, per seat too.
Needs the ``clients`` extra (stable-baselines3, sb3-contrib). Measured figures: docs/clients.md.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import envs
from agents.results import wilson_interval
from envs.files import write_atomic
from training.single_agent import OPPONENTS, SingleAgentEnv

MAX_STEPS = 100_000_000
MAX_GAMES = 1_000_000
EVAL_SEED_OFFSET = 1_000_003  # evaluation games come from seed + this: none of them is a training game's seed


def train(game: str, steps: int, seed: int, opponents: str, **config: Any) -> Any:
    """A MaskablePPO with sb3-contrib's default settings, trained ``steps`` learner decisions."""
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(game, opponents=opponents, **config)
    model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", verbose=0)
    model.learn(total_timesteps=steps)
    return model


def evaluate(model: Any, game: str, games: int, seed: int, opponents: str, **config: Any) -> dict[str, Any]:
    """``games`` games with seats rotated (game k from seat k % players): wins, per seat, mean return."""
    env = SingleAgentEnv(game, opponents=opponents, **config)
    wins = np.zeros(env.num_players, np.int64)
    played = np.zeros(env.num_players, np.int64)
    total = 0.0
    obs, info = env.reset(seed=seed)
    while played.sum() < games:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, reward, terminated, _, info = env.step(action)
        total += reward
        if info["illegal_move"]:
            raise RuntimeError("the trained policy played an illegal move")
        if terminated:
            played[info["learner_seat"]] += 1
            wins[info["learner_seat"]] += int(info["won"])
            obs, info = env.reset()
    lo, hi = wilson_interval(int(wins.sum()), games)
    return {
        "games": games,
        "wins": int(wins.sum()),
        "win_rate": float(wins.sum() / games),
        "wilson95": [lo, hi],
        "per_seat": [{"seat": s, "games": int(played[s]), "wins": int(wins[s])} for s in range(env.num_players)],
        "mean_return": total / games,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", help="a registered game (capivari, kuhn_poker, ...)")
    ap.add_argument("--steps", type=int, default=100_000, help=f"learner decisions to train, 1..{MAX_STEPS:,}")
    ap.add_argument("--games", type=int, default=200, help=f"evaluation games, 1..{MAX_GAMES:,}")
    ap.add_argument("--opponents", default="random", choices=OPPONENTS, help="whom the learner plays")
    ap.add_argument("--seed", type=int, default=0, help="training seed; evaluation games use another")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the network is small)")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args(argv)
    try:
        game = envs.game_name(args.game)
    except ValueError as e:
        ap.error(str(e))
    if not 1 <= args.steps <= MAX_STEPS:
        ap.error(f"--steps must be in 1..{MAX_STEPS:,}")
    if not 1 <= args.games <= MAX_GAMES:
        ap.error(f"--games must be in 1..{MAX_GAMES:,}")
    if not 0 <= args.seed < 2**32:
        ap.error("--seed must be in 0..2**32-1")
    if not 1 <= args.threads <= (os.cpu_count() or 1):
        ap.error(f"--threads must be in 1..{os.cpu_count() or 1}")
    if args.json and (Path(args.json).is_dir() or not os.access(Path(args.json).resolve().parent, os.W_OK)):
        ap.error(f"cannot write {args.json!r}")
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError as e:
        ap.error(f"needs the clients extra (pip install -e '.[clients]'): {e}")
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    model = train(game, args.steps, args.seed, args.opponents)
    trained = time.perf_counter()
    result = evaluate(model, game, args.games, args.seed + EVAL_SEED_OFFSET, args.opponents)
    done = time.perf_counter()
    lo, hi = result["wilson95"]
    seats = ", ".join(f"seat {r['seat']}: {r['wins']}/{r['games']}" for r in result["per_seat"])
    print(
        f"MaskablePPO (sb3-contrib defaults) on {game}, {args.steps:,} steps against {args.opponents}: "
        f"won {result['wins']}/{result['games']} = {100 * result['win_rate']:.1f}% "
        f"[{100 * lo:.1f}, {100 * hi:.1f}] (95% Wilson); {seats}; mean return {result['mean_return']:+.3f}; "
        f"train {trained - started:.0f} s, play {done - trained:.0f} s"
    )
    if args.json:
        record = {"game": game, "steps": args.steps, "opponents": args.opponents, "seed": args.seed, **result}
        record["seconds"] = {"train": trained - started, "play": done - trained}
        write_atomic(args.json, json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
