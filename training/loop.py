"""One training run: Ray up (this machine or a cluster), PPO iterations under a budget, progress, checkpoints, resume.

Layout of a run folder ``OUT``:
  ``checkpoint/``          the latest Algorithm checkpoint (replaced atomically), its ``pool/`` of frozen
                           snapshots and ``tabuleiro_train.json`` (settings, iteration, seconds trained)
  ``progress.jsonl``       one JSON row per iteration (steps/s, loss, win rate and score per opponent kind)
  ``evaluation.json``      the final evaluation (written by the CLI)
The budget (``minutes`` or ``iterations``) is the run's total across resumes.
"""

import json
import math
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from agents.rllib_policy import TRAIN_INFO
from training.config import TrainSettings, build_config, normalized
from training.opponents import PoolWeights
from training.selfplay import selfplay_callbacks

CHECKPOINT = "checkpoint"
PROGRESS = "progress.jsonl"


def init_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    """Connect to a cluster (``address="auto"`` after ``ray start --head``) or start Ray on this machine."""
    import ray  # optional heavy: started only when training

    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
        return
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(
        num_cpus=num_cpus or os.cpu_count(),
        include_dashboard=False,
        object_store_memory=512 * 1024**2,
        log_to_driver=False,
    )


def settings_to_json(s: TrainSettings) -> dict[str, Any]:
    return asdict(s)


def settings_from_json(d: dict[str, Any]) -> TrainSettings:
    d = normalized(d)
    d["pool"] = PoolWeights(**d["pool"])
    return TrainSettings(**d)


def find_checkpoint(run: str | Path) -> Path:
    """The checkpoint to resume from in a run folder (or the checkpoint folder itself)."""
    run = Path(run)
    for p in (run, run / CHECKPOINT, run / f"{CHECKPOINT}.old"):
        if (p / TRAIN_INFO).is_file() and (p / "rllib_checkpoint.json").is_file():
            return p
    raise ValueError(f"no tabuleiro checkpoint in {str(run)!r} (expected {CHECKPOINT}/ with {TRAIN_INFO})")


def progress_row(result: dict[str, Any], iteration: int, elapsed: float, seconds: float) -> dict[str, Any]:
    """The numbers worth a line per iteration, from one ``Algorithm.train()`` result and its wall-clock time.

    Rates are over the iteration's wall-clock ``seconds``; ``sample_s`` is the wall-clock time spent in
    the env runners' ``sample()`` (summed over runners), ``learn_s`` the rest of the iteration.
    RuntimeError if the learner reported no loss (a silent failure otherwise).
    """
    from ray.rllib.core import DEFAULT_MODULE_ID  # optional heavy: ray

    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(DEFAULT_MODULE_ID, {})
    if learner.get("total_loss") is None:
        raise RuntimeError(f"iteration {iteration}: the learner reported no loss (results: {sorted(result)})")
    sp = result.get("selfplay", {})
    steps = int(runners.get("num_env_steps_sampled", 0) or 0)
    sample_s = float(sp.get("sample_s", 0.0))
    return {
        "iteration": iteration,
        "elapsed_s": round(elapsed, 2),
        "iteration_s": round(seconds, 3),
        "sample_s": round(sample_s, 3),
        "learn_s": round(max(seconds - sample_s, 0.0), 3),
        "env_steps": steps,
        "env_steps_lifetime": int(runners.get("num_env_steps_sampled_lifetime", 0) or 0),
        "steps_per_s": steps / seconds if seconds > 0 else 0.0,
        "learner_decisions": int(sp.get("learner_decisions", 0)),
        "decisions": int(sp.get("decisions", 0)),
        "learner_decisions_per_s": sp.get("learner_decisions", 0.0) / seconds if seconds > 0 else 0.0,
        "decisions_per_s": sp.get("decisions", 0.0) / seconds if seconds > 0 else 0.0,
        "episodes": int(runners.get("num_episodes", 0) or 0),
        "loss": _num(learner.get("total_loss")),
        "policy_loss": _num(learner.get("policy_loss")),
        "vf_loss": _num(learner.get("vf_loss")),
        "entropy": _num(learner.get("entropy")),
        "opponents": sp.get("opponents", {}),
        "snapshots": sp.get("snapshots", []),
        "new_snapshot": sp.get("new_snapshot"),
    }


def _num(x: Any) -> float | None:
    return None if x is None else float(x)


def format_progress(row: dict[str, Any]) -> str:
    """``iter 12  2:31  learner/s 12034  total/s 24100  sample 61%  loss 0.123  random 83% (230)  pool 2``."""
    m, s = divmod(int(row["elapsed_s"]), 60)
    loss = "-" if row["loss"] is None else f"{row['loss']:.3f}"
    share = row["sample_s"] / row["iteration_s"] if row["iteration_s"] > 0 else 0.0
    parts = [
        f"iter {row['iteration']:4d}",
        f"{m:3d}:{s:02d}",
        f"learner/s {row['learner_decisions_per_s']:6.0f}",
        f"total/s {row['decisions_per_s']:6.0f}",
        f"sample {100 * share:3.0f}%",
        f"loss {loss}",
    ]
    for kind, o in sorted(row["opponents"].items()):
        if "win_rate" in o:
            parts.append(f"{kind} {100 * o['win_rate']:3.0f}% ({int(o['games'])})")
    parts.append(f"pool {len(row['snapshots'])}")
    if row["new_snapshot"]:
        parts.append(f"+{row['new_snapshot']}")
    return "  ".join(parts)


