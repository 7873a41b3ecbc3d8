"""Checks every game's environment must pass, written once (used by each game's tests)."""

import json
import pickle
import random
from collections.abc import Callable

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs.engine import IllegalActionError, OrderError


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action from an int8 mask."""
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "no legal action for the agent to act"
    return int(legal[rng.integers(legal.size)])


def random_legal_rows(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A random legal action per row of a vector env's masks (0 where a row has none: a finished game's)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)


def play_random(env, seed: int, rng_seed: int = 0, max_steps: int = 100_000, on_step: Callable | None = None) -> dict:
    """Play one game with random legal actions; return a trace of actions, observations and rewards."""
    rng = np.random.default_rng(rng_seed)
    env.reset(seed=seed)
    trace = {"actions": [], "obs": [], "rewards": {a: 0.0 for a in env.possible_agents}}
    for steps, agent in enumerate(env.agent_iter()):
        assert steps < max_steps, "game did not end"
        obs, reward, term, trunc, _ = env.last()
        trace["rewards"][agent] += reward
        if term or trunc:
            env.step(None)
            continue
        a = random_legal(obs["action_mask"], rng)
        trace["actions"].append(a)
        trace["obs"].append(obs["observation"])
        env.step(a)
        if on_step is not None:
            on_step(env)
    return trace


def check_pettingzoo_suite(env_fn: Callable, num_cycles: int = 300) -> None:
    """PettingZoo's own api_test, seed_test and render_test (ansi)."""
    api_test(env_fn(), num_cycles=num_cycles)
    seed_test(env_fn, num_cycles=num_cycles)
    render_test(env_fn)


def _continue_identically(env_a, env_b, seed: int, rng_seed: int) -> None:
    rng = np.random.default_rng(rng_seed)
    for agent in env_a.agent_iter():
        obs_a, rew_a, term_a, trunc_a, _ = env_a.last()
        assert env_b.agent_selection == agent
        obs_b, rew_b, term_b, trunc_b, _ = env_b.last()
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert (rew_a, term_a, trunc_a) == (rew_b, term_b, trunc_b)
        a = None if (term_a or trunc_a) else random_legal(obs_a["action_mask"], rng)
        env_a.step(a)
        env_b.step(a)
    assert env_b.agents == []


def check_copies_continue_identically(env_fn: Callable, seeds: range = range(5), cut: int = 7) -> None:
    """Pickle, serialize()/deserialize() and clone() mid-game continue exactly like the original."""
    for seed in seeds:
        for how in ("pickle", "serialize", "clone"):
            env = env_fn()
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            for _ in range(cut):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    break
                env.step(random_legal(obs["action_mask"], rng))
            if how == "pickle":
                copy = pickle.loads(pickle.dumps(env))
            elif how == "serialize":
                copy = env_fn()
                copy.deserialize(env.serialize())
            else:
                copy = env.clone()
            _continue_identically(env, copy, seed, rng_seed=seed + 100)


def check_deterministic_despite_global_rng(env_fn: Callable, seeds: range = range(20)) -> None:
    """reset(seed) fixes the game: disturbing Python's and NumPy's global generators changes nothing."""
    for seed in seeds:
        quiet = play_random(env_fn(), seed=seed, rng_seed=seed)

        def disturb(_env) -> None:
            random.seed(random.random())
            random.random()
            np.random.seed(np.random.randint(2**31))
            np.random.random(7)

        noisy = play_random(env_fn(), seed=seed, rng_seed=seed, on_step=disturb)
        assert quiet["actions"] == noisy["actions"]
        assert quiet["rewards"] == noisy["rewards"]
        for a, b in zip(quiet["obs"], noisy["obs"], strict=True):
            np.testing.assert_array_equal(a, b)


def check_illegal_action_behaviour(env_fn: Callable, raw_env_fn: Callable, seed: int = 0) -> None:
    """raw_env raises IllegalActionError naming legal actions; env() ends the game with -1 for the offender."""
    raw = raw_env_fn()
    raw.reset(seed=seed)
    mask = raw.action_mask()
    if mask.all():  # every action is legal at the start (Kuhn poker): only out-of-range values to refuse
        _check_out_of_range_actions(env_fn, seed)
        return
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError) as err:
        raw.step(illegal)
    msg = str(err.value)
    assert raw.action_name(illegal) in msg
    assert raw.action_name(int(np.flatnonzero(mask)[0])) in msg
    assert raw.action_mask().tolist() == mask.tolist(), "a rejected action changed the state"

    env = env_fn()
    env.reset(seed=seed)
    offender = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1.0
    assert all(v == 0.0 for a, v in env._cumulative_rewards.items() if a != offender)
    assert env.infos[offender]["illegal_move"] is True
    _check_out_of_range_actions(env_fn, seed)


def _check_out_of_range_actions(env_fn: Callable, seed: int) -> None:
    env = env_fn()
    env.reset(seed=seed)
    for bad in (-1, env.action_space(env.agent_selection).n, 1.5, "3", None, True):
        fresh = env_fn()
        fresh.reset(seed=seed)
        with pytest.raises(ValueError):
            fresh.step(bad)


def check_order_enforced(env_fn: Callable) -> None:
    """Calls before reset() raise a clear error instead of touching an empty state."""
    env = env_fn()
    with pytest.raises(OrderError):
        env.step(0)
    with pytest.raises(OrderError):
        env.observe(env.possible_agents[0])


def check_garbage_state_bytes(env_fn: Callable, seed: int = 0) -> None:
    """deserialize() rejects truncated, flipped or foreign bytes with a ValueError."""
    env = env_fn()
    env.reset(seed=seed)
    good = env.serialize()
    bad_inputs = [b"", b"hello", good[:-3], good[:20], good + b"x", b"TABU1\n\xff\xff\xff\xff{"]
    flipped = bytearray(good)
    flipped[-5] ^= 0xFF
    bad_inputs.append(bytes(flipped))
    for bad in bad_inputs:
        with pytest.raises(ValueError):
            env_fn().deserialize(bad)
    fresh = env_fn()
    fresh.deserialize(good)
    np.testing.assert_array_equal(fresh.state(), env.state())


def with_record(data: bytes, raw: bytes) -> bytes:
    """``serialize()`` bytes with the state record replaced and the checksum recomputed to match,
    as a forger would: only the game's ``validate_state`` then stands between it and compiled code."""
    from envs.engine.aec import _MAGIC, _checksum, header_of

    header = header_of(data)
    header["sha256"] = _checksum(header, raw)
    head = json.dumps(header).encode()
    return _MAGIC + len(head).to_bytes(4, "little") + head + raw
