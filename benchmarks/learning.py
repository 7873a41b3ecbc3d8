"""The learning-target measurement: train (20 minutes by default), evaluate, plot; never part of CI.

``tabuleiro learning capivari`` (``tabuleiro.commands.learning``) trains with ``tabuleiro train``'s
loop, evaluates the policy (argmax) against random and the heuristic with 95% Wilson intervals, measures
the raw env speed on this machine for comparison (``raw_env_rates``), and writes ``learning.json`` and
``learning.png`` (``plot``: training-time win rate per opponent kind against training minutes and against
learner decisions, the final
evaluation with its intervals, the targets). ``--from-run DIR`` reports on a finished ``tabuleiro train``
run instead of training.
"""

import itertools
import json
import os
import statistics
from pathlib import Path
from typing import Any

import envs
from benchmarks.throughput import aec_loop_rate, raw_rates
from envs.files import save_figure


# the targets: win rate of the trained policy against each opponent, within the game's training time on 2 cores
def targets(game: str) -> dict[str, Any]:
    """The game's learning targets from its spec: ``{"players": k, "vs": {opponent: win rate}}``."""
    return envs.spec(game).targets.get("learning", {})


def raw_env_rates(game: str, game_config: dict, seconds: float = 2.0) -> dict[str, float]:
    """This machine's env speed without RLlib: the AEC loop with random legal moves, and the compiled kernel."""
    out = {"aec_random_steps_per_s": aec_loop_rate(lambda: envs.make(game, **game_config), seconds, 3)}
    try:  # the batch kernels run the game's default config
        key = "kernel_1thread_steps_per_s" + ("_default_config" if game_config else "")
        out[key] = raw_rates(game, 1, 256, seconds, 3)[0]
    except (ValueError, TypeError):  # kernels sized for the default config only
        pass
    return out


def summarize(run: Path) -> dict[str, Any]:
    """Training figures from a run folder's progress.jsonl (and evaluation.json when present)."""
    rows = [json.loads(ln) for ln in (run / "progress.jsonl").read_text().splitlines() if ln.strip()]
    if not rows:
        raise ValueError(f"{run} has no training progress")
    steady = rows[1:] or rows  # the first iteration includes compilation and warm-up
    total_s = rows[-1]["elapsed_s"]
    out: dict[str, Any] = {
        "iterations": rows[-1]["iteration"],
        "training_minutes": total_s / 60,
        "env_steps": sum(r["env_steps"] for r in rows),
        "episodes": sum(r["episodes"] for r in rows),
        "snapshots": rows[-1]["snapshots"],
        "train_steps_per_s_mean": sum(r["env_steps"] for r in rows) / total_s,
        "train_steps_per_s_median": statistics.median(r["steps_per_s"] for r in steady),
        # learner decisions (every seat's: opponents included) per wall-clock second of an iteration
        "learner_decisions_per_s_median": statistics.median(r.get("learner_decisions_per_s", 0) for r in steady),
        "decisions_per_s_median": statistics.median(r.get("decisions_per_s", 0) for r in steady),
        "sample_share_median": statistics.median(r.get("sample_s", 0) / r["iteration_s"] for r in steady),
    }
    eval_path = run / "evaluation.json"
    if eval_path.is_file():
        ev = json.loads(eval_path.read_text())
        out["evaluation"] = ev["evaluation"]
        out["game"] = ev["training"]["game"]
        out["game_config"] = ev["training"]["game_config"]
    return out


def check_targets(game: str, evaluation: list[dict[str, Any]]) -> dict[str, Any]:
    """Each target against the measured win rate (point estimate, and the 95% interval's lower end)."""
    checks = {}
    for opponent, target in targets(game).get("vs", {}).items():
        row = next((r for r in evaluation if r["opponent"] == opponent), None)
        if row is None:
            checks[opponent] = {"target": target, "measured": None}
            continue
        checks[opponent] = {
            "target": target,
            "measured": row["win_rate"],
            "ci95": row["ci95"],
            "met": row["win_rate"] >= target,
            "met_by_ci_lower_bound": row["ci95"][0] >= target,
        }
    return checks


def plot(run: Path, report: dict[str, Any], path: Path) -> None:
    """Training-time win rate per opponent kind (moving average of 5 iterations), final evaluation, targets."""
    import matplotlib  # optional heavy: loaded only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional heavy: after the Agg backend is chosen

    rows = [json.loads(ln) for ln in (run / "progress.jsonl").read_text().splitlines() if ln.strip()]
    decisions = list(itertools.accumulate(r.get("learner_decisions", 0) for r in rows))
    from_search = rows[0].get("algo") == "exit"  # training from search: its rows count argmax evaluation games
    method = "training from search (expert iteration)" if from_search else "self-play PPO"
    games = "network alone (argmax)" if from_search else "training games (sampling policy)"
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    colors = {"random": "tab:blue", "heuristic": "tab:red", "snapshot": "tab:green", "self": "tab:gray"}
    ends = {"minutes": report["training_minutes"], "decisions": decisions[-1] / 1e6}
    for ax, axis in zip(axes, ("minutes", "decisions"), strict=True):
        for kind, color in colors.items():
            pts = [
                (r["elapsed_s"] / 60 if axis == "minutes" else decisions[i] / 1e6, r["opponents"][kind])
                for i, r in enumerate(rows)
                if "win_rate" in r["opponents"].get(kind, {})
            ]
            if not pts:
                continue
            xs, ys = [], []
            for i in range(len(pts)):
                window = pts[max(0, i - 4) : i + 1]
                xs.append(pts[i][0])
                ys.append(sum(o["wins"] for _, o in window) / sum(o["games"] for _, o in window))
            ax.plot(xs, ys, color=color, label=f"{games} vs {kind}")
        for row in report.get("evaluation", []):
            c = colors.get(row["opponent"], "black")
            lo, hi = row["ci95"]
            ax.errorbar([ends[axis]], [row["win_rate"]], yerr=[[row["win_rate"] - lo], [hi - row["win_rate"]]],
                        fmt="o", color=c, capsize=4,
                        label=f"final vs {row['opponent']} (argmax, {row['games']} games)")  # fmt: skip
        for opponent, t in report.get("targets", {}).items():
            ax.axhline(t["target"], color=colors.get(opponent, "gray"), linestyle="--", linewidth=0.8)
        ax.set_xlabel("training minutes" if axis == "minutes" else "learner decisions (millions)")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (strictly first)")
    axes[1].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{report.get('game', '')}: {method} on {os.cpu_count()} cores (dashed: targets)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)  # whole or not at all
    plt.close(fig)
