"""The gymnasium vector env over the batch API (``training.vector_env.GameVectorEnv``).

Which of gymnasium's checks apply: ``gymnasium.utils.env_checker.check_env`` takes a single ``gym.Env``
and gymnasium 1.x ships no vector-env checker, so the checks it would make are written out here for
the batched case: spaces hold every observation (``observation_space.contains``, and each game's slice
from ``gymnasium.vector.utils.iterate`` in ``single_observation_space``), dtypes and shapes of
observations, rewards, terminations and truncations, determinism for a seed (the checker's
reset/step determinism check), ``metadata["autoreset_mode"]`` and NEXT_STEP behaviour, and gymnasium's
own vector wrapper ``RecordEpisodeStatistics`` (which reads the autoreset mode) running over it. Not
applicable: render checks (no render mode), ``reset(seed=[...])`` per-game seed lists (game i starts
from ``seed + i``, as the batch API), and the passive checker's ``np.random.Generator`` seeding check
(the games draw from their own compiled generators).
"""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import iterate

import envs
from envs.engine.aec import IllegalActionError
from tests.common import random_legal_rows
from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv

GAMES = [s.name for s in envs.specs()]
N = 6


class _Replay:
    """One game of the vector env replayed on the AEC env from its seed and the recorded actions."""

    def __init__(self, game: str, seat: int) -> None:
        self.aec = envs.game_module(game).raw_env()
        self.agent = self.aec.possible_agents[seat]
        self.reward = 0.0

    def start(self, seed: int) -> None:
        self.aec.reset(seed=seed)
        self.reward = 0.0

    def play(self, action: int) -> None:
        self.aec.step(int(action))
        self.reward += self.aec.rewards[self.agent]

    def over(self) -> bool:
        return all(self.aec.terminations.values())

    def check(self, obs: dict, i: int, reward: float, terminated: bool) -> None:
        o = self.aec.observe(self.agent)
        np.testing.assert_array_equal(obs[OBS_KEY][i], o["observation"])
        np.testing.assert_array_equal(obs[MASK_KEY][i], o["action_mask"].astype(np.float32))
        assert reward == pytest.approx(self.reward, abs=1e-5)
        assert terminated == self.over()
        if not terminated:
            assert self.aec.agent_selection == self.agent
        self.reward = 0.0


@pytest.mark.parametrize("game", GAMES)
def test_plays_the_games_the_aec_env_plays(game: str) -> None:
    seed, steps = 11, 60
    env = GameVectorEnv(game, N, seed=seed, record_opponent_actions=True)
    obs, infos = env.reset(seed=seed)
    np.testing.assert_array_equal(infos["episode_seed"], seed + np.arange(N))
    replays = [_Replay(game, i % env.num_players) for i in range(N)]
    for i, r in enumerate(replays):
        r.start(seed + i)
        for a in infos["opponent_actions"][i]:
            r.play(a)
        r.check(obs, i, 0.0, False)
    rng = np.random.default_rng(5)
    finished = 0
    terminated = np.zeros(N, bool)
    for _ in range(steps):
        actions = random_legal_rows(rng, obs[MASK_KEY])
        obs, rewards, new_terminated, truncated, infos = env.step(actions)
        assert not truncated.any()
        for i, r in enumerate(replays):
            if terminated[i]:  # NEXT_STEP: a new game from the seed drawn from the finished one
                assert infos["_episode_seed"][i]
                r.start(int(infos["episode_seed"][i]))
            else:
                assert not infos["_episode_seed"][i]
                r.play(actions[i])
            for a in infos["opponent_actions"][i]:
                r.play(a)
            r.check(obs, i, float(rewards[i]), bool(new_terminated[i]))
        terminated = new_terminated
        finished += int(terminated.sum())
    if game in ("kuhn_poker_v0", "capivari_v0"):
        assert finished > 0  # the auto-reset path was replayed too


@pytest.fixture(scope="module")
def kuhn() -> GameVectorEnv:
    return GameVectorEnv("kuhn_poker_v0", N, seed=3)


def test_spaces_dtypes_and_metadata(kuhn: GameVectorEnv) -> None:
    env = kuhn
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.single_action_space == gym.spaces.Discrete(env.game.num_actions)
    assert env.action_space.shape == (N,)
    assert env.single_observation_space[MASK_KEY].dtype == np.float32
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert env.observation_space.contains(obs)
        for one in iterate(env.observation_space, obs):
            assert env.single_observation_space.contains(one)
        assert env.action_space.contains(random_legal_rows(rng, obs[MASK_KEY]))
        obs, rewards, terminated, truncated, infos = env.step(random_legal_rows(rng, obs[MASK_KEY]))
        assert rewards.dtype == np.float32 and rewards.shape == (N,)
        assert terminated.dtype == np.bool_ and terminated.shape == (N,)
        assert truncated.dtype == np.bool_ and truncated.shape == (N,)
    np.testing.assert_array_equal(env.learner_seats, np.arange(N) % env.num_players)


def _run(env: GameVectorEnv, seed: int, steps: int) -> list:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(1)
    out = [obs]
    for _ in range(steps):
        out.append(env.step(random_legal_rows(rng, obs[MASK_KEY])))
        obs = out[-1][0]
    return out


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    return np.array_equal(a, b)


