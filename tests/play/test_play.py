"""`tabuleiro play` driven as a subprocess through whole games: what the human sees, bad input, quitting."""

import re

import pytest

from envs.replay import load, verify
from tests.play.helpers import decision_points, run_play, screens

# A scripted human: commands and bad input first (each must re-prompt), then always the first legal move.
SCRIPT = "help\nhint\nmoves\ntable\nxyzzy\n0\n9999\n\n" + "1\n" * 400
CARD = re.compile(r"\b[ODMC]\d{1,2}\b")  # a Horizonte card name


def _play_whole_game(tmp_path, game: str, seat: int, extra: list[str]) -> tuple[str, object]:
    path = tmp_path / f"{game}.json"
    args = [game, "--seat", str(seat), "--seed", "11", "--opponents", "random", "--save", str(path), *extra]
    proc = run_play(args, SCRIPT)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "=== game over ===" in out and "replay saved" in out
    assert "not played: 'xyzzy' is neither a move number nor a move name" in out
    assert "not played: 0 is not a move number" in out and "not played: 9999 is not a move number" in out
    assert "commands:" in out and "legal moves (" in out
    replay = load(path)
    assert replay.agents[seat] == "human" and replay.seed == 11
    verify(replay)  # the saved game re-simulates exactly
    return out, replay


def _check_screens(out: str, replay, seat: int) -> list[tuple[str, object]]:
    """Every screen shows that seat's view of the table as it was, never the spectator's; (screen, state) pairs."""
    shown = screens(out)
    points = list(decision_points(replay, seat))
    assert len(shown) == len(points) > 0
    for screen, (game, rec, names) in zip(shown, points, strict=True):
        mine = game.render_ansi(rec, seat)
        spectator = game.render_ansi(rec, None)
        assert mine in screen
        if spectator != mine:
            assert spectator not in screen
        assert f"  1: {names[0]}" in screen and f": {names[-1]}" in screen
    return [(screen, rec) for screen, (_, rec, _) in zip(shown, points, strict=True)]


def test_capivari_whole_game(tmp_path):
    out, replay = _play_whole_game(tmp_path, "capivari", 0, [])
    _check_screens(out, replay, 0)
    assert "deck order (spectator)" not in out  # the deck below its top card stays hidden
    assert "hint: heuristic would play" in out


def test_horizonte_whole_game_hides_other_hands_and_predictions(tmp_path):
    seat = 2
    out, replay = _play_whole_game(tmp_path, "horizonte", seat, ["--players", "3"])
    assert len(replay.agents) == 3
    from envs.horizonte.rules import CARD_NAMES

    for screen, rec in _check_screens(out, replay, seat):
        others = {CARD_NAMES[c] for p in range(3) if p != seat for c in rec["hand"][p].nonzero()[0]}
        assert not set(CARD.findall(screen)) & others, "another seat's card was shown"
        assert "player_0 hand" not in screen
    # other seats' predictions are announced without their value
    for line in out.splitlines():
        if line.startswith(("player_0 ", "player_1 ")):
            assert "predict" not in line, line


def test_dorfromantik_duel_whole_game_hides_the_first_choice(tmp_path):
    out, replay = _play_whole_game(tmp_path, "dorfromantik_duel", 1, [])
    _check_screens(out, replay, 1)
    assert "player_0 has chosen place" not in out  # player_0's placement is hidden until player_1 chooses
    assert "player_0 plays place" not in out
    assert "player_0 moves (hidden from you for now)" in out


def test_end_of_input_quits_cleanly():
    proc = run_play(["capivari", "--seed", "3", "--opponents", "random"], "help\nnonsense\n")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "game left (end of input)" in proc.stdout


def test_quit_command(tmp_path):
    path = tmp_path / "never.json"
    proc = run_play(["capivari", "--seed", "3", "--save", str(path)], "1\nquit\n")
    assert proc.returncode == 0 and "game left (quit) after 2 of your moves" in proc.stdout
    assert not path.exists()


def test_illegal_move_by_name_is_refused_and_asked_again():
    # crias1..tches5 are all Capivari names; at most 4 cards are available, so one of these is illegal
    names = "crias1\ncrias2\ncrias3\ncrias4\ncrias5\noxes1\noxes2\n"
    proc = run_play(["capivari", "--seed", "3", "--opponents", "random"], names + "quit\n")
    assert proc.returncode == 0
    assert re.search(r"not played: 'crias\d' is not a legal move now", proc.stdout)


@pytest.mark.parametrize(
    "args, message",
    [
        (["capivari", "--seat", "2"], "--seat must be 0..1"),
        (["capivari", "--players", "3"], "seats 2 players"),
        (["capivari", "--opponents", "random,random"], "do not fit"),
        (["capivari", "--opponents", "nobody"], "unknown agent"),
        (["chess"], "unknown game"),
    ],
)
def test_bad_arguments_say_why(args, message):
    proc = run_play(args, "")
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
