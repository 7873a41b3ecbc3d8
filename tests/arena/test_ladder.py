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
    # the Duel's file observes candidate rows without the boards: it plays the default observation too, not other rules
    assert reference_fits("dorfromantik_duel") and reference_fits("dorfromantik_duel", {"placement_candidates": True})
    assert not reference_fits("dorfromantik_duel", {"board_radius": 9})
    assert roster_for("kuhn_poker") == list(ROSTER)


def test_exploitability_bounds_of_the_games_config_stand_beside_the_ratings(tmp_path):
    import json

    from agents.ladder import exploit_bounds, format_ladder

    def report(name, agent, game="capivari_v0", config=None, bound=0.25):
        r = {"game": game, "agent": agent, "game_config": config or {}}
        if bound is not None:
            r["lower_bound"] = {"value": bound, "ci95": [bound - 0.01, bound + 0.01]}
        (tmp_path / f"{name}.json").write_text(json.dumps(r))

    report("h", "heuristic")
    report("h-short", "heuristic", bound=-0.4)  # a shorter run's: the higher bound stands
    report("h3", "heuristic", config={"wins_needed": 3}, bound=0.5)  # another config: passed over
    report("k", "random", game="kuhn_poker_v0", bound=0.46)  # another game
    report("unfinished", "random", bound=None)  # no bound: an interrupted run
    bounds = exploit_bounds(tmp_path, "capivari")
    assert bounds == {"heuristic": {"value": 0.25, "ci95": [0.24, 0.26], "report": "h.json"}}
    assert exploit_bounds(tmp_path, "capivari", {"wins_needed": 3})["heuristic"]["value"] == 0.5
    r = run_ladder("capivari", ["random", "heuristic"], 2, echo=lambda _: None)
    r["agents"][1]["exploitability"] = bounds["heuristic"]
    lines = format_ladder(r).splitlines()
    assert "exploitability bound" in lines[1]
    assert next(x for x in lines if x.startswith("heuristic")).endswith("+0.250 [+0.240, +0.260]")
    assert next(x for x in lines if x.startswith("random")).endswith("  -")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="broken.json is not a `tabuleiro exploit --json` report"):
        exploit_bounds(tmp_path, "capivari")
    with pytest.raises(ValueError, match="is not a directory"):
        exploit_bounds(tmp_path / "none", "capivari")
