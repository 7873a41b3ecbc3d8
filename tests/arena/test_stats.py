"""Arena statistics on known inputs: Wilson intervals, places, margins, the summary and its matrix."""

import math

import pytest

import envs
from agents.results import margins, places, summarize, wilson_interval
from envs import capivari_v0


def test_wilson_interval_matches_published_values():
    lo, hi = wilson_interval(8, 10)  # Wilson (1927) / Newcombe (1998): 8 of 10 -> 0.490 .. 0.943
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(50, 100)
    assert (lo + hi) / 2 == pytest.approx(0.5) and hi - lo == pytest.approx(2 * 0.0960, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_wilson_interval_by_its_formula():
    z = 1.959963984540054
    k, n = 37, 52
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert wilson_interval(k, n) == pytest.approx((centre - half, centre + half))


def test_places_rank_by_return_then_score():
    assert places([1.0, -1.0]) == [1, 2]
    assert places([0.0, 0.0]) == [1, 1]
    assert places([1.0, -1 / 3, -1 / 3, -1 / 3]) == [1, 2, 2, 2]
    # a rank reward leaves the losers tied; their scores (lower is better here) order them
    assert places([1.0, -1 / 3, -1 / 3, -1 / 3], [10, 30, 20, 30], higher_is_better=False) == [1, 3, 2, 3]
    assert places([0.5, 0.5, -0.5, -0.5], [5, 5, 9, 7], higher_is_better=False) == [1, 1, 4, 3]


def test_margins_are_against_the_best_other_seat():
    assert margins([3, 1], True) == [2, -2]
    assert margins([10, 30, 20], False) == [10, -20, -10]


def test_final_scores_come_from_the_games_pad():
    env = capivari_v0.env()
    env.reset(seed=3)
    env.core_state.round_wins[:] = [2, 1]
    assert env.game.final_scores(env.core_state) == [2.0, 1.0]
    assert envs.spec("horizonte").game.higher_score_wins is False  # penalty points


def test_summary_of_a_known_tournament():
    games = [  # participants 0 (A) and 1 (B), seats rotated
        {"lineup": [0, 1], "returns": [1.0, -1.0], "scores": [2, 0]},
        {"lineup": [1, 0], "returns": [-1.0, 1.0], "scores": [1, 2]},
        {"lineup": [0, 1], "returns": [-1.0, 1.0], "scores": [1, 2]},
        {"lineup": [1, 0], "returns": [0.0, 0.0], "scores": [1, 1]},
    ]
    s = summarize("capivari_v0", ["A", "B"], games)
    a, b = s["agents"]
    assert (a["games"], a["wins"], a["shared_first"]) == (4, 2, 1)
    assert (b["games"], b["wins"], b["shared_first"]) == (4, 1, 1)
    assert a["win_rate"] == 0.5 and a["win_rate_ci95"] == list(wilson_interval(2, 4))
    assert a["mean_score"] == pytest.approx((2 + 2 + 1 + 1) / 4)
    assert a["mean_margin"] == pytest.approx((2 + 1 - 1 + 0) / 4)
    assert b["mean_margin"] == pytest.approx(-a["mean_margin"])
    assert s["head_to_head"] == [[None, (2 + 0.5) / 4], [(1 + 0.5) / 4, None]]
    assert a["rating"]["mu"] > b["rating"]["mu"]


def test_summary_counts_a_participant_against_each_other_one():
    games = [
        {"lineup": [0, 1, 2], "returns": [1.0, -0.5, -0.5], "scores": None},
        {"lineup": [2, 0, 1], "returns": [0.5, 0.5, -1.0], "scores": None},
        {"lineup": [1, 2, 0], "returns": [-0.5, -0.5, 1.0], "scores": None},
    ]
    s = summarize("horizonte_v0", ["A", "B", "C"], games)
    assert [r["wins"] for r in s["agents"]] == [2, 0, 0]
    assert [r["shared_first"] for r in s["agents"]] == [1, 0, 1]
    m = s["head_to_head"]
    assert m[0][1] == 1.0 and m[1][0] == 0.0
    assert m[0][2] == pytest.approx((1 + 0.5 + 1) / 3)
    assert m[1][2] == pytest.approx((0.5 + 0 + 0.5) / 3)
    assert all(r["mean_score"] is None for r in s["agents"])
