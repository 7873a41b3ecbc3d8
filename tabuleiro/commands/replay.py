"""`tabuleiro replay FILE`: re-simulate a recorded game step by step, check it, show or draw every step."""

import argparse
from pathlib import Path

from envs.files import save_image
from envs.replay import MAX_SEATS, add_rewards, check_outcome, load, make_env, steps
from tabuleiro import __version__
from tabuleiro.move_text import move_text
from tabuleiro.options import check_output_dir, int_option


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro replay`."""
    parser.add_argument(
        "file", help="a replay (JSON) written by `tabuleiro play --save` or `tabuleiro arena --replays`"
    )
    parser.add_argument(
        "--seat",
        type=int_option(0, MAX_SEATS - 1),
        default=None,
        help="show the game as this seat saw it (default: a spectator sees all)",
    )
    parser.add_argument(
        "--png", default=None, metavar="DIR", help="write one picture per step: DIR/step_000.png (the start), ..."
    )
    parser.add_argument("--quiet", action="store_true", help="print only the moves and the check, not the tables")


def run(args: argparse.Namespace) -> int:
    """`tabuleiro replay`: 0 when the re-simulation matches the file; a ValueError (exit 2) says where it does not
    (a malformed file, a field out of range, another rules version, an illegal step, another outcome)."""
    replay = load(args.file)
    env = make_env(replay, render_mode="ansi")
    n = len(env.possible_agents)
    if args.seat is not None and not 0 <= args.seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for this replay, got {args.seat}")
    env.render_seat = args.seat
    png_dir = None
    if args.png:
        if not env.game.has_rgb:
            raise ValueError(f"{env.game.name} has no picture renderer")
        png_dir = check_output_dir(args.png, "--png")  # before the first step is drawn
    seats = ", ".join(f"player_{p} {spec}" for p, spec in enumerate(replay.agents))
    view = "a spectator (sees everything)" if args.seat is None else f"player_{args.seat}"
    print(f"replay {args.file}: {replay.game} (rules {replay.rules_version}), seed {replay.seed}, {seats}")
    print(f"{len(replay.actions)} moves, recorded by tabuleiro {replay.tabuleiro_version}; viewed as {view}")
    if replay.tabuleiro_version != __version__:
        print(f"(this is tabuleiro {__version__}; the rules version matches, so the moves replay exactly)")
    returns = [0.0] * n
    width = max(3, len(str(len(replay.actions))))
    for step in steps(replay, env):
        if step.index:
            add_rewards(returns, env)
            told = move_text(env.game, step.seat, env.game.action_from_name(step.action), args.seat)
            print(f"\nstep {step.index}/{len(replay.actions)}: {told} ({replay.agents[step.seat]})")
        else:
            print("\nstart")
        if not args.quiet:
            print(env.render())
        if png_dir is not None:
            _write_png(png_dir / f"step_{step.index:0{width}d}.png", env)
    check_outcome(replay, env, returns)
    scores = f", final scores {replay.scores}" if replay.scores is not None else ""
    print(f"\nre-simulated exactly: returns {returns}{scores} match the replay")
    if png_dir is not None:
        print(f"pictures: {png_dir}/step_*.png ({len(replay.actions) + 1})")
    return 0


def _write_png(path: Path, env: object) -> None:
    save_image(path, env.game.render_rgb(env.core_state, env.render_seat))  # whole or not at all
