"""The masking module gives illegal actions probability exactly zero, in exploration, inference and training."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from training.masking_module import MASK_KEY, OBS_KEY, MaskedPPOTorchRLModule

N_OBS, N_ACT = 12, 9


def make_module(**kwargs) -> MaskedPPOTorchRLModule:
    torch.manual_seed(0)
    space = gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (N_OBS,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (N_ACT,), np.float32)}
    )
    return MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(N_ACT),
        model_config=DefaultModelConfig(fcnet_hiddens=[16]),
        **kwargs,
    )


def batch(rows: int, seed: int = 0) -> tuple[dict, torch.Tensor]:
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(rng.uniform(-1, 1, (rows, N_OBS)).astype(np.float32))
    mask = torch.as_tensor((rng.random((rows, N_ACT)) < 0.3).astype(np.float32))
    mask[:, rng.integers(N_ACT)] = 1.0  # at least one legal action per row
    return {Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}}, mask


def test_exploration_samples_only_legal_actions():
    module = make_module()
    b, mask = batch(64)
    logits = module.forward_exploration(b)[Columns.ACTION_DIST_INPUTS]
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    probs = torch.softmax(logits, -1)
    assert torch.all(probs[mask == 0] == 0.0)
    assert torch.allclose(probs.sum(-1), torch.ones(64))
    for _ in range(50):
        actions = dist.sample()
        assert torch.all(mask.gather(1, actions[:, None]) == 1.0)


def test_inference_picks_a_legal_action_even_when_the_raw_argmax_is_illegal():
    module = make_module()
    b, _ = batch(1)
    raw = module.forward_inference(b)[Columns.ACTION_DIST_INPUTS]
    best = int(raw.argmax())
    only_other = torch.ones(1, N_ACT)
    only_other[0, best] = 0.0  # forbid the action the unmasked net likes most
    b[Columns.OBS][MASK_KEY] = only_other
    logits = module.forward_inference(b)[Columns.ACTION_DIST_INPUTS]
    dist = module.get_inference_action_dist_cls().from_logits(logits).to_deterministic()
    assert int(dist.sample()) != best
    assert torch.softmax(logits, -1)[0, best] == 0.0


def test_training_forward_masks_and_keeps_the_loss_finite():
    module = make_module()
    b, mask = batch(32)
    out = module.forward_train(b)
    logits = out[Columns.ACTION_DIST_INPUTS]
    assert torch.all(torch.softmax(logits, -1)[mask == 0] == 0.0)
    dist = module.get_train_action_dist_cls().from_logits(logits)
    legal = mask.argmax(-1)
    assert torch.isfinite(dist.logp(legal)).all()
    assert torch.isfinite(dist.entropy()).all()
    kl = dist.kl(module.get_train_action_dist_cls().from_logits(logits.detach() * 0.5))
    assert torch.isfinite(kl).all()
    values = module.compute_values(b)
    assert values.shape == (32,) and torch.isfinite(values).all()
    assert torch.allclose(values, module.compute_values(b, embeddings=out[Columns.EMBEDDINGS]))


def test_value_head_ignores_the_mask():
    module = make_module()
    b, _ = batch(8)
    v1 = module.compute_values(b)
    b[Columns.OBS][MASK_KEY] = torch.ones(8, N_ACT)
    assert torch.equal(v1, module.compute_values(b))


def test_rejects_observations_without_a_mask():
    with pytest.raises(ValueError, match="action_mask"):
        MaskedPPOTorchRLModule(
            observation_space=gym.spaces.Box(0, 1, (4,)),
            action_space=gym.spaces.Discrete(2),
            model_config=DefaultModelConfig(fcnet_hiddens=[8]),
        )


def test_module_round_trips_through_a_checkpoint(tmp_path):
    from agents.rllib_policy import RLlibAgent, load_module

    module = make_module()
    module.save_to_path(str(tmp_path / "m"))
    loaded = load_module(tmp_path / "m", trust=True)  # saved by RLlib here: no manifest
    b, _ = batch(4)
    assert torch.equal(
        module.forward_inference(b)[Columns.ACTION_DIST_INPUTS], loaded.forward_inference(b)[Columns.ACTION_DIST_INPUTS]
    )
    agent = RLlibAgent(loaded, explore=True, seed=3)
    mask = np.zeros(N_ACT, np.int8)
    mask[[2, 5]] = 1
    picks = {agent.act({"observation": np.zeros(N_OBS, np.float32), "action_mask": mask}) for _ in range(200)}
    assert picks <= {2, 5}


def test_a_policy_in_a_game_of_other_sizes_names_the_game_config_it_was_trained_with():
    from agents.rllib_policy import RLlibAgent

    observation = {"observation": np.zeros(N_OBS + 3, np.float32), "action_mask": np.ones(N_ACT, np.int8)}
    with pytest.raises(ValueError, match="another game or player count"):
        RLlibAgent(make_module()).act(observation)
    with pytest.raises(ValueError, match=r"trained with game config .*: .* arena --config placement_prior=true\)$"):
        RLlibAgent(make_module(), trained_config={"placement_prior": True}).act(observation)


class _BoardLayout:
    """A test-only observation layout: a 5x4 board with 3 channels first, then 6 more numbers."""

    def names(self) -> list[str]:
        return ["board", "rest"]

    def shape(self, name: str) -> tuple[int, ...]:
        return {"board": (5, 4, 3), "rest": (6,)}[name]


def test_a_board_observation_goes_through_a_conv_stack_and_masks_still_hold():
    from training.masking_module import image_shape_of

    image = image_shape_of(_BoardLayout())
    assert image == (5, 4, 3)
    size = 5 * 4 * 3 + 6
    space = gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (size,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (N_ACT,), np.float32)}
    )
    torch.manual_seed(0)
    module = MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(N_ACT),
        model_config={"fcnet_hiddens": [16], "image_shape": list(image), "conv_filters": [[4, 3, 1], [8, 3, 2]]},
    )
    assert module.conv is not None and module.observation_space == space
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.uniform(-1, 1, (7, size)).astype(np.float32))
    mask = torch.ones(7, N_ACT)
    mask[:, 0] = 0.0
    out = module.forward_train({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})
    assert torch.all(torch.softmax(out[Columns.ACTION_DIST_INPUTS], -1)[:, 0] == 0.0)
    # the board counts: swapping two cells' channels changes the output
    moved = obs.clone()
    board = moved[:, :60].reshape(7, 5, 4, 3)
    board[:, [0, 4]] = board[:, [4, 0]]
    out2 = module.forward_train({Columns.OBS: {OBS_KEY: moved, MASK_KEY: mask}})
    assert not torch.allclose(out[Columns.ACTION_DIST_INPUTS][:, 1:], out2[Columns.ACTION_DIST_INPUTS][:, 1:])
    # and the conv weights learn: a loss on the logits reaches them
    out[Columns.ACTION_DIST_INPUTS][:, 1:].sum().backward()
    assert module.conv[0].weight.grad is not None and module.conv[0].weight.grad.abs().sum() > 0


def test_flat_layouts_have_no_image():
    import envs
    from training.masking_module import image_shape_of

    assert image_shape_of(envs.make("capivari_v0").game.observation_layout()) is None
    assert image_shape_of(None) is None


def test_the_fast_categorical_has_torchs_probabilities_entropy_and_kl():
    from training.masking_module import MaskedCategorical, mask_logits

    gen = torch.Generator().manual_seed(0)
    mask = (torch.rand(64, 300, generator=gen) < 0.1).float()
    mask[:, 0] = 1.0
    a = mask_logits(torch.randn(64, 300, generator=gen), mask)
    b = mask_logits(torch.randn(64, 300, generator=gen), mask)
    ours_a, ours_b = MaskedCategorical.from_logits(a), MaskedCategorical.from_logits(b)
    ref_a, ref_b = torch.distributions.Categorical(logits=a), torch.distributions.Categorical(logits=b)
    actions = torch.argmax(mask * torch.rand(64, 300, generator=gen), dim=1)
    torch.testing.assert_close(ours_a.logp(actions), ref_a.log_prob(actions))
    torch.testing.assert_close(ours_a.entropy(), ref_a.entropy())
    torch.testing.assert_close(ours_a.kl(ours_b), torch.distributions.kl_divergence(ref_a, ref_b))
    for _ in range(20):
        assert (mask[torch.arange(64), ours_a.sample()] > 0).all()
    # logits 100 apart (an action prior's scale): q's probability underflows to 0 where log q is still finite
    wide_a, wide_b = a.clone(), b.clone()
    wide_a[:, 0], wide_b[:, 0] = wide_a[:, 0] + 80.0, wide_b[:, 0] + 120.0
    ours = MaskedCategorical.from_logits(wide_a).kl(MaskedCategorical.from_logits(wide_b))
    assert torch.isinf(torch.distributions.kl_divergence(*map(_categorical, (wide_a, wide_b)))).any()
    p, logp, logq = torch.softmax(wide_a, -1), torch.log_softmax(wide_a, -1), torch.log_softmax(wide_b, -1)
    torch.testing.assert_close(ours, torch.where(p > 0, p * (logp - logq), 0.0).sum(-1))
    assert torch.isfinite(ours).all()


def _categorical(logits: torch.Tensor) -> torch.distributions.Categorical:
    return torch.distributions.Categorical(logits=logits)


def _cell_module(inference_only: bool = False) -> MaskedPPOTorchRLModule:
    """A cell-head module over a (6, 7, 3) board and 4 more numbers: 2 choices per cell, then 1 other action."""
    size = 6 * 7 * 3 + 4
    space = gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (size,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (85,), np.float32)}
    )
    return MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(6 * 7 * 2 + 1),
        inference_only=inference_only,
        model_config={"fcnet_hiddens": [8], "image_shape": [6, 7, 3], "cell_head": [5, 1]},
    )


def test_the_cell_head_names_each_cell_where_its_board_neighbourhood_is():
    torch.manual_seed(0)
    module = _cell_module()
    assert module.conv is None and module.observation_space[OBS_KEY].shape == (130,)
    rng = np.random.default_rng(1)
    obs = torch.as_tensor(rng.uniform(-1, 1, (3, 130)).astype(np.float32))
    mask = torch.ones(3, 85)
    mask[:, 7] = 0.0
    out = module.forward_train({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})
    logits = out[Columns.ACTION_DIST_INPUTS]
    assert logits.shape == (3, 85) and torch.all(torch.softmax(logits, -1)[:, 7] == 0.0)
    # move the whole board one column right: action (row, col, j) = (row * 7 + col) * 2 + j follows its cell
    board = obs[:, :126].reshape(3, 6, 7, 3)
    shifted = obs.clone()
    shifted[:, :126] = torch.roll(board, 1, dims=2).reshape(3, 126)
    moved = module.forward_inference({Columns.OBS: {OBS_KEY: shifted, MASK_KEY: torch.ones(3, 85)}})
    before = module.forward_inference({Columns.OBS: {OBS_KEY: obs, MASK_KEY: torch.ones(3, 85)}})
    cells_before = before[Columns.ACTION_DIST_INPUTS][:, :84].reshape(3, 6, 7, 2)
    cells_after = moved[Columns.ACTION_DIST_INPUTS][:, :84].reshape(3, 6, 7, 2)
    # one 3x3 conv: cells whose neighbourhood stays inside the board and was not wrapped around
    torch.testing.assert_close(cells_after[:, 1:5, 2:6], cells_before[:, 1:5, 1:5])
    assert not torch.allclose(cells_after[:, 1:5, 2:6], cells_before[:, 1:5, 2:6])
    # the value and the trunk learn from one loss
    values = module.compute_values({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}}, out[Columns.EMBEDDINGS])
    assert values.shape == (3,)
    (logits[:, :7].sum() + values.sum()).backward()
    assert module.encoder.first.weight.grad.abs().sum() > 0 and module.vf[0].weight.grad.abs().sum() > 0


def test_an_inference_only_cell_head_module_takes_the_learners_weights_without_the_value():
    torch.manual_seed(0)
    learner = _cell_module()
    runner = _cell_module(inference_only=True)
    assert runner.vf is None
    runner.set_state(learner.get_state(inference_only=True))
    obs = {OBS_KEY: torch.rand(2, 130), MASK_KEY: torch.ones(2, 85)}
    torch.testing.assert_close(
        runner.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS],
        learner.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS],
    )


def test_a_cell_head_needs_a_board_that_fits_the_observation():
    space = gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (100,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (85,), np.float32)}
    )
    for config, message in (
        ({"fcnet_hiddens": [8], "image_shape": [6, 7, 3], "cell_head": [5, 1]}, "does not fit"),
        ({"fcnet_hiddens": [8], "cell_head": [5, 1]}, "needs model_config"),
    ):
        with pytest.raises(ValueError, match=message):
            MaskedPPOTorchRLModule(observation_space=space, action_space=gym.spaces.Discrete(85), model_config=config)


def _prior_module(scale: float, inference_only: bool = False) -> MaskedPPOTorchRLModule:
    """A (5, 4, 3) board, 6 numbers, then a prior over the first 5 of N_ACT actions (the observation's last 5)."""
    size = 5 * 4 * 3 + 6 + 5
    space = gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (size,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (N_ACT,), np.float32)}
    )
    torch.manual_seed(0)
    return MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(N_ACT),
        inference_only=inference_only,
        model_config={
            "fcnet_hiddens": [16],
            "image_shape": [5, 4, 3],
            "conv_filters": [[4, 3, 2]],
            "action_prior": {"start": 66, "length": 5, "scale": scale},
        },
    )


