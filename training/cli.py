"""`tabuleiro train GAME`: self-play PPO on this machine or a Ray cluster, then an evaluation with 95% intervals."""

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro train`."""
    parser.add_argument("game", help="game to train on (capivari, horizonte, dorfromantik_duel; see `tabuleiro games`)")
    parser.add_argument("--players", type=int, help="seats at the table, for games with a num_players knob")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help="training time budget, total across resumes (default 20)")
    budget.add_argument("--iterations", type=int, help="PPO iterations, total across resumes")
    parser.add_argument("--out", help="run folder (default runs/GAME-DATE-TIME; with --resume, the resumed folder)")
    parser.add_argument("--resume", metavar="DIR", help="continue an interrupted run from its folder or checkpoint")
    parser.add_argument("--num-env-runners", type=int, help="remote sampling processes (default 0: sample here)")
    parser.add_argument("--envs-per-runner", type=int, help="games stepped side by side per env runner (default 32)")
    parser.add_argument("--num-learners", type=int, help="remote learner processes (default 0: learn here)")
    parser.add_argument("--address", help="an existing Ray cluster, e.g. 'auto' after `ray start --head`")
    parser.add_argument("--seed", type=int, default=0, help="seeds the networks, opponent draws and games")
    parser.add_argument("--pool", help="opponent kind weights, e.g. random=0.2,heuristic=0.5,snapshot=0.3,self=0")
    parser.add_argument("--checkpoint-every", type=int, default=10, help="iterations between checkpoints")
    parser.add_argument("--eval-games", type=int, default=500, help="games per opponent in the final evaluation")
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads in this process (default 1)")


def game_config_for(game: str, players: int | None) -> dict[str, Any]:
    """``{"num_players": K}`` where the game has that knob; ValueError if K does not fit the game."""
    import envs

    if players is None:
        return {}
    env = envs.make(game)
    fields = getattr(env.game.config_cls, "__dataclass_fields__", {})
    if "num_players" in fields:
        envs.make(game, num_players=players)  # validates the count
        return {"num_players": players}
    if players != len(env.possible_agents):
        raise ValueError(f"{env.game.name} is played by {len(env.possible_agents)} players, not {players}")
    return {}


def final_evaluation(checkpoint: Path, game: str, game_config: dict, games: int, seed: int) -> list[dict[str, Any]]:
    """The trained policy (argmax, loaded as an arena agent would be) against random and the heuristic."""
    from agents.registry import HEURISTICS, game_name
    from agents.rllib_policy import load_agent
    from training.evaluate import evaluate, format_row

    agent = load_agent(checkpoint, game)
    rows = []
    opponents = ["random"] + (["heuristic"] if game_name(game) in HEURISTICS else [])
    for opponent in opponents:
        t0 = time.perf_counter()
        row = evaluate(agent, game, opponent, games, seed=seed + 1, game_config=game_config)
        row["seconds"] = round(time.perf_counter() - t0, 1)
        print(format_row(row), flush=True)
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    """`tabuleiro train`: see ``add_arguments``."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    import torch

    from training.config import settings_for
    from training.loop import train
    from training.opponents import PoolWeights

    torch.set_num_threads(max(1, args.torch_threads))
    resources = {
        "num_env_runners": args.num_env_runners,
        "num_envs_per_env_runner": args.envs_per_runner,
        "num_learners": args.num_learners,
    }
    for key, value in resources.items():
        if value is not None and value < (1 if key == "num_envs_per_env_runner" else 0):
            raise ValueError(f"--{key.replace('_', '-')} must be >= {1 if key == 'num_envs_per_env_runner' else 0}")
    game_config = game_config_for(args.game, args.players)
    pool = PoolWeights.parse(args.pool) if args.pool else None
    settings = settings_for(args.game, game_config=game_config, seed=args.seed, pool=pool, **resources)
    if args.out:
        out = Path(args.out)
    elif args.resume:
        out = Path(args.resume)
        out = out.parent if out.name == "checkpoint" else out
    else:
        out = Path("runs") / f"{settings.game.rsplit('_v', 1)[0]}-{time.strftime('%Y%m%d-%H%M%S')}"
    minutes = args.minutes if args.minutes is not None or args.iterations is not None else 20.0
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
        **resources,
    )
    if args.eval_games > 0:
        print(f"evaluation: {args.eval_games} games per opponent, trained policy plays argmax, seats rotate")
        rows = final_evaluation(out / "checkpoint", meta["game"], meta["game_config"], args.eval_games, args.seed)
        (out / "evaluation.json").write_text(json.dumps({"training": meta, "evaluation": rows}, indent=1))
    return 0
