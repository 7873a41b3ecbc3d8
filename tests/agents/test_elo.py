"""Elo by maximum likelihood: the classic 400-points-is-10:1 odds, the anchor at 0, intervals that shrink with
games, one-sided ends for an unbeaten agent."""

import math

import numpy as np
import pytest

from agents.elo import ELO_PER_LOGIT, elo_ratings


def games_at_rate(a: int, b: int, wins: int, losses: int, draws: int = 0) -> list[tuple[int, int, float]]:
    return [(a, b, 1.0)] * wins + [(a, b, 0.0)] * losses + [(a, b, 0.5)] * draws


def test_ten_to_one_odds_are_about_400_points_above_the_anchor():
    r = elo_ratings(2, games_at_rate(1, 0, 1000, 100))
    assert r[0]["elo"] == 0.0
    # one virtual draw: 1000.5 of 1101 points, so odds of 1000.5 / 100.5
    assert r[1]["elo"] == pytest.approx(ELO_PER_LOGIT * math.log(1000.5 / 100.5), abs=1e-6)
    assert 380 < r[1]["elo"] < 420
    lo, hi = r[1]["ci95"]
    assert lo < r[1]["elo"] < hi


def test_even_results_rate_equal_and_intervals_shrink_with_games():
    few = elo_ratings(3, games_at_rate(0, 1, 5, 5) + games_at_rate(1, 2, 5, 5) + games_at_rate(0, 2, 5, 5))
    many = elo_ratings(3, games_at_rate(0, 1, 500, 500) + games_at_rate(1, 2, 500, 500) + games_at_rate(0, 2, 500, 500))
    for r in (few, many):
        assert [x["elo"] for x in r] == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    width = [np.diff(r[2]["ci95"])[0] for r in (few, many)]
    assert width[1] < width[0] / 5


def test_ratings_order_a_chain_and_an_unbeaten_agent_has_no_upper_end():
    results = games_at_rate(1, 0, 30, 10) + games_at_rate(2, 1, 40, 0) + games_at_rate(2, 0, 40, 0)
    r = elo_ratings(3, results, anchor=0)
    assert 0.0 < r[1]["elo"] < r[2]["elo"]
    assert r[1]["games"] == 80 and r[2]["games"] == 80
    lo, hi = r[2]["ci95"]
    assert math.isfinite(lo) and hi == math.inf  # lost to nobody
    r = elo_ratings(2, games_at_rate(1, 0, 0, 20))
    assert r[1]["ci95"][0] == -math.inf and r[1]["elo"] < 0


def test_an_agent_that_never_met_the_anchor_chain_has_no_rating_and_bad_input_is_refused():
    r = elo_ratings(3, games_at_rate(1, 0, 3, 3))
    assert r[2]["elo"] is None
    with pytest.raises(ValueError, match="anchor"):
        elo_ratings(2, [], anchor=2)
    with pytest.raises(ValueError, match="score"):
        elo_ratings(2, [(0, 1, 2.0)])
