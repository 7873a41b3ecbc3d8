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


@pytest.mark.parametrize("text", ["3", "5-2", "0-15", "a-b"])
def test_bad_turn_ranges_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="give a-b"):
        search_turns.parse_turns(text)
