"""A training run's strength over time: every ``policy-SSSSS.npz`` in a folder (the run's policy file copied
every few minutes; SSSSS = seconds since the run started) played greedily as ``policy:FILE`` in seat-rotated
arenas against each ``--against`` agent (the others' seats all hold it), win rate with its 95% Wilson interval.

    python -m benchmarks.policy_curve horizonte runs/h4-curve --players 4 --against heuristic \\
        --against ismcts:iterations=200 --games 50 --json curve.json --png curve.png
"""

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import envs
from agents.arena import run_arena
from agents.registry import check_spec
from envs.engine.config import key_value, key_values
from envs.files import save_figure, write_atomic

SNAPSHOT = re.compile(r"policy-(\d+)\.npz$")


def snapshots(folder: Path) -> list[tuple[int, Path]]:
    """``(seconds, file)`` of each ``policy-SSSSS.npz`` in ``folder``, oldest first."""
    if not folder.is_dir():
        raise ValueError(f"{str(folder)!r} is not a folder")
    found = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := SNAPSHOT.search(p.name)))
    if not found:
        raise ValueError(f"no policy-SSSSS.npz files in {str(folder)!r}")
    return found


def measure(
    game: str, folder: Path, against: list[str], games: int, players: int, config: dict[str, Any], workers: int
) -> list[dict[str, Any]]:
    """One row per snapshot: its seconds and, per opponent, the snapshot's win rate and interval."""
    rows = []
    for seconds, path in snapshots(folder):
        row: dict[str, Any] = {"seconds": seconds, "file": path.name}
        for spec in against:
            lineup = [f"policy:{path}"] + [spec] * (players - 1)
            r = run_arena(game, lineup, games, players=players, config=config, workers=workers, progress=False)
            me = r["agents"][0]
            row[spec] = {"win_rate": me["win_rate"], "ci95": me["win_rate_ci95"], "games": me["games"]}
            lo, hi = me["win_rate_ci95"]
            print(f"{seconds:6d} s  vs {spec:<28} {me['win_rate']:6.1%}  [{lo:.1%}, {hi:.1%}]", flush=True)
        rows.append(row)
    return rows


def plot(rows: list[dict[str, Any]], against: list[str], title: str, path: str) -> None:
    """Win rate against minutes of training, one line with its interval band per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    minutes = [r["seconds"] / 60 for r in rows]
    for spec in against:
        rate = [r[spec]["win_rate"] for r in rows]
        ax.plot(minutes, rate, marker="o", label=spec)
        ax.fill_between(minutes, [r[spec]["ci95"][0] for r in rows], [r[spec]["ci95"][1] for r in rows], alpha=0.2)
    ax.set_xlabel("training minutes")
    ax.set_ylabel("win rate (sole first), 95% Wilson")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def config_option(text: str) -> tuple[str, Any]:
    """``--config KEY=VALUE`` for argparse: ``key_value``, its error as argparse's."""
    try:
        return key_value(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("folder", type=Path, help="a folder of policy-SSSSS.npz files")
    parser.add_argument("--against", action="append", required=True, help="an opponent spec; repeatable")
    parser.add_argument("--games", type=int, default=50, help="games per snapshot and opponent (seats rotated)")
    parser.add_argument("--players", type=int, help="seats at the table, for games with num_players")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--config", action="append", type=config_option, metavar="KEY=VALUE")
    parser.add_argument("--json")
    parser.add_argument("--png")
    args = parser.parse_args(argv)
    try:
        for spec in args.against:
            check_spec(spec)
        config = key_values(args.config, "--config")
        if args.players is not None:
            config["num_players"] = args.players
        players = args.players or len(envs.make(args.game, **config).possible_agents)
        rows = measure(args.game, args.folder, args.against, args.games, players, config, args.workers)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = {"game": envs.game_name(args.game), "config": config, "games": args.games, "rows": rows}
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=1))
    if args.png:
        plot(rows, args.against, f"{report['game']}: {args.folder.name}", args.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