def test_an_action_prior_is_added_to_its_actions_logits_times_a_learned_scale_and_not_read_by_the_network():
    rng = np.random.default_rng(2)
    obs = torch.as_tensor(rng.uniform(0, 1, (4, 71)).astype(np.float32))
    mask = torch.ones(4, N_ACT)
    mask[:, 2] = 0.0
    without, with_prior = _prior_module(0.0), _prior_module(3.0)
    base = without.forward_inference({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})[Columns.ACTION_DIST_INPUTS]
    out = with_prior.forward_train({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})
    logits = out[Columns.ACTION_DIST_INPUTS]
    legal = mask > 0
    expected = base.clone()
    expected[:, :5] = expected[:, :5] + 3.0 * obs[:, 66:]
    torch.testing.assert_close(logits[legal], expected[legal])
    assert torch.all(torch.softmax(logits, -1)[:, 2] == 0.0)
    # the network itself never reads the prior: changing it moves only the prior's own logits
    changed = obs.clone()
    changed[:, 66:] = 0.0
    again = without.forward_inference({Columns.OBS: {OBS_KEY: changed, MASK_KEY: mask}})[Columns.ACTION_DIST_INPUTS]
    torch.testing.assert_close(again, base)
    # the scale learns, and an inference-only copy takes it with the other weights
    logits[:, 0].sum().backward()
    assert with_prior.prior_scale.grad is not None and with_prior.prior_scale.grad != 0
    runner = _prior_module(0.0, inference_only=True)
    runner.set_state(with_prior.get_state(inference_only=True))
    torch.testing.assert_close(
        runner.forward_inference({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})[Columns.ACTION_DIST_INPUTS],
        with_prior.forward_inference({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})[Columns.ACTION_DIST_INPUTS],
    )


