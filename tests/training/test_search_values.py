"""Learning IS-MCTS's action values (``--algo exit --set expert=ismcts --set policy_target=values``): each searched
root move's mean is the target of that move's output; ``network_share`` lets the network play some searched moves."""

import numpy as np
import pytest

import envs
from agents.compiled_policy import CompiledPolicy
from agents.ismcts import ISMCTSAgent
from tests.agents.test_compiled_policy import mlp_arrays
from tests.training.test_monte_carlo import tiny_afterstate_run
from tests.training.test_search_training import TINY as SEARCH_TINY
from tests.training.test_search_training import one_torch_thread  # noqa: F401  (autouse: one torch thread here too)

TINY = {**SEARCH_TINY, "expert": "ismcts", "policy_target": "values", "games": 4}


def self_play(games: int, seed: int, **options):
    from training.search_selfplay import SelfPlay

    game = envs.make("capivari").game
    policy = CompiledPolicy(mlp_arrays("capivari_v0"))
    return game, policy, SelfPlay(game, policy, games, 60, 1.5, 0.5, 0, seed, "ismcts", **options)


def test_the_target_is_each_searched_moves_mean_and_nothing_elsewhere():
    game, _, selfplay = self_play(3, seed=2, policy_target="values")
    state, seat, mask = selfplay.env.states[0:1].copy(), int(selfplay.seats[0]), selfplay.masks[0].copy()
    start = selfplay.obs[0].copy()
    seed = int(np.random.default_rng([2, 0x5E1F]).integers(2**63))  # self-play's first search seed for game 0
    played = selfplay.play(60)
    assert played.games >= 3
    rows = [i for i, obs in enumerate(played.obs) if np.array_equal(obs, start)]
    assert len(rows) == 1  # game 0's first position (its match ended within the 60 moves)
    first = played.policy[rows[0]]
    expert = ISMCTSAgent("capivari", iterations=60)
    visits = expert.search(state, seat, game, seed)
    searched = visits > 0
    assert searched.any() and np.all(mask[searched] > 0)
    np.testing.assert_allclose(first[searched], 2.0 * expert.last_values[searched] - 1.0, rtol=1e-6)
    assert np.all(np.isnan(first[~searched]))
    known = np.isfinite(played.policy)
    assert np.all(played.mask[known] > 0) and np.all(np.abs(played.policy[known]) <= 1.0)


def steps_of(selfplay) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(observations, masks, actions) of every batch step self-play takes from now on."""
    steps = []
    step = selfplay.env.step

    def record(actions):
        steps.append((selfplay.obs.copy(), selfplay.masks.copy(), actions.copy()))
        return step(actions)

    selfplay.env.step = record
    return steps


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_the_network_plays_the_share_of_searched_moves_it_is_given(share):
    _, policy, selfplay = self_play(4, seed=7, policy_target="values", network_share=share, epsilon=0.0)
    steps = steps_of(selfplay)
    selfplay.play(40)
    obs, masks, actions = (np.concatenate(part) for part in zip(*steps, strict=True))
    logits, _ = policy.forward(obs, masks.astype(np.float32))
    greedy = np.where(masks > 0, logits, -np.inf).argmax(axis=1)
    choices = (masks > 0).sum(axis=1) > 1
    agree = np.mean(actions[choices] == greedy[choices])
    assert agree == 1.0 if share == 1.0 else agree < 0.9  # the search's moves differ from the network's somewhere


def test_the_values_loss_moves_each_searched_moves_output_to_its_mean_and_leaves_the_rest():
    import torch

    from training.search_training import _Learner, checked_settings

    s = checked_settings("capivari", {}, 0, {**TINY, "lr": 0.01, "updates_per_iteration": 50, "min_buffer": 1})
    game = envs.make("capivari").game
    learner = _Learner(s, game)
    mask = np.zeros((1, game.num_actions), np.int8)
    mask[0, [2, 5, 7]] = 1
    target = np.full((1, game.num_actions), np.nan, np.float32)
    target[0, 2], target[0, 5] = -0.5, 0.25  # move 7 was not searched
    obs = np.random.default_rng(0).random((1, game.obs_size)).astype(np.float32)
    learner.buffer.add(obs, mask, target, np.array([0.0], np.float32))
    for _ in range(4):
        assert np.isfinite(learner.update(np.random.default_rng(1))["policy_loss"])
    logits = learner.net(torch.from_numpy(obs), torch.from_numpy(mask).float())[0].detach()[0]
    assert abs(float(logits[2]) + 0.5) < 0.05 and abs(float(logits[5]) - 0.25) < 0.05


def test_a_tiny_run_with_the_afterstate_rows_writes_a_policy_file_that_plays(tmp_path):
    values = {**TINY, "candidate_head": "afterstates", "candidate_hiddens": [8], "network_share": 0.5}
    meta = tiny_afterstate_run(tmp_path / "run", values)
    assert meta["iteration"] == 2 and meta["settings"]["policy_target"] == "values"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"policy_target": "values"}, "needs expert=ismcts, not 'guided'"),
        ({"expert": "network", "policy_target": "q", "network_share": 0.5}, "already plays every move"),
        ({"expert": "ismcts", "network_share": 2}, r"network_share=2: must be a number in \[0, 1\]"),
    ],
)
def test_values_without_ismcts_and_bad_network_shares_are_refused(values, message):
    from training.search_training import checked_settings

    with pytest.raises(ValueError, match=message):
        checked_settings("capivari", {}, 0, values)
