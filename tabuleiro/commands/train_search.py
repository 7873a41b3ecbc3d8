"""`tabuleiro train GAME --algo exit`: training from search (``training.search_training``), then PPO's evaluation.

Which algorithm a `tabuleiro train` runs (``algo_of``): ``--algo``, or on ``--resume`` the one the run's checkpoint
records (a PPO checkpoint records none). Options that only PPO has are refused here with their names.
"""

import argparse
import json
from pathlib import Path
from typing import Any

import envs
from agents.policy_average import AVERAGE_FILE
from envs.files import write_atomic

ALGOS = ("ppo", "exit")
CHECKPOINT_NAMES = ("checkpoint", "checkpoint.tmp", "checkpoint.old")
TRAIN_INFO = "tabuleiro_train.json"
_PPO_ONLY = {
    "pool": "--pool",
    "num_env_runners": "--num-env-runners",
    "envs_per_runner": "--envs-per-runner",
    "num_learners": "--num-learners",
    "address": "--address",
    "trust_checkpoint": "--trust-checkpoint",
}


def recorded_algo(run: Path) -> str | None:
    """The ``algo`` a run folder's checkpoint records in its JSON info (``"ppo"`` when it names none), or None when
    no checkpoint info is there (read as text, nothing unpickled)."""
    folder = run.parent if run.name in CHECKPOINT_NAMES else run
    for name in CHECKPOINT_NAMES:
        try:
            info = json.loads((folder / name / TRAIN_INFO).read_text())
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(info, dict):
            algo = info.get("algo", "ppo")
            return algo if algo in ALGOS else None
    return None


def algo_of(args: argparse.Namespace) -> str:
    """``--algo`` (default ``ppo``); with ``--resume``, the run's own, and ValueError if ``--algo`` names another."""
    given = getattr(args, "algo", None)
    if not args.resume:
        return given or "ppo"
    recorded = recorded_algo(Path(args.resume)) or "ppo"
    if given is not None and given != recorded:
        raise ValueError(f"--resume {args.resume!r} was trained with --algo {recorded}, not {given}")
    return recorded


def run_search(
    args: argparse.Namespace,
    game: str,
    game_config: dict[str, Any],
    given_settings: dict[str, Any],
    out: Path,
    minutes: float | None,
) -> int:
    """Train from search into ``out``, then evaluate ``out/policy.npz`` (argmax) against random and the heuristic
    into ``evaluation.json``; 130 or 143 after Ctrl-C or SIGTERM (a checkpoint saved, no evaluation)."""
    for attr, flag in _PPO_ONLY.items():
        if getattr(args, attr, None) not in (None, False):
            raise ValueError(f"{flag} is an option of --algo ppo, not of --algo exit")
    import torch  # optional: the rl extra, imported once the options are checked

    from training.search_training import checked_settings, train_from_search

    settings = None if args.resume else checked_settings(game, game_config, args.seed, given_settings)
    # one thread by default: the minibatches are small and the search is single-threaded; on a busy 2-core machine
    # two torch threads made an update ~10x slower (docs/training.md, "Training from search")
    torch.set_num_threads(args.torch_threads or 1)
    print(f"training {game} {game_config or ''} from search (--algo exit) -> {out}", flush=True)
    meta = train_from_search(
        settings,
        out,
        minutes=minutes,
        iterations=args.iterations,
        resume=args.resume,
        checkpoint_every=args.checkpoint_every,
        echo=lambda line: print(line, flush=True),
    )
    if meta.get("interrupted"):
        print(f"stopped ({meta['interrupted']}): no evaluation; continue with tabuleiro train {game} --resume {out}")
        return 143 if meta["interrupted"] == "SIGTERM" else 130
    if args.eval_games > 0:
        rows = evaluate_policy(out, meta["game"], meta["game_config"], args.eval_games, args.seed)
        report = {"training": meta, "evaluation": rows}
        if (out / AVERAGE_FILE).is_file():  # kept with --set average_after_minutes
            print(f"evaluation of {AVERAGE_FILE} (the weights' mean of the policies saved late in the run)", flush=True)
            report["evaluation_average"] = evaluate_policy(
                out / AVERAGE_FILE, meta["game"], meta["game_config"], args.eval_games, args.seed
            )
        write_atomic(out / "evaluation.json", json.dumps(report, indent=1))
    return 0


def evaluate_policy(out: Path, game: str, game_config: dict[str, Any], games: int, seed: int) -> list[dict[str, Any]]:
    """The run's ``policy.npz`` (or the policy file ``out``), argmax, against random and the heuristic, as PPO's
    final evaluation plays."""
    from agents.compiled_policy import load_agent
    from training.evaluate import evaluate, format_row

    if out.is_dir():
        print(f"evaluation: {games} games per opponent, trained policy plays argmax, seats rotate", flush=True)
    agent = load_agent(out, game)
    rows = []
    for opponent in ["random"] + (["heuristic"] if envs.spec(game).heuristic is not None else []):
        row = evaluate(agent, game, opponent, games, seed=seed + 1, game_config=game_config)
        print(format_row(row), flush=True)
        rows.append(row)
    return rows
