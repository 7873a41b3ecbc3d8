"""`tabuleiro train GAME`: self-play PPO on this machine or a Ray cluster, then an evaluation with 95% intervals.

Every option and the run folder are checked before ray and torch are imported (they come with the rl extra).
"""

import argparse
import dataclasses
import json
import math
import os
import time
from pathlib import Path

import envs
from agents.policy_average import AVERAGE_FILE
from envs.files import write_atomic
from tabuleiro.commands.train_search import ALGOS, algo_of, run_search
from tabuleiro.options import (
    MAX_ITERATIONS,
    MAX_MINUTES,
    add_config_option,
    add_eval_games_option,
    add_minutes_option,
    add_players_option,
    add_set_option,
    check_output_dir,
    checked,
    int_option,
    key_values,
    seed_option,
)
from training.opponents import PoolWeights
from training.run import default_torch_threads, final_evaluation, game_config_for


def _pool_weights(text: str) -> str:
    """``--pool``: kinds and weights checked (finite, >= 0, not all 0) before any work; the text itself."""
    weights = PoolWeights.parse(text)
    bad = {k: w for k, w in vars(weights).items() if not math.isfinite(w)}
    if bad:
        raise ValueError(f"pool weights must be finite numbers, got {bad}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro train` (every number bounded: a value out of range is refused at once)."""
    parser.add_argument("game", help="game to train on (capivari, horizonte, dorfromantik_duel; see `tabuleiro games`)")
    add_players_option(parser)
    budget = parser.add_mutually_exclusive_group()
    add_minutes_option(
        budget, f"training time budget in (0, {MAX_MINUTES:g}] (a week), total across resumes (default 20)"
    )
    budget.add_argument(
        "--iterations",
        type=int_option(1, MAX_ITERATIONS),
        help=f"PPO iterations, 1..{MAX_ITERATIONS:,}, total across resumes",
    )
    parser.add_argument("--out", help="run folder (default runs/GAME-DATE-TIME; with --resume, the resumed folder)")
    parser.add_argument("--resume", metavar="DIR", help="continue an interrupted run from its folder or checkpoint")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="with --resume: load a checkpoint that has no manifest to check it against (older runs): a checkpoint "
        "is pickles, code that runs when loaded; say so only for one whose source you trust",
    )
    parser.add_argument(
        "--num-env-runners",
        type=int_option(0, 1024),
        help="remote sampling processes, 0..1024 (default 0: sample here)",
    )
    parser.add_argument(
        "--envs-per-runner",
        type=int_option(1, 4096),
        help="games stepped in one compiled call per env runner (default 256)",
    )
    parser.add_argument(
        "--num-learners", type=int_option(0, 256), help="remote learner processes, 0..256 (default 0: learn here)"
    )
    parser.add_argument("--address", help="an existing Ray cluster, e.g. 'auto' after `ray start --head`")
    parser.add_argument(
        "--seed", type=seed_option, default=0, help="seeds the networks, opponent draws and games (0..2**32-1)"
    )
    parser.add_argument(
        "--pool",
        type=checked("pool", _pool_weights),
        help="opponent kind weights (random, heuristic, policy, snapshot, self, search), e.g. "
        "random=0.2,heuristic=0.5,snapshot=0.3,search=0",
    )
    add_config_option(parser, "a game config knob (see `tabuleiro games GAME`), e.g. placement_prior=true; repeatable")
    add_set_option(
        parser,
        "a training setting over the game's preset (training.config.TrainSettings; JSON values), e.g. "
        "lr=5e-4, hiddens=[128,128], action_prior=placement_prior; repeatable",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int_option(1, MAX_ITERATIONS),
        default=10,
        help="iterations between checkpoints (default 10)",
    )
    add_eval_games_option(
        parser, "games per opponent in the final evaluation (default 500; 0: none)", default=500, lowest=0
    )
    parser.add_argument(
        "--torch-threads",
        type=int_option(1, 1024),
        default=None,
        help="torch threads in this process (default: one per CPU; forward passes and PPO's updates are batched)",
    )
    parser.add_argument(
        "--algo",
        choices=ALGOS,
        help="ppo (the default): self-play PPO with RLlib; exit: expert iteration, the guided search's visit counts "
        "and the games' outcomes as targets (--set expert=ismcts: imitate IS-MCTS, with --set policy_target=values "
        "learn its action values; --set expert=network --set policy_target=q: Deep Monte Carlo; --set expert=solver "
        "--set teacher=FILE: that file's policy, corrected where the game solves a position; docs/training.md, "
        "'Training from search'); --resume takes the run's own",
    )


