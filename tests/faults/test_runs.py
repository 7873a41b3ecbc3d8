"""Kills and full disks at random points of checkpoint saves (a second one during the resume's save), torn
progress rows and every result writer on a full disk: each case ends with the old or the new complete file,
whose every byte its manifest vouches for, and nothing else lost. Training is the fake Algorithm of
``tests/training/test_checkpoints.py`` (the files a checkpoint holds), so no Ray is started."""

import errno
import io
import json
import os
import shutil

import numpy as np
import pytest

from agents.manifest import verify_checkpoint
from envs.files import save_figure, save_image, write_atomic
from tests.training.test_checkpoints import TRAIN_INFO, Killed, _save, fake_league, kill_at  # noqa: F401, F811
from training.loop import PROGRESS, find_checkpoint, trim_progress

CASES = 24  # random (first fault, second fault) pairs per run of the suite; the long script runs many more


def _iteration(checkpoint) -> int:
    return json.loads((checkpoint / TRAIN_INFO).read_text())["iteration"]


class _Faults:
    """The k-th file operation from now on fails: a kill (``Killed``) or a full disk (``OSError(ENOSPC)``)."""

    def __init__(self, kill_at, monkeypatch) -> None:  # noqa: F811
        self.kill_at = kill_at
        self.monkeypatch = monkeypatch

    def save(self, out, iteration: int, k: int, kind: str) -> str:
        """Save with a fault at operation k; what happened: "killed", "full disk" or "saved"."""
        if kind == "full disk":
            real = os.write
            count = {"n": 0}

            def write(fd, data):
                count["n"] += 1
                if count["n"] >= k:
                    raise OSError(errno.ENOSPC, "No space left on device")
                return real(fd, data)

            self.monkeypatch.setattr(os, "write", write)
            try:
                _save(out, iteration)
            except OSError:
                return "full disk"
            finally:
                self.monkeypatch.setattr(os, "write", real)
            return "saved"
        self.kill_at(k)
        try:
            _save(out, iteration)
        except Killed:
            return "killed"
        finally:
            self.kill_at(None)
        return "saved"


def test_random_kills_and_full_disks_in_a_save_and_in_the_resumed_save_keep_a_complete_checkpoint(
    tmp_path,
    kill_at,  # noqa: F811
    monkeypatch,
):
    faults = _Faults(kill_at, monkeypatch)
    rng = np.random.default_rng(32)
    base = tmp_path / "base"
    _save(base, 10)
    kill_at(None)
    _save(tmp_path / "count", 10)
    kill_at(None)
    _save(tmp_path / "count", 20)
    steps = kill_at(None)
    outcomes = {}
    for case in range(CASES):
        run = tmp_path / f"case{case}"
        shutil.copytree(base, run)
        first = faults.save(run, 20, int(rng.integers(1, steps + 1)), str(rng.choice(["kill", "full disk"])))
        resumed = find_checkpoint(run)
        verify_checkpoint(resumed)  # complete, every byte as written
        before = _iteration(resumed)  # (the next save moves the folder it was found in)
        assert before in (10, 20)
        second = faults.save(run, 30, int(rng.integers(1, steps + 2)), str(rng.choice(["kill", "full disk"])))
        final = find_checkpoint(run)
        verify_checkpoint(final)
        assert _iteration(final) in (before, 30)
        outcomes[(first, second)] = outcomes.get((first, second), 0) + 1
        shutil.rmtree(run)
    assert sum(outcomes.values()) == CASES


def test_torn_rows_anywhere_are_dropped_and_whole_rows_kept(tmp_path):
    rows = [json.dumps({"iteration": i, "loss": 0.5}) for i in range(1, 21)]
    rng = np.random.default_rng(6)
    for case in range(10):
        torn = sorted(rng.choice(20, size=3, replace=False))
        lines = [r[: int(rng.integers(1, len(r) - 1))] if i in torn else r for i, r in enumerate(rows)]
        path = tmp_path / f"{case}-{PROGRESS}"
        path.write_text("\n".join(lines) + "\n")
        warnings = []
        trim_progress(path, 20, warnings.append)
        kept = [json.loads(line)["iteration"] for line in path.read_text().splitlines()]
        assert kept == [i + 1 for i in range(20) if i not in torn]
        assert len(warnings) == 3


@pytest.fixture
def full_disk(monkeypatch, tmp_path):
    """Writes into files under ``tmp_path / "disk"`` write 7 bytes, then fail with ENOSPC."""
    disk = tmp_path / "disk"
    disk.mkdir()
    real = os.write

    def write(fd: int, data) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(disk)):
            if len(data) > 7:
                real(fd, bytes(data[:7]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    return disk


OLD = b"an earlier complete result\n"


def _writers():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def figure(path):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        try:
            save_figure(fig, path, dpi=50)
        finally:
            plt.close(fig)

    return {
        "figure (--png, learning.png, bench.png)": figure,
        "picture (replay --png)": lambda path: save_image(path, np.zeros((4, 4, 3), np.uint8)),
        "json (learning.json, mccfr --json)": lambda path: write_atomic(path, json.dumps({"rows": [1] * 10000})),
    }


@pytest.mark.parametrize(
    "writer",
    ["figure (--png, learning.png, bench.png)", "picture (replay --png)", "json (learning.json, mccfr --json)"],
)
def test_a_full_disk_keeps_the_earlier_result_and_leaves_no_partial_file(full_disk, writer):
    path = full_disk / "result.png"
    path.write_bytes(OLD)
    with pytest.raises(OSError) as caught:
        _writers()[writer](path)
    assert caught.value.errno == errno.ENOSPC
    assert path.read_bytes() == OLD
    assert sorted(p.name for p in full_disk.iterdir()) == ["result.png"]


def test_the_writers_write_whole_files(tmp_path):
    from PIL import Image

    for name, write in _writers().items():
        path = tmp_path / "out.png"
        write(path)
        if "json" in name:
            assert json.loads(path.read_text())["rows"][-1] == 1
        else:
            assert Image.open(io.BytesIO(path.read_bytes())).size[0] > 0
