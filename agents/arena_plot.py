"""The arena's chart: win rates with their 95% intervals, and the head-to-head matrix."""

from typing import Any

import numpy as np

from envs.files import save_figure


def plot_report(report: dict[str, Any], path: str) -> None:
    """Write a PNG with two panels: win rate per agent (Wilson 95% CI) and who finishes ahead of whom."""
    import matplotlib  # optional: pictures only

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional heavy: after the Agg backend is chosen

    rows = report["agents"]
    names = [a["agent"] for a in rows]
    n = len(rows)
    rate = np.array([a["win_rate"] for a in rows])
    lo = np.array([a["win_rate_ci95"][0] for a in rows])
    hi = np.array([a["win_rate_ci95"][1] for a in rows])
    fig, (left, right) = plt.subplots(1, 2, figsize=(6 + 1.2 * n, 3 + 0.4 * n))
    y = np.arange(n)
    left.barh(y, rate, xerr=[rate - lo, hi - rate], color="#4c72b0", capsize=4)
    left.set_yticks(y, names)
    left.invert_yaxis()
    left.set_xlim(0, 1)
    left.set_xlabel("win rate (sole first place), 95% Wilson CI")
    left.axvline(1 / report["players"], color="grey", lw=0.8, ls="--")
    matrix = np.array([[np.nan if v is None else v for v in row] for row in report["head_to_head"]])
    im = right.imshow(matrix, vmin=0, vmax=1, cmap="RdBu")
    right.set_xticks(y, [str(i) for i in range(n)])
    right.set_yticks(y, [f"{i} {name}" for i, name in enumerate(names)])
    for i in range(n):
        for j in range(n):
            if not np.isnan(matrix[i, j]):
                right.text(j, i, f"{matrix[i, j]:.0%}", ha="center", va="center", fontsize=8)
    right.set_title("row finishes ahead of column", fontsize=9)
    fig.colorbar(im, ax=right, fraction=0.046)
    fig.suptitle(f"{report['game']}: {report['games']} games, seed {report['seed']}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)  # whole or not at all
    plt.close(fig)