def test_deterministic_for_a_seed() -> None:
    a = _run(GameVectorEnv("capivari_v0", N), 7, 40)
    b = _run(GameVectorEnv("capivari_v0", N, threads=None), 7, 40)
    assert all(_same(x, y) for x, y in zip(a, b, strict=True))
    c = _run(GameVectorEnv("capivari_v0", N), 8, 40)
    assert not all(_same(x, y) for x, y in zip(a, c, strict=True))


def test_next_step_autoreset(kuhn: GameVectorEnv) -> None:
    env = kuhn
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(2)
    seen = 0
    for _ in range(30):
        obs, rewards, terminated, _, infos = env.step(random_legal_rows(rng, obs[MASK_KEY]))
        if not terminated.any():
            continue
        assert not obs[MASK_KEY][terminated].any()  # a finished game's last observation: nothing to do
        seeds = env.episode_seeds
        # the finished games' actions are ignored, even out of range
        actions = np.where(terminated, 99, random_legal_rows(rng, obs[MASK_KEY]))
        obs, rewards, new_terminated, _, infos = env.step(actions)
        assert (rewards[terminated] == 0).all() and not new_terminated[terminated].any()
        np.testing.assert_array_equal(infos["_episode_seed"], terminated)
        assert (infos["episode_seed"][terminated] != seeds[terminated]).all()
        assert obs[MASK_KEY][terminated].any(axis=1).all()
        seen += 1
        if seen == 3:
            break
    assert seen == 3


def test_gymnasium_episode_statistics_wrapper() -> None:
    env = gym.wrappers.vector.RecordEpisodeStatistics(GameVectorEnv("kuhn_poker_v0", N))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(20):
        obs, _, terminated, _, infos = env.step(random_legal_rows(rng, obs[MASK_KEY]))
        if "episode" in infos:
            lengths = infos["episode"]["l"][infos["_episode"]]
            assert (lengths >= 1).all() and (lengths <= 3).all()  # learner decisions in one Kuhn game
            episodes += int(infos["_episode"].sum())
    assert episodes > 0


@pytest.mark.parametrize(
    "bad, error",
    [
        ("short", ValueError),
        ("float", ValueError),
        ("range", ValueError),
        ("illegal", IllegalActionError),
    ],
)
def test_bad_actions_refused_nothing_stepped(bad: str, error: type) -> None:
    env = GameVectorEnv("capivari_v0", N, seed=4)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(3)
    actions = random_legal_rows(rng, obs[MASK_KEY])
    before = env.batch.states.copy()
    if bad == "short":
        wrong = actions[:-1]
    elif bad == "float":
        wrong = actions.astype(np.float64)
    elif bad == "range":
        wrong = actions.copy()
        wrong[2] = env.game.num_actions
    else:
        wrong = actions.copy()
        wrong[3] = int(np.flatnonzero(obs[MASK_KEY][3] == 0)[0])
    with pytest.raises(error, match="game 3" if bad == "illegal" else None):
        env.step(wrong)
    assert env.batch.states.tobytes() == before.tobytes()
    stepped = env.step(actions)
    fresh = GameVectorEnv("capivari_v0", N, seed=4)
    fresh.reset(seed=4)
    assert _same(stepped, fresh.step(actions)[:4] + (stepped[4],))


@pytest.mark.parametrize("game", GAMES)
def test_observe_into_writes_the_same_observations_into_the_callers_arrays(game):
    plain, into = GameVectorEnv(game, N, seed=3), GameVectorEnv(game, N, seed=3)
    spaces = into.single_observation_space
    rows = list(np.full((3, N, spaces[OBS_KEY].shape[0]), np.nan, np.float32))
    masks = list(np.full((3, N, spaces[MASK_KEY].shape[0]), np.nan, np.float32))
    into.observe_into(rows[0], masks[0])
    expected, _ = plain.reset(seed=3)
    got, _ = into.reset(seed=3)
    rng = np.random.default_rng(0)
    for t in (1, 2):
        assert got[OBS_KEY] is rows[t - 1] and got[MASK_KEY] is masks[t - 1]
        np.testing.assert_array_equal(rows[t - 1], expected[OBS_KEY])  # every number written, none left NaN
        np.testing.assert_array_equal(masks[t - 1], expected[MASK_KEY])
        actions = random_legal_rows(rng, expected[MASK_KEY])
        into.observe_into(rows[t], masks[t])
        expected = plain.step(actions)[0]
        got = into.step(actions)[0]
    after = into.step(random_legal_rows(rng, got[MASK_KEY]))[0]  # once only: new arrays again
    assert not any(np.shares_memory(after[OBS_KEY], a) for a in (rows, masks))


def test_observe_into_refuses_arrays_it_cannot_fill():
    env = GameVectorEnv("capivari_v0", N, seed=0)
    obs_size, actions = env.single_observation_space[OBS_KEY].shape[0], env.single_action_space.n
    good_obs, good_masks = np.zeros((N, obs_size), np.float32), np.zeros((N, actions), np.float32)
    for obs, masks in [
        (np.zeros((N, obs_size), np.float64), good_masks),
        (good_obs, np.zeros((N + 1, actions), np.float32)),
        (np.zeros((N, 2 * obs_size), np.float32)[:, ::2], good_masks),
        (good_obs, list(good_masks)),
    ]:
        with pytest.raises(ValueError, match="observe_into"):
            env.observe_into(obs, masks)
