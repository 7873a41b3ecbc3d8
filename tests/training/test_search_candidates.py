"""Training from search with a candidate head (the Duel's placement candidates): targets, warm start, a tiny run."""

import numpy as np
import pytest

import envs
from agents.compiled_policy import load_agent, load_policy, read_arrays, reference_file
from envs.engine.candidate_actions import CandidateActions
from training.search_targets import candidate_targets

DUEL = "dorfromantik_duel"
CONFIG = {"placement_candidates": True, "observe_boards": False}


@pytest.fixture(autouse=True)
def one_torch_thread():
    import torch

    torch.set_num_threads(1)


def test_row_k_gets_the_kth_legal_placements_share_and_the_other_actions_keep_theirs():
    view = CandidateActions(num_actions=7, placements=5, rows=3)
    mask = np.array([[0, 1, 0, 1, 0, 1, 0], [1, 0, 0, 0, 1, 1, 1]], np.int8)
    policy = np.array([[0, 0.2, 0, 0.5, 0, 0.3, 0], [0.1, 0, 0, 0, 0.6, 0.2, 0.1]], np.float32)
    masks, out = candidate_targets(view, mask, policy)
    np.testing.assert_array_equal(masks, [[1, 1, 0, 1, 0], [1, 1, 0, 1, 1]])
    np.testing.assert_allclose(out, [[0.2, 0.5, 0, 0.3, 0], [0.1, 0.6, 0, 0.2, 0.1]])


def test_the_experts_move_maps_to_the_row_that_plays_it_in_random_positions():
    rng = np.random.default_rng(5)
    view = CandidateActions(num_actions=40, placements=32, rows=32)
    for _ in range(300):
        mask = (rng.random((1, 40)) < rng.random()).astype(np.int8)
        mask[0, rng.integers(40)] = 1
        best = rng.choice(np.flatnonzero(mask[0]))
        policy = np.zeros((1, 40), np.float32)
        policy[0, best] = 1.0
        masks, out = candidate_targets(view, mask, policy)
        choice = int(np.argmax(out[0]))
        assert out[0].sum() == pytest.approx(1.0) and masks[0, choice] == 1
        assert view.game_actions(mask, np.array([choice]))[0] == best


def test_a_warm_start_from_the_duels_reference_file_is_its_network_exactly():
    import torch

    from training.search_net import load_net_arrays, net_arrays
    from training.search_training import checked_settings, network_of

    path = reference_file(DUEL)
    s = checked_settings(DUEL, CONFIG, 0, {"init_policy": str(path)})
    assert s.candidate_head == "placement_candidates"
    game = envs.make(DUEL, **CONFIG).game
    net = network_of(s, game)
    arrays = read_arrays(path)
    load_net_arrays(net, arrays, "the reference")
    mine = net_arrays(net, game)
    assert sorted(mine) == sorted(arrays)
    for key, value in arrays.items():  # written back as read: the same file for the compiled forward pass
        np.testing.assert_array_equal(mine[key], value, err_msg=key)
    policy = load_policy(path, DUEL)
    env = envs.make(DUEL, **CONFIG)
    env.reset(seed=11)
    obs, masks = [], []
    for _ in range(12):
        o = env.observe(env.agent_selection)
        obs.append(o["observation"])
        masks.append(policy.module_mask(o["action_mask"]))
        env.step(int(np.flatnonzero(o["action_mask"])[0]))
    obs_a, mask_a = np.stack(obs).astype(np.float32), np.stack(masks)
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs_a), torch.from_numpy(mask_a))
    compiled, compiled_values = policy.forward(obs_a, mask_a)
    legal = mask_a > 0
    np.testing.assert_allclose(logits.numpy()[legal], compiled[legal], rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(values.numpy(), compiled_values, atol=1e-4)


def test_a_tiny_duel_run_from_scratch_plays_and_resumes(tmp_path):
    from training.search_training import checked_settings, train_from_search

    tiny = {
        "candidate_head": "placement_candidates",
        "candidate_hiddens": [8],
        "hiddens": [16],
        "expert": "ismcts",
        "policy_target": "best",
        "games": 2,
        "moves_per_iteration": 50,
        "search_iterations": 12,
        "min_buffer": 4,
        "batch_size": 8,
        "updates_per_iteration": 2,
        "eval_games": 2,
        "eval_steps": 2,
    }
    out = tmp_path / "run"
    s = checked_settings(DUEL, CONFIG, 0, tiny)
    train_from_search(s, out, iterations=2, checkpoint_every=5, echo=lambda line: None)
    meta = train_from_search(None, out, iterations=3, resume=out, echo=lambda line: None)
    assert meta["iteration"] == 3 and meta["settings"]["candidate_head"] == "placement_candidates"
    policy = load_policy(out, DUEL)
    assert policy.candidates is not None and policy.outputs == policy.candidates.size
    env = envs.make(DUEL, **CONFIG)
    env.reset(seed=2)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][load_agent(out, DUEL).act(observation, env)]


@pytest.mark.parametrize(
    ("game", "config", "piece", "message"),
    [
        (DUEL, CONFIG, "tile", "candidate_head='tile'"),
        (DUEL, CONFIG, 3, "must be the name of an observation piece"),
        ("capivari", {}, "placement_candidates", "candidate_head='placement_candidates'"),
    ],
)
def test_a_candidate_head_without_candidate_rows_is_refused(game, config, piece, message):
    from training.search_training import checked_settings

    with pytest.raises(ValueError, match=message):
        checked_settings(game, config, 0, {"candidate_head": piece})


def test_the_duels_expert_move_is_its_best_mean_and_self_play_learns_that_move():
    from agents.ismcts import ISMCTSAgent
    from training.search_selfplay import SelfPlay

    game = envs.make(DUEL, **CONFIG).game
    with pytest.raises(ValueError, match="policy_target=best"):
        SelfPlay(game, None, 1, 12, 1.5, 0.5, 0, 4, expert="ismcts", policy_target="visits")
    selfplay = SelfPlay(game, None, 1, 60, 1.5, 0.5, 0, 4, expert="ismcts", policy_target="best")
    agent = selfplay.agents[0]
    assert isinstance(agent, ISMCTSAgent) and agent.plays_by_value
    moves, most_visited = [], []
    original = agent.move_of

    def recorded(visits: np.ndarray, mask: np.ndarray) -> int:
        move = original(visits, mask)
        searched = (mask > 0) & (visits > 0)
        assert move == int(np.argmax(np.where(searched, agent.last_values, -np.inf)))  # the best mean
        moves.append(move)
        most_visited.append(int(np.argmax(np.where(mask > 0, visits, -1.0))))
        return move

    agent.move_of = recorded
    for _ in range(1000):  # a move at a time until the first game ends: its positions come out together
        played = selfplay.play(1)
        if played.games:
            break
    assert played.games == 1
    searched = (played.mask > 0).sum(axis=1) > 1
    targets = played.policy[searched].argmax(axis=1)
    np.testing.assert_array_equal(targets, moves[: len(targets)])  # the target is the move the expert plays
    assert np.any(targets != np.array(most_visited[: len(targets)]))  # and not its most visited action
