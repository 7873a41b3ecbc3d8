"""Long runs stop promptly on SIGTERM and Ctrl-C, worker processes included, without a traceback.

Each test starts the command as a subprocess, waits (bounded) until its progress bar shows finished work,
signals it and expects it gone within a few seconds.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the worker processes")

STARTUP = 300.0  # seconds to wait for the first finished work (numba compiles on a cold cache)
PROMPT = 15.0  # seconds a stopped command may take to exit (generous on a busy 2-core machine)


class _Run:
    """A `tabuleiro` subprocess in its own session (as from a terminal), its stderr collected by a thread."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        def default_sigint() -> None:  # a shell's background job ignores SIGINT; a terminal's does not
            signal.signal(signal.SIGINT, signal.SIG_DFL)

        env = dict(os.environ, RAY_AUTH_MODE="disabled", PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tabuleiro", *args],
            stdin=subprocess.PIPE,  # open and silent: a `play` waits at its prompt
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=default_sigint,
        )
        self.err = b""
        self.out = b""
        self._threads = [
            threading.Thread(target=self._drain, args=(self.proc.stderr, "err"), daemon=True),
            threading.Thread(target=self._drain, args=(self.proc.stdout, "out"), daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _drain(self, stream, name: str) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):
            setattr(self, name, getattr(self, name) + chunk)

    def wait_for_progress(self) -> tuple[int, int]:
        """Block (bounded) until the progress bar shows at least one finished unit; (done, total)."""
        pattern = re.compile(rb"\| *([1-9]\d*)/(\d+) \[")
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            found = pattern.findall(self.err)
            if found:
                return int(found[-1][0]), int(found[-1][1])
            assert self.proc.poll() is None, self.text()
            time.sleep(0.1)
        self.kill()
        pytest.fail(f"no progress within {STARTUP} s:\n{self.text()}")

    def children(self) -> list[int]:
        pids = []
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            pids += [int(p) for p in (task / "children").read_text().split()]
        return pids

    def stop(self, how) -> tuple[int, float]:  # noqa: ANN001
        """Send the signal; (exit code, seconds it took to exit)."""
        start = time.monotonic()
        how()
        try:
            code = self.proc.wait(timeout=PROMPT)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"still running {PROMPT} s after the signal:\n{self.text()}")
        for t in self._threads:
            t.join(timeout=PROMPT)
        return code, time.monotonic() - start

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def text(self) -> str:
        return self.err.decode(errors="replace") + "\n" + self.out.decode(errors="replace")


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")  # a zombie has stopped running


def _assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + PROMPT
    while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [p for p in pids if not _gone(p)]
    for p in alive:  # never leave them running, then fail
        os.kill(p, signal.SIGKILL)
    assert not alive, f"worker processes {alive} outlived the arena"


ARENA = ["arena", "capivari", "--agents", "ismcts:iterations=2000,random", "--games", "2000", "--workers", "2"]


def test_sigterm_stops_the_arena_and_its_workers_and_keeps_the_finished_games(tmp_path):
    run = _Run([*ARENA, "--json", str(tmp_path / "partial.json")], tmp_path)
    try:
        assert run.wait_for_progress()[1] == 2000
        workers = run.children()
        assert len(workers) >= 2
        code, took = run.stop(lambda: os.kill(run.proc.pid, signal.SIGTERM))
    finally:
        if run.proc.poll() is None:
            run.kill()
    text = run.text()
    assert code == 143, text
    assert "tabuleiro arena: stopped (SIGTERM)" in text and "Traceback" not in text
    _assert_all_gone(workers)
    import json

    report = json.loads((tmp_path / "partial.json").read_text())
    assert 1 <= report["games"] < report["games_requested"] == 2000
    assert f"stopped after {report['games']} of 2000 games" in text
    assert "of 2000 (stopped early)" in text and "win rate" in text


def test_ctrl_c_stops_the_arena_without_a_traceback_from_each_worker(tmp_path):
    run = _Run(ARENA, tmp_path)
    try:
        assert run.wait_for_progress()[1] == 2000
        workers = run.children()
        code, _ = run.stop(lambda: os.killpg(run.proc.pid, signal.SIGINT))  # the terminal signals the group
    finally:
        if run.proc.poll() is None:
            run.kill()
    text = run.text()
    assert code == 130, text
    assert "tabuleiro arena: interrupted" in text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    _assert_all_gone(workers)


def test_sigterm_stops_play_waiting_at_its_prompt(tmp_path):
    run = _Run(["play", "capivari", "--seed", "3", "--save", str(tmp_path / "g.json")], tmp_path)
    try:
        deadline = time.monotonic() + STARTUP
        while b"your move> " not in run.out and time.monotonic() < deadline:
            assert run.proc.poll() is None, run.text()
            time.sleep(0.1)
        code, _ = run.stop(lambda: os.kill(run.proc.pid, signal.SIGTERM))
    finally:
        if run.proc.poll() is None:
            run.kill()
    text = run.text()
    assert code == 143, text
    assert "game left (SIGTERM)" in text and "tabuleiro play: stopped (SIGTERM)" in text
    assert "Traceback" not in text and not (tmp_path / "g.json").exists()


def test_sigterm_stops_the_bench_between_measurements(tmp_path):
    args = ["bench", "--games", "capivari", "--no-peers", "--no-startup", "--seconds", "1", "--repeats", "3"]
    run = _Run(args, tmp_path)
    try:
        done, total = run.wait_for_progress()  # measures: raw kernel per size and thread count, batch, AEC, ...
        assert done < total
        code, _ = run.stop(lambda: os.kill(run.proc.pid, signal.SIGTERM))
    finally:
        if run.proc.poll() is None:
            run.kill()
    text = run.text()
    assert code == 143, text
    assert "tabuleiro bench: stopped (SIGTERM)" in text and "Traceback" not in text


@pytest.mark.rl
def test_an_interrupted_training_skips_the_evaluation_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    """The loop saves a checkpoint on Ctrl-C/SIGTERM (tests/training); the command then stops there."""
    pytest.importorskip("ray.rllib", reason="needs the rl extra")
    import tabuleiro.commands.train
    import training.loop
    from tabuleiro.cli import main

    def interrupted_train(settings, out, **kwargs):
        return {"game": settings.game, "game_config": {}, "iteration": 3, "interrupted": "SIGTERM"}

    def no_evaluation(*args, **kwargs):
        raise AssertionError("evaluated after an interruption")

    monkeypatch.setattr(training.loop, "train", interrupted_train)
    monkeypatch.setattr(tabuleiro.commands.train, "final_evaluation", no_evaluation)
    out = tmp_path / "run"
    assert main(["train", "capivari", "--iterations", "5", "--out", str(out)]) == 143
    text = capsys.readouterr().out
    assert f"stopped (SIGTERM): no evaluation; continue with tabuleiro train capivari_v0 --resume {out}" in text
    assert not (out / "evaluation.json").exists()
