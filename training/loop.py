"""One training run: Ray up (this machine or a cluster), PPO iterations under a budget, progress, checkpoints, resume.

Layout of a run folder ``OUT``:
  ``checkpoint/``          the latest Algorithm checkpoint (replaced atomically), its ``pool/`` of frozen
                           snapshots, ``tabuleiro_train.json`` (settings, iteration, seconds trained) and its
                           manifest (``agents.manifest``: sizes and sha256, checked before a resume unpickles it)
  ``progress.jsonl``       one JSON row per iteration (steps/s, loss, win rate and score per opponent kind)
  ``policy.npz``           the compiled policy of the latest checkpoint (``training.export``)
  ``policy-average.npz``   with ``average_after_minutes``: the mean of the policy files written since (SWA)
  ``evaluation.json``      the final evaluation (written by the CLI)
The budget (``minutes`` or ``iterations``) is the run's total across resumes.
"""

import contextlib
import fcntl
import json
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from agents.manifest import checkpoint_iteration, verify_checkpoint
from agents.policy_average import AVERAGE_FILE, average_beside
from agents.rllib_policy import TRAIN_INFO, unreadable_checkpoint
from envs.files import append_line, write_atomic
from training import ray_watchdog, run_folder
from training.config import TrainSettings, build_config, normalized
from training.export import export_beside
from training.opponents import PoolWeights
from training.run_folder import (
    CHECKPOINT,
    CHECKPOINT_NAMES,
    COMPLETE,
    RLLIB_INFO,
    newest_complete,
    seal_checkpoint,
)
from training.selfplay import selfplay_callbacks

PROGRESS = "progress.jsonl"
LOCK = "train.lock"  # held by the process training into the folder (its id inside)


_WATCHDOGS: list[Any] = []  # kept alive with this process: the pipe to each closes when it ends


def init_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    """Connect to a cluster (``address="auto"`` after ``ray start --head``) or start Ray on this machine, with a
    watchdog (``training.ray_watchdog``) that ends Ray's processes once this one has ended, even killed."""
    import ray  # optional heavy: started only when training

    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
        return
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if os.path.isdir("/proc") and not _WATCHDOGS:  # it reads /proc (Linux)
        _WATCHDOGS.append(ray_watchdog.start())
    ray.init(
        num_cpus=num_cpus or os.cpu_count(),
        include_dashboard=False,
        object_store_memory=512 * 1024**2,
        log_to_driver=False,
    )
    for watchdog in _WATCHDOGS:
        watchdog.note()  # Ray's processes, noted before anything else can happen


def settings_to_json(s: TrainSettings) -> dict[str, Any]:
    return asdict(s)


def settings_from_json(d: dict[str, Any]) -> TrainSettings:
    d = normalized(d)
    d["pool"] = PoolWeights(**d["pool"])
    return TrainSettings(**d)


def _checkpoint_iteration(folder: Path) -> int | None:
    """The iteration of a complete checkpoint (its manifest, written last, lists the info files and every file has
    the size it records); None for anything else (being written, partly deleted, cut short)."""
    return checkpoint_iteration(folder, (TRAIN_INFO, RLLIB_INFO))


def _legacy(folder: Path) -> bool:
    """A checkpoint written before completeness markers (``checkpoint/`` was only ever a complete one)."""
    return not (folder / COMPLETE).exists() and (folder / TRAIN_INFO).is_file() and (folder / RLLIB_INFO).is_file()


def newest_checkpoint(run: str | Path) -> Path | None:
    """The newest complete checkpoint of a run folder, whatever an interrupted save left: ``checkpoint/``,
    ``checkpoint.tmp/`` or ``checkpoint.old/`` (a tie goes to ``checkpoint/``); None if there is none."""
    run = Path(run)
    found = newest_complete(run, (TRAIN_INFO, RLLIB_INFO))
    if found is not None:
        return found
    return run / CHECKPOINT if _legacy(run / CHECKPOINT) else None


def find_checkpoint(run: str | Path) -> Path:
    """The checkpoint to resume from: the newest complete one of a run folder (``newest_checkpoint``), or a
    checkpoint folder itself (one of the run's three names stands for its run folder)."""
    run = Path(run)
    if run.name in CHECKPOINT_NAMES:
        found = newest_checkpoint(run.parent)
        if found is not None:
            return found
    elif (run / COMPLETE).exists() or (run / TRAIN_INFO).exists():  # a checkpoint folder named by the user
        if _checkpoint_iteration(run) is not None or _legacy(run):
            return run
        raise ValueError(f"{str(run)!r} is an incomplete checkpoint (a file is missing or cut short)")
    else:
        found = newest_checkpoint(run)
        if found is not None:
            return found
    raise ValueError(
        f"no tabuleiro checkpoint in {str(run)!r} (expected a complete {CHECKPOINT}/, {CHECKPOINT}.tmp/ "
        f"or {CHECKPOINT}.old/ with {COMPLETE})"
    )


