"""`tabuleiro arena GAME --agents ...`: a tournament (``agents.arena``), its tables, JSON and chart."""

import argparse
import json
import os
from typing import Any

from agents.arena import MAX_GAMES, MAX_PLAYERS, MAX_WORKERS, checked_agents, format_report, run_arena
from agents.arena_plot import plot_report
from envs.files import write_atomic
from tabuleiro.options import (
    add_config_option,
    add_players_option,
    add_workers_option,
    check_output_dir,
    check_output_file,
    checked,
    int_option,
    key_values,
    seed_option,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro arena`."""
    parser.add_argument("game", help="game name, e.g. capivari_v0 (or capivari)")
    parser.add_argument(
        "--agents",
        required=True,
        type=checked("agents", checked_agents),
        help="comma-separated agent specs, one per seat: random, heuristic, "
        "ismcts[:iterations=N (at most 1,000,000)|seconds=S (at most 600)], "
        "rllib:<checkpoint>[,trust=true: one without a manifest], "
        "policy:<file.npz>[,sample=true], "
        "guided:<file.npz>[,iterations=N|seconds=S, c_puct=C, value_weight=W, prior_temperature=T, network_depth=D, "
        "root_candidates=true, game_search=true] "
        "(a file, a run folder, or reference); any of them with solve=true plays exactly where the game solves "
        "the position (capivari: a round's last 8 turns); "
        f"spec*n (n <= {MAX_PLAYERS}) repeats one; with fewer than --players, the last fills the table",
    )
    parser.add_argument(
        "--games", type=int_option(1, MAX_GAMES), default=100, help=f"games to play, 1..{MAX_GAMES:,} (default 100)"
    )
    add_players_option(parser, "seats at the table (default: one per agent)")
    add_config_option(
        parser,
        "a game config knob (see `tabuleiro games GAME`), e.g. placement_prior=true for a policy trained "
        "with it; repeatable",
    )
    parser.add_argument("--seed", type=seed_option, default=0, help="tournament seed, 0..2**32-1 (default 0)")
    cores = min(os.cpu_count() or 1, MAX_WORKERS)
    add_workers_option(parser, f"local processes, 1..{MAX_WORKERS} (default: cores)", cores)
    parser.add_argument("--ray-address", default=None, help="play as Ray tasks: auto, ray://host:port, or local")
    parser.add_argument("--json", default=None, metavar="FILE", help="write the full report as JSON")
    parser.add_argument("--png", default=None, metavar="FILE", help="write a chart of win rates and head-to-head")
    parser.add_argument("--replays", default=None, metavar="DIR", help="save every game as a replay in DIR")


def run(args: argparse.Namespace) -> int:
    """`tabuleiro arena`. Ctrl-C or SIGTERM stops the workers at once; the games finished by then are reported
    (and written to ``--json``) before the command exits with 130 or 143."""
    outputs = [("--json", args.json, check_output_file), ("--png", args.png, check_output_file)]
    for option, path, check in outputs + [("--replays", args.replays, check_output_dir)]:
        if path:
            check(path, option)  # before any game: a result is never lost to an unwritable path
    agents = args.agents if isinstance(args.agents, list) else checked_agents(args.agents)
    try:
        report = run_arena(
            args.game,
            agents,
            games=args.games,
            players=args.players,
            seed=args.seed,
            config=key_values(args.config, "--config"),
            workers=args.workers,
            ray_address=args.ray_address,
            replays=args.replays,
        )
    except KeyboardInterrupt as exc:
        report = getattr(exc, "partial_report", None)
        if report is not None:
            print(format_report(report), flush=True)
            if args.json:
                _write_json(report, args.json)
            print(f"stopped after {report['games']} of {report['games_requested']} games", flush=True)
        raise
    print(format_report(report))
    if args.json:
        _write_json(report, args.json)
    if args.png:
        plot_report(report, args.png)
        print(f"chart: {args.png}")
    return 0


def _write_json(report: dict[str, Any], path: str) -> None:
    """The report through a temporary file renamed into place: a full disk or a kill keeps an earlier file whole."""
    write_atomic(path, json.dumps(report, indent=1))
    print(f"report: {path}", flush=True)
