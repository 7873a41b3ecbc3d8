"""Nothing unchecked reaches compiled code; the determinization and the heuristic do what they say."""

import itertools

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from envs import kuhn_poker_v0
from tests.common import with_record

STATE_ERROR = "invalid Kuhn poker state|state field|num_players"
LIVE = [[], ["pass"], ["bet"], ["pass", "bet"]]


def reset_with(config=None, **scenario):
    env = kuhn_poker_v0.raw_env(**(config or {}))
    env.reset(seed=0, options={"scenario": scenario})
    return env


# -- scenarios and config ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scenario, match",
    [
        ({"board": []}, "unknown Kuhn poker reset option.*'board'"),
        ({"cards": ["K", "A"]}, "unknown Kuhn poker card 'A'"),
        ({"cards": ["K", 2]}, "unknown Kuhn poker card 2"),
        ({"cards": ["K", "K"]}, "deals one card twice"),
        ({"cards": ["K"]}, "option 'cards' must list 2 card names"),
        ({"cards": ["K", "Q", "J"]}, "option 'cards' must list 2 card names"),
        ({"cards": "KQ"}, "option 'cards' must list 2 card names"),
        ({"history": "pass"}, "option 'history' must be a list"),
        ({"history": ["raise"]}, "unknown action name 'raise'"),
        ({"history": [1]}, "an action name must be a string"),
        ({"history": ["pass", "pass"]}, "ends the hand"),
        ({"history": ["bet", "bet"]}, "ends the hand"),
        ({"history": ["pass", "bet", "pass"]}, "ends the hand"),
        ({"history": ["bet", "pass", "bet"]}, "ends the hand"),
    ],
)
def test_bad_scenarios_raise_a_clear_value_error(scenario, match):
    with pytest.raises(ValueError, match=match):
        reset_with(**scenario)


def test_card_names_are_case_insensitive_and_histories_may_be_tuples():
    env = reset_with(cards=("k", " q "), history=("pass", "bet"))
    assert env.core_state.cards.tolist() == [2, 1] and env.agent_selection == "player_0"


@pytest.mark.parametrize("value", [2, -1, True, 0.0, "0"])
def test_bad_first_player_is_refused(value):
    with pytest.raises(ValueError, match="first_player"):
        kuhn_poker_v0.env(first_player=value)


# -- restored states ----------------------------------------------------------------------------------


def every_reachable_state(config=None):
    """Serialized states of every deal and every betting sequence, live and finished."""
    for cards in itertools.permutations("JQK", 2):
        for history in LIVE:
            env = reset_with(config, cards=list(cards), history=history)
            yield env.serialize()
            if len(history) == 2 or history == ["bet"] or not history:
                for name in ("pass", "bet"):
                    end = env.clone()
                    end.step(end.action_from_name(name))
                    yield end.serialize()


@pytest.mark.parametrize("config", [{}, {"first_player": 1}])
def test_every_reachable_state_restores(config):
    env = kuhn_poker_v0.raw_env(**config)
    count = 0
    for data in every_reachable_state(config):
        env.deserialize(data)
        count += 1
    assert count == 6 * (4 + 2 + 2 + 2)


def forged(field, index, value, history=("pass",), config=None):
    env = reset_with(config, cards=["K", "J"], history=list(history))
    data = env.serialize()
    states = env.game.new_state()
    states[0] = env.core_state
    if index is None:
        states[field] = value
    else:
        states[field][0, index] = value
    return env, with_record(data, states.tobytes())


@pytest.mark.parametrize(
    "field, index, value, history",
    [
        ("cards", 1, 2, ()),  # two kings
        ("cards", 0, 3, ()),
        ("cards", 1, -1, ()),
        ("moves", None, 4, ()),
        ("moves", None, -1, ()),
        ("moves", None, 2, ("pass",)),  # history[1] = 0: pass-pass, yet live
        ("history", 1, 1, ("pass",)),  # a move beyond `moves`
        ("history", 0, 2, ("pass",)),
        ("first_player", None, 1, ()),
        ("current", None, 0, ("pass",)),  # player_0 twice in a row
        ("current", None, 2, ()),
        ("done", None, 1, ("pass",)),
        ("info_version", None, 1, ()),
        ("rewards", 0, 1.0, ("pass",)),
        ("rewards", 1, np.nan, ()),
        ("rng", None, 0, ()),
        ("num_players", None, 3, ()),
    ],
)
def test_forged_states_are_refused(field, index, value, history):
    env, data = forged(field, index, value, history)
    with pytest.raises(ValueError, match=STATE_ERROR):
        env.deserialize_new(data)


