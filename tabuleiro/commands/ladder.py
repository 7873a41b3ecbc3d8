"""`tabuleiro ladder GAME [--add SPEC ...]`: the standing ladder (``agents.ladder``): a fixed roster round robin,
one OpenSkill rating with its interval per agent over all games (and Elo in two-player games), win rates and
time per move."""

import argparse
import json

from agents.arena import MAX_GAMES, MAX_PLAYERS
from agents.ladder import REFERENCE_ROSTER, ROSTER, exploit_bounds, format_ladder, roster_for, run_ladder
from agents.registry import check_spec
from envs.files import write_atomic
from tabuleiro.options import (
    add_workers_option,
    check_output_file,
    checked,
    int_option,
    key_value,
    key_values,
    seed_option,
)


def _spec(text: str) -> str:
    check_spec(text)
    return text.strip()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro ladder`."""
    parser.add_argument("game", help="game name (see `tabuleiro games`)")
    parser.add_argument(
        "--add",
        action="append",
        type=checked("add", _spec),
        metavar="SPEC",
        help=f"an agent to place on the ladder beside the roster ({', '.join(ROSTER)}, and "
        f"{', '.join(REFERENCE_ROSTER)} where the game's reference policy fits the config); repeatable",
    )
    parser.add_argument(
        "--drop",
        action="append",
        metavar="SPEC",
        help="a roster agent to leave out (as the roster spells it), e.g. one that cannot play the game's config; "
        "repeatable",
    )
    parser.add_argument(
        "--games", type=int_option(1, MAX_GAMES), default=20, help="games at each table of the round robin (default 20)"
    )
    parser.add_argument("--players", type=int_option(1, MAX_PLAYERS), help="seats at a table (games with num_players)")
    add_workers_option(parser, "local worker processes")
    parser.add_argument(
        "--config", action="append", type=checked("config", key_value), metavar="KEY=VALUE", help="a game config knob"
    )
    parser.add_argument("--seed", type=seed_option, default=0)
    parser.add_argument("--json", help="write the ladder here")
    parser.add_argument(
        "--bounds",
        metavar="DIR",
        help="print each agent's exploitability lower bound beside its rating, from the `tabuleiro exploit --json` "
        "reports in DIR for this game and config (e.g. docs/exploit)",
    )


def run(args: argparse.Namespace) -> int:
    """`tabuleiro ladder`: see ``add_arguments``; SIGTERM or Ctrl-C keeps the finished tables (exit 143 or 130)."""
    config = key_values(args.config, "--config")
    if args.players is not None:
        config["num_players"] = args.players
    if args.json:
        check_output_file(args.json, "--json")
    bounds = exploit_bounds(args.bounds, args.game, config) if args.bounds else {}
    report = run_ladder(
        args.game,
        roster_for(args.game, args.add, config, args.drop),
        args.games,
        players=args.players,
        seed=args.seed,
        workers=args.workers,
        config=config,
        echo=lambda line: print(line, flush=True),
    )
    for row in report["agents"]:
        if row["agent"] in bounds:
            row["exploitability"] = bounds[row["agent"]]
    print(format_ladder(report), flush=True)
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=1))
    if report["interrupted"]:
        return 143 if report["interrupted"] == "SIGTERM" else 130
    return 0
