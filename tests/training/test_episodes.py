"""Episodes built in batch: chunks cut at game ends, ids carried across samples, GAE, and a replay of the games."""

import numpy as np
import pytest

from training.episodes import GameThread, Recording, cut_episodes
from training.learner_batch import gae_targets

pytestmark = pytest.mark.xdist_group("ray")


def recording(ends: dict[int, list[int]], steps: int, games: int) -> Recording:
    """Game g ends at each step in ``ends[g]``; the step after an end is its reset step; obs = 100 * t + g."""
    term = np.zeros((steps, games), bool)
    reset = np.zeros((steps, games), bool)
    for g, ts in ends.items():
        for t in ts:
            term[t, g] = True
            if t + 1 < steps:
                reset[t + 1, g] = True
    obs = (100 * np.arange(steps + 1)[:, None] + np.arange(games)[None, :]).astype(np.float32)
    return Recording(
        observations={"observations": obs[..., None], "action_mask": np.ones((steps + 1, games, 2), np.float32)},
        actions=np.ones((steps, games), np.int64),
        rewards=np.where(term, 1.0, 0.25).astype(np.float32),
        terminated=term,
        truncated=np.zeros_like(term),
        reset_step=reset,
        extra={"action_logp": np.zeros((steps, games), np.float32)},
    )


