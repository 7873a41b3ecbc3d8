"""Checkpoints and progress rows survive kills and full disks, without training: a fake Algorithm writes the
files a checkpoint holds, and a kill is an exception raised at the k-th file operation of a save (every k in
turn, and a second kill at every point of the save that follows a resume)."""

import errno
import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

import training.loop
from training.config import settings_for
from training.loop import (
    COMPLETE,
    PROGRESS,
    find_checkpoint,
    run_lock,
    save_checkpoint,
    settings_to_json,
    train,
    trim_progress,
)

TRAIN_INFO = "tabuleiro_train.json"


class Killed(BaseException):
    """The process died here (nothing after it runs; like SIGKILL, not an exception anyone handles)."""


class FakeAlgo:
    """Writes what ``Algorithm.save_to_path`` writes, enough to tell checkpoints apart by iteration."""

    def __init__(self, iteration: int) -> None:
        self.iteration = iteration

    def save_to_path(self, path: str) -> None:
        p = Path(path)
        (p / "learner_group" / "learner").mkdir(parents=True)
        (p / "rllib_checkpoint.json").write_text(json.dumps({"type": "Algorithm"}))
        (p / "algorithm_state.pkl").write_bytes(b"state %d " % self.iteration * 50)
        (p / "learner_group" / "learner" / "module_state.pt").write_bytes(b"weights" * 300)


@pytest.fixture(autouse=True)
def fake_league(monkeypatch):
    def callbacks(algo):
        def save(folder):
            Path(folder).mkdir(parents=True, exist_ok=True)
            (Path(folder) / "pool.json").write_text(json.dumps({"snapshots": [], "iteration": algo.iteration}))

        return SimpleNamespace(league=SimpleNamespace(save=save))

    monkeypatch.setattr(training.loop, "selfplay_callbacks", callbacks)


def _meta(iteration: int) -> dict:
    s = settings_for("capivari")
    return {"game": s.game, "game_config": {}, "settings": settings_to_json(s)} | {
        "iteration": iteration,
        "elapsed_s": float(iteration),
        "env_steps": 100 * iteration,
    }


def _save(out: Path, iteration: int) -> Path:
    return save_checkpoint(FakeAlgo(iteration), out, _meta(iteration))


def _iteration(checkpoint: Path) -> int:
    return json.loads((checkpoint / TRAIN_INFO).read_text())["iteration"]


OPS = ("rename", "replace", "unlink", "rmdir", "mkdir", "write", "open")


@pytest.fixture
def kill_at(monkeypatch):
    """``kill_at(k)``: from now on the k-th file operation (rename, unlink, write, ...) raises ``Killed``;
    ``kill_at(None)`` stops that. Returns the number of operations counted since the last call."""
    state = {"k": None, "n": 0}
    real = {name: getattr(os, name) for name in OPS}

    def wrap(name):
        def op(*args, **kwargs):
            state["n"] += 1
            if state["k"] is not None and state["n"] == state["k"]:
                raise Killed(f"{name} #{state['n']}")
            return real[name](*args, **kwargs)

        return op

    for name in OPS:
        monkeypatch.setattr(os, name, wrap(name))
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability against power cuts is not what this tests

    def arm(k):
        counted = state["n"]
        state["k"], state["n"] = k, 0
        return counted

    return arm


def _killed_save(out: Path, iteration: int, kill_at, k: int) -> bool:
    """Save with a kill at operation k; True if the kill happened (False: the save finished first)."""
    kill_at(k)
    try:
        _save(out, iteration)
    except Killed:
        return True
    finally:
        kill_at(None)
    return False


def test_a_save_leaves_one_complete_checkpoint(tmp_path):
    final = _save(tmp_path, 10)
    assert final == tmp_path / "checkpoint" and (final / COMPLETE).is_file() and _iteration(final) == 10
    _save(tmp_path, 20)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]
    assert find_checkpoint(tmp_path) == final and _iteration(final) == 20
    assert find_checkpoint(final) == final  # the checkpoint folder itself stands for its run
    marker = json.loads((final / COMPLETE).read_text())
    assert marker["iteration"] == 20 and marker["files"]["learner_group/learner/module_state.pt"]["size"] == 2100


def _state(tmp_path: Path, final: int | None, tmp: int | None, old: int | None) -> Path:
    """A run folder holding complete checkpoints of the given iterations under each name (None: absent)."""
    out = tmp_path / "run"
    for name, iteration in (("checkpoint", final), ("checkpoint.tmp", tmp), ("checkpoint.old", old)):
        if iteration is not None:
            scratch = tmp_path / f"scratch{iteration}"
            _save(scratch, iteration)
            out.mkdir(exist_ok=True)
            shutil.move(scratch / "checkpoint", out / name)
    return out


@pytest.mark.parametrize(
    "final, tmp, old, expected",
    [
        (None, 20, None, "checkpoint.tmp"),  # killed between the two renames of a save resumed from .tmp
        (None, None, 10, "checkpoint.old"),  # only .old left
        (None, 20, 10, "checkpoint.tmp"),  # killed between the renames: the new one is complete
        (20, None, 10, "checkpoint"),  # killed before .old was removed
        (10, 20, None, "checkpoint.tmp"),  # killed after the new one was sealed
        (20, 20, None, "checkpoint"),  # a tie goes to checkpoint/
    ],
)
def test_resume_finds_the_newest_complete_checkpoint(tmp_path, final, tmp, old, expected):
    out = _state(tmp_path, final, tmp, old)
    assert find_checkpoint(out) == out / expected
    assert find_checkpoint(out / "checkpoint") == out / expected  # --resume OUT/checkpoint means the run
    _save(out, 30)  # the next save settles what the kill left, then replaces it
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint"] and _iteration(out / "checkpoint") == 30


