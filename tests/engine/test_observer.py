"""Observation options (``knob(..., observation=True)``) change what a seat sees, never the game: the same seeds
and moves give the same states with them on or off, and ``envs.engine.observer.Observer`` sees a table's state
exactly as a table with its options would."""

import numpy as np
import pytest

import envs
from envs.engine.config import observation_knobs
from envs.engine.observer import Observer, same_rules

SMALL = {"dorfromantik_duel_v0": {"board_radius": 4}}  # a small board keeps the Duel's games quick
GAMES = [spec.name for spec in envs.specs() if observation_knobs(envs.make(spec.name).game.config)]
GAMES_PLAYED = {"capivari_v0": 300, "dorfromantik_duel_v0": 40}


def _flipped(game: str) -> dict:
    """Every observation option of ``game`` away from its default (all bool knobs)."""
    config = envs.make(game).game.config
    return {name: not getattr(config, name) for name in observation_knobs(config)}


def test_the_games_with_observation_options_are_the_ones_that_have_them():
    assert GAMES == ["capivari_v0", "dorfromantik_duel_v0"]
    assert observation_knobs(envs.make("dorfromantik_duel_v0").game.config) == (
        "placement_prior",
        "placement_candidates",
        "observe_boards",
    )
    assert observation_knobs(envs.make("horizonte_v0").game.config) == ()


@pytest.mark.parametrize("game", GAMES)
def test_observation_options_change_what_a_seat_sees_never_the_game(game):
    small = SMALL.get(game, {})
    table = envs.make(game, **small)
    other = envs.make(game, **small, **_flipped(game))
    assert same_rules(table.game, other.game) and table.game.config != other.game.config
    observer = Observer(other.game, table.game)
    knobs = observation_knobs(table.game.config)
    assert set(knobs) <= set(table.game.new_state().dtype.names)  # each option's field has the knob's name
    rules = [n for n in table.game.new_state().dtype.names if n not in knobs]
    rng = np.random.default_rng(0)
    decisions = 0
    for g in range(GAMES_PLAYED[game]):
        table.reset(seed=g)
        other.reset(seed=g)
        while table.agents:
            assert table.agent_selection == other.agent_selection
            agent = table.agent_selection
            for name in rules:
                np.testing.assert_array_equal(table.core_state[name], other.core_state[name], err_msg=name)
            if table.terminations[agent] or table.truncations[agent]:
                table.step(None)
                other.step(None)
                continue
            seen = other.observe(agent)
            seat = table.possible_agents.index(agent)
            obs, mask = observer.observe(table.core_state, seat)
            np.testing.assert_array_equal(obs, seen["observation"])
            np.testing.assert_array_equal(mask, seen["action_mask"])
            np.testing.assert_array_equal(mask, table.observe(agent)["action_mask"])
            action = int(rng.choice(np.flatnonzero(mask)))
            table.step(action)
            other.step(action)
            decisions += 1
        assert table.game.final_scores(table.core_state) == other.game.final_scores(other.core_state)
    assert decisions > 10 * GAMES_PLAYED[game]


def test_an_observer_of_other_rules_is_refused():
    table = envs.make("capivari_v0", wins_needed=3).game
    own = envs.make("capivari_v0", observe_unseen=True).game
    assert not same_rules(own, table)
    with pytest.raises(ValueError, match="differ in more than observation options"):
        Observer(own, table)
    assert not same_rules(envs.make("kuhn_poker_v0").game, own)  # another game
