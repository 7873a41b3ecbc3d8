"""What every `tabuleiro` subcommand shares: option types that refuse a value outside its documented range
(argparse names the option, exit code 2), the options several commands define, output paths checked before the
work starts, the bounds of the options, and SIGTERM turned into an interrupt so long runs stop promptly.
"""

import argparse
import contextlib
import math
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from agents.arena import MAX_GAMES, MAX_PLAYERS, MAX_WORKERS
from envs.engine.config import key_value, key_values

__all__ = [
    "MAX_GAMES", "MAX_ITERATIONS", "MAX_MINUTES", "MAX_PLAYERS", "MAX_WORKERS", "SEED_MAX", "Terminated",
    "add_config_option", "add_eval_games_option", "add_minutes_option", "add_players_option", "add_set_option",
    "add_workers_option",
    "check_output_dir", "check_output_file", "checked", "float_option", "int_option", "key_value", "key_values",
    "seed_option", "sigterm_as_interrupt",
]  # fmt: skip

# -- option values ----------------------------------------------------------------------------------

SEED_MAX = 2**32 - 1  # seeds on the command line: 0..4294967295 (numpy and Ray take 32-bit seeds)
# MAX_GAMES (games in one arena/demo run), MAX_WORKERS (local worker processes) and MAX_PLAYERS (seats at a
# table) are the arena's own limits, imported above: an option accepts exactly what the library does
MAX_MINUTES = 7 * 24 * 60.0  # a training budget: a week
MAX_ITERATIONS = 1_000_000  # PPO iterations


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


# -- options several commands define -----------------------------------------------------------------
# ``parser`` is an ArgumentParser or one of its groups (argparse's common base of the two is private).

_CONFIG_HELP = "a game config knob (see `tabuleiro games GAME`); repeatable"
_PLAYERS_HELP = "seats at the table, for games with a num_players knob"


def add_players_option(parser: "argparse._ActionsContainer", help: str = _PLAYERS_HELP) -> None:
    """``--players N``, N in 1..MAX_PLAYERS; None when not given (the game's own table size)."""
    parser.add_argument("--players", type=int_option(1, MAX_PLAYERS), help=help)


def add_config_option(parser: "argparse._ActionsContainer", help: str = _CONFIG_HELP) -> None:
    """``--config KEY=VALUE``, repeatable: game config knobs as pairs in ``args.config`` (read with ``key_values``)."""
    parser.add_argument("--config", action="append", type=checked("config", key_value), metavar="KEY=VALUE", help=help)


def add_set_option(parser: "argparse._ActionsContainer", help: str) -> None:
    """``--set KEY=VALUE``, repeatable: training settings as pairs in ``args.settings`` (read with ``key_values``)."""
    parser.add_argument(
        "--set", action="append", dest="settings", type=checked("set", key_value), metavar="KEY=VALUE", help=help
    )


def add_minutes_option(parser: "argparse._ActionsContainer", help: str, default: float | None = None) -> None:
    """``--minutes M``, a time budget in (0, MAX_MINUTES]."""
    parser.add_argument("--minutes", type=float_option(0, MAX_MINUTES), default=default, help=help)


def add_workers_option(parser: "argparse._ActionsContainer", help: str, default: int = 1) -> None:
    """``--workers W``, local worker processes, W in 1..MAX_WORKERS."""
    parser.add_argument("--workers", type=int_option(1, MAX_WORKERS), default=default, help=help)


def add_eval_games_option(
    parser: "argparse._ActionsContainer", help: str, default: int | None, lowest: int = 1
) -> None:
    """``--eval-games N``, games in a final evaluation, N in lowest..MAX_GAMES."""
    parser.add_argument("--eval-games", type=int_option(lowest, MAX_GAMES), default=default, help=help)


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
    cleans up for both); ``tabuleiro.cli.main`` exits with 143 after it, 130 after Ctrl-C."""


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
