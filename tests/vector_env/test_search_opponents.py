"""The pool's ``search`` kind: IS-MCTS on each game's state record, seeded from the game's own generator."""

import numpy as np
import pytest

from tests.vector_env.test_policy_opponents import _play
from training.opponents import PoolWeights
from training.vector_env import MASK_KEY, GameVectorEnv


def _learner_wins(env: GameVectorEnv, steps: int, seed: int) -> tuple[int, int]:
    """Random legal learner moves for ``steps`` steps: (games finished, learner wins) per the env's counts."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs[MASK_KEY]], np.int64)
        obs, *_ = env.step(actions)
    games = wins = 0
    for row in env.pop_stats()["opponents"].values():
        games, wins = games + row["games"], wins + row["wins"]
    return games, wins


@pytest.mark.parametrize(
    ("game", "config", "n", "steps"), [("capivari_v0", {}, 16, 150), ("horizonte_v0", {"num_players": 4}, 32, 100)]
)
def test_search_opponents_beat_a_random_learner_far_more_often_than_random_ones(game, config, n, steps) -> None:
    searched = GameVectorEnv(game, n, opponents="search", opponent_search_iterations=100, **config)
    assert searched.available() == ["search"]
    games, wins = _learner_wins(searched, steps, seed=3)
    rand_games, rand_wins = _learner_wins(GameVectorEnv(game, n, opponents="random", **config), steps, seed=3)
    assert games >= 40 and rand_games >= 40
    # a random learner wins about 1/players of its games against random opponents, far fewer against search
    assert wins / games < 0.5 * rand_wins / rand_games


def test_a_search_opponents_games_are_functions_of_their_seeds() -> None:
    def env() -> GameVectorEnv:
        return GameVectorEnv(
            "capivari_v0", 8, opponents="search", opponent_search_iterations=30, record_opponent_actions=True
        )

    first, second = env(), env()
    assert _play(first, 30, seed=9) == _play(second, 30, seed=9)
    stats = first.pop_stats()
    assert stats["opponents"]["search"]["games"] > 0 and stats["outside_decisions"] > 0


def test_the_search_kind_in_the_pool_and_its_budget() -> None:
    assert PoolWeights.parse("heuristic=0.5,search=0.5").search == 0.5
    with pytest.raises(ValueError, match="ismcts iterations must be a positive int"):
        GameVectorEnv("capivari_v0", 2, opponents="search", opponent_search_iterations=0)
    env = GameVectorEnv("kuhn_poker_v0", 2, opponents={"search": 1.0, "random": 1.0})
    assert env.available() == ["random", "search"]
    env.set_weights({"random": 1.0})
    assert env.available() == ["random"]
