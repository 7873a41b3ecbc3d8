"""RLlib's own ``PettingZooEnv`` (and ``ParallelPettingZooEnv`` where a game has ``parallel_env()``) on every game
and config family: random legal moves for a few hundred turns, no illegal move, finished games' returns sane."""

import numpy as np
import pytest

import envs
from tests.clients.common import (
    FAMILIES,
    FAMILY_IDS,
    MAX_STEPS,
    PARALLEL,
    PARALLEL_IDS,
    STEPS,
    check_returns,
    random_legal,
)

wrappers = pytest.importorskip("ray.rllib.env.wrappers.pettingzoo_env", reason="needs the rl extra (ray[rllib])")


@pytest.mark.parametrize(("spec", "config"), FAMILIES, ids=FAMILY_IDS)
def test_pettingzoo_env(spec, config):
    aec = envs.make(spec.name, **config)
    env = wrappers.PettingZooEnv(aec)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    returns = dict.fromkeys(aec.possible_agents, 0.0)
    steps = finished = 0
    while steps < STEPS or not finished:
        ((agent, o),) = obs.items()
        obs, rewards, terminated, truncated, infos = env.step({agent: random_legal(o["action_mask"], rng)})
        steps += 1
        assert steps < MAX_STEPS
        assert not any(info["illegal_move"] for info in infos.values())
        for a, r in rewards.items():
            returns[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            check_returns(aec.game, list(returns.values()))
            finished += 1
            returns = dict.fromkeys(returns, 0.0)
            obs, _ = env.reset(seed=1 + finished)


@pytest.mark.parametrize(("spec", "config"), PARALLEL, ids=PARALLEL_IDS)
def test_parallel_pettingzoo_env(spec, config):
    par = envs.game_module(spec.name).parallel_env(**config)
    env = wrappers.ParallelPettingZooEnv(par)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    returns = dict.fromkeys(par.possible_agents, 0.0)
    steps = finished = 0
    while steps < STEPS or not finished:
        # a live seat with nothing to decide (an all-zero mask) still sends an action, which is ignored
        actions = {a: random_legal(o["action_mask"], rng) if o["action_mask"].any() else 0 for a, o in obs.items()}
        obs, rewards, terminated, truncated, infos = env.step(actions)
        steps += 1
        assert steps < MAX_STEPS
        assert not any(info["illegal_move"] for info in infos.values())
        for a, r in rewards.items():
            returns[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            check_returns(par.unwrapped.game, list(returns.values()))
            finished += 1
            returns = dict.fromkeys(returns, 0.0)
            obs, _ = env.reset(seed=1 + finished)
