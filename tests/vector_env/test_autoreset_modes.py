"""``GameVectorEnv``'s three autoreset modes against gymnasium's own ``SyncVectorEnv`` in the same mode.

The reference steps one ``gymnasium.Env`` per game (``OneGame``: game i alone, its seed and learner seat,
a new game on ``reset()`` drawn from the finished one's generator as every mode of ours does), so
gymnasium decides what each mode returns: observations, rewards, terminations, truncations and, in
SAME_STEP, ``final_obs``; ours must return the same at every step. DISABLED: a step while a game is
finished is refused until ``reset(options={"reset_mask": ...})``.
"""

from functools import partial

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from tests.common import random_legal_rows
from training.vector_env import MASK_KEY, GameVectorEnv, autoreset_mode_of

N = 5
SEED = 11


def _row(obs: dict) -> dict:
    return {k: v[0].copy() for k, v in obs.items()}


class OneGame(gym.Env):
    """One game of the vector env on its own, as a plain ``gymnasium.Env``: the learner in ``seat``."""

    def __init__(self, game: str, seat: int) -> None:
        self.inner = GameVectorEnv(game, 1)  # NEXT_STEP: its reset step is this env's reset()
        self.inner.learner_seats[:] = seat
        self.observation_space = self.inner.single_observation_space
        self.action_space = self.inner.single_action_space
        self.started = self.over = False

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        if seed is not None or not self.started:
            obs, _ = self.inner.reset(seed=seed)
            self.started = True
        else:
            assert self.over, "the reference restarts finished games only"
            obs = self.inner.step(np.zeros(1, np.int64))[0]  # a new game from the finished one's generator
        self.over = False
        return _row(obs), {}

    def step(self, action: int) -> tuple:
        obs, rewards, terminated, truncated, _ = self.inner.step(np.array([action], np.int64))
        self.over = bool(terminated[0])
        return _row(obs), float(rewards[0]), bool(terminated[0]), bool(truncated[0]), {}


def _same_obs(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("game", ["kuhn_poker_v0", "capivari_v0"])
@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.name for m in AutoresetMode])
def test_each_mode_matches_gymnasium(game: str, mode: AutoresetMode) -> None:
    ours = GameVectorEnv(game, N, autoreset_mode=mode)
    assert ours.autoreset_mode == mode and ours.metadata["autoreset_mode"] == mode
    players = ours.num_players
    ref = SyncVectorEnv([partial(OneGame, game, i % players) for i in range(N)], autoreset_mode=mode)
    obs, _ = ours.reset(seed=SEED)
    ref_obs, _ = ref.reset(seed=SEED)
    _same_obs(obs, ref_obs)
    rng = np.random.default_rng(0)
    finished = 0
    terminated = np.zeros(N, bool)
    for _ in range(60 if game == "kuhn_poker_v0" else 150):
        if mode == AutoresetMode.DISABLED and terminated.any():
            with pytest.raises(RuntimeError, match="DISABLED"):
                ours.step(random_legal_rows(rng, obs[MASK_KEY]))
            obs, infos = ours.reset(options={"reset_mask": terminated})
            ref_obs, _ = ref.reset(options={"reset_mask": terminated.copy()})
            _same_obs(obs, ref_obs)
            np.testing.assert_array_equal(infos["_episode_seed"], terminated)
        actions = random_legal_rows(rng, obs[MASK_KEY])
        obs, rewards, terminated, truncated, infos = ours.step(actions)
        ref_obs, ref_rewards, ref_terminated, ref_truncated, ref_infos = ref.step(actions)
        _same_obs(obs, ref_obs)
        np.testing.assert_array_equal(rewards, ref_rewards)
        np.testing.assert_array_equal(terminated, ref_terminated)
        np.testing.assert_array_equal(truncated, ref_truncated)
        if mode == AutoresetMode.SAME_STEP:
            assert ("final_obs" in infos) == ("final_obs" in ref_infos) == bool(terminated.any())
            if terminated.any():
                np.testing.assert_array_equal(infos["_final_obs"], ref_infos["_final_obs"])
                np.testing.assert_array_equal(infos["_final_info"], terminated)
                for i in np.flatnonzero(terminated):
                    _same_obs(infos["final_obs"][i], ref_infos["final_obs"][i])
                    assert not infos["final_obs"][i][MASK_KEY].any()  # a finished game: nothing to do
                assert obs[MASK_KEY][terminated].any(axis=1).all()  # ... and the new game's first decision
        finished += int(terminated.sum())
    assert finished >= 3


