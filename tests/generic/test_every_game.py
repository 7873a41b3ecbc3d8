"""What every registered game gets without a line of its own: the suites run over ``envs.specs()``.

A new game registered in ``envs.GAMES`` is checked here by PettingZoo's own harness, for copies,
determinism, illegal actions and bad input, for hidden information (its determinization never
changes what the seat sees), and by random agents in the arena; the batch API, the fuzz campaign,
the agents' full games and the training smoke test are parametrized over the specs as well.
"""

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import envs
from agents.arena import run_arena
from envs.engine.contract import check_game
from tests.common import (
    check_copies_continue_identically,
    check_deterministic_despite_global_rng,
    check_garbage_state_bytes,
    check_illegal_action_behaviour,
    check_order_enforced,
    check_pettingzoo_suite,
    random_legal,
)

SPECS = envs.specs()
IDS = [spec.short_name for spec in SPECS]
ROOT = Path(__file__).resolve().parents[2]


def _factories(spec: envs.GameSpec) -> tuple:
    entry = envs.game_module(spec.name)
    cfg = spec.quick_config
    return (lambda **kw: entry.env(**cfg, **kw)), (lambda **kw: entry.raw_env(**cfg, **kw))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_the_spec_is_complete(spec):
    assert (ROOT / spec.rules).is_file(), f"{spec.rules} is missing"
    entry = envs.game_module(spec.name)
    assert callable(entry.env) and callable(entry.raw_env) and entry.__doc__ == spec.doc
    assert hasattr(entry, "parallel_env") == spec.parallel
    check_game(spec.game)  # what registration checked (envs.engine.contract), still true
    assert spec.game.determinize_fn is not None, "agents and the hidden-information check need determinize_fn"
    assert envs.game_name(spec.short_name) == spec.name
    names = (ROOT / "README.md").read_text()
    assert f"`{spec.name}`" in names, "the README's games table lists every registered game"


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_pettingzoo_api_seed_and_render(spec):
    env_fn, raw_fn = _factories(spec)
    check_pettingzoo_suite(env_fn, num_cycles=100)
    check_pettingzoo_suite(raw_fn, num_cycles=100)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.parallel], ids=[s.short_name for s in SPECS if s.parallel])
def test_parallel_api_and_seed(spec):
    entry = envs.game_module(spec.name)
    parallel_api_test(entry.parallel_env(**spec.quick_config), num_cycles=100)
    parallel_seed_test(lambda: entry.parallel_env(**spec.quick_config), num_cycles=100)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_copies_and_determinism(spec):
    env_fn, raw_fn = _factories(spec)
    check_copies_continue_identically(raw_fn, seeds=range(3))
    check_deterministic_despite_global_rng(env_fn, seeds=range(5))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_illegal_actions_order_and_bad_bytes(spec):
    env_fn, raw_fn = _factories(spec)
    check_illegal_action_behaviour(env_fn, raw_fn)
    check_order_enforced(env_fn)
    check_garbage_state_bytes(env_fn)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_action_names_round_trip(spec):
    game = envs.make(spec.name, **spec.quick_config).game
    for a in range(game.num_actions):
        assert game.action_from_name(game.action_name(a)) == a


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_action_mask_is_the_observed_mask_of_every_seat(spec):
    """``action_mask()`` (the core's legal_into, no observation) agrees with ``observe()`` along random games."""
    env = envs.make(spec.name, **spec.quick_config)
    rng = np.random.default_rng(5)
    for seed in range(6):
        env.reset(seed=seed)
        for _ in range(60):
            for agent in env.possible_agents:
                np.testing.assert_array_equal(env.action_mask(agent), env.observe(agent)["action_mask"])
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(random_legal(obs["action_mask"], rng))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_state_is_every_seats_observation(spec):
    env = envs.make(spec.name, **spec.quick_config)
    env.reset(seed=1)
    expected = np.concatenate([env.observe(a)["observation"] for a in env.possible_agents])
    np.testing.assert_array_equal(env.state(), expected)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_observe_into_sets_every_entry_of_its_buffers(spec):
    """The batch API writes observations into unzeroed arrays: stale numbers must never show through."""
    env = envs.make(spec.name, **spec.quick_config)
    game = env.unwrapped.game if hasattr(env, "unwrapped") else env.game
    rng = np.random.default_rng(3)
    for seed in range(20):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 30))):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(random_legal(obs["action_mask"], rng))
        rec = env.unwrapped._rec if hasattr(env, "unwrapped") else env._rec
        for seat in range(game.num_players):
            fresh_obs, fresh_mask = game.observe_fn(rec, seat)
            stale_obs = np.full(game.obs_size, np.nan, np.float32)
            stale_mask = np.full(game.num_actions, 7, np.int8)
            game.observe_into_fn(rec, seat, stale_obs, stale_mask)
            assert np.isfinite(stale_obs).all()
            np.testing.assert_array_equal(stale_obs, fresh_obs)
            np.testing.assert_array_equal(stale_mask, fresh_mask)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_hidden_information_resampled_changes_no_observation(spec):
    """What a seat cannot see, resampled by the game's determinization, leaves its observation and mask alone."""
    env = envs.make(spec.name, **spec.quick_config)
    game = env.game
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(12):
        env.reset(seed=seed)
        live = []  # states of the game in progress, taken along random play
        for _ in range(40):
            if env._rec["done"]:
                break
            live.append(env._states.copy())
            obs, _, _, _, _ = env.last()
            env.step(random_legal(obs["action_mask"], rng))
        for states in live[:: max(1, len(live) // 4)]:
            for seat in range(game.num_players):
                before_obs, before_mask = game.observe_fn(states[0], seat)
                for k in range(2):
                    twin = states.copy()
                    game.determinize_fn(twin[0], seat, np.uint64(seed * 31 + k))
                    after_obs, after_mask = game.observe_fn(twin[0], seat)
                    np.testing.assert_array_equal(before_obs, after_obs)
                    np.testing.assert_array_equal(before_mask, after_mask)
                    checked += 1
    assert checked > 20


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_random_agents_in_the_arena(spec):
    report = run_arena(spec.name, ["random", "random"], games=4, seed=3, config=spec.quick_config, progress=False)
    assert sum(row["games"] for row in report["agents"]) >= 4
