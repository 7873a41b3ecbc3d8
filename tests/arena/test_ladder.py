"""The ladder: every table of the round robin is played, one rating per agent over all games, bad agents refused
before any game."""

import pytest

from agents.ladder import REFERENCE_ROSTER, ROSTER, reference_fits, roster_for, run_ladder, tables


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
    assert r["agents"][0]["elo"]["elo"] == 0.0  # random anchors Elo in a two-player game
    assert all(a["elo"]["games"] == 12 for a in r["agents"])


def test_the_heuristic_rates_above_random_in_capivari():
    r = run_ladder("capivari", ["random", "heuristic"], 40, seed=1, echo=lambda _: None)
    random_row, heuristic_row = r["agents"]
    assert heuristic_row["rating"]["mu"] > random_row["rating"]["mu"]
    assert heuristic_row["elo"]["elo"] > 100


def test_the_roster_takes_added_agents_once_and_refuses_bad_ones(tmp_path):
    assert roster_for("capivari", ["heuristic", "ismcts:iterations=7"]) == [
        *ROSTER,
        *REFERENCE_ROSTER,
        "ismcts:iterations=7",
    ]
    with pytest.raises(ValueError, match="unknown agent"):
        roster_for("capivari", ["nobody"])
    dropped = roster_for("kuhn_poker", ["ismcts:iterations=7"], dropped=["openspiel-ismcts:iterations=100"])
    assert dropped == [s for s in ROSTER if not s.startswith("openspiel")] + ["ismcts:iterations=7"]
    with pytest.raises(ValueError, match="not in the roster"):
        roster_for("kuhn_poker", dropped=["ismcts:seconds=9"])
    with pytest.raises(ValueError, match="does not exist"):
        run_ladder("capivari", ["random", f"policy:{tmp_path / 'none.npz'}"], 2, echo=lambda _: None)
    with pytest.raises(ValueError, match="at least 4"):
        tables(["random", "heuristic"], 4)


def test_the_reference_agents_join_only_where_the_shipped_file_fits_the_config():
    assert reference_fits("capivari")
    assert not reference_fits("kuhn_poker")  # none shipped
    assert not reference_fits("horizonte", {"num_players": 3})  # shipped for 4 players
    assert roster_for("kuhn_poker") == list(ROSTER)