def progress_row(result: dict[str, Any], iteration: int, elapsed: float, seconds: float) -> dict[str, Any]:
    """The numbers worth a line per iteration, from one ``Algorithm.train()`` result and its wall-clock time.

    Rates are over the iteration's wall-clock ``seconds``; ``sample_s`` is the wall-clock time spent in
    the env runners' ``sample()`` (summed over runners), ``learn_s`` the rest of the iteration.
    RuntimeError if the learner reported no loss (a silent failure otherwise).
    """
    from ray.rllib.core import DEFAULT_MODULE_ID  # optional heavy: ray
    from ray.rllib.core.learner.learner import DEFAULT_OPTIMIZER, LR_KEY

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
        "outside_decisions": int(sp.get("outside_decisions", 0)),
        "learner_decisions_per_s": sp.get("learner_decisions", 0.0) / seconds if seconds > 0 else 0.0,
        "decisions_per_s": sp.get("decisions", 0.0) / seconds if seconds > 0 else 0.0,
        "episodes": int(runners.get("num_episodes", 0) or 0),
        "loss": _num(learner.get("total_loss")),
        "policy_loss": _num(learner.get("policy_loss")),
        "vf_loss": _num(learner.get("vf_loss")),
        "entropy": _num(learner.get("entropy")),
        "lr": _num(learner.get(f"{DEFAULT_OPTIMIZER}_{LR_KEY}")),  # the rate this iteration learnt at
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


def settle_checkpoints(out: Path) -> Path | None:
    """Make ``out/checkpoint`` the newest complete checkpoint and remove the others (what an interrupted save
    left). Every step keeps the newest complete checkpoint where ``newest_checkpoint`` finds it: a folder is
    removed only while a newer or equal complete one exists, and the newest is moved by one rename."""
    return run_folder.settle_checkpoints(out, newest_checkpoint)


def save_checkpoint(algo: Any, out: Path, meta: dict[str, Any]) -> Path:
    """Write the checkpoint to ``out/checkpoint`` so that a kill at any moment (a second one while resuming
    included) leaves the newest complete checkpoint where ``find_checkpoint`` looks: the new one is written
    into ``checkpoint.tmp/`` and sealed by its marker, written last; then ``checkpoint/`` becomes
    ``checkpoint.old/``, ``checkpoint.tmp/`` becomes ``checkpoint/`` and the old one is removed."""
    tmp = out / CHECKPOINT_NAMES[1]
    settle_checkpoints(out)  # what an earlier interrupted save left: the newest complete one is checkpoint/
    algo.save_to_path(str(tmp.resolve()))
    selfplay_callbacks(algo).league.save(tmp / "pool")
    write_atomic(tmp / TRAIN_INFO, json.dumps(meta, indent=1))
    return seal_checkpoint(out, int(meta["iteration"]))  # the manifest written last, then the renames


def _terminate_as_interrupt() -> Any:
    """SIGTERM (``kill``, a scheduler, a preempted node) ends the run like Ctrl-C: with a checkpoint."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("SIGTERM")

    return signal.signal(signal.SIGTERM, handler)


def trim_progress(path: Path, last_iteration: int, echo: Callable[[str], None] = print) -> None:
    """Drop rows logged after the checkpoint being resumed (they are about to be redone), and any line that is
    not a whole row (a full disk or a power cut tore it), with a warning naming the line. The file is
    rewritten through a temporary file renamed into place."""
    if not path.is_file():
        return
    raw = path.read_bytes()
    kept = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            iteration = json.loads(line)["iteration"]
            if isinstance(iteration, bool) or not isinstance(iteration, int):
                raise TypeError("iteration")
        except (ValueError, KeyError, TypeError, IndexError, RecursionError):
            echo(f"warning: {path} line {number} is not a whole progress row ({len(line)} bytes, cut short?): ignored")
            continue
        if iteration <= last_iteration:
            kept.append(line)
    text = b"".join(line + b"\n" for line in kept)
    if text != raw:
        write_atomic(path, text)


def train(
    settings: TrainSettings | None,
    out: str | Path,
    minutes: float | None = None,
    iterations: int | None = None,
    resume: str | Path | None = None,
    address: str | None = None,
    checkpoint_every: int = 10,
    echo: Callable[[str], None] = print,
    trust_checkpoint: bool = False,
    **resource_overrides: Any,
) -> dict[str, Any]:
    """Train until the budget is spent (or Ctrl-C); returns the final checkpoint's metadata.

    ``resume``: a run folder or checkpoint; its settings are reused, except ``resource_overrides``
    (``num_env_runners``, ``num_envs_per_env_runner``, ``num_learners``), so a run can move to a cluster.
    Its files are checked against its manifest before anything is unpickled (``agents.manifest``); one without
    checksums is loaded only with ``trust_checkpoint``.
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
    with run_lock(out):  # a second run on this folder is refused while this one lives
        return _train(
            settings,
            out,
            minutes,
            iterations,
            resume,
            address,
            checkpoint_every,
            echo,
            resource_overrides,
            trust_checkpoint,
        )


