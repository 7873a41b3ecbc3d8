"""benchmarks/search_turns.py: the policy with some turns of each round handed to a search, against that search."""

import argparse

import pytest

from agents.arena import run_arena
from benchmarks import search_turns


def test_no_turn_searched_is_the_policy_and_every_turn_the_search_against_itself():
    policy, search = "policy:reference", "ismcts:iterations=30"
    rows = search_turns.measure(policy, search, [(0, 0), (0, 14), (7, 14)], games=20, workers=2, seed=1)
    arena = run_arena("capivari", [policy, search], 20, seed=1, progress=False)
    assert rows[0]["wins"] == arena["agents"][0]["wins"]  # the same deals, seats and agent seeds as the arena's
    assert rows[1]["wins"] == 10  # each deal's two games mirror each other: one win each
    assert [r["searched_turns"] for r in rows] == [[0, 0], [0, 14], [7, 14]]
    assert all(r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] for r in rows)


def test_the_duels_turns_are_its_game_turns():
    rows = search_turns.measure(
        "heuristic", "ismcts:iterations=2", [(0, 0), (0, 1000)], games=2, workers=1, game="dorfromantik_duel",
        turn_piece="turn", turn_scale=100,
    )  # fmt: skip
    arena = run_arena("dorfromantik_duel", ["heuristic", "ismcts:iterations=2"], 2, seed=1, progress=False)
    assert rows[0]["wins"] == arena["agents"][0]["wins"] and rows[0]["draws"] == arena["agents"][0]["shared_first"]
    assert rows[1]["wins"] == rows[1]["games"] - rows[1]["wins"] - rows[1]["draws"]  # the search against itself


@pytest.mark.parametrize(
    ("game", "piece", "message"),
    [
        ("horizonte", "turns_taken", "plays two-seat games"),
        ("capivari", "river_capybaras", "no one-number observation"),
    ],
)
def test_a_game_without_two_seats_or_a_turn_piece_is_refused(game, piece, message):
    with pytest.raises(ValueError, match=message):
        search_turns.measure("random", "random", [(0, 1)], games=2, workers=1, game=game, turn_piece=piece)


@pytest.mark.parametrize("text", ["3", "5-2", "0-10001", "a-b"])
def test_bad_turn_ranges_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="give a-b"):
        search_turns.parse_turns(text)
