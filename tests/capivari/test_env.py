"""Capivari's env specifics (the shared PettingZoo checks run for every game in tests/generic)."""

import numpy as np
import pytest

import envs
from envs import capivari_v0


def test_registry_make_and_names_round_trip():
    env = envs.make("capivari_v0", subtract_points=2)
    assert env.game.config.subtract_points == 2
    assert envs.make("capivari").game.name == "capivari_v0"
    for a in range(env.action_space("player_0").n):
        assert env.action_from_name(env.action_name(a)) == a
    with pytest.raises(ValueError, match="unknown game"):
        envs.make("chess")
    with pytest.raises(ValueError, match="unknown action name"):
        env.action_from_name("crias9")


@pytest.mark.parametrize(
    "config, match",
    [
        ({"colour": "red"}, "unknown config key"),
        ({"first_player": 2}, r"'first_player' must be in \[0, 1\]"),
        ({"subtract_points": 0}, r"'subtract_points' must be in \[1, 10\]"),
        ({"wins_needed": "2"}, "'wins_needed' must be an int"),
        ({"max_rounds": 2.0}, "'max_rounds' must be an int"),
        ({"first_player": True}, "'first_player' must be an int"),
    ],
)
def test_bad_config_names_the_key(config, match):
    with pytest.raises(ValueError, match=match):
        capivari_v0.env(**config)


def test_bad_render_mode_and_seed():
    with pytest.raises(ValueError, match="render_mode"):
        capivari_v0.env(render_mode="pdf")
    env = capivari_v0.env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed="abc")


def test_state_is_every_seats_observation():
    env = capivari_v0.env()
    env.reset(seed=4)
    s = env.state()
    assert s.shape == env.state_space.shape
    np.testing.assert_array_equal(s[: env.game.obs_size], env.observe("player_0")["observation"])
