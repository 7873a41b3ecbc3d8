"""The app in headless chromium, used by clicking as a person would: a whole game of every game against
``random``, a replay stepped back and forth at several seats, and two agents watched to the end.

Set TABULEIRO_SCREENSHOTS=DIR to keep a picture of each game mid-play (docs/img/web_*.png come from it).
"""

import json
import os
from pathlib import Path

import pytest

GAMES = ["kuhn_poker_v0", "capivari_v0", "horizonte_v0", "dorfromantik_duel_v0"]
SHOT_AT_PLY = {"kuhn_poker_v0": 0, "capivari_v0": 9, "horizonte_v0": 40, "dorfromantik_duel_v0": 30}


def _ply(page) -> int:
    return int(page.get_attribute("#table", "data-ply"))


def _click_a_legal_move(page) -> None:
    """A legal move as a person picks it: a card or button; in the Duel a cell, then one of its rotations."""
    target = page.locator("#board .target")
    if target.count():
        target.first.click()
        page.locator("#board .rot.allowed").first.click()
        return
    page.locator("#board [data-move], #moves button").first.click()


def _screenshot(page, game: str) -> None:
    folder = os.environ.get("TABULEIRO_SCREENSHOTS")
    if not folder:
        return
    from PIL import Image  # matplotlib's dependency: the picture is stored with a 64-colour palette, small

    path = Path(folder) / f"web_{game.removesuffix('_v0')}.png"
    page.locator("#table").screenshot(path=str(path))
    with Image.open(path) as img:
        small = img.convert("RGB").quantize(64)
    small.save(path, optimize=True)


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_against_random_by_clicking(page, game):
    page.select_option("#play-form select[name=game]", game)
    page.fill("#play-form input[name=opponents]", "random")
    page.fill("#play-form input[name=seed]", "12")
    page.fill("#play-delay", "0")
    page.click("#play-start")
    shot = False
    while True:
        page.wait_for_selector("#table[data-your-turn=yes], #table[data-done=yes]")
        if page.get_attribute("#table", "data-done") == "yes":
            break
        ply = _ply(page)
        if not shot and ply >= SHOT_AT_PLY[game]:
            _screenshot(page, game)
            shot = True
        _click_a_legal_move(page)
        page.wait_for_function(f"Number(document.querySelector('#table').dataset.ply) > {ply}")
    assert page.locator("#error").is_hidden()
    assert "returns:" in page.text_content("#result") and "saved as" in page.text_content("#result")
    assert page.locator("#log li").count() == _ply(page)
    assert page.locator("#moves button, #board .move, #board .target").count() == 0  # nothing left to click
    with page.expect_download() as download:
        page.click("#download")
    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert saved["game"] == game and len(saved["actions"]) == _ply(page)


def _replay_step(page) -> int:
    return int(page.get_attribute("#replay-controls", "data-step"))


def test_a_replay_steps_forward_and_back_at_any_seat(page, replay_folder):
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(replay_folder / "game_00000.json"))
    page.wait_for_selector("#replay-controls[data-step='0']")
    for _ in range(3):
        step = _replay_step(page)
        page.click("#replay-forward")
        page.wait_for_selector(f"#replay-controls[data-step='{step + 1}']")
    assert page.locator("#log li").count() == 3
    page.click("#replay-back")
    page.wait_for_selector("#replay-controls[data-step='2']")
    assert page.locator("#log li").count() == 2
    page.select_option("#replay-seat", "1")
    page.wait_for_function("document.querySelector('#status').textContent.includes('viewed as player_1')")
    assert "deck order" not in page.text_content("#text")  # a seat never sees the deck's order
    page.select_option("#replay-seat", "all")
    page.wait_for_function("document.querySelector('#status').textContent.includes('spectator')")
    assert "deck order" in page.text_content("#text")
    page.click("#replay-last")
    page.wait_for_function("document.querySelector('#result').textContent.includes('returns')")
    last = _replay_step(page)
    page.click("#replay-first")
    page.wait_for_selector("#replay-controls[data-step='0']")
    assert last > 3 and page.locator("#log li").count() == 0


def test_a_replay_opens_from_the_servers_folder(page):
    page.click("#tab-replay")
    page.select_option("#replay-list", "game_00000.json")
    page.wait_for_selector("#replay-controls[data-step='0']")
    assert "game_00000.json" in page.text_content("#status")


def test_two_agents_are_watched_to_the_end(page):
    page.click("#tab-watch")
    page.select_option("#watch-form select[name=game]", "capivari_v0")
    page.fill("#watch-form input[name=agents]", "heuristic,random")
    page.fill("#watch-delay", "10")
    page.click("#watch-start")
    page.wait_for_function("Number(document.querySelector('#table').dataset.ply) >= 3")
    assert page.locator("#moves button, #board .move").count() == 0  # a spectator has nothing to click
    page.wait_for_selector("#table[data-done=yes]")
    assert "returns:" in page.text_content("#result")
    assert page.locator("#log li").count() == _ply(page) > 10
