"""The ``afterstates`` observation piece: row k is the river right after the k-th legal move, recounted by playing
the move with ``step`` on a copy and scoring it by the rules' words, over 300 random games."""

import numpy as np

from envs import capivari_v0
from envs.capivari import afterstates as af
from envs.capivari import core, observation
from envs.capivari.game import Capivari
from envs.capivari.rules import NUM_ACTIONS, NUM_HERD_CARDS, CapivariConfig, card_from_name
from tests.capivari.test_properties import random_positions, reference_score

GAME = Capivari(CapivariConfig(observe_margins=True, observe_afterstates=True))
START = GAME.observation_layout().offset("afterstates")


def rows_of(rec, seat: int) -> np.ndarray:
    return observation.observe(rec, seat)[0][START:].reshape(af.MAX_LEGAL, af.FEATURES)


def expected_row(rec, seat: int, a: int) -> tuple[np.ndarray, int, int]:
    """(row of legal action ``a``, my river total, theirs): ``step`` on a copy (its river is the move's, refills
    touch no capybara), scored by ``reference_score``; a move that ends the round is read from the round's recorded
    scores."""
    played = rec.copy()
    core.step(played, a)
    row = np.zeros(af.FEATURES, np.float32)
    row[af.R_CARD + min(a, NUM_HERD_CARDS)] = 1.0
    if played["rounds_done"] > rec["rounds_done"]:
        r = int(rec["rounds_done"])
        mine, theirs = int(played["round_scores"][r, seat]), int(played["round_scores"][r, 1 - seat])
        row[af.R_ENDS] = 1.0
    else:
        mine, theirs = reference_score(played, seat, 3), reference_score(played, 1 - seat, 3)
        row[af.R_RIVER : af.R_RIVER + 90] = observation.observe(played, seat)[0][core.O_RIVER : core.O_RIVER + 90]
        row[af.R_TUCKED : af.R_TUCKED + 3] = played["onca_in"]
    row[af.R_SCORE : af.R_SCORE + 3] = np.clip(np.array([mine, theirs, mine - theirs]) / 40.0, -1.0, 1.0)
    return row, mine, theirs


def test_each_row_is_the_river_right_after_a_legal_move():
    """For the seat to act, row k is the k-th legal move's river (capybaras, Capionças, totals, whether the move
    takes the round's last card, the card taken), the rows past the legal moves are zero, the seat not to act sees
    no rows, and the pieces before are as without the option."""
    assert GAME.obs_size == Capivari(CapivariConfig(observe_margins=True)).obs_size + af.MAX_LEGAL * af.FEATURES
    assert GAME.candidate_actions == NUM_ACTIONS and Capivari(CapivariConfig()).candidate_actions is None
    checked = round_ends = most = 0
    for states, _ in random_positions(GAME, 300, rng_seed=13):
        rec = states[0]
        seat = int(rec["current"])
        rows = rows_of(rec, seat)
        legal = np.flatnonzero(observation.observe(rec, seat)[1])
        for k, a in enumerate(legal):
            want, mine, theirs = expected_row(rec, seat, int(a))
            if want[af.R_ENDS]:  # the river is reset by then: compare the totals and the card
                keep = np.r_[af.R_SCORE : af.R_CARD + NUM_HERD_CARDS + 1]
                np.testing.assert_allclose(rows[k, keep], want[keep], atol=1e-6)
                round_ends += 1
            else:
                np.testing.assert_allclose(rows[k, : af.R_VALUES], want[: af.R_VALUES], atol=1e-6)
                np.testing.assert_allclose(rows[k, af.R_TUCKED :], want[af.R_TUCKED :], atol=1e-6)
                values = rows[k, af.R_VALUES : af.R_TUCKED].reshape(9, 2) * 10.0
                assert np.isclose(values[:, 0].sum(), mine, atol=1e-4)
                assert np.isclose(values[:, 1].sum(), theirs, atol=1e-4)
        assert not rows[len(legal) :].any()
        assert not rows_of(rec, 1 - seat).any()
        plain = states.copy()
        plain[0]["observe_afterstates"] = 0
        np.testing.assert_array_equal(observation.observe(rec, seat)[0][:START], observation.observe(plain[0], seat)[0])
        most = max(most, len(legal))
        checked += 1
    assert checked > 300 * 14 and round_ends > 300 and most <= af.MAX_LEGAL


def test_a_herd_card_pushing_a_lower_one_shows_the_chain_in_its_row():
    """crias3 taken into a segment 1 holding their crias2: the row shows my 3 in segment 1 and their 2 pushed on
    to segment 2, as the rules' pushing says."""
    env = capivari_v0.raw_env(observe_afterstates=True)
    scenario = {
        "river": ["oxes1", "oxes3", "tches3"],
        "available": ["crias3", "tches1"],
        "capybaras": [[1, "crias2", 1]],
        "current": 0,
    }
    env.reset(seed=0, options={"scenario": scenario})
    obs = env.observe("player_0")
    legal = np.flatnonzero(obs["action_mask"])
    rows = obs["observation"][-af.MAX_LEGAL * af.FEATURES :].reshape(af.MAX_LEGAL, af.FEATURES)
    row = rows[list(legal).index(card_from_name("crias3"))]
    river = row[af.R_RIVER : af.R_RIVER + 90].reshape(3, 3, 5, 2)  # segment, herd, number, (mine, theirs)
    assert river[0, 0, 2, 0] == 1.0 and river[1, 0, 1, 1] == 1.0 and river.sum() == 2.0
