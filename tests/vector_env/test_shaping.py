"""Potential-based reward shaping on the vector env (``training.shaping``): off unless asked, telescoping."""

import numpy as np
import pytest

import envs
from envs.capivari.shaping import round_wins as capivari_round_wins
from envs.dorfromantik_duel.shaping import margin as duel_margin
from envs.dorfromantik_duel.shaping import own_score as duel_score
from envs.engine.spec import Potential
from training.vector_env import MASK_KEY, GameVectorEnv

GAME = "dorfromantik_duel"
N = 4


def _play(
    env: GameVectorEnv, seed: int, steps: int, phi: Potential = duel_margin
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Random legal learner moves from a seeded generator: rewards, terminations and ``phi`` per step."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    rewards, ends, margins = [], [], []
    for _ in range(steps):
        masks = obs[MASK_KEY]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)
        obs, reward, terminated, _, _ = env.step(actions)
        rewards.append(reward.astype(np.float64))
        ends.append(terminated)
        margins.append(phi(env.batch.states, env.learner_seats))
    return rewards, ends, margins


@pytest.fixture(scope="module")
def played() -> dict:
    """The same random games four times: without shaping, shaped with gamma 1, shaped with gamma 0.9, shaped by my
    own score."""
    out = {}
    runs = {"plain": {}, "g1": {"shaping": "duel_margin"}, "g09": {"shaping": "duel_margin", "shaping_gamma": 0.9}}
    for key, kwargs in runs.items():
        env = GameVectorEnv(GAME, N, opponents="random", **kwargs)
        out[key] = _play(env, seed=11, steps=120)
        out[key + "_stats"] = env.pop_stats()
    out["s1"] = _play(GameVectorEnv(GAME, N, opponents="random", shaping="duel_score"), 11, 120, duel_score)
    return out


def test_off_unless_asked_rewards_only_at_the_end(played: dict) -> None:
    rewards, ends, _ = played["plain"]
    for r, e in zip(rewards, ends, strict=True):
        assert (r[~e] == 0).all()  # the Duel rewards only the finished game
        assert set(np.unique(r[e])) <= {-1.0, 0.0, 1.0}
    assert any(e.any() for e in ends)


def test_shaped_returns_of_a_finished_game_sum_to_the_game_return_with_gamma_1(played: dict) -> None:
    plain, shaped = played["plain"], played["g1"]
    for i in range(N):
        game_return = shaped_return = 0.0
        finished = 0
        for step, ended in enumerate(plain[1]):
            game_return += plain[0][step][i]
            shaped_return += shaped[0][step][i]
            assert ended[i] == shaped[1][step][i]  # the same games: shaping does not touch the play
            if ended[i]:
                assert shaped_return == pytest.approx(game_return, abs=1e-4)
                game_return = shaped_return = 0.0
                finished += 1
        assert finished >= 1
    # and the shaping did something mid-game (the test could fail)
    assert any((r != p).any() for r, p in zip(shaped[0], plain[0], strict=True))


def test_shaped_reward_is_gamma_phi_now_minus_phi_before(played: dict) -> None:
    plain, shaped = played["plain"], played["g09"]
    previous = np.zeros(N)
    for step, (r, ended) in enumerate(zip(plain[0], plain[1], strict=True)):
        started = plain[1][step - 1] if step else np.zeros(N, bool)
        now = np.where(ended | started, 0.0, plain[2][step])
        expected = np.where(started, r, r + 0.9 * now - previous)
        np.testing.assert_allclose(shaped[0][step], expected, atol=1e-5)
        previous = now


def test_own_score_shaping_is_my_points_alone(played: dict) -> None:
    """``duel_score``: phi is my pad's total / 10, so a step's shaped reward is the rise of my points, however
    many the opponent made meanwhile (the same games as without shaping)."""
    plain, shaped = played["plain"], played["s1"]
    previous = np.zeros(N)
    for step, (r, ended) in enumerate(zip(plain[0], plain[1], strict=True)):
        started = plain[1][step - 1] if step else np.zeros(N, bool)
        now = np.where(ended | started, 0.0, shaped[2][step])
        np.testing.assert_allclose(shaped[0][step], np.where(started, r, r + now - previous), atol=1e-5)
        previous = now
    mine, margin = np.array(shaped[2]), np.array(plain[2])
    assert (mine >= 0).all() and (mine != margin).any()  # not the margin: the opponent's points are left out


def test_metrics_count_the_games_own_rewards(played: dict) -> None:
    assert played["g1_stats"]["opponents"] == played["plain_stats"]["opponents"]


def test_unknown_shaping_and_bad_gamma_refused() -> None:
    with pytest.raises(ValueError, match="no reward shaping 'nope'"):
        envs.spec("dorfromantik_duel").potential("nope")
    with pytest.raises(ValueError, match="kuhn_poker_v0 has no reward shaping 'duel_margin'"):
        GameVectorEnv("kuhn_poker", 2, shaping="duel_margin")
    with pytest.raises(ValueError, match="gamma"):
        GameVectorEnv(GAME, 2, shaping="duel_margin", shaping_gamma=1.5)


def test_capivari_round_wins_pay_each_round_as_it_is_won() -> None:
    """``round_wins``: with gamma 1 a won round pays +1/2 (a match needs 2) when the learner next decides, a lost
    one -1/2, a tied one nothing, and a match's shaped rewards still sum to its +-1."""
    plain = _play(GameVectorEnv("capivari", N, opponents="random"), 5, 400, capivari_round_wins)
    shaped = _play(GameVectorEnv("capivari", N, opponents="random", shaping="round_wins"), 5, 400, capivari_round_wins)
    mid_game = []
    for i in range(N):
        game_return = shaped_return = 0.0
        for step, ended in enumerate(plain[1]):
            game_return += plain[0][step][i]
            shaped_return += shaped[0][step][i]
            assert ended[i] == shaped[1][step][i]
            if ended[i]:
                assert shaped_return == pytest.approx(game_return, abs=1e-6)
                game_return = shaped_return = 0.0
            elif step and not plain[1][step - 1][i]:
                mid_game.append(shaped[0][step][i])
                assert shaped[0][step][i] == pytest.approx(shaped[2][step][i] - shaped[2][step - 1][i])
    assert set(np.round(mid_game, 6)) <= {-1.0, -0.5, 0.0, 0.5, 1.0}
    assert {-0.5, 0.5} <= set(np.round(mid_game, 6))  # rounds were won and lost mid-match