def test_same_step_final_info_names_the_finished_games() -> None:
    env = GameVectorEnv("kuhn_poker_v0", N, autoreset_mode="SAME_STEP", record_opponent_actions=True)
    obs, infos = env.reset(seed=SEED)
    seeds = infos["episode_seed"].copy()
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(20):
        obs, _, terminated, _, infos = env.step(random_legal_rows(rng, obs[MASK_KEY]))
        if terminated.any():
            final = infos["final_info"]
            np.testing.assert_array_equal(final["episode_seed"][terminated], seeds[terminated])
            np.testing.assert_array_equal(final["_opponent_actions"], terminated)
            np.testing.assert_array_equal(infos["_episode_seed"], terminated)  # the new games' seeds
            assert (infos["episode_seed"][terminated] != seeds[terminated]).all()
            checked += 1
        seeds = infos["episode_seed"].copy()
    assert checked > 0


def test_reset_mask_restarts_only_those_games() -> None:
    env = GameVectorEnv("capivari_v0", N, autoreset_mode=AutoresetMode.DISABLED)
    obs, _ = env.reset(seed=SEED)
    rng = np.random.default_rng(5)
    obs, *_ = env.step(random_legal_rows(rng, obs[MASK_KEY]))
    before = env.batch.states.copy()
    mask = np.zeros(N, bool)
    mask[[1, 3]] = True
    new, infos = env.reset(seed=100, options={"reset_mask": mask})
    assert env.batch.states[~mask].tobytes() == before[~mask].tobytes()  # the other games untouched
    np.testing.assert_array_equal(new[MASK_KEY][~mask], obs[MASK_KEY][~mask])
    np.testing.assert_array_equal(infos["episode_seed"][mask], [101, 103])  # game i from seed + i
    np.testing.assert_array_equal(infos["_episode_seed"], mask)
    fresh = GameVectorEnv("capivari_v0", N)
    first, _ = fresh.reset(seed=100)
    for key in new:
        np.testing.assert_array_equal(new[key][mask], first[key][mask])


@pytest.mark.parametrize("mask", [np.zeros(N, bool), np.ones(N, np.int8), [True] * N, np.ones(N + 1, bool)])
def test_a_bad_reset_mask_is_refused(mask: object) -> None:
    env = GameVectorEnv("kuhn_poker_v0", N)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": mask})
    with pytest.raises(ValueError, match="only the option 'reset_mask'"):
        env.reset(options={"other": 1})


def test_modes_by_name_and_a_clear_error_otherwise() -> None:
    assert autoreset_mode_of("SameStep") == autoreset_mode_of("same_step") == AutoresetMode.SAME_STEP
    assert GameVectorEnv("kuhn_poker_v0", 2).autoreset_mode == AutoresetMode.NEXT_STEP  # the default
    for bad in ("sometimes", 1, None):
        with pytest.raises(ValueError, match="autoreset_mode must be one of"):
            GameVectorEnv("kuhn_poker_v0", 2, autoreset_mode=bad)


def test_same_step_writes_into_the_callers_arrays() -> None:
    env = GameVectorEnv("kuhn_poker_v0", N, autoreset_mode="SAME_STEP")
    obs, _ = env.reset(seed=SEED)
    rng = np.random.default_rng(7)
    for _ in range(10):
        mine = (np.zeros_like(obs["observations"]), np.zeros_like(obs[MASK_KEY]))
        env.observe_into(*mine)
        obs, _, terminated, _, _ = env.step(random_legal_rows(rng, obs[MASK_KEY]))
        assert obs["observations"] is mine[0] and obs[MASK_KEY] is mine[1]
        if terminated.any():
            assert obs[MASK_KEY][terminated].any(axis=1).all()
            return
    pytest.fail("no game ended")
