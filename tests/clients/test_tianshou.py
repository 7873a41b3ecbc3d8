"""Tianshou: its ``PettingZooEnv`` and a ``Collector`` with masked random policies (one per seat) on every game and
config family: a few hundred turns and at least one whole game, no illegal move, finished games' returns sane."""

import numpy as np
import pytest

import envs
from tests.clients.common import FAMILIES, FAMILY_IDS, STEPS, check_returns

pytest.importorskip("tianshou", reason="needs the clients extra (tianshou)")

from tianshou.algorithm.multiagent.marl import MARLDispatcher  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402


@pytest.mark.parametrize(("spec", "config"), FAMILIES, ids=FAMILY_IDS)
def test_collector(spec, config):
    def make():
        return PettingZooEnv(envs.make(spec.name, **config))

    env = make()
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    policy = MARLDispatcher(seats, env).create_policy()
    vector = DummyVectorEnv([make])
    vector.seed(1)
    collector = Collector(policy, vector, VectorReplayBuffer(4 * STEPS, 1))
    collector.reset()
    by_steps = collector.collect(n_step=STEPS)
    by_games = collector.collect(n_episode=1, reset_before_collect=True)
    assert by_steps.n_collected_steps == STEPS and by_games.n_collected_episodes == 1
    buffer = collector.buffer
    assert not np.asarray(buffer.info["illegal_move"][: len(buffer)]).any()
    for returns in by_games.returns:  # one row per finished game: each seat's total reward
        check_returns(env.env.game, list(np.atleast_1d(returns)))
