"""`tabuleiro`: the console command. Each subcommand lives in its package and is imported on use.

Also the helpers every subcommand shares: option types that refuse a value outside its
documented range (argparse names the option, exit code 2), output paths checked before the
work starts, and SIGTERM turned into an interrupt so long runs stop promptly.
"""

import argparse
import contextlib
import importlib
import math
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

# -- option values ----------------------------------------------------------------------------------

SEED_MAX = 2**32 - 1  # seeds on the command line: 0..4294967295 (numpy and Ray take 32-bit seeds)
MAX_GAMES = 1_000_000  # games in one arena/demo run
MAX_WORKERS = 256  # local worker processes
MAX_PLAYERS = 16  # seats at a table (each game checks its own range too)


def int_option(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``lo..hi``, else an error naming the option and the range."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer in {lo}..{hi}, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be an integer in {lo}..{hi}, got {text!r}")
        return value

    parse.__name__ = "int"
    return parse


def float_option(lo: float, hi: float, *, open_low: bool = True) -> Callable[[str], float]:
    """An argparse ``type``: a finite number in ``(lo, hi]`` (``[lo, hi]`` with ``open_low=False``);
    NaN, infinities and anything outside the range are refused with a message naming the option."""
    shown = f"{'(' if open_low else '['}{lo:g}, {hi:g}]"

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number in {shown}, got {text!r}") from None
        inside = (lo < value if open_low else lo <= value) and value <= hi
        if not math.isfinite(value) or not inside:
            raise argparse.ArgumentTypeError(f"must be a finite number in {shown}, got {text!r}")
        return value

    parse.__name__ = "float"
    return parse


seed_option = int_option(0, SEED_MAX)


def checked(option: str, parse: Callable[[str], object]) -> Callable[[str], object]:
    """An argparse ``type`` from a parser that raises ValueError: the message becomes argparse's error for
    ``option`` (e.g. the agent specs of ``--agents``)."""

    def wrapped(text: str) -> object:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    wrapped.__name__ = option
    return wrapped


# -- output paths -----------------------------------------------------------------------------------


def _blocking_file(folder: Path) -> Path | None:
    """The nearest existing ancestor of ``folder`` (itself included) when it is a file, not a folder."""
    for p in (folder, *folder.parents):
        if p.exists():
            return None if p.is_dir() else p
    return None


def check_output_file(path: str | os.PathLike, option: str) -> Path:
    """Make sure the file ``path`` can be written, before any work: its folder is created and the file
    opened for writing (a probe, removed again when the file did not exist). ValueError naming ``option``."""
    p = Path(path)
    if not str(path).strip():
        raise ValueError(f"{option}: the path is empty")
    if p.is_dir():
        raise ValueError(f"{option}: {str(path)!r} is a folder; give a file name")
    blocking = _blocking_file(p.parent)
    if blocking is not None:
        raise ValueError(f"{option}: cannot write {str(path)!r}: {str(blocking)!r} is a file, not a folder")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.exists():
            with open(p, "a"):  # writable, content untouched
                pass
        else:
            with open(p, "x"):
                pass
            p.unlink()
    except OSError as exc:
        raise ValueError(f"{option}: cannot write {str(path)!r}: {exc.strerror or exc}") from None
    return p


def check_output_dir(path: str | os.PathLike, option: str) -> Path:
    """Make sure files can be written into the folder ``path``, before any work: it is created, and a probe
    file is written into it and removed. ValueError naming ``option``."""
    p = Path(path)
    if not str(path).strip():
        raise ValueError(f"{option}: the path is empty")
    blocking = _blocking_file(p)
    if blocking is not None:
        raise ValueError(f"{option}: cannot write into {str(path)!r}: {str(blocking)!r} is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".tabuleiro-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{option}: cannot write into {str(path)!r}: {exc.strerror or exc}") from None
    return p


# -- stopping ---------------------------------------------------------------------------------------


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt (so ``except KeyboardInterrupt``
    cleans up for both); ``main`` exits with 143 after it, 130 after Ctrl-C."""


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises ``Terminated`` in the main thread; a second SIGTERM while unwinding
    ends the process at once (exit 143). Outside the main thread this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []

    def handler(signum: int, frame: object) -> None:
        received.append(signum)
        if len(received) > 1:
            os._exit(143)
        raise Terminated("SIGTERM")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
