"""Horizonte through the shared PettingZoo checks, for 3, 4 and 5 players."""

import functools

import numpy as np
import pytest

import envs
from envs import horizonte_v0
from envs.engine.templates import kernels_of
from envs.horizonte.game import Horizonte
from envs.horizonte.observation import layout
from envs.horizonte.rules import NUM_CARDS
from tests import common

PLAYERS = (3, 4, 5)


def env_fn(n: int, raw: bool = False, **config):
    """An env factory taking PettingZoo's (render_mode=...) call."""
    make = horizonte_v0.raw_env if raw else horizonte_v0.env
    return functools.partial(make, num_players=n, **config)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_seed_and_render(n):
    common.check_pettingzoo_suite(env_fn(n))
    common.check_pettingzoo_suite(env_fn(n, raw=True), num_cycles=100)


@pytest.mark.parametrize("n", PLAYERS)
def test_copies_continue_identically(n):
    common.check_copies_continue_identically(env_fn(n), cut=2 * n + 3)


@pytest.mark.parametrize("n", PLAYERS)
def test_deterministic_despite_global_rng(n):
    common.check_deterministic_despite_global_rng(env_fn(n), seeds=range(8))


@pytest.mark.parametrize("n", PLAYERS)
def test_illegal_actions(n):
    common.check_illegal_action_behaviour(env_fn(n), env_fn(n, raw=True))


def test_order_enforced_and_garbage_bytes_rejected():
    common.check_order_enforced(env_fn(4))
    common.check_garbage_state_bytes(env_fn(4))


def test_a_state_of_another_config_is_rejected():
    env = env_fn(4)()
    env.reset(seed=0)
    for other in (env_fn(5)(), env_fn(4, neblina=True)(), env_fn(4, removed=["O0", "C25", "O1", "O2", "O3", "O4"])()):
        with pytest.raises(ValueError, match="config|num_players"):
            other.deserialize(env.serialize())


def test_registry_make_and_names_round_trip():
    env = envs.make("horizonte_v0", num_players=5, max_prediction=9)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    assert env.action_space("player_0").n == NUM_CARDS + 10
    assert envs.make("horizonte").game.name == "horizonte_v0"
    for a in range(env.action_space("player_0").n):
        assert env.action_from_name(env.action_name(a)) == a
    assert env.action_name(env.action_from_name("C14")) == "C14"
    assert env.action_name(env.action_from_name("predict 9")) == "predict 9"
    with pytest.raises(ValueError, match="unknown action name"):
        env.action_from_name("C26")


@pytest.mark.parametrize(
    "config, match",
    [
        ({"colour": "red"}, "unknown config key"),
        ({"num_players": 2}, r"'num_players' must be in \[3, 5\]"),
        ({"num_players": 6}, r"'num_players' must be in \[3, 5\]"),
        ({"max_prediction": -1}, r"'max_prediction' must be in"),
        ({"rounds": 0}, r"'rounds' must be in"),
        ({"reward": "money"}, "'reward' must be one of"),
        ({"neblina": 1}, "'neblina' must be a bool"),
        ({"removed": "O0"}, "'removed' must be a list"),
        ({"removed": ["O0", "X9"]}, "unknown Horizonte card"),
        ({"removed": ["O0", "O0"]}, "names a card twice"),
        ({"removed": ["O0"]}, "cannot be dealt equally"),
        ({"num_players": 3, "removed": []}, "cannot be dealt equally"),
    ],
)
def test_bad_config_names_the_problem(config, match):
    with pytest.raises(ValueError, match=match):
        horizonte_v0.env(**config)


def test_state_is_every_seats_observation():
    env = env_fn(3)()
    env.reset(seed=4)
    s = env.state()
    assert s.shape == env.state_space.shape
    np.testing.assert_array_equal(s[: env.game.obs_size], env.observe("player_0")["observation"])


@pytest.mark.parametrize("n", PLAYERS)
def test_observation_size_matches_the_documented_layout(n):
    env = env_fn(n)()
    env.reset(seed=1)
    p = env.game.config.max_prediction
    r = env.game.config.rounds
    written = 5 + r + n + 50 + 50 * n + 2 * (n * (50 + n) + 4) + 2 * n + n + 4 * n + n * (p + 1) + 3 * n
    assert env.game.obs_size == layout(n, p, r).size == written == env.observe("player_0")["observation"].shape[0]


def test_infos_report_every_finished_round():
    env = env_fn(4, reward="points")()
    trace = common.play_random(env, seed=3)
    assert len(trace["actions"]) > 0
    info = env.game.infos(env.core_state, details=True)
    for p in range(4):
        rounds = info[p]["rounds"]
        assert len(rounds) == 3
        assert sum(r["points"] for r in rounds) == info[p]["score"]
        assert trace["rewards"][f"player_{p}"] == -info[p]["score"]
        for r in rounds:
            assert r["pairs"] == min(r["dragon_tricks"], r["dog_tricks"])
            assert r["rest"] == abs(r["dragon_tricks"] - r["dog_tricks"])
            assert r["points"] == r["pairs"] + 5 * abs(r["rest"] - r["prediction"])


def test_rank_rewards_are_zero_sum_and_favour_the_lowest_total():
    for seed in range(20):
        env = env_fn(5)()
        trace = common.play_random(env, seed=seed)
        scores = env.core_state.score[:5]
        rewards = np.array([trace["rewards"][f"player_{p}"] for p in range(5)])
        assert abs(rewards.sum()) < 1e-9
        low = scores == scores.min()
        assert (rewards[low] >= 0).all() and (rewards[~low] < 0).all()


def test_batch_kernels_run_horizonte():
    kernels = kernels_of(Horizonte)
    game = env_fn(4)().game
    states = np.concatenate([game.new_state() for _ in range(8)])
    kernels.batch_reset(states, np.arange(8, dtype=np.uint64))
    masks = np.zeros((8, game.num_actions), np.int8)
    obs = np.zeros((8, game.obs_size), np.float32)
    kernels.batch_observe(states, obs, masks)
    assert (masks.sum(axis=1) == game.config.max_prediction + 1).all()
    assert kernels.random_steps(states, 7, 400) >= 8
    for rec in states:
        game.validate_state(rec)
