"""Stable-Baselines3's ``MaskablePPO`` (sb3-contrib) on the single-agent env of every game: a short ``learn`` with
the default policy (``illegal_action="raise"``: one illegal move would fail it), then a few games played with
``predict(action_masks=...)``, and sb3-contrib's own ``evaluate_policy``."""

import pytest

from tests.clients.common import GAME_IDS, GAMES

torch = pytest.importorskip("torch", reason="needs the clients extra")
pytest.importorskip("sb3_contrib", reason="needs the clients extra (sb3-contrib)")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402

from training.single_agent import SingleAgentEnv  # noqa: E402


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize(("spec", "config"), GAMES, ids=GAME_IDS)
def test_maskable_ppo_learns_and_plays(spec, config):
    env = SingleAgentEnv(spec.name, illegal_action="raise", **config)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, info = env.reset(seed=5)
    games = 0
    while games < 2:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated and not info["illegal_move"]
        if terminated:
            games += 1
            obs, info = env.reset()
    rewards, lengths = evaluate_policy(model, Monitor(env), n_eval_episodes=2, return_episode_rewards=True)
    assert len(rewards) == 2 and all(length >= 1 for length in lengths)
    low, high = env.game.returns_range() or (-1e9, 1e9)
    assert all(low <= r <= high for r in rewards)


def test_vec_env_masks_reach_the_model():
    """sb3's own vector env of several single-agent envs: sb3-contrib finds ``action_masks`` and uses it."""
    vec = make_vec_env(SingleAgentEnv, n_envs=2, seed=0, env_kwargs={"game": "capivari_v0", "illegal_action": "raise"})
    assert is_masking_supported(vec)
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (2, vec.action_space.n) and masks.any(axis=1).all()
    MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu").learn(64)
