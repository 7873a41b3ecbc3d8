"""`tabuleiro`: the console command. Each subcommand lives in its package and is imported on use."""

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (module with add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "games": ("tabuleiro.cli", "list the games, their players, actions and config knobs"),
    "demo": ("benchmarks.demo", "the main job: seeded random-vs-random games, a result table, steps/s"),
    "bench": ("benchmarks.throughput", "throughput of every game beside OpenSpiel and PettingZoo, in one run"),
    "train": ("training.cli", "self-play PPO with Ray RLlib (this machine or a cluster), then an evaluation"),
    "arena": ("benchmarks.arena", "tournaments between agents: win rates with CIs, head-to-head, OpenSkill ratings"),
    "play": ("benchmarks.play", "play one seat yourself against agents in the terminal; save the game as a replay"),
    "replay": ("benchmarks.replay_cmd", "re-simulate a saved game exactly, step by step, as text or PNG pictures"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro games`."""
    parser.add_argument("name", nargs="?", help="show one game only")


def run(args: argparse.Namespace) -> int:
    """`tabuleiro games`: every registered game with its seats, action count and config knobs."""
    import envs
    from envs.engine.config import describe_config

    names = [args.name] if args.name else sorted(envs.GAMES)
    for name in names:
        env = envs.make(name)
        game = env.game
        doc = (sys.modules[envs.GAMES[game.name]].__doc__ or "").strip().splitlines()
        title = doc[0].lstrip("# ") if doc else game.name
        print(f"{game.name}  ({title})")
        print(f"  players: {len(env.possible_agents)}  actions: {game.num_actions}  observation: {game.obs_size}")
        print(f"  rules: seeds/{game.name.rsplit('_v', 1)[0]}.md")
        print("  config knobs (keyword arguments of env()/make()):")
        for key, default, allowed in describe_config(game.config_cls):
            print(f"    {key:<18} default {default!r:<8} {allowed}")
        print()
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand (each subcommand module adds its own arguments)."""
    parser = argparse.ArgumentParser(
        prog="tabuleiro",
        description="Imperfect-information tabletop games as fast PettingZoo environments.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:  # e.g. an optional extra is not installed: say so when used
            p = sub.add_parser(name, help=f"{help_text} [unavailable: {exc}]", add_help=False)
            p.add_argument("rest", nargs=argparse.REMAINDER)
            p.set_defaults(_module=None, _missing=str(exc))
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        mod.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `tabuleiro` command."""
    args = build_parser().parse_args(argv)
    if args._module is None:
        print(f"tabuleiro {args.command}: unavailable here: {args._missing}", file=sys.stderr)
        return 2
    mod = importlib.import_module(args._module)
    try:
        return int(mod.run(args) or 0)
    except ValueError as exc:  # bad input: say what is wrong, no traceback
        print(f"tabuleiro {args.command}: error: {exc}", file=sys.stderr)
        return 2
