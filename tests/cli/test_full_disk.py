"""A full disk never costs an earlier result: every writer of a result file writes a temporary file, fsyncs
it and renames it into place, so a write that fails with ENOSPC leaves the old complete file (or none) and
no partial or temporary file. The full disk is an ``OSError(ENOSPC)`` from ``os.write`` (after part of the
data was written) for every file under the test's folder."""

import errno
import io
import json
import os
from pathlib import Path

import pytest

from envs.files import append_line, write_atomic
from envs.replay import load, save, verify
from tabuleiro.cli import main

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "docs" / "replays" / "capivari.json"
OLD = '{"old": "a complete earlier result"}\n'


@pytest.fixture
def full_disk(monkeypatch, tmp_path):
    """From now on, a write into a file under ``tmp_path / "disk"`` writes 7 bytes, then fails with ENOSPC."""
    disk = tmp_path / "disk"
    disk.mkdir()
    real_write = os.write

    def write(fd: int, data) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if not target.startswith(str(disk)):
            return real_write(fd, data)
        if len(data) > 7 and not getattr(write, "cut", False):
            write.cut = True
            return real_write(fd, bytes(data[:7]))  # a short write: part of the data made it
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", write)
    return disk


def _only(folder: Path, *names: str) -> None:
    """The folder holds exactly ``names``: no partial or temporary file beside them."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="tells files apart through /proc")


def test_write_atomic_keeps_the_old_file_and_leaves_no_temporary(full_disk):
    target = full_disk / "r.json"
    target.write_text(OLD)
    with pytest.raises(OSError) as caught:
        write_atomic(target, json.dumps({"new": "x" * 10_000}))
    assert caught.value.errno == errno.ENOSPC
    assert target.read_text() == OLD
    _only(full_disk, "r.json")
    with pytest.raises(OSError):
        write_atomic(full_disk / "new.json", "new text, more than 7 bytes")
    _only(full_disk, "r.json")  # no 0-byte or partial new file either


def test_write_atomic_replaces_whole_and_keeps_permissions(tmp_path):
    target = tmp_path / "r.json"
    target.write_text(OLD)
    target.chmod(0o640)
    write_atomic(target, "new")
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640
    _only(tmp_path, "r.json")


def test_append_line_cuts_a_failed_row_back(full_disk):
    log = full_disk / "progress.jsonl"
    log.write_text('{"iteration": 1}\n')
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        with pytest.raises(OSError):
            append_line(fd, json.dumps({"iteration": 2, "loss": 0.5}))
    finally:
        os.close(fd)
    assert log.read_text() == '{"iteration": 1}\n'  # the 7 bytes that made it were cut away


def test_replay_save_keeps_the_old_replay(full_disk):
    target = full_disk / "game.json"
    target.write_bytes(REPLAY.read_bytes())
    with pytest.raises(OSError):
        save(load(REPLAY), target)
    assert target.read_bytes() == REPLAY.read_bytes()
    _only(full_disk, "game.json")
    verify(load(target))


ARENA = ["arena", "capivari", "--agents", "random,random", "--games", "2", "--workers", "1"]


def test_arena_json_keeps_the_old_report(full_disk, capsys):
    target = full_disk / "r.json"
    target.write_text(OLD)
    assert main([*ARENA, "--json", str(target)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert target.read_text() == OLD
    _only(full_disk, "r.json")


def test_arena_replays_keep_the_old_replay(full_disk, capsys):
    games = full_disk / "games"
    games.mkdir()
    (games / "game_00000.json").write_text(OLD)
    assert main([*ARENA, "--replays", str(games)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert (games / "game_00000.json").read_text() == OLD
    _only(games, "game_00000.json")


def test_bench_json_keeps_the_old_figures(full_disk, monkeypatch, capsys):
    monkeypatch.setattr("tabuleiro.commands.bench.run_bench", lambda *a: {"figures": list(range(100))})
    monkeypatch.setattr("tabuleiro.commands.bench.format_table", lambda results: "the table")
    target = full_disk / "b.json"
    target.write_text(OLD)
    assert main(["bench", "--games", "capivari", "--json", str(target)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert target.read_text() == OLD
    _only(full_disk, "b.json")


def test_play_save_keeps_the_old_replay_and_leaves_no_partial_copy(full_disk, monkeypatch, capsys):
    elsewhere = full_disk / "tmp"
    elsewhere.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(elsewhere))  # the fallback copy is on the full disk too
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    target = full_disk / "g.json"
    target.write_text(OLD)
    assert main(["play", "capivari", "--seed", "3", "--opponents", "random", "--save", str(target)]) == 1
    out, err = capsys.readouterr()
    assert "=== game over ===" in out and "No space left on device" in err
    assert '"format": "tabuleiro-replay/1"' in err  # the replay, printed as the last resort
    assert target.read_text() == OLD
    _only(full_disk, "g.json", "tmp")
    _only(elsewhere)
