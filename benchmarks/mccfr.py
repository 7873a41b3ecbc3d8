"""OpenSpiel's external-sampling MCCFR, unchanged, on a small Horizonte: NashConv against iterations.

    python -m benchmarks.mccfr --iterations 10000 --png docs/img/mccfr-horizonte.png --json docs/mccfr-horizonte.json

The game is ``tabuleiro_horizonte`` with explicit chance (``envs.openspiel``): 3 players, one round, hands
of 2 from a deck of 6 (``SMALL_DECK``; every other card ``removed``) and ``max_prediction`` 0 (so every
seat predicts 0 and the round is about the card play): 540 deals (6 initiatives x 90 ways to deal the
hands), about 20,500 histories. OpenSpiel's ``exploitability.nash_conv`` walks the whole tree exactly, so its
time grows with the tree: ``--max-prediction 1`` gives the prediction a choice but ~150,000 histories (timings:
docs/openspiel.md). NashConv is measured at ``--points`` iteration counts spaced evenly on a log scale.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from envs.files import save_figure, write_atomic

SMALL_DECK = ("O3", "O8", "D2", "D7", "M5", "C14")  # two stars (O3, D7), a Cloud, low and high cards
MAX_ITERATIONS = 1_000_000


def small_config(max_prediction: int = 0) -> dict[str, Any]:
    """The small Horizonte's config (``envs.openspiel.load("horizonte", **small_config())``)."""
    from envs.horizonte.rules import CARD_NAMES

    removed = tuple(name for name in CARD_NAMES if name not in SMALL_DECK)
    return {
        "num_players": 3,
        "rounds": 1,
        "max_prediction": max_prediction,
        "removed": removed,
        "explicit_chance": True,
    }


def checkpoints(iterations: int, points: int) -> list[int]:
    """Up to ``points`` iteration counts from 1 to ``iterations``, evenly spaced on a log scale."""
    marks = np.unique(np.round(np.geomspace(1, iterations, max(points, 2))).astype(int))
    return [int(m) for m in marks]


def run(iterations: int, points: int, seed: int, max_prediction: int, progress: bool = True) -> tuple[list, Any]:
    """MCCFR for ``iterations``; NashConv of the average policy at each checkpoint. (rows, solver)."""
    from open_spiel.python.algorithms import exploitability, external_sampling_mccfr

    import envs.openspiel as eo

    np.random.seed(seed)  # OpenSpiel's MCCFR samples with NumPy's global generator: seeded for a repeatable run
    game = eo.load("horizonte", **small_config(max_prediction))
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    rows = []
    done = 0
    solving = 0.0
    for mark in checkpoints(iterations, points):
        start = time.perf_counter()
        for _ in range(mark - done):
            solver.iteration()
        solving += time.perf_counter() - start
        done = mark
        start = time.perf_counter()
        nash_conv = float(exploitability.nash_conv(game, solver.average_policy()))
        measuring = time.perf_counter() - start
        rows.append(
            {"iterations": done, "nash_conv": nash_conv, "solve_seconds": solving, "nash_conv_seconds": measuring}
        )
        if progress:
            print(
                f"iterations {done:>8,}  NashConv {nash_conv:.4f}  "
                f"(MCCFR {solving:.1f} s so far; NashConv took {measuring:.1f} s)",
                flush=True,
            )
    return rows, solver


def policy_table(solver: Any) -> dict[str, list[float]]:
    """The average policy: information state string -> probabilities in the order of the legal actions."""
    table = {}
    for key, (_, average) in solver._infostates.items():  # OpenSpiel's MCCFR keeps [regrets, average] per key
        total = float(np.sum(average))
        probs = average / total if total > 0 else np.full(len(average), 1.0 / len(average))
        table[key] = [round(float(p), 6) for p in probs]
    return table


def plot(rows: list[dict], path: str, title: str) -> None:
    import matplotlib  # optional heavy: loaded only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional heavy: after the Agg backend is chosen

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    ax.loglog([r["iterations"] for r in rows], [r["nash_conv"] for r in rows], marker="o")
    ax.set_xlabel("MCCFR iterations (external sampling)")
    ax.set_ylabel("NashConv (exact)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)  # whole or not at all
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=3000, help=f"MCCFR iterations, 1..{MAX_ITERATIONS:,}")
    ap.add_argument("--points", type=int, default=8, help="NashConv measurements (log-spaced), 2..50")
    ap.add_argument("--max-prediction", type=int, default=0, choices=(0, 1, 2))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--png", help="write the NashConv chart here")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--policy", help="write the average policy table (information state -> probabilities) here")
    args = ap.parse_args(argv)
    if not 1 <= args.iterations <= MAX_ITERATIONS:
        ap.error(f"--iterations must be in 1..{MAX_ITERATIONS:,}")
    if not 2 <= args.points <= 50:
        ap.error("--points must be in 2..50")
    if not 0 <= args.seed < 2**32:
        ap.error("--seed must be in 0..2**32-1")
    for path in (args.png, args.json, args.policy):  # fail now, not after the run (and leave no empty file)
        if path and (Path(path).is_dir() or not os.access(Path(path).resolve().parent, os.W_OK)):
            ap.error(f"cannot write {path!r}")
    rows, solver = run(args.iterations, args.points, args.seed, args.max_prediction)
    config = {k: v for k, v in small_config(args.max_prediction).items() if k != "removed"}
    title = f"OpenSpiel external-sampling MCCFR on tabuleiro_horizonte\n3 players, 1 round, deck {' '.join(SMALL_DECK)}"
    if args.json:
        write_atomic(
            args.json, json.dumps({"config": config, "deck": SMALL_DECK, "seed": args.seed, "rows": rows}, indent=1)
        )
    if args.png:
        plot(rows, args.png, title)
    if args.policy:
        write_atomic(
            args.policy, json.dumps({"config": config, "deck": SMALL_DECK, "policy": policy_table(solver)}, indent=0)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
