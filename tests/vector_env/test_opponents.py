"""The vector env's opponent pool: compiled heuristics, outside policies in batches, per-kind counts."""

import numpy as np
import pytest

import envs
from agents.heuristic import HeuristicAgent
from tests.common import random_legal_rows
from training.vector_env import MASK_KEY, GameVectorEnv, opponent_weights

HEURISTIC_GAMES = [
    ("capivari_v0", {}),
    ("horizonte_v0", {}),
    ("kuhn_poker_v0", {}),
    ("dorfromantik_duel_v0", {}),
    ("dorfromantik_duel_v0", {"module_points_of_interest": True}),  # the kernel's mask is wider than the env's
]
N = 8


def _best_moves(agent: HeuristicAgent, aec) -> set[int]:
    """The actions the Python heuristic agent values highest at the AEC env's current decision."""
    seat = aec.possible_agents.index(aec.agent_selection)
    obs = aec.observe(aec.agent_selection)
    state = aec.game.new_state()
    state[0] = aec.core_state
    aec.game.determinize_fn(state[0], seat, np.uint64(1))
    legal = np.flatnonzero(obs["action_mask"])
    values = np.asarray(agent.values(state, seat, obs))[legal]
    return set(legal[values >= values.max() - 1e-9].tolist())


@pytest.mark.parametrize(("game", "config"), HEURISTIC_GAMES)
def test_compiled_heuristic_opponents_play_the_heuristics_best_moves(game: str, config: dict) -> None:
    env = GameVectorEnv(game, N, seed=2, opponents="heuristic", record_opponent_actions=True, **config)
    assert env.has_compiled_heuristic and env.available() == ["heuristic"]
    agent = HeuristicAgent(game)
    obs, infos = env.reset(seed=2)
    aecs = [envs.game_module(game).raw_env(**config) for _ in range(N)]
    for i, aec in enumerate(aecs):
        aec.reset(seed=2 + i)
    rng = np.random.default_rng(0)
    checked = 0
    done = np.zeros(N, bool)
    for _ in range(40):
        for i, aec in enumerate(aecs):
            for a in infos["opponent_actions"][i]:
                assert int(a) in _best_moves(agent, aec), f"game {i}: {aec.action_name(int(a))} is not a best move"
                aec.step(int(a))
                checked += 1
        actions = random_legal_rows(rng, obs[MASK_KEY])
        for i, aec in enumerate(aecs):
            if not done[i]:  # NEXT_STEP: a finished game's action is ignored, a new game starts
                aec.step(int(actions[i]))
        obs, _, done, _, infos = env.step(actions)
        for i, aec in enumerate(aecs):
            if infos["_episode_seed"][i]:
                aec.reset(seed=int(infos["episode_seed"][i]))
    assert checked > 50


def test_heuristic_opponents_beat_a_random_learner_more_often_than_random_ones() -> None:
    env = GameVectorEnv("capivari_v0", 64, seed=0, opponents={"random": 1.0, "heuristic": 1.0})
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(400):
        obs, *_ = env.step(random_legal_rows(rng, obs[MASK_KEY]))
    stats = env.pop_stats()
    vs = stats["opponents"]
    assert vs["random"]["games"] > 100 and vs["heuristic"]["games"] > 100
    assert vs["heuristic"]["wins"] / vs["heuristic"]["games"] < 0.3 < vs["random"]["wins"] / vs["random"]["games"]
    restarts = sum(v["games"] for v in vs.values()) - 64  # a finished game's next step only restarts it
    assert 400 * 64 - restarts - 64 <= stats["learner_decisions"] <= 400 * 64
    assert stats["decisions"] > stats["learner_decisions"] > 0
    assert env.pop_stats()["learner_decisions"] == 0  # popped


def test_outside_policies_get_every_waiting_game_in_one_call() -> None:
    calls: list[int] = []

    def first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(obs.shape[0])
        return masks.argmax(axis=1)

    env = GameVectorEnv("capivari_v0", N, seed=5, opponents={"self": 1.0}, record_opponent_actions=True)
    env.set_policy("self", first_legal)
    obs, infos = env.reset(seed=5)
    assert max(calls) > 1  # the games waiting for the policy came in one batch
    aecs = [envs.game_module("capivari_v0").raw_env() for _ in range(N)]
    rng = np.random.default_rng(3)
    for i, aec in enumerate(aecs):
        aec.reset(seed=5 + i)
    for _ in range(30):
        for i, aec in enumerate(aecs):
            for a in infos["opponent_actions"][i]:
                assert int(a) == int(np.argmax(aec.observe(aec.agent_selection)["action_mask"]))
                aec.step(int(a))
            np.testing.assert_array_equal(obs["observations"][i], aec.observe(aec.agent_selection)["observation"])
        actions = random_legal_rows(rng, obs[MASK_KEY])
        obs, _, done, _, infos = env.step(actions)
        for i, aec in enumerate(aecs):
            if infos["_episode_seed"][i]:
                aec.reset(seed=int(infos["episode_seed"][i]))
            elif not all(aec.terminations.values()):
                aec.step(int(actions[i]))
        if done.any():
            break


def test_kinds_without_a_player_are_not_drawn() -> None:
    env = GameVectorEnv("capivari_v0", N, opponents={"snapshot": 1.0, "random": 0.0})
    assert env.available() == []  # no snapshot yet: random stands in
    env.reset(seed=0)
    env.add_snapshot("main_v1", lambda obs, masks: masks.argmax(axis=1))
    assert env.available() == ["snapshot"]
    obs, _ = env.reset(seed=1)  # every game now plays the snapshot
    env.drop_snapshot("main_v1")
    assert env.available() == []
    rng = np.random.default_rng(0)
    for _ in range(200):  # the games against it finish against it, then it is let go
        obs, *_ = env.step(random_legal_rows(rng, obs[MASK_KEY]))
    assert "main_v1" not in env._retired and env.pop_stats()["opponents"]["snapshot"]["games"] >= N


@pytest.mark.parametrize(
    "weights", [{"nope": 1.0}, {"random": -1.0}, {"random": 0.0}, {"random": float("nan")}, {"random": True}]
)
def test_bad_pool_weights_refused(weights: dict) -> None:
    with pytest.raises(ValueError):
        opponent_weights(weights)
