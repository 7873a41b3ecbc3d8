"""Snapshots in one batched pass: each snapshot module's own logits, and the games one policy per snapshot plays."""

import copy

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from training.config import settings_for
from training.env_runner import regroup
from training.masking_module import MASKED_LOGIT, MaskedPPOTorchRLModule
from training.snapshot_group import SnapshotGroup, StackedActors, module_logits
from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv

HORIZONTE_4P = ("horizonte", {"num_players": 4})
CAPIVARI = ("capivari", {})


def module_for(env: GameVectorEnv, hiddens: tuple[int, ...], seed: int, **config) -> MaskedPPOTorchRLModule:
    """A module as the config builds it for this game (fcnet with ReLU)."""
    torch.manual_seed(seed)
    return MaskedPPOTorchRLModule(
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config=DefaultModelConfig(fcnet_hiddens=list(hiddens), fcnet_activation="relu", **config),
    )


def snapshots_of(base: MaskedPPOTorchRLModule, weights_from: list[MaskedPPOTorchRLModule]) -> list:
    """Frozen copies of ``base`` with other modules' weights, as ``PoolEnvRunner.install_snapshot`` makes them."""
    out = []
    for other in weights_from:
        frozen = copy.deepcopy(base)
        frozen.set_state(other.get_state())
        frozen.eval()
        out.append(frozen)
    return out


def real_rows(env: GameVectorEnv, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The learner's first observations and masks of the env's games."""
    obs, _ = env.reset(seed=seed)
    return obs[OBS_KEY], obs[MASK_KEY]


def assert_group_matches_modules(group: SnapshotGroup, which: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> None:
    """The group's logits equal each row's module's own ``forward_inference``; masked entries exactly."""
    got = group.logits(which, obs, masks)
    for s in np.unique(which):
        sel = which == s
        want = module_logits(group.modules[s], obs[sel], masks[sel])
        mine = got[torch.from_numpy(sel)]
        assert torch.equal(mine == MASKED_LOGIT, want == MASKED_LOGIT)
        torch.testing.assert_close(mine, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("game", "vf_share_layers"), [(HORIZONTE_4P, True), (CAPIVARI, True), (CAPIVARI, False)])
def test_batched_logits_equal_each_snapshots_own(game, vf_share_layers):
    name, config = game
    env = GameVectorEnv(name, 40, **config)
    hiddens = settings_for(name, game_config=config).hiddens
    base = module_for(env, hiddens, 0, vf_share_layers=vf_share_layers)
    others = [module_for(env, hiddens, s, vf_share_layers=vf_share_layers) for s in (1, 2, 3, 4)]
    group = SnapshotGroup(snapshots_of(base, others), np.random.default_rng(0))
    assert group.stacked is not None
    obs, masks = real_rows(env, seed=3)
    rng = np.random.default_rng(0)
    for sizes in ([1, 14, 0, 25], [0, 0, 40, 0], [10, 10, 10, 10], [0, 39, 0, 1]):  # uneven, one, even, gaps
        which = rng.permutation(np.repeat(np.arange(4), sizes))
        assert_group_matches_modules(group, which, obs, masks)
    actions = group(which, obs, masks)
    assert (masks[np.arange(40), actions] > 0).all()


def test_a_conv_module_falls_back_to_one_forward_per_snapshot():
    space_size, n_act = 5 * 4 * 3 + 6, 9  # a 5x4 board of 3 channels, then 6 numbers (as in test_masking)
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (space_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (n_act,), np.float32),
        }
    )
    modules = []
    for seed in (1, 2, 3):
        torch.manual_seed(seed)
        modules.append(
            MaskedPPOTorchRLModule(
                observation_space=space,
                action_space=gym.spaces.Discrete(n_act),
                model_config={"fcnet_hiddens": [16], "image_shape": [5, 4, 3], "conv_filters": [[4, 3, 1]]},
            ).eval()
        )
    group = SnapshotGroup(modules, np.random.default_rng(0))
    assert group.stacked is None and StackedActors.of(modules) is None
    rng = np.random.default_rng(1)
    obs = rng.uniform(-1, 1, (12, space_size)).astype(np.float32)
    masks = (rng.random((12, n_act)) < 0.5).astype(np.float32)
    masks[:, 0] = 1.0
    assert_group_matches_modules(group, rng.permutation(np.repeat([0, 2], [3, 9])), obs, masks)


def test_a_module_with_an_action_prior_plays_its_own_forward_with_the_prior():
    space_size, n_act = 11, 9  # 6 numbers, then a prior over the first 5 actions
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (space_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (n_act,), np.float32),
        }
    )
    config = {"fcnet_hiddens": [16], "action_prior": {"start": 6, "length": 5, "scale": 4.0}}
    modules = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        modules.append(
            MaskedPPOTorchRLModule(
                observation_space=space, action_space=gym.spaces.Discrete(n_act), model_config=config
            ).eval()
        )
    group = SnapshotGroup(modules, np.random.default_rng(0))
    assert group.stacked is None  # the stack would leave the prior out
    rng = np.random.default_rng(1)
    obs = rng.uniform(0, 1, (8, space_size)).astype(np.float32)
    masks = np.ones((8, n_act), np.float32)
    assert_group_matches_modules(group, rng.permutation(np.repeat([0, 1], [3, 5])), obs, masks)


