"""The candidate head: each legal placement's logit is its candidate row's score, nothing illegal gets mass,
the encoder does not read the rows but the value does, and the weights travel (state, checkpoint, runners)."""

import json

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns

from envs.engine.layout import ObsLayout
from training.masking_module import MASK_KEY, MASKED_LOGIT, OBS_KEY, MaskedPPOTorchRLModule

K, F, A, EXTRA = 4, 3, 12, 3  # 4 candidate rows of 3 features over 12 placements, then 3 other actions
N_ACT = A + EXTRA
BOARD = (5, 4, 3)


def layout(image: bool = False) -> ObsLayout:
    """A test-only observation: (a board,) 6 numbers, the candidate rows, then 2 more numbers."""
    pieces = [("rest", (6,)), ("cands", (K, F)), ("tail", (2,))]
    return ObsLayout(*([("board", BOARD)] if image else []), *pieces)


def head_config(image: bool = False, **extra) -> dict:
    start = layout(image).offset("cands")
    config = {
        "fcnet_hiddens": [16],
        "candidate_head": {"start": start, "rows": K, "features": F, "actions": A, "hiddens": [8, 8]},
        **extra,
    }
    if image:
        config |= {"image_shape": list(BOARD), "conv_filters": [[4, 3, 2]]}
    return config


def space(image: bool = False) -> gym.spaces.Dict:
    size = layout(image).size
    return gym.spaces.Dict(
        {OBS_KEY: gym.spaces.Box(-1, 1, (size,), np.float32), MASK_KEY: gym.spaces.Box(0, 1, (N_ACT,), np.float32)}
    )


def make(image: bool = False, seed: int = 0, inference_only: bool = False, **extra) -> MaskedPPOTorchRLModule:
    torch.manual_seed(seed)
    return MaskedPPOTorchRLModule(
        observation_space=space(image),
        action_space=gym.spaces.Discrete(N_ACT),
        inference_only=inference_only,
        model_config=head_config(image, **extra),
    )


def masks(*legal: list[int]) -> torch.Tensor:
    out = torch.zeros(len(legal), N_ACT)
    for row, actions in enumerate(legal):
        out[row, actions] = 1.0
    return out


def observations(mask: torch.Tensor, image: bool = False, seed: int = 0) -> torch.Tensor:
    """Random observations whose candidate rows follow the contract: zero past the legal placements."""
    lay = layout(image)
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(rng.uniform(-1, 1, (mask.shape[0], lay.size)).astype(np.float32))
    rows = cands(obs, image)
    for row, count in enumerate((mask[:, :A] > 0).sum(1).tolist()):
        rows[row, count:] = 0.0
    return obs


def cands(obs: torch.Tensor, image: bool = False) -> torch.Tensor:
    """A writable ``[n, K, F]`` view of the candidate rows."""
    start = layout(image).offset("cands")
    return obs[:, start : start + K * F].view(-1, K, F)


def batch(obs: torch.Tensor, mask: torch.Tensor) -> dict:
    return {Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}}