@contextlib.contextmanager
def run_lock(out: Path) -> Iterator[None]:
    """Hold ``out/train.lock`` (an exclusive ``flock``, which the system releases when the process ends, even
    killed) with this process's id in it; ValueError naming the holder's id if another process holds it."""
    path = out / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise ValueError(
            f"{str(out)!r} is in use by another tabuleiro train (process {holder}, {str(path)!r}): "
            "wait for it to end, or give another --out"
        ) from None
    except BaseException:
        os.close(fd)
        raise
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock; the file stays (removing it would race with a process taking it)


def _train(
    settings: TrainSettings | None,
    out: Path,
    minutes: float | None,
    iterations: int | None,
    resume: str | Path | None,
    address: str | None,
    checkpoint_every: int,
    echo: Callable[[str], None],
    resource_overrides: dict[str, Any],
    trust_checkpoint: bool = False,
) -> dict[str, Any]:
    state = {"iteration": 0, "elapsed_s": 0.0, "env_steps": 0}
    ckpt = None
    if resume is not None:
        ckpt = find_checkpoint(resume)
        verify_checkpoint(ckpt, trust_checkpoint, "--trust-checkpoint")  # before anything in it is unpickled
        meta = json.loads((ckpt / TRAIN_INFO).read_text())
        loaded = settings_from_json(meta["settings"])
        if settings is not None and settings.game != loaded.game:
            raise ValueError(f"{str(resume)!r} trains {loaded.game}, not {settings.game}")
        settings = replace(loaded, **{k: v for k, v in resource_overrides.items() if v is not None})
        state = {k: meta[k] for k in state}
        trim_progress(out / PROGRESS, state["iteration"], echo)
    assert settings is not None
    init_ray(address)
    # a resumed run continues with fresh draws (seed shifted by the iterations done), still reproducible
    algo = build_config(replace(settings, seed=settings.seed + state["iteration"])).build_algo()
    try:
        if ckpt is not None:
            with unreadable_checkpoint(ckpt):  # a trusted checkpoint cut short: a clear error, not a traceback
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
    if state["iteration"] == 0:
        (out / AVERAGE_FILE).unlink(missing_ok=True)  # a new run's mean holds only its own policies
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
        log = os.open(out / PROGRESS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            while more():
                t0 = time.perf_counter()
                result = algo.train()
                last_s = time.perf_counter() - t0
                state["iteration"] += 1
                state["elapsed_s"] += last_s
                row = progress_row(result, state["iteration"], state["elapsed_s"], last_s)
                state["env_steps"] += row["env_steps"]
                append_line(log, json.dumps(row))  # whole lines only, fsynced: a full disk leaves no torn row
                echo(format_progress(row))
                if state["iteration"] - saved_at >= checkpoint_every:
                    save_checkpoint(algo, out, meta())
                    exported = export_beside(out / CHECKPOINT, echo)  # policy.npz: the compiled policy
                    average_beside(exported, settings.average_after_minutes, state["elapsed_s"], echo)
                    saved_at = state["iteration"]
        finally:
            os.close(log)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (this handler's or the command's)
        interrupted = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
        echo("interrupted: saving a checkpoint to resume from (tabuleiro train --resume)")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if state["iteration"] > saved_at or newest_checkpoint(out) is None:
        save_checkpoint(algo, out, meta())
        average_beside(export_beside(out / CHECKPOINT, echo), settings.average_after_minutes, state["elapsed_s"], echo)
    echo(f"checkpoint: {out / CHECKPOINT}  ({state['iteration']} iterations, {state['elapsed_s'] / 60:.1f} min)")
    return meta() | ({"interrupted": interrupted} if interrupted else {})