def test_forged_final_rewards_are_refused():
    env = reset_with(cards=["K", "J"], history=["bet"])
    env.step(env.action_from_name("bet"))
    states = env.game.new_state()
    states[0] = env.core_state
    data = env.serialize()
    env.deserialize_new(with_record(data, states.tobytes()))  # untouched: fine
    states["rewards"][0] = [-2.0, 2.0]  # K loses a showdown to J
    with pytest.raises(ValueError, match="the rules say"):
        env.deserialize_new(with_record(data, states.tobytes()))


# -- determinization ------------------------------------------------------------------------------


@pytest.mark.parametrize("history", LIVE)
def test_determinize_resamples_only_the_other_card(history):
    for seat in (0, 1):
        for cards in itertools.permutations("JQK", 2):
            env = reset_with(cards=list(cards), history=history)
            game = env.game
            seen = set()
            for seed in range(40):
                states = game.new_state()
                states[0] = env.core_state
                game.determinize_fn(states[0], seat, np.uint64(seed))
                s = states[0]
                assert s["cards"][seat] == env.core_state.cards[seat]
                assert s["cards"][1 - seat] != s["cards"][seat]
                assert s["moves"] == env.core_state.moves and (s["history"] == env.core_state.history).all()
                game.validate_state(s)
                seen.add(int(s["cards"][1 - seat]))
            assert len(seen) == 2  # both cards the seat cannot see


def test_determinize_depends_on_the_seed_not_on_the_hidden_card():
    a = reset_with(cards=["K", "J"])
    b = reset_with(cards=["K", "Q"])
    for seed in range(20):
        out = []
        for env in (a, b):
            states = env.game.new_state()
            states[0] = env.core_state
            states["rng"] = 12345  # the generator's state is hidden too
            env.game.determinize_fn(states[0], 0, np.uint64(seed))
            out.append(states.tobytes())
        assert out[0] == out[1]


def test_determinize_keeps_a_card_shown_at_the_showdown():
    env = reset_with(cards=["J", "Q"], history=["bet"])
    env.step(env.action_from_name("bet"))
    for seed in range(20):
        states = env.game.new_state()
        states[0] = env.core_state
        env.game.determinize_fn(states[0], 0, np.uint64(seed))
        assert states[0]["cards"].tolist() == [0, 1]


# -- the heuristic -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mine, history, action",
    [
        ("K", [], "bet"),
        ("Q", [], "pass"),
        ("J", [], "pass"),
        ("K", ["pass", "bet"], "bet"),
        ("Q", ["pass", "bet"], "bet"),
        ("J", ["pass", "bet"], "pass"),
    ],
)
def test_heuristic_rule_of_thumb_first_mover(mine, history, action):
    other = "J" if mine != "J" else "Q"
    env = reset_with(cards=[mine, other], history=history)
    states = env.game.new_state()
    states[0] = env.core_state
    values = HeuristicAgent("kuhn_poker").values(states, 0, env.observe("player_0"))
    assert env.action_name(int(np.argmax(values))) == action


@pytest.mark.parametrize(
    "mine, history, action",
    [("K", ["pass"], "bet"), ("Q", ["pass"], "pass"), ("J", ["pass"], "pass"),
     ("K", ["bet"], "bet"), ("Q", ["bet"], "bet"), ("J", ["bet"], "pass")],
)  # fmt: skip
def test_heuristic_rule_of_thumb_second_mover(mine, history, action):
    other = "J" if mine != "J" else "Q"
    env = reset_with(cards=[other, mine], history=history)
    states = env.game.new_state()
    states[0] = env.core_state
    values = HeuristicAgent("kuhn_poker").values(states, 1, env.observe("player_1"))
    assert env.action_name(int(np.argmax(values))) == action