def save_checkpoint(algo: Any, out: Path, meta: dict[str, Any]) -> Path:
    """Write the checkpoint to ``out/checkpoint`` so that an interruption never leaves a broken one behind."""
    final, tmp, old = out / CHECKPOINT, out / f"{CHECKPOINT}.tmp", out / f"{CHECKPOINT}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    selfplay_callbacks(algo).league.save(tmp / "pool")
    (tmp / TRAIN_INFO).write_text(json.dumps(meta, indent=1))
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def _terminate_as_interrupt() -> Any:
    """SIGTERM (``kill``, a scheduler, a preempted node) ends the run like Ctrl-C: with a checkpoint."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("SIGTERM")

    return signal.signal(signal.SIGTERM, handler)


def _trim_progress(path: Path, last_iteration: int) -> None:
    """Drop rows logged after the checkpoint being resumed (they are about to be redone)."""
    if path.is_file():
        rows = [ln for ln in path.read_text().splitlines() if ln.strip()]
        kept = [ln for ln in rows if json.loads(ln)["iteration"] <= last_iteration]
        path.write_text("".join(k + "\n" for k in kept))


def train(
    settings: TrainSettings | None,
    out: str | Path,
    minutes: float | None = None,
    iterations: int | None = None,
    resume: str | Path | None = None,
    address: str | None = None,
    checkpoint_every: int = 10,
    echo: Callable[[str], None] = print,
    **resource_overrides: Any,
) -> dict[str, Any]:
    """Train until the budget is spent (or Ctrl-C); returns the final checkpoint's metadata.

    ``resume``: a run folder or checkpoint; its settings are reused, except ``resource_overrides``
    (``num_env_runners``, ``num_envs_per_env_runner``, ``num_learners``), so a run can move to a cluster.
    """
    if minutes is None and iterations is None:
        raise ValueError("give a budget: minutes or iterations")
    if (minutes is not None and not (isinstance(minutes, (int, float)) and math.isfinite(minutes) and minutes > 0)) or (
        iterations is not None and iterations < 1
    ):
        raise ValueError(f"the budget must be positive and finite, got minutes={minutes!r}, iterations={iterations!r}")
    out = Path(out)
    if resume is None and (out / PROGRESS).is_file() and (out / PROGRESS).stat().st_size > 0:
        # a new run would append its iterations to the old run's rows (and replace its checkpoint)
        raise ValueError(f"{str(out)!r} already holds a training run: continue it with --resume, or give another --out")
    out.mkdir(parents=True, exist_ok=True)
    state = {"iteration": 0, "elapsed_s": 0.0, "env_steps": 0}
    ckpt = None
    if resume is not None:
        ckpt = find_checkpoint(resume)
        meta = json.loads((ckpt / TRAIN_INFO).read_text())
        loaded = settings_from_json(meta["settings"])
        if settings is not None and settings.game != loaded.game:
            raise ValueError(f"{str(resume)!r} trains {loaded.game}, not {settings.game}")
        settings = replace(loaded, **{k: v for k, v in resource_overrides.items() if v is not None})
        state = {k: meta[k] for k in state}
        _trim_progress(out / PROGRESS, state["iteration"])
    assert settings is not None
    init_ray(address)
    # a resumed run continues with fresh draws (seed shifted by the iterations done), still reproducible
    algo = build_config(replace(settings, seed=settings.seed + state["iteration"])).build_algo()
    try:
        if ckpt is not None:
            algo.restore_from_path(str(ckpt.resolve()))
            selfplay_callbacks(algo).restore_pool(algo, ckpt / "pool")
            echo(f"resumed {settings.game} from {ckpt} at iteration {state['iteration']}")
        return _run(algo, settings, out, state, minutes, iterations, checkpoint_every, echo)
    finally:
        algo.stop()


def _run(
    algo: Any,
    settings: TrainSettings,
    out: Path,
    state: dict[str, Any],
    minutes: float | None,
    iterations: int | None,
    checkpoint_every: int,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    budget_s = None if minutes is None else 60.0 * minutes
    last_s = 0.0
    saved_at = state["iteration"]

    def meta() -> dict[str, Any]:
        return {"game": settings.game, "game_config": settings.game_config, "settings": settings_to_json(settings)} | {
            k: state[k] for k in ("iteration", "elapsed_s", "env_steps")
        }

    def more() -> bool:
        if iterations is not None and state["iteration"] >= iterations:
            return False
        # no iteration starts that would end past the time budget (judged by the last one)
        return budget_s is None or state["elapsed_s"] + last_s <= budget_s

    previous = _terminate_as_interrupt()
    interrupted = None
    try:
        with (out / PROGRESS).open("a") as log:
            while more():
                t0 = time.perf_counter()
                result = algo.train()
                last_s = time.perf_counter() - t0
                state["iteration"] += 1
                state["elapsed_s"] += last_s
                row = progress_row(result, state["iteration"], state["elapsed_s"], last_s)
                state["env_steps"] += row["env_steps"]
                log.write(json.dumps(row) + "\n")
                log.flush()
                echo(format_progress(row))
                if state["iteration"] - saved_at >= checkpoint_every:
                    save_checkpoint(algo, out, meta())
                    saved_at = state["iteration"]
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (this handler's or the command's)
        interrupted = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
        echo("interrupted: saving a checkpoint to resume from (tabuleiro train --resume)")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if state["iteration"] > saved_at or not (out / CHECKPOINT).exists():
        save_checkpoint(algo, out, meta())
    echo(f"checkpoint: {out / CHECKPOINT}  ({state['iteration']} iterations, {state['elapsed_s'] / 60:.1f} min)")
    return meta() | ({"interrupted": interrupted} if interrupted else {})
