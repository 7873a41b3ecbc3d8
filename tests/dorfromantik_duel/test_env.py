"""Dorfromantik: The Duel through the shared PettingZoo checks, AEC and parallel."""

import pickle
from functools import partial

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import envs
from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS
from envs.engine import IllegalActionError
from tests import common


def test_pettingzoo_api_seed_and_render():
    common.check_pettingzoo_suite(duel.env)
    common.check_pettingzoo_suite(duel.raw_env)


MODULES = [
    {"module_task_cards": True},
    {"module_points_of_interest": True},
    {"module_task_cards": True, "module_points_of_interest": True},
]


@pytest.mark.parametrize("modules", MODULES, ids=["cards", "poi", "both"])
def test_pettingzoo_suite_with_the_modules(modules):
    common.check_pettingzoo_suite(partial(duel.env, board_radius=9, **modules))
    common.check_pettingzoo_suite(partial(duel.raw_env, board_radius=9, **modules))
    parallel_api_test(duel.parallel_env(board_radius=9, **modules), num_cycles=300)
    parallel_seed_test(partial(duel.parallel_env, board_radius=9, **modules), num_cycles=300)
    common.check_copies_continue_identically(partial(duel.env, board_radius=9, **modules), cut=31)
    common.check_illegal_action_behaviour(partial(duel.env, **modules), partial(duel.raw_env, **modules))
    common.check_garbage_state_bytes(partial(duel.env, **modules))


def test_parallel_api_and_seed():
    parallel_api_test(duel.parallel_env(), num_cycles=300)
    parallel_api_test(duel.raw_parallel_env(), num_cycles=300)
    parallel_seed_test(duel.parallel_env, num_cycles=300)


def test_copies_continue_identically():
    common.check_copies_continue_identically(duel.env, cut=31)


def test_deterministic_despite_global_rng():
    common.check_deterministic_despite_global_rng(duel.env, seeds=range(10))


def test_illegal_actions():
    common.check_illegal_action_behaviour(duel.env, duel.raw_env)


def test_order_enforced_and_garbage_bytes_rejected():
    common.check_order_enforced(duel.env)
    common.check_garbage_state_bytes(duel.env)


