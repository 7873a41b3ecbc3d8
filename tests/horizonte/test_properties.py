"""Properties over 10,000 random games per player count, refereed by a compiled recount (playout.py)."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.horizonte import Horizonte, HorizonteConfig
from tests.horizonte.playout import ERROR_NAMES, game_fingerprints, referee

NUM_GAMES = 10_000


@pytest.mark.parametrize("n", [3, 4, 5])
def test_ten_thousand_random_games_match_the_recount(n):
    """Cards conserved, turn order, follow-suit, trick counts, scores, rewards, no leak: every game, every step."""
    err, stats = referee(Horizonte(HorizonteConfig(num_players=n)), NUM_GAMES, first_seed=1000 * n)
    assert err == 0, f"{ERROR_NAMES[err]} check failed in game seed {stats['where'][0]}: {stats}"
    assert stats["games"] == NUM_GAMES
    assert stats["steps"] > NUM_GAMES * n * 10
    # the checks saw what they check: merged tricks, star wins, cards left in hand, real resamples
    assert stats["merged_tricks"] > 100 and stats["star_wins"] > 1000 and stats["leftover"] > 1000
    assert stats["leak_checks"] > 10 * NUM_GAMES // 2
    assert stats["hidden_changed"] > stats["leak_checks"] // 2
    assert stats["determinized_changed"] > stats["leak_checks"] // 2
    # control: the same resample does change the observation of a seat whose hand was resampled
    assert stats["control_diffs"] > stats["leak_checks"] // 2


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(3, 5),
    max_prediction=st.integers(0, 12),
    rounds=st.integers(1, 4),
    neblina=st.booleans(),
    reward=st.sampled_from(["rank", "points"]),
    seed=st.integers(0, 2**40),
)
def test_any_config_matches_the_recount(n, max_prediction, rounds, neblina, reward, seed):
    config = HorizonteConfig(
        num_players=n, max_prediction=max_prediction, rounds=rounds, neblina=neblina, reward=reward
    )
    err, stats = referee(Horizonte(config), 300, first_seed=seed, policy_seed=seed)
    assert err == 0, f"{ERROR_NAMES[err]} check failed in game seed {stats['where'][0]} of {config}"


@pytest.mark.parametrize(
    "removed",
    [
        ("O0", "C25", "O1", "O2", "O3", "C24"),  # 44 cards: 11 each
        ("O0", "O1", "O2", "O3", "O4", "O5", "O6", "O7", "O8", "O9"),  # 40 cards, no low Oceans
    ],
)
def test_other_removal_lists_match_the_recount(removed):
    err, stats = referee(Horizonte(HorizonteConfig(num_players=4, removed=removed)), 500)
    assert err == 0, f"{ERROR_NAMES[err]} check failed in game seed {stats['where'][0]}"


@pytest.mark.parametrize("n", [3, 4, 5])
def test_ten_thousand_games_are_determined_by_their_seeds_whatever_the_global_generators(n):
    game = Horizonte(HorizonteConfig(num_players=n))
    random.seed(1)
    np.random.seed(1)
    quiet = game_fingerprints(game, NUM_GAMES, noise_seed=1)
    random.seed(99)
    random.random()
    np.random.seed(12345)
    np.random.random(17)
    noisy = game_fingerprints(game, NUM_GAMES, noise_seed=2)
    np.testing.assert_array_equal(quiet, noisy)
    assert len(set(quiet.tolist())) > NUM_GAMES * 0.99  # the digests do tell games apart
