"""skrl: ``wrap_env(GameVectorEnv(...), wrapper="gymnasium")`` on every game (skrl steps a gymnasium vector env
as it auto-resets: ``NEXT_STEP``). Its observations are the flattened dict; the mask is read back through skrl's
own ``unflatten_tensorized_space``. A masked random policy: the vector env refuses any illegal action."""

import pytest

from tests.clients.common import GAME_IDS, GAMES, STEPS

torch = pytest.importorskip("torch", reason="needs the clients extra")
wrappers = pytest.importorskip("skrl.envs.wrappers.torch", reason="needs the clients extra (skrl)")

from skrl.utils.spaces.torch import unflatten_tensorized_space  # noqa: E402

from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv  # noqa: E402


@pytest.mark.parametrize(("spec", "config"), GAMES, ids=GAME_IDS)
def test_wrap_env_on_the_vector_env(spec, config):
    venv = GameVectorEnv(spec.name, 4, seed=1, **config)
    env = wrappers.wrap_env(venv, wrapper="gymnasium")
    assert env.num_envs == 4
    generator = torch.Generator().manual_seed(0)
    obs, _ = env.reset()
    low, high = venv.game.returns_range() or (-1e9, 1e9)
    finished = 0
    for _ in range(STEPS // 4):  # 4 games a step
        view = unflatten_tensorized_space(env.observation_space, obs)
        assert view[OBS_KEY].shape == (4, venv.game.obs_size)
        mask = view[MASK_KEY] > 0
        playing = mask.any(-1)  # NEXT_STEP: a finished game's row has no legal action; its action is ignored
        actions = torch.rand(mask.shape, generator=generator).masked_fill(~mask, -1.0).argmax(-1, keepdim=True)
        obs, rewards, terminated, truncated, _ = env.step(actions)
        assert rewards.shape == terminated.shape == (4, 1) and not truncated.any()
        assert torch.isfinite(rewards).all() and (rewards >= low).all() and (rewards <= high).all()
        assert not (terminated.squeeze(-1) & ~playing).any()
        finished += int(terminated.sum())
    assert finished >= 1