def test_registry_make_and_names_round_trip():
    env = envs.make("dorfromantik_duel_v0", board_radius=5)
    assert env.game.config.board_radius == 5
    assert envs.make("dorfromantik_duel").game.name == "dorfromantik_duel_v0"
    n = env.action_space("player_0").n
    assert n == 11 * 11 * 6 + 1
    names = {env.action_name(a) for a in range(n)}
    assert len(names) == n
    for a in (0, 7, n // 2, n - 2, n - 1):
        assert env.action_from_name(env.action_name(a)) == a
    assert env.action_name(n - 1) == "pass"
    assert env.action_from_name("place q=2 r=-1 rot=3") % 6 == 3
    for bad in ("place q=9 r=0 rot=0", "place q=0 r=0 rot=6", "put q=0 r=0", "place q=5 r=-6 rot=0"):
        with pytest.raises(ValueError):
            env.action_from_name(bad)


@pytest.mark.parametrize(
    "config, match",
    [
        ({"colour": "red"}, "unknown config key"),
        ({"board_radius": 3}, r"'board_radius' must be in \[4, 30\]"),
        ({"board_radius": 12.0}, "'board_radius' must be an int"),
        ({"distinct_rotations": 1}, "'distinct_rotations' must be a bool"),
        ({"forbid_doomed_tasks": "yes"}, "'forbid_doomed_tasks' must be a bool"),
    ],
)
def test_bad_config_names_the_key(config, match):
    with pytest.raises(ValueError, match=match):
        duel.env(**config)


def test_observation_and_action_sizes_follow_the_radius():
    env = duel.env()
    env.reset(seed=1)
    obs = env.observe("player_0")
    w = 2 * DEFAULT_RADIUS + 1
    assert obs["observation"].shape == (22 * w * w + 247,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (w * w * 6 + 1,) and obs["action_mask"].dtype == np.int8
    assert 0.0 <= obs["observation"].min() and obs["observation"].max() <= 1.0
    small = duel.env(board_radius=5)  # spaces only: each radius is a record layout numba compiles anew
    assert small.observation_space("player_0")["observation"].shape == (22 * 11 * 11 + 247,)
    assert small.action_space("player_1").n == 11 * 11 * 6 + 1


def test_second_player_cannot_see_the_first_players_choice():
    """player_0 chooses first in the AEC order; player_1's view is the same whichever it chose."""
    for seed in range(4):
        base = duel.raw_env(render_mode="ansi")
        base.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(2 * (4 + seed)):  # a few whole turns in
            base.step(common.random_legal(base.action_mask(), rng))
        assert base.agent_selection == "player_0"
        legal = base.legal_actions("player_0")
        assert len(legal) >= 2
        views = []
        for a in (legal[0], legal[-1]):
            env = base.clone()
            env.step(a)
            assert env.agent_selection == "player_1"
            obs = env.observe("player_1")
            env.render_seat = 1
            views.append((obs["observation"], obs["action_mask"], env.render(), env.details("player_1")))
        (o1, m1, t1, i1), (o2, m2, t2, i2) = views
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(m1, m2)
        assert t1 == t2 and i1 == i2
        # and once player_1 has placed, both placements are on the table
        env = base.clone()
        env.step(legal[0])
        before = env.observe("player_1")["observation"]
        env.step(env.legal_actions("player_1")[0])
        assert not np.array_equal(before, env.observe("player_1")["observation"])


def test_parallel_turn_places_both_tiles_at_once():
    env = duel.raw_parallel_env()
    obs, infos = env.reset(seed=5)
    assert set(obs) == {"player_0", "player_1"} and infos["player_0"]["turn"] == 0
    first = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    obs, rewards, terms, truncs, infos = env.step(first)
    s = env.core_state
    assert s.n_placed.tolist() == [1, 1] and s.turn == 1
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and not any(terms.values())
    # the parallel env agrees with the AEC env step for step
    aec = duel.raw_env()
    aec.reset(seed=5)
    aec.step(first["player_0"])
    aec.step(first["player_1"])
    np.testing.assert_array_equal(aec.observe("player_1")["observation"], obs["player_1"]["observation"])
    rng = np.random.default_rng(0)
    while env.agents:
        acts = {a: common.random_legal(obs[a]["action_mask"], rng) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(acts)
    total = infos["player_0"]["total"], infos["player_1"]["total"]
    expect = (0.0, 0.0) if total[0] == total[1] else ((1.0, -1.0) if total[0] > total[1] else (-1.0, 1.0))
    assert (rewards["player_0"], rewards["player_1"]) == expect
    with pytest.raises(Exception, match="game is over"):
        env.step({})


def test_parallel_illegal_actions():
    raw = duel.raw_parallel_env()
    obs, _ = raw.reset(seed=2)
    bad = int(np.flatnonzero(obs["player_1"]["action_mask"] == 0)[0])
    good = int(np.flatnonzero(obs["player_0"]["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="player_1"):
        raw.step({"player_0": good, "player_1": bad})
    assert raw.core_state.n_placed.tolist() == [0, 0], "a rejected turn changed the state"
    with pytest.raises(ValueError, match="missing"):
        raw.step({"player_0": good})
    safe = duel.parallel_env()
    safe.reset(seed=2)
    _, rewards, terms, _, infos = safe.step({"player_0": good, "player_1": bad})
    assert rewards == {"player_0": 0.0, "player_1": -1.0} and all(terms.values()) and safe.agents == []
    assert infos["player_1"]["illegal_move"] is True and infos["player_0"]["illegal_move"] is False
    safe.reset(seed=2)
    _, rewards, _, _, _ = safe.step({"player_0": bad, "player_1": bad})
    assert rewards == {"player_0": -1.0, "player_1": -1.0}


def test_parallel_copies_continue_identically():
    env = duel.raw_parallel_env()
    obs, _ = env.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(12):
        obs, *_ = env.step({a: common.random_legal(obs[a]["action_mask"], rng) for a in env.agents})
    copies = [pickle.loads(pickle.dumps(env)), env.clone()]
    twin = duel.raw_parallel_env()
    twin.deserialize(env.serialize())
    copies.append(twin)
    while env.agents:
        acts = {a: common.random_legal(obs[a]["action_mask"], rng) for a in env.agents}
        obs, rewards, *_ = env.step(acts)
        for c in copies:
            o, r, *_ = c.step(acts)
            assert r == rewards
            for a in o:
                np.testing.assert_array_equal(o[a]["observation"], obs[a]["observation"])
    assert all(c.agents == [] for c in copies)
    with pytest.raises(ValueError):
        duel.raw_parallel_env().deserialize(b"TABUP1\nnonsense")


def test_state_is_every_seats_observation():
    env = duel.env()
    env.reset(seed=4)
    s = env.state()
    assert s.shape == env.state_space.shape
    np.testing.assert_array_equal(s[: env.game.obs_size], env.observe("player_0")["observation"])
