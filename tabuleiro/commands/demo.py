"""`tabuleiro demo` (`make demo`): the demo's table (``tabuleiro.demo``), then its short arena."""

import argparse

from agents.arena import MAX_GAMES, run_arena
from agents.arena import format_report as arena_report
from tabuleiro.demo import DEMO_ARENA, format_report, run_demo
from tabuleiro.options import int_option, seed_option


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro demo`."""
    parser.add_argument(
        "--games", type=int_option(1, MAX_GAMES), default=300, help=f"games to play, 1..{MAX_GAMES:,} (default 300)"
    )
    parser.add_argument("--seed", type=seed_option, default=0, help="first game's seed, 0..2**32-1 (default 0)")
    parser.add_argument(
        "--arena-games",
        type=int_option(0, MAX_GAMES),
        default=20,
        help="games per arena pairing after the table (default 20; 0: none)",
    )


def run(args: argparse.Namespace) -> int:
    """`tabuleiro demo`."""
    print(format_report(run_demo(games=args.games, seed=args.seed)))
    if args.arena_games > 0:
        for lineup in DEMO_ARENA:
            print(f"\narena: {' vs '.join(lineup)} (tabuleiro arena capivari --agents {','.join(lineup)})")
            report = run_arena("capivari_v0", list(lineup), games=args.arena_games, seed=args.seed, workers=1)
            print(arena_report(report))
    return 0
