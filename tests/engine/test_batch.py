"""The batch API plays the same games as the AEC env, for every registered game."""

import numpy as np
import pytest

import envs
from envs.batch import BatchEnv
from envs.engine import IllegalActionError

GAMES = [spec.name for spec in envs.specs()]


def aec_view(env):
    obs = env.observe(env.agent_selection)
    return obs["observation"], obs["action_mask"], env._seat[env.agent_selection]


@pytest.mark.parametrize("game", GAMES)
def test_batch_and_aec_play_identical_games(game):
    n = 6
    batch = BatchEnv(game, n, seed=500)
    obs, masks, seats = batch.reset()
    aec = [envs.game_module(game).raw_env() for _ in range(n)]
    for i, e in enumerate(aec):
        e.reset(seed=500 + i)
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(3000):
        for i, e in enumerate(aec):
            o, m, seat = aec_view(e)
            np.testing.assert_array_equal(o, obs[i])
            np.testing.assert_array_equal(m, masks[i])
            assert seat == seats[i]
        actions = np.array([np.flatnonzero(m)[rng.integers(m.sum())] for m in masks])
        obs, masks, seats, rewards, dones = batch.step(actions)
        for i, e in enumerate(aec):
            e.step(int(actions[i]))
            step_rewards = [e.rewards[a] for a in e.possible_agents]
            np.testing.assert_array_equal(rewards[i], step_rewards)
            assert bool(dones[i]) == all(e.terminations.values())
            if dones[i]:
                finished += 1
                e.reset(seed=int(batch.episode_seeds[i]))  # the auto-reset game, replayed by the AEC env
        if finished >= 2 * n:
            break
    assert finished >= 2 * n


@pytest.mark.parametrize("game", GAMES)
def test_random_steps_finish_games(game):
    batch = BatchEnv(game, 4, seed=0)
    batch.reset()
    assert batch.random_steps(2000, seed=3) >= 1
    masks = batch.legal_mask()
    assert (masks.sum(axis=1) > 0).all()


def test_bad_batch_input_is_rejected():
    batch = BatchEnv("capivari_v0", 3)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(3, np.int64))
    _, masks, _ = batch.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match=r"\[0, 36\)"):
        batch.step(np.full(3, 99))
    with pytest.raises(ValueError, match="integer"):
        batch.step(np.zeros(3))
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[1] = int(np.flatnonzero(masks[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 1"):
        batch.step(actions)
    with pytest.raises(ValueError, match="num_envs"):
        BatchEnv("capivari_v0", 0)
    with pytest.raises(ValueError, match="threads"):
        BatchEnv("capivari_v0", 2, threads=0)


def test_one_thread_plays_the_same_games_as_all_cores():
    results = []
    for threads in (1, None):
        batch = BatchEnv("capivari_v0", 64, seed=9, threads=threads)
        batch.reset()
        batch.random_steps(300, seed=4)
        results.append(batch.states.copy())
    assert results[0].tobytes() == results[1].tobytes()
