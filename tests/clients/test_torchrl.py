"""TorchRL: ``PettingZooWrapper(use_mask=True)`` on every game and config family (the AEC env, and the parallel
env where a game has one), and ``GymWrapper`` on ``GameVectorEnv`` with ``autoreset_mode="disabled"`` (the mode
TorchRL prefers; it restarts finished games through ``reset_mask``). A masked random policy plays a rollout of a
few hundred steps; no illegal move, games finish, rewards within the game's range."""

import pytest

import envs
from tests.clients.common import FAMILIES, FAMILY_IDS, GAME_IDS, GAMES, PARALLEL, PARALLEL_IDS, STEPS

torch = pytest.importorskip("torch", reason="needs the clients extra")
pettingzoo_lib = pytest.importorskip("torchrl.envs.libs.pettingzoo", reason="needs the clients extra (torchrl)")
gym_lib = pytest.importorskip("torchrl.envs.libs.gym", reason="needs the clients extra (torchrl)")

from training.vector_env import GameVectorEnv  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested:UserWarning")


def masked_random(mask, generator):
    """A uniformly random legal action per row of a bool mask (0 where a row has none: nobody acts there)."""
    return torch.rand(mask.shape, generator=generator).masked_fill(~mask, -1.0).argmax(-1)


def play_pettingzoo(env, game):
    generator = torch.Generator().manual_seed(0)

    def policy(td):
        for group in env.group_map:
            td[group, "action"] = masked_random(td[group, "action_mask"], generator)
        return td

    rollout = env.rollout(STEPS, policy=policy, break_when_any_done=False)
    assert rollout["next", "done"].any(), "no game finished"
    low, high = game.returns_range() or (-1e9, 1e9)
    for group in env.group_map:
        info = rollout["next", group, "info"]
        assert not info["illegal_move"].any()
        rewards = rollout["next", group, "reward"]
        assert torch.isfinite(rewards).all() and (rewards >= low).all() and (rewards <= high).all()


@pytest.mark.parametrize(("spec", "config"), FAMILIES, ids=FAMILY_IDS)
def test_pettingzoo_wrapper_aec(spec, config):
    aec = envs.make(spec.name, **config)
    play_pettingzoo(pettingzoo_lib.PettingZooWrapper(env=aec, use_mask=True, seed=1), aec.game)


@pytest.mark.parametrize(("spec", "config"), PARALLEL, ids=PARALLEL_IDS)
def test_pettingzoo_wrapper_parallel(spec, config):
    par = envs.game_module(spec.name).parallel_env(**config)
    play_pettingzoo(pettingzoo_lib.PettingZooWrapper(env=par, use_mask=True, seed=1), par.unwrapped.game)


@pytest.mark.parametrize(("spec", "config"), GAMES, ids=GAME_IDS)
def test_gym_wrapper_on_the_vector_env(spec, config):
    venv = GameVectorEnv(spec.name, 4, autoreset_mode="disabled", **config)
    env = gym_lib.GymWrapper(venv, categorical_action_encoding=True)
    env.set_seed(1)
    generator = torch.Generator().manual_seed(0)

    def policy(td):
        td["action"] = masked_random(td["action_mask"] > 0, generator)
        return td

    rollout = env.rollout(STEPS // 4, policy=policy, break_when_any_done=False)  # 4 games a step
    done = rollout["next", "done"]
    assert done.any(), "no game finished"
    low, high = venv.game.returns_range() or (-1e9, 1e9)
    rewards = rollout["next", "reward"]
    assert torch.isfinite(rewards).all() and (rewards >= low).all() and (rewards <= high).all()
    # after each finished game TorchRL restarted it: the next step starts from a legal first decision
    assert (rollout["action_mask"].sum(-1) > 0).all()
