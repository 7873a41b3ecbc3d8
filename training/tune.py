"""A small Ray Tune sweep over PPO settings for one game: ``python -m training.tune capivari --minutes 5``.

Each trial is our self-play PPO (same env, masking module and pool as ``tabuleiro train``); Tune gets
the ``PPO`` class itself (not the string "PPO"), and ranks trials by the win rate against the pool's
non-mirror opponents over the last iteration (``selfplay/win_rate``).
"""

import argparse
import os
from typing import Any

METRIC = "selfplay/win_rate"

# a small grid: learning rate x entropy bonus (6 trials)
DEFAULT_SPACE = {"lr": [1e-4, 3e-4, 1e-3], "entropy_coeff": [0.0, 0.01]}


def sweep(
    game: str,
    minutes_per_trial: float,
    space: dict[str, list[Any]] | None = None,
    storage: str | None = None,
    address: str | None = None,
    seed: int = 0,
    **settings: Any,
) -> Any:
    """Run the grid; returns Tune's ``ResultGrid`` (``.get_best_result()`` has the best config and path)."""
    from ray import tune  # optional heavy: ray (the rl extra)
    from ray.rllib.algorithms.ppo import PPO  # optional heavy: ray

    from training.config import build_config, settings_for  # imports ray
    from training.loop import init_ray  # imports ray

    init_ray(address)
    config = build_config(settings_for(game, seed=seed, **settings))
    grid = {k: tune.grid_search(list(v)) for k, v in (space or DEFAULT_SPACE).items()}
    config = config.training(**grid)
    tuner = tune.Tuner(
        PPO,
        param_space=config,
        tune_config=tune.TuneConfig(metric=METRIC, mode="max"),
        run_config=tune.RunConfig(
            name=f"sweep-{game}",
            storage_path=os.path.abspath(storage) if storage else None,
            stop={"time_total_s": 60.0 * minutes_per_trial},
            checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True),
            verbose=1,
        ),
    )
    return tuner.fit()


def main(argv: list[str] | None = None) -> int:
    """Command line: the game, minutes per trial, where Tune keeps its results."""
    parser = argparse.ArgumentParser(prog="python -m training.tune", description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--minutes", type=float, default=5.0, help="training time per trial")
    parser.add_argument("--storage", default="runs/tune", help="folder for Tune's trial results")
    parser.add_argument("--address", help="an existing Ray cluster, e.g. 'auto'")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    grid = sweep(args.game, args.minutes, storage=args.storage, address=args.address, seed=args.seed)
    best = grid.get_best_result()
    print(f"best {METRIC} = {best.metrics.get('selfplay', {}).get('win_rate')}: {best.config and _picked(best)}")
    print(f"checkpoint: {best.checkpoint}")
    return 0


def _picked(result: Any) -> dict[str, Any]:
    return {k: result.config.get(k) for k in DEFAULT_SPACE}


if __name__ == "__main__":
    raise SystemExit(main())
