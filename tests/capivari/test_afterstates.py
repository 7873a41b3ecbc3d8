"""The ``afterstates`` observation piece: row k is the river right after the k-th legal move, recounted by playing
the move with ``step`` on a copy and scoring it by the rules' words, over 300 random games."""

import numpy as np

from envs import capivari_v0
from envs.capivari import afterstates as af
from envs.capivari import core, observation
from envs.capivari.game import Capivari
from envs.capivari.rules import LOC_AVAILABLE, NUM_ACTIONS, NUM_HERD_CARDS, CapivariConfig, card_from_name
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


REPLIES = Capivari(CapivariConfig(observe_afterstates=True, observe_replies=True))
REPLY_START = REPLIES.observation_layout().offset("afterstates")
ONCA_CARDS = range(NUM_HERD_CARDS, NUM_HERD_CARDS + 3)


def expected_reply(rec, seat: int, a: int) -> float:
    """My margin after the opponent's best reply to legal move ``a``, by their margin, recounted with ``step`` and
    ``reference_score``: their replies take a card that was public before my move (available, or the deck's top);
    a move that takes the round's last card leaves no reply and its recorded margin."""
    public = {int(c) for c in np.flatnonzero(rec["loc"] == LOC_AVAILABLE)}
    if rec["deck_pos"] < rec["deck_len"]:
        public.add(int(rec["deck"][rec["deck_pos"]]))
    played = rec.copy()
    core.step(played, a)
    r = int(rec["rounds_done"])
    if played["rounds_done"] > r:
        return float(played["round_scores"][r, seat] - played["round_scores"][r, 1 - seat])
    mask = np.zeros(NUM_ACTIONS, np.int8)
    core.legal_into(played, mask)
    onca_public = any(c in public and played["loc"][c] == LOC_AVAILABLE for c in ONCA_CARDS)
    best = -np.inf
    for b in np.flatnonzero(mask):
        if (b < NUM_HERD_CARDS and int(b) not in public) or (b >= NUM_HERD_CARDS and not onca_public):
            continue
        reply = played.copy()
        core.step(reply, int(b))
        if reply["rounds_done"] > r:
            theirs = float(reply["round_scores"][r, 1 - seat] - reply["round_scores"][r, seat])
        else:
            theirs = float(reference_score(reply, 1 - seat, 3) - reference_score(reply, seat, 3))
        best = max(best, theirs)
    return -best


def test_each_row_ends_with_the_margin_after_the_opponents_best_public_reply():
    """With ``observe_replies`` each row is one number longer: my margin after the opponent's best one-card reply
    among the cards public before my move (recounted with ``step``), / 40 and clipped; the first 131 numbers are the
    plain row; the hidden deck below its top changes no row; the option alone brings the rows with it."""
    width = af.FEATURES + 1
    assert REPLIES.obs_size == Capivari(CapivariConfig(observe_afterstates=True)).obs_size + af.MAX_LEGAL
    checked = 0
    for states, rng in random_positions(REPLIES, 200, rng_seed=17):
        rec = states[0]
        seat = int(rec["current"])
        obs, mask = observation.observe(rec, seat)
        rows = obs[REPLY_START:].reshape(af.MAX_LEGAL, width)
        plain = states.copy()
        plain[0]["observe_replies"] = 0
        np.testing.assert_array_equal(rows[:, : af.FEATURES], plain_rows(plain[0], seat))
        for k, a in enumerate(np.flatnonzero(mask)):
            want = np.clip(expected_reply(rec, seat, int(a)) / 40.0, -1.0, 1.0)
            assert np.isclose(rows[k, af.R_REPLY], want, atol=1e-6), (k, int(a))
            checked += 1
        shuffled = states.copy()  # the deck below its top reordered: what no seat sees
        below = shuffled[0]["deck"][rec["deck_pos"] + 1 : rec["deck_len"]]
        shuffled[0]["deck"][rec["deck_pos"] + 1 : rec["deck_len"]] = rng.permutation(below)
        np.testing.assert_array_equal(observation.observe(shuffled[0], seat)[0], obs)
    assert checked > 200 * 14 * 3
    alone = Capivari(CapivariConfig(observe_replies=True))
    assert alone.observation_layout().shape("afterstates") == (af.MAX_LEGAL, width) and alone.candidate_actions
    states = alone.new_state()
    core.reset(states[0], np.uint64(3))
    seat = int(states[0]["current"])
    both = observation.observe(as_both(states), seat)[0]
    np.testing.assert_array_equal(observation.observe(states[0], seat)[0], both)


def plain_rows(rec, seat: int) -> np.ndarray:
    obs = observation.observe(rec, seat)[0]
    return obs[len(obs) - af.MAX_LEGAL * af.FEATURES :].reshape(af.MAX_LEGAL, af.FEATURES)


def as_both(states: np.ndarray) -> np.ndarray:
    both = states.copy()
    both[0]["observe_afterstates"] = 1
    return both[0]
