"""`tabuleiro export CHECKPOINT FILE`: a trained policy as one plain array file (``agents.compiled_policy``).

The file plays in the arena as ``policy:FILE`` without torch or Ray. `tabuleiro train` writes one beside every
checkpoint (``OUT/policy.npz``); this converts older runs. The options and the output path are checked before
torch and Ray are imported (they come with the rl extra).
"""

import argparse
import os
from pathlib import Path

import envs
from tabuleiro.options import add_config_option, check_output_file, key_values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro export`."""
    parser.add_argument(
        "checkpoint",
        help="a `tabuleiro train` run folder, its checkpoint/ folder, or an RLModule folder (then give --game)",
    )
    parser.add_argument("file", help="the policy file to write, e.g. capivari.npz (replaced atomically)")
    parser.add_argument(
        "--game",
        default=None,
        help="the game the module was trained on, when the checkpoint does not say (no tabuleiro_train.json)",
    )
    add_config_option(parser, "with --game: a game config knob the module was trained with; repeatable")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="load a checkpoint that has no manifest to check it against (older runs, RLlib's own): a checkpoint "
        "is pickles, code that runs when loaded; say so only for one whose source you trust",
    )


def run(args: argparse.Namespace) -> int:
    """`tabuleiro export`: 0 with the file written; a ValueError (exit 2) for a checkpoint that is not one, fails its
    manifest (or has none, without --trust-checkpoint), a game or config that disagrees with it, or a model the
    compiled forward pass does not evaluate."""
    if not Path(args.checkpoint).is_dir():
        raise ValueError(f"{args.checkpoint!r} is not a folder (give a run folder or its checkpoint)")
    game = envs.game_name(args.game) if args.game else None
    config = key_values(args.config, "--config")
    if config and game is None:
        raise ValueError("--config needs --game (a run folder records its own config)")
    if game is not None:
        envs.make(game, **config)  # an unknown knob or a value out of range is refused here
    out = check_output_file(args.file, "FILE")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    from agents.compiled_policy import load_policy
    from training.export import export_checkpoint  # optional: imports torch and ray (the rl extra)

    written = export_checkpoint(
        args.checkpoint, out, game=game, game_config=config or None, trust=args.trust_checkpoint
    )
    policy = load_policy(written)
    info = policy.info
    print(
        f"wrote {written}: {info.game} {info.model['kind']} policy, {policy.params.size:,} weights, "
        f"{written.stat().st_size:,} bytes; play it with policy:{written}"
    )
    return 0
