"""Capivari's round endings solved exactly (envs/capivari/endgame.py): from a deck of two cards nothing is hidden,
and each move's worth is what perfect play by both seats makes of it; checked against plain minimax, against any
replies, on the manual's kind of last move, and on states that differ only in the deck order no one can see."""

import numpy as np
import pytest

import envs
from envs.capivari.core import step
from envs.capivari.endgame import coin_match_value, round_end_value

GAME = "capivari_v0"


def random_positions(games: int, seed: int, keep):
    """(env, state copy) at each position of random games for which ``keep(env, state)`` holds."""
    env = envs.make(GAME)
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed * 1000 + g)
        while not env.core_state.done:
            state = env.game.new_state()
            state[0] = env.core_state
            if keep(env, state):
                yield env, state
            env.step(int(rng.choice(env.legal_actions())))


def _solvable_positions(games: int, seed: int = 0, first_turn: int = 9):
    """(env, state copy) at each position of random games once the deck is down to two cards."""
    return random_positions(
        games, seed, lambda env, s: s[0]["turn"] >= first_turn and env.game.solved_values(s) is not None
    )


def _minimax(game, state: np.ndarray, seat: int, round_index: int) -> float:
    """Plain minimax (no pruning) of ``state`` for ``seat`` to the round's end, on copies."""
    mask = game.observe_fn(state[0], int(state[0]["current"]))[1]
    values = []
    for a in np.flatnonzero(mask):
        child = state.copy()
        step(child[0], int(a))
        if child[0]["rounds_done"] > round_index:
            values.append(round_end_value(child[0], seat, round_index))
        else:
            values.append(_minimax(game, child, seat, round_index))
    return max(values) if int(state[0]["current"]) == seat else min(values)


def test_the_solver_gives_each_move_its_plain_minimax_worth():
    checked = 0
    for env, state in _solvable_positions(12, first_turn=10):
        values = env.game.solved_values(state)
        seat, r = int(state[0]["current"]), int(state[0]["rounds_done"])
        mask = env.game.observe_fn(state[0], seat)[1]
        np.testing.assert_array_equal(np.isfinite(values), mask > 0)
        for a in np.flatnonzero(mask):
            child = state.copy()
            step(child[0], int(a))
            ended = child[0]["rounds_done"] > r
            want = round_end_value(child[0], seat, r) if ended else _minimax(env.game, child, seat, r)
            assert values[a] == want, (a, values[a], want)
            checked += 1
    assert checked > 100


def test_no_position_is_solved_while_the_deck_holds_more_than_two_cards():
    env = envs.make(GAME)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    solved_turns = set()
    while not env.core_state.done:
        state = env.game.new_state()
        state[0] = env.core_state
        left = int(state[0]["deck_len"]) - int(state[0]["deck_pos"])
        solved = env.game.solved_values(state) is not None
        assert solved == (left <= 2), (left, solved)
        if solved:
            solved_turns.add(int(state[0]["turn"]))
        env.step(int(rng.choice(env.legal_actions())))
    assert solved_turns == {9, 10, 11, 12, 13}  # the rules' 14-turn round: the last five turns


def test_the_solver_reads_nothing_the_seat_to_act_cannot_see():
    for env, state in list(_solvable_positions(6))[:40]:
        seat = int(state[0]["current"])
        twin = state.copy()
        env.game.determinize_fn(twin[0], seat, np.uint64(99))
        np.testing.assert_array_equal(env.game.solved_values(state), env.game.solved_values(twin))


def test_the_best_move_keeps_its_worth_against_any_replies():
    """The seat that plays the solver's best move at every turn ends the round worth at least the solved value."""
    rng = np.random.default_rng(5)
    for env, state in list(_solvable_positions(20, seed=1))[:60]:
        seat, r = int(state[0]["current"]), int(state[0]["rounds_done"])
        promised = np.max(env.game.solved_values(state))
        s = state.copy()
        while s[0]["rounds_done"] == r:
            if int(s[0]["current"]) == seat:
                a = int(np.argmax(env.game.solved_values(s)))
            else:
                a = int(rng.choice(np.flatnonzero(env.game.observe_fn(s[0], int(s[0]["current"]))[1])))
            step(s[0], a)
        assert round_end_value(s[0], seat, r) >= promised


def test_on_the_rounds_last_card_the_solver_takes_the_card_that_wins_the_round():
    # segment 1 doubles every capybara: crias5 there is worth 10 to me, oxes2 4; the opponent has 6 there
    env = envs.make(GAME)
    env.reset(
        seed=0,
        options={
            "scenario": {
                "river": ["crias1", "oxes1", "tches1"],
                "available": ["crias5", "oxes2"],
                "capybaras": [[1, "tches3", 1]],  # 3 doubled: 6 for the opponent
                "current": 0,
            }
        },
    )
    state = env.game.new_state()
    state[0] = env.core_state
    values = env.game.solved_values(state)
    assert int(np.argmax(values)) == env.game.action_from_name("crias5")
    assert values[env.game.action_from_name("crias5")] > values[env.game.action_from_name("oxes2")]


@pytest.mark.parametrize(
    ("wins", "theirs", "needed", "value"),
    [(0, 0, 2, 0.5), (1, 0, 2, 0.75), (0, 1, 2, 0.25), (1, 1, 2, 0.5), (2, 2, 2, 0.5), (1, 0, 3, 0.6875)],
)
def test_the_match_value_of_a_round_score_counts_later_rounds_as_fair_coins(wins, theirs, needed, value):
    assert coin_match_value(wins, theirs, needed) == pytest.approx(value)
    assert coin_match_value(wins, theirs, needed) + coin_match_value(theirs, wins, needed) == pytest.approx(1.0)