def test_chunks_end_at_game_ends_and_skip_reset_steps():
    rec = recording({0: [2], 1: []}, steps=5, games=2)
    thread = GameThread.fresh(2)
    first_id = thread.ids[0]
    chunks, games, finished = cut_episodes(rec, thread)
    assert games == [0, 0, 1]
    by_game = {}
    for c, g in zip(chunks, games, strict=True):
        c.validate()
        by_game.setdefault(g, []).append(c)
    done, after = by_game[0]
    assert done.id_ == first_id and done.is_terminated and len(done) == 3
    assert [int(o[0]) // 100 for o in done.get_observations(slice(0, 4))["observations"]] == [0, 1, 2, 3]
    # step 3 restarted game 0: its next episode begins with the observation after it
    assert after.id_ != first_id and not after.is_done and len(after) == 1
    assert int(after.get_observations(0)["observations"][0]) // 100 == 4
    assert finished == [(3, 0.25 + 0.25 + 1.0)]
    (ongoing,) = by_game[1]
    assert len(ongoing) == 5 and not ongoing.is_done


def test_an_episode_keeps_its_id_length_and_return_across_samples():
    thread = GameThread.fresh(1)
    (a,), _, finished = cut_episodes(recording({}, steps=4, games=1), thread)
    assert finished == [] and thread.t[0] == 4
    (b, c), _, finished = cut_episodes(recording({0: [1]}, steps=4, games=1), thread)
    assert b.id_ == a.id_ and b.t_started == 4 and b.is_terminated and len(b) == 2
    assert finished == [(6, 5 * 0.25 + 1.0)]
    assert c.id_ != a.id_ and c.t_started == 0 and len(c) == 1  # step 2 was the reset step
    # a game that ends on the last step restarts at the first step of the next sample
    thread = GameThread.fresh(1)
    cut_episodes(recording({0: [3]}, steps=4, games=1), thread)
    rec = recording({}, steps=3, games=1)
    rec.reset_step[0, 0] = True
    (d,), _, _ = cut_episodes(rec, thread)
    assert d.t_started == 0 and len(d) == 2


def test_gae_matches_the_textbook_recursion():
    rng = np.random.default_rng(0)
    lengths = np.array([3, 1, 5, 2])
    terminated = np.array([True, False, True, False])
    rewards = rng.normal(size=lengths.sum())
    values = rng.normal(size=(lengths + 1).sum())
    gamma, lam = 0.9, 0.8
    adv, tgt = np.empty_like(rewards), np.empty_like(rewards)
    gae_targets(rewards, values, lengths, terminated, gamma, lam, adv, tgt)
    r0 = v0 = 0
    for n, term in zip(lengths, terminated, strict=True):
        r, v = rewards[r0 : r0 + n], values[v0 : v0 + n + 1].copy()
        if term:
            v[n] = 0.0
        want = np.zeros(n)
        for t in range(n):  # sum of discounted TD errors from t to the chunk's end
            want[t] = sum((gamma * lam) ** (k - t) * (r[k] + gamma * v[k + 1] - v[k]) for k in range(t, n))
        np.testing.assert_allclose(adv[r0 : r0 + n], want)
        np.testing.assert_allclose(tgt[r0 : r0 + n], want + v[:n])
        r0, v0 = r0 + n, v0 + n + 1


def test_the_runner_samples_exactly_the_games_the_vector_env_plays(ray_session):
    """Replayed through a fresh vector env with the same seed and pool, each game's recorded actions give
    back every recorded observation, across two samples and the games' restarts."""
    from training.config import build_config, settings_for
    from training.env_runner import first_game_seed, vector_env
    from training.vector_env import GameVectorEnv

    n = 4
    s = settings_for("capivari", num_envs_per_env_runner=n, train_batch_size=64, minibatch_size=32, seed=5)
    algo = build_config(s).build_algo()
    try:
        runner = algo.env_runner
        steps: list[list[tuple]] = [[] for _ in range(n)]  # per game: (observation, action, next observation)
        ended = 0
        for _ in range(2):
            chunks = runner.sample(num_timesteps=60)
            for c, g in zip(chunks, runner.chunk_games, strict=True):
                c.validate()
                ended += c.is_terminated
                obs = c.get_observations(slice(0, len(c) + 1))
                actions = c.get_actions(slice(0, len(c)))
                assert (obs["action_mask"][np.arange(len(c)), actions] > 0).all()
                steps[g] += [(obs["observations"][t], actions[t], obs["observations"][t + 1]) for t in range(len(c))]
        pool, seed = dict(vector_env(runner).weights), first_game_seed(s.seed, runner.worker_index, n)
    finally:
        algo.stop()
    assert sum(map(len, steps)) >= 120 and ended >= 2  # games restarted within the samples
    env = GameVectorEnv("capivari", n, opponents=pool)
    current = env.reset(seed=seed)[0]["observations"]
    restarting = np.zeros(n, bool)
    at = [0] * n
    while any(at[g] < len(steps[g]) for g in range(n)):
        actions = np.zeros(n, np.int64)
        for g in range(n):
            if not restarting[g] and at[g] < len(steps[g]):
                before, actions[g], _ = steps[g][at[g]]
                np.testing.assert_array_equal(before, current[g])
        obs, _, term, trunc, _ = env.step(actions)
        for g in range(n):
            if not restarting[g] and at[g] < len(steps[g]):
                np.testing.assert_array_equal(steps[g][at[g]][2], obs["observations"][g])
                at[g] += 1
        current, restarting = obs["observations"], term | trunc


def test_env_runners_start_their_games_from_disjoint_seeds():
    from training.env_runner import first_game_seed

    starts = [first_game_seed(7, k, 256) for k in range(4)]
    games = [set(range(s, s + 256)) for s in starts]
    assert starts[0] == 7 and all(not (games[a] & games[b]) for a in range(4) for b in range(a))
    assert first_game_seed(None, 3, 256) is None


def test_observation_rows_keep_every_step_when_a_sample_outgrows_them():
    from training.env_runner import ObservationRows
    from training.vector_env import MASK_KEY, OBS_KEY

    first = {OBS_KEY: np.full((3, 5), -1.0, np.float32), MASK_KEY: np.zeros((3, 2), np.float32)}
    rows = ObservationRows(first, steps=2)
    for step in range(7):  # past 2, then past 6 rows
        obs, masks = rows.next_row()
        obs[:], masks[:] = step, step + 10
    recorded = rows.recorded()
    assert recorded[OBS_KEY].shape == (8, 3, 5) and recorded[MASK_KEY].shape == (8, 3, 2)
    np.testing.assert_array_equal(recorded[OBS_KEY][:, 0, 0], [-1, 0, 1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(recorded[MASK_KEY][1:, 2, 1], np.arange(7) + 10)
