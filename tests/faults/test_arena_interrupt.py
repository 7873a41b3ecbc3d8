"""An interrupted arena: a signal while a finished game's replay is written still reports that game (the replays
on disk are exactly the reported games), and a SIGTERM to the whole process group stops it, workers included."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agents.arena
from tabuleiro.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_right_after_a_replay_is_written_still_reports_its_game(tmp_path, monkeypatch, capsys):
    real = agents.arena.write_atomic
    written = []

    def write_then_sigterm(path, text):
        out = real(path, text)
        written.append(path)
        if len(written) == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        return out

    monkeypatch.setattr(agents.arena, "write_atomic", write_then_sigterm)
    report_path, games = tmp_path / "a.json", tmp_path / "games"
    argv = ["arena", "kuhn_poker", "--agents", "random,random", "--games", "40", "--workers", "1"]
    assert main([*argv, "--json", str(report_path), "--replays", str(games)]) == 143
    assert "Traceback" not in capsys.readouterr().err
    report = json.loads(report_path.read_text())
    assert report["interrupted"] == "SIGTERM"
    assert report["games"] == len(list(games.glob("*.json"))) == 3


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals a process group")
def test_sigterm_to_the_whole_group_stops_the_arena_and_its_workers(tmp_path):
    """A terminal or a scheduler signals the whole group: workers killed while sending a result used to keep the
    result queue's lock and hang the parent's terminate for good (in multiprocessing.Pool)."""
    games = tmp_path / "games"
    argv = ["arena", "kuhn_poker", "--agents", "heuristic,random", "--games", "100000", "--workers", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabuleiro", *argv, "--json", str(tmp_path / "a.json"), "--replays", str(games)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while len(list(games.glob("*.json"))) < 100 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=120) == 143
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["games"] == len(list(games.glob("*.json")))
