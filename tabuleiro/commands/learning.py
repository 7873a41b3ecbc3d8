"""`tabuleiro learning GAME`: the learning-target measurement (``benchmarks.learning``); never part of CI.

Trains for 20 minutes with ``tabuleiro train``'s loop (or reads a finished run: ``--from-run``), evaluates
the policy against random and the heuristic, compares with the game's targets and the raw env speed, and
writes ``learning.json`` and ``learning.png`` into the run folder.
"""

import argparse
import json
import os
from pathlib import Path

import envs
from benchmarks.learning import check_targets, plot, raw_env_rates, summarize, targets
from envs.files import write_atomic
from tabuleiro.options import (
    MAX_MINUTES,
    add_eval_games_option,
    add_minutes_option,
    add_players_option,
    check_output_dir,
    seed_option,
)
from training.run import default_torch_threads, final_evaluation, game_config_for

SHOWN = ("targets", "learner_decisions_per_s_median", "decisions_per_s_median", "raw_env")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro learning`."""
    parser.add_argument("game", help="game name, e.g. capivari (see `tabuleiro games`)")
    add_minutes_option(parser, f"training time budget in (0, {MAX_MINUTES:g}] (default 20)", default=20.0)
    add_players_option(parser, "default: the target's table size (4 for horizonte)")
    parser.add_argument("--out", help="run folder (default runs/learning-GAME)")
    parser.add_argument("--from-run", help="report on this finished `tabuleiro train` run instead of training")
    add_eval_games_option(parser, "games per opponent in the final evaluation (default 1000)", default=1000)
    parser.add_argument("--seed", type=seed_option, default=0, help="seeds the training and the evaluation (default 0)")


def run(args: argparse.Namespace) -> int:
    """Train (or read ``--from-run``), evaluate, compare with the raw env, write JSON and PNG. The game and the
    run folder are checked before ray and torch are imported."""
    game = envs.game_name(args.game)
    run_dir = Path(args.from_run or args.out or f"runs/learning-{game.rsplit('_v', 1)[0]}")
    if args.from_run and not (run_dir / "progress.jsonl").is_file():
        raise ValueError(f"--from-run: {str(run_dir)!r} has no progress.jsonl (not a finished tabuleiro train run)")
    check_output_dir(run_dir, "--from-run" if args.from_run else "--out")  # learning.json/png go there
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if not args.from_run:
        import torch  # optional: the rl extra, imported once the options are checked

        from training.config import settings_for  # optional: imports ray (the rl extra)
        from training.loop import train  # optional: imports ray (the rl extra)

        torch.set_num_threads(default_torch_threads())
        players = args.players or targets(game).get("players")
        settings = settings_for(game, game_config=game_config_for(game, players) or None, seed=args.seed)
        train(settings, run_dir, minutes=args.minutes, checkpoint_every=20, echo=lambda line: print(line, flush=True))
    report = summarize(run_dir)
    if "evaluation" not in report:
        meta = json.loads((run_dir / "checkpoint" / "tabuleiro_train.json").read_text())
        report["game"], report["game_config"] = meta["game"], meta["game_config"]
        report["evaluation"] = final_evaluation(
            run_dir / "checkpoint", game, meta["game_config"], args.eval_games, args.seed
        )
    report["targets"] = check_targets(game, report["evaluation"])
    report["raw_env"] = raw_env_rates(game, report["game_config"])
    report["cpus"] = os.cpu_count()
    write_atomic(run_dir / "learning.json", json.dumps(report, indent=1))
    plot(run_dir, report, run_dir / "learning.png")
    print(json.dumps({k: report[k] for k in SHOWN}, indent=1))
    print(f"wrote {run_dir / 'learning.json'} and {run_dir / 'learning.png'}")
    return 0
