"""Snapshots the kernel plays itself: packed into one bank, each policy computes what it computes alone, and a
compiled snapshot plays exactly the games the kernel's policy slot plays with the same file, never calling out."""

import numpy as np
import pytest

from agents.compiled_policy import CompiledPolicy
from envs.engine.policy_net import forward
from tests.agents.test_compiled_policy import DUEL, DUEL_CONFIG, candidate_arrays, mlp_arrays
from tests.vector_env.test_policy_opponents import _kuhn_policy, _play
from training.policy_bank import pack_bank
from training.vector_env import SELF_SLOT, GameVectorEnv

KUHN = "kuhn_poker_v0"


def _never_called(obs, masks):
    raise AssertionError("a compiled snapshot was asked to act outside the kernel")


def test_each_policy_in_a_bank_computes_what_it_computes_alone():
    # three networks of other shapes and kinds (two MLPs, a candidate head) in slots 4, 6 and 9
    policies = {4: CompiledPolicy(mlp_arrays("capivari_v0")), 6: CompiledPolicy(mlp_arrays("horizonte_v0")),
                9: CompiledPolicy(candidate_arrays())}  # fmt: skip
    params, layers, nets, spec, scalars, views, slot_entry = pack_bank(policies, 10)
    assert [int(b) for b in slot_entry] == [-1, -1, -1, -1, 0, -1, 1, -1, -1, 2]
    rng = np.random.default_rng(0)
    for slot, p in policies.items():
        b = slot_entry[slot]
        for _ in range(20):
            obs = rng.normal(size=p.info.obs_size).astype(np.float32)
            mask = (rng.random(p.outputs) < 0.5).astype(np.float32)
            mask[0] = 1.0
            want, want_value = p.logits(obs, mask)
            got = np.empty(p.outputs, np.float32)
            value = forward(params, layers, nets[b], spec[b], scalars[b], obs, mask, got)
            np.testing.assert_array_equal(got, want)
            assert value == want_value


def test_an_empty_bank_and_slots_out_of_range():
    params, layers, nets, spec, scalars, views, slot_entry = pack_bank({}, 4)
    assert params.size == 0 and layers.shape == (0, 5) and nets.shape[0] == 0 and list(slot_entry) == [-1] * 4
    with pytest.raises(ValueError, match="bank slots must be in"):
        pack_bank({4: CompiledPolicy(mlp_arrays("capivari_v0"))}, 4)


@pytest.mark.parametrize(("game", "config"), [(KUHN, {}), ("horizonte_v0", {}), (DUEL, DUEL_CONFIG)])
def test_a_compiled_snapshot_plays_the_games_the_policy_slot_plays(game, config):
    policy = (
        _kuhn_policy(0.5) if game == KUHN else CompiledPolicy(candidate_arrays() if game == DUEL else mlp_arrays(game))
    )
    slot = GameVectorEnv(game, 16, opponents="policy", opponent_policy=policy, record_opponent_actions=True, **config)
    bank = GameVectorEnv(game, 16, opponents="snapshot", record_opponent_actions=True, **config)
    bank.add_snapshot("main_v1", _never_called, compiled=policy)
    assert bank.compiled_snapshots == {"main_v1": policy} and bank.available() == ["snapshot"]
    assert _play(bank, 40, seed=5) == _play(slot, 40, seed=5)  # the same samples: the games' own generators
    stats = bank.pop_stats()
    assert stats["decisions"] > stats["learner_decisions"] > 0  # the snapshot moved, inside the kernel


def test_a_dropped_compiled_snapshot_leaves_the_bank_once_no_game_plays_it():
    env = GameVectorEnv(KUHN, 8, opponents="snapshot", record_opponent_actions=True)
    env.add_snapshot("main_v1", _never_called, compiled=_kuhn_policy(1.0))
    env.add_snapshot("main_v2", lambda obs, masks: masks.argmax(axis=1))  # outside: no compiled policy
    assert list(env._bank[-1]) == [-1] * (SELF_SLOT + 1) + [0, -1]
    env.reset(seed=1)
    env.drop_snapshot("main_v1")
    _play(env, 30, seed=2)
    assert env.compiled_snapshots == {} and list(env._bank[-1]) == [-1] * (SELF_SLOT + 3)


def test_a_compiled_snapshot_of_another_game_is_refused():
    env = GameVectorEnv("horizonte_v0", 2, opponents="snapshot")
    with pytest.raises(ValueError, match="exported for capivari_v0"):
        env.add_snapshot("main_v1", _never_called, compiled=CompiledPolicy(mlp_arrays("capivari_v0")))
    assert env.snapshots == [] and env.compiled_snapshots == {}


def test_a_compiled_snapshot_with_other_observation_options_is_refused():
    env = GameVectorEnv("capivari_v0", 2, opponents="snapshot")  # the bank observes the table's records as they are
    with pytest.raises(ValueError, match="other observation options"):
        env.add_snapshot(
            "main_v1", _never_called, compiled=CompiledPolicy(mlp_arrays("capivari_v0", {"observe_unseen": True}))
        )
    assert env.snapshots == [] and env.compiled_snapshots == {}