def test_a_partial_checkpoint_is_never_resumed(tmp_path):
    out = _state(tmp_path, None, 20, 10)
    (out / "checkpoint.tmp" / "algorithm_state.pkl").write_bytes(b"cut")  # a file cut short: not complete
    assert find_checkpoint(out) == out / "checkpoint.old"
    (out / "checkpoint.old" / COMPLETE).unlink()  # being deleted: its marker goes first
    with pytest.raises(ValueError, match="no tabuleiro checkpoint"):
        find_checkpoint(out)
    shutil.copytree(out / "checkpoint.tmp", tmp_path / "mine")
    with pytest.raises(ValueError, match="incomplete checkpoint"):
        find_checkpoint(tmp_path / "mine")


def test_a_checkpoint_from_before_markers_is_still_found(tmp_path):
    out = _state(tmp_path, 10, None, None)
    (out / "checkpoint" / COMPLETE).unlink()
    assert find_checkpoint(out) == out / "checkpoint"
    _save(out, 20)
    assert find_checkpoint(out) == out / "checkpoint" and _iteration(out / "checkpoint") == 20


def test_a_kill_at_any_point_of_a_save_and_again_while_resuming_keeps_the_newest_complete_one(tmp_path, kill_at):
    base = _state(tmp_path, 10, None, None)
    _save(tmp_path / "count", 10)
    kill_at(None)
    _save(tmp_path / "count", 20)
    steps = kill_at(None)  # operations in a save over an earlier checkpoint
    assert steps > 10, steps
    for k in range(1, steps + 1):
        first = tmp_path / f"k{k}"
        shutil.copytree(base, first)
        assert _killed_save(first, 20, kill_at, k)
        resumed = find_checkpoint(first)  # the resume reads this one
        assert _iteration(resumed) in (10, 20)
        for j in range(1 + k % 6, steps + 2, 6):  # a second kill while the resumed run saves (all j over all k)
            second = tmp_path / f"k{k}-{j}"
            shutil.copytree(first, second, symlinks=True)
            _killed_save(second, 30, kill_at, j)
            assert _iteration(find_checkpoint(second)) in (_iteration(resumed), 30), (k, j)
            shutil.rmtree(second)
        shutil.rmtree(first)


def test_a_full_disk_during_a_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    out = _state(tmp_path, 10, None, None)
    real_write = os.write

    def write(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(out)):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    with pytest.raises(OSError):
        _save(out, 20)
    assert _iteration(find_checkpoint(out)) == 10


# -- progress rows ----------------------------------------------------------------------------------

ROWS = "".join(json.dumps({"iteration": i, "loss": 0.1}) + "\n" for i in range(1, 12))
TORN = '{"iteration": 12, "loss": 0.'


def test_a_torn_last_row_is_dropped_with_a_warning_naming_its_line(tmp_path):
    path = tmp_path / PROGRESS
    path.write_text(ROWS + TORN)
    said = []
    trim_progress(path, 10, said.append)
    assert path.read_text() == "".join(ROWS.splitlines(keepends=True)[:10])
    assert len(said) == 1 and "line 12" in said[0] and "ignored" in said[0]
    trim_progress(path, 10, said.append)  # nothing left to say
    assert len(said) == 1


def test_resume_with_a_torn_row_reaches_training(tmp_path, monkeypatch):
    """``train --resume`` over a torn progress.jsonl: no JSON error, a warning, then Ray would start."""
    out = tmp_path / "run"
    _save(out, 10)
    (out / PROGRESS).write_text(ROWS + TORN)

    class RayWouldStart(Exception):
        pass

    def init_ray(address):
        raise RayWouldStart

    monkeypatch.setattr(training.loop, "init_ray", init_ray)
    said = []
    with pytest.raises(RayWouldStart):
        train(None, out, iterations=20, resume=out, echo=said.append)
    assert any("line 12" in line for line in said), said
    assert [json.loads(r)["iteration"] for r in (out / PROGRESS).read_text().splitlines()] == list(range(1, 11))


def test_a_second_run_on_a_folder_in_use_is_refused_with_the_holders_pid(tmp_path, monkeypatch):
    out = tmp_path / "run"
    _save(out, 10)

    def init_ray(address):
        raise RuntimeError("Ray would start")

    monkeypatch.setattr(training.loop, "init_ray", init_ray)
    with run_lock(out):  # a run in progress (an exclusive flock: another process is refused the same way)
        with pytest.raises(ValueError, match=rf"in use by another tabuleiro train \(process {os.getpid()}"):
            train(None, out, iterations=20, resume=out, echo=lambda line: None)
    with pytest.raises(RuntimeError, match="Ray would start"):  # released: the next run goes ahead
        train(None, out, iterations=20, resume=out, echo=lambda line: None)
