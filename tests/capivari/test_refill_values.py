"""The three turns before Capivari's last refill solved in expectation (envs/capivari/endgame.py, ``refill_values``):
each move's worth is the mean, over the refill's 12 equally likely outcomes, of exact play after it, the moves
before it chosen without knowing how it falls; checked against a plain recursion over the arrangements built here,
and on states that differ only in the order of the unseen cards."""

import itertools

import numpy as np

from envs.capivari.core import step
from envs.capivari.endgame import ARRANGEMENTS, arrange_last_refill, new_refill_levels, round_end_value
from tests.capivari.test_endgame import random_positions

GAME = "capivari_v0"


def _positions(games: int, seed: int = 0, turns: tuple[int, ...] = (6, 7, 8)):
    """(env, state copy) at the positions of random games at the given turns of a round."""
    return random_positions(games, seed, lambda env, s: int(s[0]["turn"]) in turns)


def _arrangements(state: np.ndarray) -> list[np.ndarray]:
    """The four unseen cards below the deck's top in every order, one per refill outcome (the revealed pair a set)."""
    pos, end = int(state[0]["deck_pos"]), int(state[0]["deck_len"])
    deck = state[0]["deck"]
    unseen = [int(c) for c in deck[pos + 1 : end]]
    out, seen = [], set()
    for order in itertools.permutations(unseen):
        key = (frozenset(order[:2]), order[2])
        if key in seen:
            continue
        seen.add(key)
        s = state.copy()
        s[0]["deck"][pos + 1 : end] = order
        out.append(s)
    return out


def _after(arranged: list[np.ndarray], a: int) -> list[np.ndarray]:
    """Copies of the arrangements with move ``a`` played in each."""
    children = [s.copy() for s in arranged]
    for c in children:
        step(c[0], int(a))
    return children


def _worth(game, arranged: list[np.ndarray], seat: int, r: int) -> float:
    """Plain expectiminimax to ``seat``: moves on the mean over the arrangements until the refill, then exact."""
    first = arranged[0]
    if int(first[0]["deck_len"]) - int(first[0]["deck_pos"]) <= 2 or first[0]["rounds_done"] > r:
        values = []
        for s in arranged:
            if s[0]["rounds_done"] > r:
                values.append(round_end_value(s[0], seat, r))
            else:
                best = float(np.max(game.solved_values(s)))
                values.append(best if int(s[0]["current"]) == seat else 1.0 - best)
        return float(np.mean(values))
    mask = game.observe_fn(first[0], int(first[0]["current"]))[1]
    worths = []
    for a in np.flatnonzero(mask):
        worths.append(_worth(game, _after(arranged, a), seat, r))
    return max(worths) if int(first[0]["current"]) == seat else min(worths)


def test_the_refill_falls_twelve_ways_each_once():
    for _env, state in list(_positions(3, turns=(6,)))[:3]:
        levels = new_refill_levels(state)
        arrange_last_refill(state, levels[0])
        pos = int(state[0]["deck_pos"])
        outcomes = {(frozenset(r["deck"][pos + 1 : pos + 3].tolist()), int(r["deck"][pos + 3])) for r in levels[0]}
        assert len(outcomes) == ARRANGEMENTS == len(_arrangements(state))
        assert all(int(r["deck"][pos]) == int(state[0]["deck"][pos]) for r in levels[0])  # the seen top stays


def test_each_move_is_worth_the_expectiminimax_of_the_arrangements():
    checked = 0
    for env, state in list(_positions(8, seed=1, turns=(7, 8)))[:24]:
        values = env.game.refill_values(state)
        seat, r = int(state[0]["current"]), int(state[0]["rounds_done"])
        mask = env.game.observe_fn(state[0], seat)[1]
        np.testing.assert_array_equal(np.isfinite(values), mask > 0)
        for a in np.flatnonzero(mask):
            worth = _worth(env.game, _after(_arrangements(state), a), seat, r)
            assert np.isclose(values[a], worth, rtol=0, atol=1e-12)
            checked += 1
    assert checked > 40


def test_only_the_three_turns_before_the_last_refill_are_answered():
    answered = set()
    for env, state in _positions(2, seed=4, turns=tuple(range(14))):
        if env.game.refill_values(state) is not None:
            answered.add(int(state[0]["turn"]))
            assert env.game.solved_values(state) is None
    assert answered == {6, 7, 8}


def test_the_values_read_which_cards_are_unseen_not_their_order():
    rng = np.random.default_rng(2)
    for env, state in list(_positions(6, seed=2))[:30]:
        values = env.game.refill_values(state)
        twin = state.copy()
        seat = int(state[0]["current"])
        env.game.determinize_fn(twin[0], seat, np.uint64(rng.integers(1 << 32)))
        np.testing.assert_array_equal(env.game.refill_values(twin), values)