def logits_of(module: MaskedPPOTorchRLModule, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return module.forward_inference(batch(obs, mask))[Columns.ACTION_DIST_INPUTS]


# rows: 4 placements (one per candidate row) and an other action; 7 placements (3 past the rows); only other
# actions (no row valid); one placement
MIXED = masks([1, 4, 5, 9, 13], [0, 2, 3, 5, 6, 8, 11], [12, 14], [7])


@pytest.mark.parametrize("image", [False, True])
def test_illegal_actions_get_probability_zero_in_exploration_inference_and_training(image):
    module = make(image)
    b = batch(observations(MIXED, image), MIXED)
    dist_cls = module.get_train_action_dist_cls()
    for logits in (
        module.forward_exploration(b)[Columns.ACTION_DIST_INPUTS],
        module.forward_inference(b)[Columns.ACTION_DIST_INPUTS],
        module.forward_train(b)[Columns.ACTION_DIST_INPUTS],
    ):
        probs = torch.softmax(logits, -1)
        assert torch.all(probs[MIXED == 0] == 0.0) and torch.all(probs[MIXED > 0] > 0.0)
        torch.testing.assert_close(probs.sum(-1), torch.ones(4))
        dist = dist_cls.from_logits(logits)
        for _ in range(30):
            assert torch.all(MIXED.gather(1, dist.sample()[:, None]) == 1.0)
        assert torch.all(MIXED.gather(1, dist.to_deterministic().sample()[:, None]) == 1.0)
        assert torch.isfinite(dist.entropy()).all()


def test_each_legal_placement_gets_the_score_of_its_candidate_row():
    module = make()
    mask = masks([1, 4, 5, 9, 13])  # placement ranks: action 1 -> row 0, 4 -> 1, 5 -> 2, 9 -> 3
    obs = observations(mask)
    before = logits_of(module, obs, mask)
    # row 2's features move action 5's logit and nothing else
    moved = obs.clone()
    cands(moved)[0, 2] = torch.tensor([0.9, -0.7, 0.3])
    after = logits_of(module, moved, mask)
    changed = (after != before)[0].nonzero()[:, 0].tolist()
    assert changed == [5]
    # swapping rows 0 and 3 swaps the logits of actions 1 and 9
    swapped = obs.clone()
    cands(swapped)[0, [0, 3]] = cands(obs)[0, [3, 0]]
    out = logits_of(module, swapped, mask)
    torch.testing.assert_close(out[0, [1, 9]], before[0, [9, 1]])
    torch.testing.assert_close(out[0, [4, 5, 13]], before[0, [4, 5, 13]])
    # other placements legal with the same rows: the logits move with the rows, rank by rank
    moved_mask = masks([0, 4, 7, 11, 13])
    out = logits_of(module, obs, moved_mask)
    torch.testing.assert_close(out[0, [0, 4, 7, 11]], before[0, [1, 4, 5, 9]])
    assert torch.all(out[0, [1, 5, 9]] == MASKED_LOGIT)
    # the rows' scores depend on the turn: the rest of the observation reaches them
    other_turn = obs.clone()
    other_turn[:, :6] = -other_turn[:, :6]
    assert not torch.allclose(logits_of(module, other_turn, mask)[0, [1, 4, 5, 9]], before[0, [1, 4, 5, 9]])


def test_a_legal_placement_past_the_last_row_gets_the_learned_overflow_logit():
    module = make()
    mask = masks([0, 2, 3, 5, 6, 8, 11])  # ranks 4, 5, 6 (actions 6, 8, 11) have no row
    obs = observations(mask)
    with torch.no_grad():
        module.pi.overflow.fill_(1.75)
    logits = logits_of(module, obs, mask)
    assert logits[0, [6, 8, 11]].tolist() == [1.75] * 3
    assert torch.all(logits[0, [0, 2, 3, 5]] != 1.75)
    # the last row is the fourth legal placement's (action 5), not the overflow's
    moved = obs.clone()
    cands(moved)[0, 3] = -cands(moved)[0, 3]
    changed = (logits_of(module, moved, mask) != logits)[0].nonzero()[:, 0].tolist()
    assert changed == [5]
    # and the overflow logit learns
    out = module.forward_train(batch(obs, mask))
    dist = module.get_train_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    dist.logp(torch.tensor([8])).sum().backward()
    assert module.pi.overflow.grad is not None and module.pi.overflow.grad != 0


@pytest.mark.parametrize("image", [False, True])
def test_the_encoder_does_not_read_the_candidates_but_the_value_does(image):
    module = make(image)
    mask = masks([1, 4, 13], [0, 2, 3, 5, 6, 14])
    obs = observations(mask, image)
    b = batch(obs, mask)
    logits, values = logits_of(module, obs, mask), module.compute_values(b)
    # the valid rows changed: the other actions' logits stay exactly, the placements' and the value move
    changed = obs.clone()
    cands(changed, image)[0, :2] = torch.rand(2, F)
    cands(changed, image)[1] = torch.rand(K, F)
    new_logits, new_values = logits_of(module, changed, mask), module.compute_values(batch(changed, mask))
    assert torch.equal(new_logits[:, A:], logits[:, A:])
    assert not torch.allclose(new_logits[0, [1, 4]], logits[0, [1, 4]])
    assert torch.all(new_values != values)
    # rows past the legal placements describe nothing: neither the policy nor the value reads them
    garbage = obs.clone()
    cands(garbage, image)[0, 2:] = 0.5
    assert torch.equal(logits_of(module, garbage, mask), logits)
    assert torch.equal(module.compute_values(batch(garbage, mask)), values)
    # the numbers after the rows are still read
    tail = obs.clone()
    tail[:, -2:] = -tail[:, -2:]
    assert not torch.allclose(logits_of(module, tail, mask)[:, A:], logits[:, A:])


@pytest.mark.parametrize("vf_share_layers", [True, False])
def test_the_value_reuses_the_training_embeddings_and_gradients_reach_the_candidate_mlp(vf_share_layers):
    module = make(vf_share_layers=vf_share_layers)
    b = batch(observations(MIXED), MIXED)
    out = module.forward_train(b)
    values = module.compute_values(b)
    assert values.shape == (4,) and torch.isfinite(values).all()
    torch.testing.assert_close(values, module.compute_values(b, embeddings=out[Columns.EMBEDDINGS]))
    dist = module.get_train_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    loss = -dist.logp(torch.tensor([5, 3, 12, 7])).sum() + module.compute_values(b, out[Columns.EMBEDDINGS]).sum()
    loss.backward()
    for name in ("pi.rows.weight", "pi.context.weight", "pi.score.3.weight", "pi.others.weight", "vf.0.weight"):
        grad = module.get_parameter(name).grad
        assert grad is not None and grad.abs().sum() > 0, name
    encoder = [p.grad for n, p in module.named_parameters() if n.startswith("encoder.")]
    assert all(g is not None for g in encoder) and sum(g.abs().sum() for g in encoder) > 0


def test_a_module_round_trips_through_its_state_and_a_checkpoint(tmp_path):
    from agents.rllib_policy import RLlibAgent, load_module

    learner, other = make(seed=0), make(seed=1)
    obs = observations(MIXED)
    assert not torch.allclose(logits_of(other, obs, MIXED)[MIXED > 0], logits_of(learner, obs, MIXED)[MIXED > 0])
    other.set_state(learner.get_state())
    assert torch.equal(logits_of(other, obs, MIXED), logits_of(learner, obs, MIXED))
    assert torch.equal(other.compute_values(batch(obs, MIXED)), learner.compute_values(batch(obs, MIXED)))
    learner.save_to_path(str(tmp_path / "m"))
    loaded = load_module(tmp_path / "m", trust=True)  # saved by RLlib here: no manifest
    assert torch.equal(logits_of(loaded, obs, MIXED), logits_of(learner, obs, MIXED))
    agent = RLlibAgent(loaded, explore=True, seed=3)
    picks = {agent.act({"observation": obs[1].numpy(), "action_mask": MIXED[1].numpy().astype(np.int8)})}
    for _ in range(100):
        picks.add(agent.act({"observation": obs[1].numpy(), "action_mask": MIXED[1].numpy().astype(np.int8)}))
    assert picks <= {0, 2, 3, 5, 6, 8, 11}


@pytest.mark.parametrize("vf_share_layers", [True, False])
def test_an_inference_only_candidate_module_takes_the_learners_weights_without_the_value(vf_share_layers):
    learner = make(seed=0, vf_share_layers=vf_share_layers)
    runner = make(seed=1, inference_only=True, vf_share_layers=vf_share_layers)
    assert getattr(runner, "vf", None) is None
    state = learner.get_state(inference_only=True)
    assert not any(k.startswith("vf.") for k in state) and any(k.startswith("pi.score.") for k in state)
    runner.set_state(state)
    obs = observations(MIXED)
    torch.testing.assert_close(logits_of(runner, obs, MIXED), logits_of(learner, obs, MIXED), rtol=0, atol=0)


def test_a_candidate_head_must_fit_the_observation_and_the_actions():
    def build(image: bool, **changes) -> None:
        config = head_config(image)
        extra = changes.pop("extra", {})
        config["candidate_head"] = {**config["candidate_head"], **changes}
        MaskedPPOTorchRLModule(
            observation_space=space(image),
            action_space=gym.spaces.Discrete(N_ACT),
            model_config=config | extra,
        )

    size = layout().size
    for image, changes, message in [
        (True, {"start": 50}, "after the board's 60"),
        (False, {"start": size - K * F + 1}, "must lie in the observation's 20 numbers"),
        (False, {"rows": 0}, "must lie"),
        (False, {"actions": N_ACT + 1}, "1 to 15 placement actions"),
        (False, {"actions": 0}, "1 to 15 placement actions"),
        (False, {"hiddens": []}, "hidden width"),
        (False, {"extra": {"action_prior": {"start": 0, "length": 5}}}, "cannot be combined with action_prior"),
        (True, {"extra": {"cell_head": [4, 1]}}, "cannot be combined"),
    ]:
        with pytest.raises(ValueError, match=message):
            build(image, **changes)


class _FakeGame:
    """A game whose observation is ``layout()`` over N_ACT actions, with ``candidate_actions`` as given (the
    contract's default is None: no candidate rows)."""

    num_actions = N_ACT

    def __init__(self, candidate_actions: object) -> None:
        self.candidate_actions = candidate_actions

    def observation_layout(self) -> ObsLayout:
        return layout()


class _FakeEnv:
    possible_agents = ["player_0", "player_1"]

    def __init__(self, candidate_actions: object) -> None:
        self.game = _FakeGame(candidate_actions)


def test_build_config_takes_the_piece_and_the_games_candidate_actions(monkeypatch):
    import envs
    from training.config import build_config, settings_for

    actions: dict = {"value": A}
    monkeypatch.setattr(envs, "make", lambda game, **config: _FakeEnv(actions["value"]))
    s = settings_for("capivari", candidate_head="cands", candidate_hiddens=(32,))
    model_config = build_config(s).rl_module_spec.model_config
    assert model_config["candidate_head"] == {"start": 6, "rows": K, "features": F, "actions": A, "hiddens": [32]}
    module = MaskedPPOTorchRLModule(
        observation_space=space(), action_space=gym.spaces.Discrete(N_ACT), model_config=model_config
    )
    assert module.pi.spec.hiddens == (32,)
    with pytest.raises(ValueError, match=r"'nope' is not a piece of capivari_v0's .*\['rest', 'cands', 'tail'\]"):
        build_config(settings_for("capivari", candidate_head="nope"))
    with pytest.raises(ValueError, match=r"\(rows, features\) piece .* shape \(6,\)"):
        build_config(settings_for("capivari", candidate_head="rest"))
    with pytest.raises(ValueError, match="cannot be combined"):
        build_config(settings_for("capivari", candidate_head="cands", action_prior="tail"))
    for missing in (None, 12.0, True):
        actions["value"] = missing
        with pytest.raises(ValueError, match=rf"capivari_v0 .* candidate_actions {missing!r} \(pieces: "):
            build_config(s)


def test_the_candidate_settings_come_through_set_and_json(monkeypatch, tmp_path):
    import training.loop
    from tabuleiro.cli import main
    from training.config import checked_overrides, settings_for
    from training.loop import settings_from_json, settings_to_json

    given = {"candidate_head": "placement_candidates", "candidate_hiddens": [32, 16]}
    assert checked_overrides(given) == {"candidate_head": "placement_candidates", "candidate_hiddens": (32, 16)}
    assert checked_overrides({"candidate_actions": True}) == {"candidate_actions": True}
    for bad, message in [
        ({"candidate_hiddens": [32, "x"]}, r"tuple\[int, ...\]"),
        ({"candidate_head": 3}, "str"),
        ({"candidate_actions": 1}, "bool"),
    ]:
        with pytest.raises(ValueError, match=message):
            checked_overrides(bad)
    from training.config import build_config

    with pytest.raises(ValueError, match="candidate_actions needs candidate_head"):
        build_config(settings_for("capivari", candidate_actions=True))
    s = settings_for("capivari", candidate_head="placement_candidates", candidate_hiddens=(32, 16))
    assert settings_from_json(json.loads(json.dumps(settings_to_json(s)))) == s
    seen = {}

    def fake_train(settings, out, **kwargs):
        seen["s"] = settings
        return {"interrupted": None}

    monkeypatch.setattr(training.loop, "train", fake_train)
    argv = ["train", "capivari", "--iterations", "1", "--eval-games", "0", "--out", str(tmp_path / "r")]
    assert main(argv + ["--set", "candidate_head=placement_candidates", "--set", "candidate_hiddens=[32]"]) == 0
    assert seen["s"].candidate_head == "placement_candidates" and seen["s"].candidate_hiddens == (32,)


@pytest.mark.parametrize("candidate_actions", [False, True])
def test_the_duels_placement_candidates_reach_the_module_and_only_legal_actions_get_mass(candidate_actions):
    import envs
    from training.config import build_config, make_env, settings_for

    # the preset's observation (candidates, no boards) on a smaller board, in either action space
    s = settings_for("dorfromantik_duel", game_config={"board_radius": 9}, candidate_actions=candidate_actions)
    game_config = s.game_config
    assert game_config == {"placement_candidates": True, "observe_boards": False, "board_radius": 9}
    game = envs.make("dorfromantik_duel", **game_config).game
    config = build_config(s)
    model_config = config.rl_module_spec.model_config
    lay = game.observation_layout()
    rows, features = lay.shape("placement_candidates")
    assert model_config["candidate_head"] == {
        "start": lay.offset("placement_candidates"),
        "rows": rows,
        "features": features,
        "actions": rows if candidate_actions else game.candidate_actions,
        "hiddens": list(s.candidate_hiddens),
    }
    assert model_config.get("candidate_actions") == (
        {"placements": game.candidate_actions, "rows": rows} if candidate_actions else None
    )
    env = make_env(config.env_config | {"num_envs": 4})
    assert env.single_action_space.n == (rows + 1 if candidate_actions else game.num_actions)
    torch.manual_seed(0)
    module = MaskedPPOTorchRLModule(
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config=model_config,
    )
    obs, _ = env.reset(seed=0)
    for _ in range(3):
        b = {Columns.OBS: {k: torch.from_numpy(v) for k, v in obs.items()}}
        probs = torch.softmax(module.forward_exploration(b)[Columns.ACTION_DIST_INPUTS], -1)
        assert torch.all(probs[b[Columns.OBS][MASK_KEY] == 0] == 0.0)
        assert torch.isfinite(module.compute_values(b)).all()
        obs, *_ = env.step(torch.multinomial(probs, 1)[:, 0].numpy())


def test_an_agent_trained_on_candidate_actions_plays_the_game_actions_of_its_rows(tmp_path):
    """Module actions: K rows, then the EXTRA others; the agent gets the game's masks of A + EXTRA actions."""
    from agents.rllib_policy import RLlibAgent, load_module

    config = head_config() | {"candidate_actions": {"placements": A, "rows": K}}
    config["candidate_head"] = config["candidate_head"] | {"actions": K}
    lay = layout()
    choice_space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (lay.size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (K + EXTRA,), np.float32),
        }
    )
    torch.manual_seed(0)
    module = MaskedPPOTorchRLModule(
        observation_space=choice_space, action_space=gym.spaces.Discrete(K + EXTRA), model_config=config
    )
    module.save_to_path(str(tmp_path / "m"))
    agent = RLlibAgent(load_module(tmp_path / "m", trust=True), explore=True, seed=1)
    game_mask = np.zeros(N_ACT, np.int8)
    game_mask[[2, 7, 9, A + 1]] = 1  # three placements (rows 0, 1, 2) and the second other action
    obs = observations(torch.as_tensor(game_mask[None], dtype=torch.float32))[0].numpy()
    choice_mask = torch.tensor([[1, 1, 1, 0, 0, 1, 0]], dtype=torch.float32)
    own = logits_of(module, torch.as_tensor(obs[None]), choice_mask)[0].double().numpy()
    got = agent.logits({"observation": obs, "action_mask": game_mask})
    np.testing.assert_array_equal(got[[2, 7, 9, A + 1]], own[[0, 1, 2, K + 1]])
    assert (got[game_mask == 0] == np.finfo(np.float32).min).all()
    picks = {agent.act({"observation": obs, "action_mask": game_mask}) for _ in range(200)}
    assert picks == {2, 7, 9, A + 1}
    agent.explore = False
    best = int(np.argmax(np.where(choice_mask[0].numpy() > 0, own, -np.inf)))
    assert agent.act({"observation": obs, "action_mask": game_mask}) == [2, 7, 9, -1, A, A + 1, A + 2][best]
    with pytest.raises(ValueError, match=f"trained on observations of {lay.size} and {N_ACT} actions"):
        agent.act({"observation": obs, "action_mask": np.zeros(N_ACT + 1, np.int8)})
