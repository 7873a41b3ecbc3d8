"""Deep Monte Carlo (``--algo exit --set expert=network --set policy_target=q``): the network plays its own argmax
(epsilon-greedy) and its outputs learn the return that followed each move played."""

import numpy as np
import pytest

import envs
from agents.compiled_policy import CompiledPolicy, load_agent
from tests.agents.test_compiled_policy import mlp_arrays
from tests.training.test_search_training import TINY as SEARCH_TINY
from tests.training.test_search_training import one_torch_thread  # noqa: F401  (autouse: one torch thread here too)

AFTERSTATES = {"observe_afterstates": True}
TINY = {
    **SEARCH_TINY,
    "expert": "network",
    "policy_target": "q",
    "games": 4,
    "candidate_head": "afterstates",
    "candidate_hiddens": [8],
}


def test_greedy_self_play_plays_the_networks_argmax_and_targets_the_move_and_the_return_after_it():
    from training.search_selfplay import SelfPlay

    game = envs.make("capivari").game
    policy = CompiledPolicy(mlp_arrays("capivari_v0"))
    played = SelfPlay(game, policy, 6, 0, 1.5, 0.5, 0, seed=3, expert="network", policy_target="q").play(120)
    assert played.games >= 6 and played.decisions == 6 * 120
    moves = played.policy.argmax(axis=1)
    assert np.all(played.policy.sum(axis=1) == 1) and np.all(played.mask[np.arange(len(moves)), moves] > 0)
    logits, _ = policy.forward(played.obs, played.mask.astype(np.float32))
    np.testing.assert_array_equal(moves, np.where(played.mask > 0, logits, -np.inf).argmax(axis=1))
    assert set(np.unique(played.value)) <= {-1.0, 1.0}  # Capivari pays the match's result, at its end


def test_epsilon_one_plays_uniformly_among_the_legal_moves():
    from training.search_selfplay import SelfPlay

    game = envs.make("capivari").game
    policy = CompiledPolicy(mlp_arrays("capivari_v0"))
    played = SelfPlay(game, policy, 8, 0, 1.5, 0.5, 0, seed=5, expert="network", policy_target="q", epsilon=1.0)
    rows = played.play(200)
    logits, _ = policy.forward(rows.obs, rows.mask.astype(np.float32))
    greedy = np.where(rows.mask > 0, logits, -np.inf).argmax(axis=1)
    choices = (rows.mask > 0).sum(axis=1) > 1
    agree = np.mean(rows.policy.argmax(axis=1)[choices] == greedy[choices])
    assert agree < 0.6  # the argmax would agree always; chance agrees with it about one time in the legal count


def test_the_q_target_moves_the_played_moves_output_to_the_return_that_followed_it():
    import torch

    from training.search_training import _Learner, checked_settings

    s = checked_settings(
        "capivari", {}, 0, {**TINY, "candidate_head": None, "lr": 0.01, "updates_per_iteration": 50, "min_buffer": 1}
    )
    game = envs.make("capivari").game
    learner = _Learner(s, game)
    mask = np.zeros((1, game.num_actions), np.int8)
    mask[0, [2, 5, 7]] = 1
    target = np.zeros((1, game.num_actions), np.float32)
    target[0, 5] = 1.0
    obs = np.random.default_rng(0).random((1, game.obs_size)).astype(np.float32)
    learner.buffer.add(obs, mask, target, np.array([0.75], np.float32))
    before = learner.net(torch.from_numpy(obs), torch.from_numpy(mask).float())[0].detach()
    for _ in range(4):
        assert learner.update(np.random.default_rng(1))["policy_loss"] is not None
    logits = learner.net(torch.from_numpy(obs), torch.from_numpy(mask).float())[0].detach()
    assert abs(float(logits[0, 5]) - 0.75) < 0.05 < abs(float(before[0, 5]) - 0.75)


def tiny_afterstate_run(out, values: dict) -> dict:
    """Two iterations of training from search with ``values`` at the afterstate rows' table; the run's metadata,
    after its ``policy.npz`` has played 20 legal moves."""
    from training.search_training import checked_settings, train_from_search

    meta = train_from_search(
        checked_settings("capivari", AFTERSTATES, 0, values), out, iterations=2, checkpoint_every=1, echo=lambda x: None
    )
    env = envs.make("capivari", **AFTERSTATES)
    env.reset(seed=3)
    for _ in range(20):
        observation = env.observe(env.agent_selection)
        action = load_agent(out, "capivari").act(observation, env)
        assert observation["action_mask"][action]
        env.step(action)
    return meta


def test_a_tiny_run_with_the_afterstate_rows_writes_a_policy_file_that_plays(tmp_path):
    meta = tiny_afterstate_run(tmp_path / "run", TINY)
    assert meta["iteration"] == 2 and meta["settings"]["expert"] == "network"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"expert": "network"}, "expert=network with policy_target='visits'"),
        ({"expert": "network", "policy_target": "best"}, "the network would learn its own moves"),
        ({"epsilon": 1.5}, r"epsilon=1.5: must be a number in \[0, 1\]"),
    ],
)
def test_the_network_expert_without_its_target_and_bad_epsilons_are_refused(values, message):
    from training.search_training import checked_settings

    with pytest.raises(ValueError, match=message):
        checked_settings("capivari", {}, 0, values)


def test_the_replay_buffer_keeps_the_newest_rows_when_given_more_than_it_holds():
    from training.search_targets import ReplayBuffer

    buffer = ReplayBuffer(4, 1, 2)
    buffer.add(np.zeros((1, 1)), np.ones((1, 2)), np.zeros((1, 2)), np.array([-1.0]))
    buffer.add(np.zeros((6, 1)), np.ones((6, 2)), np.zeros((6, 2)), np.arange(6.0))
    assert buffer.size == 4 and buffer.added == 7
    assert sorted(buffer.value) == [2.0, 3.0, 4.0, 5.0]
    buffer.add(np.zeros((1, 1)), np.ones((1, 2)), np.zeros((1, 2)), np.array([9.0]))
    assert sorted(buffer.value) == [3.0, 4.0, 5.0, 9.0]  # the oldest went first
