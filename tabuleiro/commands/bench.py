"""`tabuleiro bench`: the throughput run (``benchmarks.throughput``), its table, JSON and chart."""

import argparse
import json
import math

import envs
from benchmarks.throughput import MAX_REPEATS, MAX_SECONDS, format_table, plot, run_bench
from envs.files import write_atomic
from tabuleiro.options import check_output_file, float_option, int_option


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro bench`."""
    parser.add_argument("--games", help="comma-separated game names (default: all)")
    parser.add_argument("--quick", action="store_true", help="a short run (1 repeat, 0.2 s, 2 batch sizes)")
    parser.add_argument(
        "--repeats",
        type=int_option(1, MAX_REPEATS),
        help=f"timed repeats per figure, 1..{MAX_REPEATS} (default 5; quick 1)",
    )
    parser.add_argument(
        "--seconds",
        type=float_option(0, MAX_SECONDS),
        help=f"length of one timed repeat, in (0, {MAX_SECONDS:g}] (default 1.0; quick 0.2)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip OpenSpiel and PettingZoo")
    parser.add_argument("--no-startup", action="store_true", help="skip the cold/warm start subprocesses")
    parser.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    parser.add_argument("--png", metavar="FILE", help="write the bar chart and scaling curve as PNG")


def run(args: argparse.Namespace) -> int:
    """`tabuleiro bench`. Ctrl-C or SIGTERM stops it between two measurements' compiled calls (exit 130/143)."""
    for option, value, hi in (("--repeats", args.repeats, MAX_REPEATS), ("--seconds", args.seconds, MAX_SECONDS)):
        if value is not None and not (math.isfinite(value) and 0 < value <= hi):  # also for a Namespace built by hand
            raise ValueError(f"{option} must be a finite number in (0, {hi:g}], got {value!r}")
    games = [envs.game_name(g.strip()) for g in args.games.split(",")] if args.games else None
    for option, path in (("--json", args.json), ("--png", args.png)):
        if path:
            check_output_file(path, option)  # before measuring: a run's figures are never lost to the path
    results = run_bench(games, args.quick, args.repeats, args.seconds, not args.no_peers, not args.no_startup)
    print(format_table(results))
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=1))  # a full disk keeps an earlier file whole
        print(f"wrote {args.json}")
    if args.png:
        plot(results, args.png)
        print(f"wrote {args.png}")
    return 0