def test_an_action_prior_must_lie_after_the_board_inside_the_observation():
    space = gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (71,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (N_ACT,), np.float32)}
    )
    actions = gym.spaces.Discrete(N_ACT)
    for start, length in ((10, 5), (68, 5), (66, 0)):
        config = {"fcnet_hiddens": [8], "image_shape": [5, 4, 3], "action_prior": {"start": start, "length": length}}
        with pytest.raises(ValueError, match="action_prior"):
            MaskedPPOTorchRLModule(observation_space=space, action_space=actions, model_config=config)


def test_sampled_actions_follow_the_masked_softmax_and_never_a_masked_action():
    from training.masking_module import mask_logits, sample_actions

    gen = torch.Generator().manual_seed(3)
    mask = torch.zeros(4, 50)
    mask[:, [0, 7, 8, 49]] = 1.0  # legal at both ends and side by side
    logits = mask_logits(torch.tensor([[2.0] * 50, [0.0] * 50, [-1.0] * 50, [5.0] * 50]) * torch.rand(4, 50), mask)
    draws = 40_000
    uniform = torch.rand(draws * 4, generator=gen)
    actions = sample_actions(logits.repeat(draws, 1), uniform).reshape(draws, 4)
    for row in range(4):
        counts = torch.bincount(actions[:, row], minlength=50).double() / draws
        assert counts[mask[row] == 0].sum() == 0
        torch.testing.assert_close(counts, torch.softmax(logits[row].double(), 0), atol=0.01, rtol=0)
    # the ends of [0, 1): the first and the last legal action, never a masked one around them
    ends = sample_actions(logits[:1].repeat(2, 1), torch.tensor([0.0, 1.0 - 2**-24]))
    assert ends.tolist() == [49, 0]