def test_a_candidate_head_module_plays_its_own_forward_with_its_candidate_rows():
    space_size, n_act = 6 + 4 * 3, 9  # 6 numbers, then 4 candidate rows of 3 over the first 6 actions
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (space_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (n_act,), np.float32),
        }
    )
    head = {"start": 6, "rows": 4, "features": 3, "actions": 6, "hiddens": [8]}
    modules = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        modules.append(
            MaskedPPOTorchRLModule(
                observation_space=space,
                action_space=gym.spaces.Discrete(n_act),
                model_config={"fcnet_hiddens": [16], "candidate_head": head},
            ).eval()
        )
    group = SnapshotGroup(modules, np.random.default_rng(0))
    assert group.stacked is None  # the stack would leave the candidate rows out
    rng = np.random.default_rng(1)
    obs = rng.uniform(-1, 1, (10, space_size)).astype(np.float32)
    masks = (rng.random((10, n_act)) < 0.6).astype(np.float32)
    masks[:, 0] = 1.0
    which = rng.permutation(np.repeat([0, 1], [4, 6]))
    assert_group_matches_modules(group, which, obs, masks)
    actions = group(which, obs, masks)
    assert (masks[np.arange(10), actions] > 0).all()


def test_regroup_keeps_a_dropped_snapshot_while_games_play_it(monkeypatch):
    """A dropped snapshot stays in the group until its games end; the next regroup lets it go."""
    seen: list[np.ndarray] = []
    play = SnapshotGroup.__call__

    def spy(self: SnapshotGroup, which: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        seen.append(which.copy())
        return play(self, which, obs, masks)

    monkeypatch.setattr(SnapshotGroup, "__call__", spy)
    name, config = HORIZONTE_4P
    env = GameVectorEnv(name, 24, opponents={"snapshot": 1.0}, **config)
    base = module_for(env, (32,), 0)
    copies = snapshots_of(base, [module_for(env, (32,), s) for s in (1, 2, 3)])
    frozen = dict(zip(["v1", "v2", "v3"], copies, strict=True))
    for n in frozen:
        env.add_snapshot(n, lambda obs, masks: pytest.fail("the group plays every snapshot"))
    frozen = regroup(env, frozen, np.random.default_rng(0))
    obs, _ = env.reset(seed=0)
    env.drop_snapshot("v1")
    frozen = regroup(env, frozen, np.random.default_rng(0))
    assert list(frozen) == ["v1", "v2", "v3"]  # dropped but still played: still in the group, at index 0
    rng = np.random.default_rng(0)
    seen.clear()
    for _ in range(300):
        obs, *_ = env.step(np.argmax(obs[MASK_KEY] * rng.random(obs[MASK_KEY].shape), axis=1))
        if "v1" not in env.playing_snapshots():
            break
    assert "v1" not in env.playing_snapshots() and sum(int((w == 0).sum()) for w in seen) > 0
    assert list(regroup(env, frozen, np.random.default_rng(0))) == ["v2", "v3"]


def argmax_policy(weights: np.ndarray):
    """A deterministic outside policy: the legal action with the highest ``obs @ weights``."""

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.where(masks > 0, obs @ weights, -np.inf).argmax(axis=1)

    return act


def test_the_group_path_plays_the_same_games_as_one_policy_per_snapshot():
    """Same seeds, learner actions and (deterministic) snapshot choices: the same games, a dropped snapshot included;
    a snapshot added again under a grouped name leaves the group and plays its own new policy."""
    name, config = HORIZONTE_4P
    pool = {"snapshot": 0.7, "self": 0.2, "random": 0.1}
    envs = [GameVectorEnv(name, 32, opponents=pool, record_opponent_actions=True, **config) for _ in range(2)]
    size, actions = envs[0].game.obs_size, envs[0].game.num_actions
    weights = np.random.default_rng(7).normal(size=(4, size, actions))
    names = ["v1", "v2", "v3"]
    calls = {"group": 0}

    def group(which: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls["group"] += 1
        scores = np.einsum("mn,mnk->mk", obs, weights[which])
        return np.where(masks > 0, scores, -np.inf).argmax(axis=1)

    def never(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise AssertionError("a grouped snapshot played its own policy")

    for j, n in enumerate(names):
        envs[0].add_snapshot(n, argmax_policy(weights[j]))
        envs[1].add_snapshot(n, never)
    for env in envs:
        env.set_policy("self", argmax_policy(weights[3]))
    envs[1].set_snapshot_group(group, names)
    obs = [env.reset(seed=11)[0] for env in envs]
    rng = np.random.default_rng(0)
    for step in range(60):
        if step == 10:
            for env in envs:
                env.drop_snapshot("v2")
        if step == 20:  # v3 again, new weights: outside the group from now on
            envs[0].add_snapshot("v3", argmax_policy(weights[3]))
            envs[1].add_snapshot("v3", argmax_policy(weights[3]))
        mask = obs[0][MASK_KEY]
        a = np.argmax(mask * rng.random(mask.shape), axis=1)
        outs = [env.step(a) for env in envs]
        obs = [out[0] for out in outs]
        np.testing.assert_array_equal(obs[0][OBS_KEY], obs[1][OBS_KEY])
        np.testing.assert_array_equal(obs[0][MASK_KEY], obs[1][MASK_KEY])
        for k in (1, 2):
            np.testing.assert_array_equal(outs[0][k], outs[1][k])
        for g0, g1 in zip(outs[0][4]["opponent_actions"], outs[1][4]["opponent_actions"], strict=True):
            np.testing.assert_array_equal(g0, g1)
    assert calls["group"] > 0
    assert envs[0].pop_stats() == envs[1].pop_stats()


def test_set_snapshot_group_takes_only_known_snapshots():
    env = GameVectorEnv("capivari", 2)
    with pytest.raises(ValueError, match="not snapshots"):
        env.set_snapshot_group(lambda which, obs, masks: masks.argmax(axis=1), ["nope"])
