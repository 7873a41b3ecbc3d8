"""Output paths are checked before the work starts (a result is never lost to an unwritable path), and a
write that still fails at the end keeps what was made."""

import io
import json
import os
from pathlib import Path

import pytest

from tabuleiro.cli import main
from tabuleiro.options import check_output_dir, check_output_file

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "docs" / "replays" / "capivari.json"


@pytest.fixture
def blocker(tmp_path) -> Path:
    """A plain file: nothing can be written below it, whoever runs the tests (root included)."""
    path = tmp_path / "a_file"
    path.write_text("keep me")
    return path


def test_file_check_creates_the_folder_and_leaves_no_probe(tmp_path):
    target = tmp_path / "new" / "deeper" / "r.json"
    assert check_output_file(target, "--json") == target
    assert target.parent.is_dir() and list(target.parent.iterdir()) == []


def test_file_check_leaves_an_existing_file_untouched(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    check_output_file(target, "--json")
    assert target.read_text() == "old"


def test_dir_check_creates_the_folder_and_leaves_no_probe(tmp_path):
    target = tmp_path / "replays" / "here"
    check_output_dir(target, "--replays")
    assert target.is_dir() and list(target.iterdir()) == []


def test_checks_name_the_option_and_the_reason(tmp_path, blocker):
    with pytest.raises(ValueError, match=r"--save: cannot write '.*g\.json': '.*a_file' is a file, not a folder"):
        check_output_file(blocker / "g.json", "--save")
    with pytest.raises(ValueError, match="--json: '.*' is a folder; give a file name"):
        check_output_file(tmp_path, "--json")
    with pytest.raises(ValueError, match="--replays: cannot write into '.*a_file': .* is a file, not a folder"):
        check_output_dir(blocker, "--replays")
    with pytest.raises(ValueError, match="--out: the path is empty"):
        check_output_dir("", "--out")
    assert blocker.read_text() == "keep me"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ValueError, match="--save: cannot write .*Permission denied"):
            check_output_file(folder / "g.json", "--save")
        with pytest.raises(ValueError, match="--png: cannot write into .*Permission denied"):
            check_output_dir(folder, "--png")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "capivari", "--save", "{b}/g.json"], "--save: cannot write"),
        (["arena", "capivari", "--agents", "random,random", "--games", "2", "--json", "{b}/r.json"], "--json:"),
        (["arena", "capivari", "--agents", "random,random", "--games", "2", "--png", "{b}/r.png"], "--png:"),
        (["arena", "capivari", "--agents", "random,random", "--games", "2", "--replays", "{b}"], "--replays:"),
        (["bench", "--games", "capivari", "--quick", "--json", "{b}/b.json"], "--json:"),
        (["bench", "--games", "capivari", "--quick", "--png", "{b}/b.png"], "--png:"),
        (["replay", str(REPLAY), "--png", "{b}/pictures"], "--png: cannot write into"),
    ],
)
def test_commands_refuse_an_unwritable_output_before_working(argv, message, blocker, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))  # play would play a whole game
    assert main([a.format(b=blocker) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert message in err and "is a file, not a folder" in err, err
    assert "Traceback" not in err
    assert "your move" not in out and "win rate" not in out and "step 1/" not in out  # no work was done


def test_play_keeps_the_game_when_the_save_fails_at_the_end(tmp_path, capsys, monkeypatch):
    """The path was fine when the game started; the disk is full when it ends: the replay goes elsewhere."""

    def full_disk(replay, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tabuleiro.commands.play.save", full_disk)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    target = tmp_path / "out" / "g.json"
    code = main(["play", "capivari", "--seed", "3", "--opponents", "random", "--save", str(target)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "=== game over ===" in out
    assert "--save: cannot write" in err and "No space left on device" in err and "Traceback" not in err
    kept = list(tmp_path.glob("tabuleiro-capivari_v0-3-*.json"))
    assert len(kept) == 1 and f"the replay is kept in {kept[0]}" in err
    from envs.replay import load, verify

    verify(load(kept[0]))


def test_arena_writes_its_outputs_into_new_folders(tmp_path, capsys):
    out = tmp_path / "new"
    argv = ["arena", "capivari", "--agents", "random,random", "--games", "2", "--workers", "1"]
    assert main([*argv, "--json", str(out / "r.json"), "--replays", str(out / "games")]) == 0
    assert json.loads((out / "r.json").read_text())["games"] == 2
    assert sorted(p.name for p in (out / "games").iterdir()) == ["game_00000.json", "game_00001.json"]