def test_a_policy_plays_a_table_that_differs_from_its_training_only_in_observation_options():
    """Trained with the unseen cards in its observation, it plays a table without them as one with them: the same
    games move for move; at a table with other rules it observes that table's own way."""
    import envs
    from agents.match import play_game
    from agents.random_agent import RandomAgent
    from agents.rllib_policy import RLlibAgent

    game = envs.make("capivari_v0", observe_unseen=True).game
    torch.manual_seed(0)
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(0, 1, (game.obs_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (game.num_actions,), np.float32),
        }
    )
    module = MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config=DefaultModelConfig(fcnet_hiddens=[16]),
    )
    played = []
    for config in ({"observe_unseen": True}, {}):
        agent = RLlibAgent(module, trained_config={"observe_unseen": True})
        played.append(play_game(envs.make("capivari_v0", **config), [agent, RandomAgent(1)], 3, record_actions=True))
    assert played[0].actions == played[1].actions and len(played[0].actions) > 10
    agent = RLlibAgent(module, trained_config={"observe_unseen": True})
    env = envs.make("capivari_v0", wins_needed=3)  # other rules: the unseen cards added to that table's view
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"][agent.act(env.observe(env.agent_selection), env)]
    assert agent._observer.game.config.wins_needed == 3 and agent._observer.game.config.observe_unseen
