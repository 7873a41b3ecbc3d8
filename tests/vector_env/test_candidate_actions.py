"""The vector env in the candidate action space plays the games it plays in the game's own actions."""

import numpy as np
import pytest

from envs.engine.aec import IllegalActionError
from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv

DUEL = {"board_radius": 9, "placement_candidates": True, "observe_boards": False}
POOL = {"random": 1.0, "heuristic": 1.0, "self": 1.0}


def first_legal(seen: list) -> object:
    """An outside policy playing each row's first legal action (in whichever space it is handed)."""

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        seen.append(masks.shape[1])
        return np.argmax(masks > 0, axis=1)

    return act


def as_candidate(env: GameVectorEnv, game_masks: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Game actions as candidate actions: a placement's rank among the legal ones, the others after the rows."""
    view = env.candidates
    out = np.empty_like(actions)
    for i, a in enumerate(actions):
        legal = np.flatnonzero(game_masks[i, : view.placements])
        out[i] = np.searchsorted(legal, a) if a < view.placements else view.rows + a - view.placements
    return out


def test_candidate_actions_play_the_same_games_and_outside_policies_choose_in_that_space():
    plain = GameVectorEnv("dorfromantik_duel", 6, opponents=POOL, **DUEL)
    rows = GameVectorEnv("dorfromantik_duel", 6, opponents=POOL, candidate_actions="placement_candidates", **DUEL)
    seen_plain, seen_rows = [], []
    plain.set_policy("self", first_legal(seen_plain))
    rows.set_policy("self", first_legal(seen_rows))
    view = rows.candidates
    assert rows.single_action_space.n == view.size == view.rows + 1 < plain.single_action_space.n
    assert rows.single_observation_space[MASK_KEY].shape == (view.size,)
    a_obs, _ = plain.reset(seed=5)
    b_obs, _ = rows.reset(seed=5)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(120):
        np.testing.assert_array_equal(a_obs[OBS_KEY], b_obs[OBS_KEY])
        np.testing.assert_array_equal(b_obs[MASK_KEY], view.masks(a_obs[MASK_KEY]))
        legal = [np.flatnonzero(m) for m in a_obs[MASK_KEY]]
        a = np.array([rng.choice(x) if x.size else 0 for x in legal])
        b = as_candidate(rows, a_obs[MASK_KEY], a)
        a_obs, a_rew, a_term, *_ = plain.step(a)
        b_obs, b_rew, b_term, *_ = rows.step(b)
        np.testing.assert_array_equal(a_rew, b_rew)
        np.testing.assert_array_equal(a_term, b_term)
        finished += int(a_term.sum())
    assert finished >= 6  # every game ended at least once: resets and the next games agree too
    assert set(seen_plain) == {plain.game.num_actions} and set(seen_rows) == {view.size}
    assert len(seen_rows) == len(seen_plain) > 0
    assert plain.pop_stats() == rows.pop_stats()


def test_a_candidate_past_the_legal_placements_is_refused_and_nothing_is_stepped():
    env = GameVectorEnv("dorfromantik_duel", 2, candidate_actions="placement_candidates", **DUEL)
    obs, _ = env.reset(seed=1)
    count = int(obs[MASK_KEY][0, : env.candidates.rows].sum())
    before = env.batch.states.copy()
    with pytest.raises(IllegalActionError, match=f"game 0: 'candidate {count}'"):
        env.step(np.array([count, 0]))
    with pytest.raises(IllegalActionError, match="game 1: 'pass'"):
        env.step(np.array([0, env.candidates.rows]))
    with pytest.raises(ValueError, match=rf"actions must be in \[0, {env.candidates.size}\)"):
        env.step(np.array([0, env.candidates.size]))
    assert env.batch.states.tobytes() == before.tobytes()


def test_candidate_actions_need_the_piece():
    with pytest.raises(ValueError, match="candidate actions need an observation piece 'placement_candidates'"):
        GameVectorEnv("dorfromantik_duel", 2, candidate_actions="placement_candidates", board_radius=9)
