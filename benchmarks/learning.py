"""The learning-target measurement: train (20 minutes by default), evaluate, plot; never part of CI.

``python -m benchmarks.learning capivari`` trains with ``tabuleiro train``'s loop, evaluates the
policy (argmax) against random and the heuristic with 95% Wilson intervals, measures the raw env
speed on this machine for comparison, and writes ``learning.json`` and ``learning.png`` (training-time
win rate per opponent kind against training minutes, the final evaluation with its intervals, the
targets). ``--from-run DIR`` reports on a finished ``tabuleiro train`` run instead of training.
"""

import argparse
import json
import os
import statistics
from pathlib import Path
from typing import Any

# issue 8's targets: win rate of the trained policy against each opponent, within 20 minutes on 2 cores
TARGETS: dict[str, dict[str, Any]] = {
    "capivari_v0": {"players": 2, "vs": {"random": 0.90, "heuristic": 0.55}},
    "horizonte_v0": {"players": 4, "vs": {"random": 0.50}},  # finishes first against 3 random agents
    "dorfromantik_duel_v0": {"players": 2, "vs": {"random": 0.80}},
}


def raw_env_rates(game: str, game_config: dict, seconds: float = 2.0) -> dict[str, float]:
    """This machine's env speed without RLlib: the AEC loop with random legal moves, and the compiled kernel."""
    import envs
    from benchmarks.throughput import aec_loop_rate, raw_rates

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
        "train_turns_per_s_median": statistics.median(r["turns_per_s"] for r in steady),
        "illegal_moves": sum(r.get("illegal_moves", 0) for r in rows),
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
    for opponent, target in TARGETS.get(game, {}).get("vs", {}).items():
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(ln) for ln in (run / "progress.jsonl").read_text().splitlines() if ln.strip()]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    colors = {"random": "tab:blue", "heuristic": "tab:red", "snapshot": "tab:green"}
    for kind, color in colors.items():
        pts = [(r["elapsed_s"] / 60, r["opponents"][kind]) for r in rows if "win_rate" in r["opponents"].get(kind, {})]
        if not pts:
            continue
        xs, ys = [], []
        for i in range(len(pts)):
            window = pts[max(0, i - 4) : i + 1]
            wins = sum(o["wins"] for _, o in window)
            games = sum(o["games"] for _, o in window)
            xs.append(pts[i][0])
            ys.append(wins / games)
        ax.plot(xs, ys, color=color, label=f"training vs {kind} (sampling policy)")
    end = report["training_minutes"]
    for row in report.get("evaluation", []):
        c = colors.get(row["opponent"], "black")
        lo, hi = row["ci95"]
        ax.errorbar([end], [row["win_rate"]], yerr=[[row["win_rate"] - lo], [hi - row["win_rate"]]], fmt="o",
                    color=c, capsize=4, label=f"final vs {row['opponent']} (argmax, {row['games']} games)")  # fmt: skip
    for opponent, t in report.get("targets", {}).items():
        ax.axhline(t["target"], color=colors.get(opponent, "gray"), linestyle="--", linewidth=0.8)
    ax.set_xlabel("training minutes")
    ax.set_ylabel("win rate (strictly first)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{report.get('game', '')}: self-play PPO on {os.cpu_count()} cores")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Train (or read ``--from-run``), evaluate, compare with the raw env, write JSON and PNG."""
    from tabuleiro.cli import MAX_GAMES, MAX_PLAYERS, check_output_dir, float_option, int_option, seed_option
    from training.cli import MAX_MINUTES

    parser = argparse.ArgumentParser(prog="python -m benchmarks.learning", description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--minutes", type=float_option(0, MAX_MINUTES), default=20.0)
    parser.add_argument(
        "--players", type=int_option(1, MAX_PLAYERS), help="default: the target's table size (4 for horizonte)"
    )
    parser.add_argument("--out", help="run folder (default runs/learning-GAME)")
    parser.add_argument("--from-run", help="report on this finished `tabuleiro train` run instead of training")
    parser.add_argument("--eval-games", type=int_option(1, MAX_GAMES), default=1000)
    parser.add_argument("--seed", type=seed_option, default=0)
    args = parser.parse_args(argv)
    import envs

    try:
        game = envs.game_name(args.game)
        run = Path(args.from_run or args.out or f"runs/learning-{game.rsplit('_v', 1)[0]}")
        if args.from_run and not (run / "progress.jsonl").is_file():
            raise ValueError(f"--from-run: {str(run)!r} has no progress.jsonl (not a finished tabuleiro train run)")
        check_output_dir(run, "--from-run" if args.from_run else "--out")  # learning.json/png go there
    except ValueError as exc:
        parser.error(str(exc))
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    from training.cli import final_evaluation, game_config_for
    from training.config import settings_for

    if not args.from_run:
        import torch

        from training.loop import train

        torch.set_num_threads(1)
        players = args.players or TARGETS.get(game, {}).get("players")
        settings = settings_for(game, game_config=game_config_for(game, players) or None, seed=args.seed)
        train(settings, run, minutes=args.minutes, checkpoint_every=20, echo=lambda line: print(line, flush=True))
    report = summarize(run)
    if "evaluation" not in report:
        meta = json.loads((run / "checkpoint" / "tabuleiro_train.json").read_text())
        report["game"], report["game_config"] = meta["game"], meta["game_config"]
        report["evaluation"] = final_evaluation(
            run / "checkpoint", game, meta["game_config"], args.eval_games, args.seed
        )
    report["targets"] = check_targets(game, report["evaluation"])
    report["raw_env"] = raw_env_rates(game, report["game_config"])
    report["cpus"] = os.cpu_count()
    (run / "learning.json").write_text(json.dumps(report, indent=1))
    plot(run, report, run / "learning.png")
    print(json.dumps({k: report[k] for k in ("targets", "train_steps_per_s_median", "raw_env")}, indent=1))
    print(f"wrote {run / 'learning.json'} and {run / 'learning.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
