"""`tabuleiro`: the console command. Each subcommand is a module of ``tabuleiro.commands`` with
``add_arguments(parser)`` and ``run(args) -> int``; the helpers they share are in ``tabuleiro.options``.
"""

import argparse
import importlib
import sys
from collections.abc import Sequence

from tabuleiro.options import Terminated, sigterm_as_interrupt

# name -> (module with add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "games": ("tabuleiro.commands.games", "list the games, their players, actions and config knobs"),
    "demo": ("tabuleiro.commands.demo", "the main job: seeded random-vs-random games, a result table, steps/s"),
    "bench": ("tabuleiro.commands.bench", "throughput of every game beside OpenSpiel, PettingZoo and Pgx, in one run"),
    "train": (
        "tabuleiro.commands.train",
        "self-play PPO with Ray RLlib (this machine or a cluster), then an evaluation",
    ),
    "export": (
        "tabuleiro.commands.export",
        "a trained checkpoint as one plain policy file (.npz), played as policy:FILE without torch or Ray",
    ),
    "average": (
        "tabuleiro.commands.average",
        "policy files of one layout averaged weight by weight into one (stochastic weight averaging)",
    ),
    "learning": (
        "tabuleiro.commands.learning",
        "the learning-target measurement: train (20 min), evaluate, compare with the targets, plot; not CI",
    ),
    "arena": (
        "tabuleiro.commands.arena",
        "tournaments between agents: win rates with CIs, head-to-head, OpenSkill ratings",
    ),
    "play": (
        "tabuleiro.commands.play",
        "play one seat yourself against agents in the terminal; save the game as a replay",
    ),
    "replay": (
        "tabuleiro.commands.replay",
        "re-simulate a saved game exactly, step by step, as text or PNG pictures",
    ),
    "serve": ("tabuleiro.commands.serve", "play, watch and replay every game in the browser (a local web app)"),
    "exploit": (
        "tabuleiro.commands.exploit",
        "exploitability bounds: trained best responses or a challenger; exact where small",
    ),
    "ladder": ("tabuleiro.commands.ladder", "a standing ladder: a roster round robin, OpenSkill ratings with CIs"),
}


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
    """Entry point of the `tabuleiro` command: the exit code (2 for a bad option or input, 1 when an output
    cannot be written, 130 after Ctrl-C, 143 after SIGTERM), never a traceback for any of those."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage error (or the help)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args._module is None:
        print(f"tabuleiro {args.command}: unavailable here: {args._missing}", file=sys.stderr)
        return 2
    name = f"tabuleiro {args.command}"
    try:
        with sigterm_as_interrupt():
            mod = importlib.import_module(args._module)
            return int(mod.run(args) or 0)
    except ValueError as exc:  # bad input: say what is wrong, no traceback
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"{name}: stopped (SIGTERM)", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # e.g. a disk that filled up after the output checks
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # `python -m tabuleiro.cli ...` works like `tabuleiro ...` and `python -m tabuleiro ...`
    sys.exit(main())