def run(args: argparse.Namespace) -> int:
    """`tabuleiro train`: see ``add_arguments``. Every option and the run folder are checked before Ray starts;
    Ctrl-C or SIGTERM during training saves a checkpoint, skips the evaluation and exits with 130 or 143."""
    resources = {
        "num_env_runners": args.num_env_runners,
        "num_envs_per_env_runner": args.envs_per_runner,
        "num_learners": args.num_learners,
    }
    for key, value in resources.items():
        if value is not None and value < (1 if key == "num_envs_per_env_runner" else 0):
            raise ValueError(f"--{key.replace('_', '-')} must be >= {1 if key == 'num_envs_per_env_runner' else 0}")
    game = envs.game_name(args.game)
    game_config = game_config_for(game, args.players)
    given_config = key_values(args.config, "--config")
    if args.players is not None and given_config.get("num_players", args.players) != args.players:
        raise ValueError(f"--players {args.players} and --config num_players={given_config['num_players']} differ")
    game_config = {**game_config, **given_config}
    envs.make(game, **game_config)  # an unknown knob or a value out of range is refused here
    given_settings = key_values(args.settings, "--set")
    if args.resume and (given_config or given_settings):
        raise ValueError("--resume continues a run with its own settings: no --config or --set with it")
    if args.resume and not Path(args.resume).is_dir():
        raise ValueError(f"--resume: {args.resume!r} is not a folder (give a run folder or its checkpoint)")
    if args.out:
        out = Path(args.out)
    elif args.resume:
        out = Path(args.resume)
        out = out.parent if out.name in ("checkpoint", "checkpoint.tmp", "checkpoint.old") else out
    else:
        out = Path("runs") / f"{game.rsplit('_v', 1)[0]}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_output_dir(out, "--out")  # before Ray starts: a trained policy is never lost to the path
    minutes = args.minutes if args.minutes is not None or args.iterations is not None else 20.0
    if algo_of(args) == "exit":
        return run_search(args, game, game_config, given_settings, out, minutes)

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    import torch  # optional: the rl extra, imported once the options are checked

    from training.config import checked_overrides, settings_for  # optional: imports ray (the rl extra)
    from training.loop import train  # optional: imports ray (the rl extra)

    torch.set_num_threads(args.torch_threads or default_torch_threads())
    pool = PoolWeights.parse(args.pool) if args.pool else None
    settings = settings_for(game, game_config=game_config, seed=args.seed, pool=pool, **resources)
    settings = dataclasses.replace(settings, **checked_overrides(given_settings))  # before Ray starts
    if settings.shaping is not None:
        envs.spec(game).potential(settings.shaping)  # a name the game has no potential for is refused here
    print(f"training {settings.game} {game_config or ''} -> {out}", flush=True)
    meta = train(
        None if args.resume else settings,
        out,
        minutes=minutes,
        iterations=args.iterations,
        resume=args.resume,
        address=args.address,
        checkpoint_every=args.checkpoint_every,
        echo=lambda line: print(line, flush=True),
        trust_checkpoint=args.trust_checkpoint,
        **resources,
    )
    if meta.get("interrupted"):
        print(f"stopped ({meta['interrupted']}): no evaluation; continue with tabuleiro train {game} --resume {out}")
        return 143 if meta["interrupted"] == "SIGTERM" else 130
    if args.eval_games > 0:
        print(f"evaluation: {args.eval_games} games per opponent, trained policy plays argmax, seats rotate")
        rows = final_evaluation(out / "checkpoint", meta["game"], meta["game_config"], args.eval_games, args.seed)
        report = {"training": meta, "evaluation": rows}
        average = out / AVERAGE_FILE
        if average.is_file():  # kept with --set average_after_minutes
            print(f"evaluation of {AVERAGE_FILE} (the weights' mean of the policies saved late in the run), as above")
            report["evaluation_average"] = final_evaluation(
                out / "checkpoint", meta["game"], meta["game_config"], args.eval_games, args.seed, policy_file=average
            )
        write_atomic(out / "evaluation.json", json.dumps(report, indent=1))
    return 0
