"""The ladder: every table of the round robin is played, one rating per agent over all games, bad agents refused
before any game."""

import pytest

from agents.ladder import ROSTER, roster_for, run_ladder, tables


def test_three_agents_at_two_seats_make_three_tables_and_one_rating_each():
    r = run_ladder("capivari", ["random", "heuristic", "ismcts:iterations=20"], 6, echo=lambda _: None)
    assert r["tables"] == [
        ["random", "heuristic"],
        ["random", "ismcts:iterations=20"],
        ["heuristic", "ismcts:iterations=20"],
    ]
    assert r["games"] == 18 and [a["games"] for a in r["agents"]] == [12, 12, 12]
    for a in r["agents"]:
        lo, hi = a["rating"]["ci95"]
        assert lo < a["rating"]["mu"] < hi


def test_the_heuristic_rates_above_random_in_capivari():
    r = run_ladder("capivari", ["random", "heuristic"], 40, seed=1, echo=lambda _: None)
    random_row, heuristic_row = r["agents"]
    assert heuristic_row["rating"]["mu"] > random_row["rating"]["mu"]


def test_the_roster_takes_added_agents_once_and_refuses_bad_ones(tmp_path):
    assert roster_for(["heuristic", "ismcts:iterations=7"]) == [*ROSTER, "ismcts:iterations=7"]
    with pytest.raises(ValueError, match="unknown agent"):
        roster_for(["nobody"])
    with pytest.raises(ValueError, match="does not exist"):
        run_ladder("capivari", ["random", f"policy:{tmp_path / 'none.npz'}"], 2, echo=lambda _: None)
    with pytest.raises(ValueError, match="at least 4"):
        tables(["random", "heuristic"], 4)
