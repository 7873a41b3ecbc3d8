"""The exported policy file evaluates as torch does: on 10,000 random-play observations per game, the compiled
logits (masked) and values equal the module's within 1e-4, for each game's preset module built as training builds
it (freshly initialized: equality needs no training). Parts the compiled pass does not evaluate are refused by
name; `tabuleiro train` writes policy.npz beside its checkpoint and `tabuleiro export` converts a run."""

import json

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns

import envs
from agents.compiled_policy import MASKED_LOGIT, POLICY_FILE, load_policy, read_arrays, save_policy
from training.config import build_config, make_env, settings_for
from training.export import UnsupportedPolicy, export_module, load_module_arrays, module_arrays
from training.masking_module import MASK_KEY, OBS_KEY, MaskedPPOTorchRLModule

GAMES = [spec.name for spec in envs.specs()]
OBSERVATIONS = 10_000
TOLERANCE = 1e-4


def preset_module(game: str, seed: int = 0, **overrides) -> tuple:
    """(settings, module, vector env) of ``game``'s training preset (with ``overrides``), the module as
    ``build_config`` specifies it."""
    s = settings_for(game, **overrides)
    config = build_config(s)
    env = make_env(config.env_config | {"num_envs": 500, "pool": {"random": 1.0}, "shaping": None})
    torch.manual_seed(seed)
    module = MaskedPPOTorchRLModule(
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config=config.rl_module_spec.model_config,
    )
    module.eval()
    return s, module, env


def random_play(env, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (observations, masks) the learner sees in random play (the module's action space)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen_obs, seen_masks = [], []
    while sum(len(o) for o in seen_obs) < count:
        mask = obs[MASK_KEY]
        deciding = mask.sum(1) > 0  # (a finished game's last observation, under an autoreset on the next step)
        seen_obs.append(obs[OBS_KEY][deciding].copy())
        seen_masks.append(mask[deciding].copy())
        actions = np.argmax(np.where(mask > 0, rng.random(mask.shape), -1.0), axis=1)
        obs, *_ = env.step(actions)
    return np.concatenate(seen_obs)[:count], np.concatenate(seen_masks)[:count]


def torch_forward(module, obs: np.ndarray, mask: np.ndarray, chunk: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    logits, values = [], []
    with torch.no_grad():
        for i in range(0, len(obs), chunk):
            batch = {
                Columns.OBS: {
                    OBS_KEY: torch.from_numpy(obs[i : i + chunk]),
                    MASK_KEY: torch.from_numpy(mask[i : i + chunk]),
                }
            }
            logits.append(module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy())
            values.append(module.compute_values(batch).numpy())
    return np.concatenate(logits), np.concatenate(values)


def assert_equal_passes(policy, module, obs: np.ndarray, mask: np.ndarray) -> None:
    logits, values = policy.forward(obs, mask)
    expected_logits, expected_values = torch_forward(module, obs, mask)
    masked = mask <= 0
    assert np.array_equal(logits[masked], expected_logits[masked]) and np.all(logits[masked] == MASKED_LOGIT)
    assert np.abs(logits[~masked] - expected_logits[~masked]).max() <= TOLERANCE
    assert np.abs(values - expected_values).max() <= TOLERANCE


@pytest.mark.parametrize("game", GAMES)
def test_the_compiled_pass_equals_torch_on_10000_observations_of_the_preset(game, tmp_path):
    s, module, env = preset_module(game)
    path = export_module(module, game, s.game_config, tmp_path / f"{game}.npz")
    policy = load_policy(path, game)
    kind = "candidate" if s.candidate_head else "mlp"
    assert policy.info.model["kind"] == kind and (policy.candidates is not None) == s.candidate_actions
    obs, mask = random_play(env, OBSERVATIONS)
    assert obs.shape == (OBSERVATIONS, env.game.obs_size) and (mask.sum(1) > 0).all()
    assert_equal_passes(policy, module, obs, mask)
    # the game-space logits an agent plays by: the module's, a candidate row's at its placement
    one, _ = policy.logits(obs[0], mask[0])
    np.testing.assert_array_equal(one, policy.forward(obs[:1], mask[:1])[0][0])


@pytest.mark.parametrize("game", ["capivari", "dorfromantik_duel"])
def test_vf_share_layers_false_builds_a_critic_encoder_the_file_keeps(game, tmp_path):
    s, module, env = preset_module(game, vf_share_layers=False, hiddens=(32, 16))
    path = export_module(module, game, s.game_config, tmp_path / f"{game}.npz")
    arrays = read_arrays(path)
    assert arrays["critic_encoder.0.weight"].shape == (32, arrays["actor_encoder.0.weight"].shape[1])
    obs, mask = random_play(env, 1000)
    assert_equal_passes(load_policy(path, game), module, obs, mask)


def test_a_separate_critic_and_an_action_prior_export_too(tmp_path):
    game = envs.make("capivari_v0").game
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (game.obs_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (game.num_actions,), np.float32),
        }
    )
    config = {
        "fcnet_hiddens": [32, 16],
        "fcnet_activation": "tanh",
        "head_fcnet_hiddens": [8],
        "vf_share_layers": False,
        "action_prior": {"start": 10, "length": 6, "scale": 0.7},
    }
    torch.manual_seed(1)
    module = MaskedPPOTorchRLModule(
        observation_space=space, action_space=gym.spaces.Discrete(game.num_actions), model_config=config
    )
    module.eval()
    with torch.no_grad():
        module.prior_scale.fill_(1.3)
    path = export_module(module, "capivari", {}, tmp_path / "p.npz")
    arrays = read_arrays(path)
    assert "critic_encoder.0.weight" in arrays and float(arrays["action_prior.scale"]) == pytest.approx(1.3)
    rng = np.random.default_rng(0)
    obs = rng.uniform(-1, 1, (500, game.obs_size)).astype(np.float32)
    mask = (rng.random((500, game.num_actions)) < 0.5).astype(np.float32)
    mask[:, 0] = 1.0
    assert_equal_passes(load_policy(path), module, obs, mask)


def test_what_the_compiled_pass_does_not_evaluate_is_refused_by_name():
    game = envs.make("capivari_v0").game
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (game.obs_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (game.num_actions,), np.float32),
        }
    )
    actions = gym.spaces.Discrete(game.num_actions)
    for config, message in [
        ({"image_shape": [3, 4, 2], "conv_filters": [[4, 3, 1]]}, "conv stack"),
        ({"image_shape": [3, 4, 2], "cell_head": [4, 2]}, "cell head"),
        ({"fcnet_hiddens": [8], "fcnet_use_layernorm": True}, "LayerNorm"),
    ]:
        module = MaskedPPOTorchRLModule(observation_space=space, action_space=actions, model_config=config)
        with pytest.raises(UnsupportedPolicy, match=message):
            module_arrays(module, "capivari")
    module = MaskedPPOTorchRLModule(
        observation_space=space, action_space=actions, model_config={"fcnet_hiddens": [8]}, inference_only=True
    )
    with pytest.raises(UnsupportedPolicy, match="inference-only"):
        module_arrays(module, "capivari")


def test_an_export_for_another_game_or_config_is_refused_before_writing(tmp_path):
    s, module, _ = preset_module("kuhn_poker")
    with pytest.raises(ValueError, match="wrong shapes|observes"):
        export_module(module, "capivari", {}, tmp_path / "p.npz")
    assert not (tmp_path / "p.npz").exists()
    arrays = module_arrays(module, "kuhn_poker", {"first_player": 1})
    assert json.loads(str(arrays["game_config"][()]))["first_player"] == 1
    save_policy(arrays, tmp_path / "k.npz")
    env = envs.make("kuhn_poker")
    env.reset(seed=0)
    from agents.registry import make_agent

    agent = make_agent(f"policy:{tmp_path / 'k.npz'}", "kuhn_poker")
    with pytest.raises(ValueError, match="'first_player': 1"):
        agent.act(env.observe(env.agent_selection), env)


@pytest.mark.xdist_group("ray")
def test_train_writes_policy_npz_beside_its_checkpoint_and_export_converts_a_run(ray_session, tmp_path, capsys):
    from agents.match import play_game
    from agents.registry import make_agent
    from tabuleiro.cli import main
    from tests.training.test_smoke import train_tiny

    out = tmp_path / "run"
    train_tiny("capivari_v0", out, iterations=1)
    written = read_arrays(out / POLICY_FILE)
    assert not list(out.glob(f".{POLICY_FILE}*"))  # no temporary file left behind
    assert main(["export", str(out), str(tmp_path / "exported.npz")]) == 0
    assert "wrote" in capsys.readouterr().out
    again = read_arrays(tmp_path / "exported.npz")
    assert sorted(again) == sorted(written) and all(np.array_equal(again[k], written[k]) for k in written)
    env = envs.game_module("capivari_v0").raw_env()
    result = play_game(env, [make_agent(f"policy:{out}", "capivari", seed=k) for k in range(2)], seed=0)
    assert result.steps > 0
    # the module's torch logits and the file's agree on this trained module too
    from agents.rllib_policy import load_module

    module = load_module(out)
    obs, mask = random_play(preset_module("capivari")[2], 500, seed=1)
    assert_equal_passes(load_policy(out), module, obs, mask)
    for argv, message in [
        (["export", str(tmp_path / "nowhere"), str(tmp_path / "x.npz")], "is not a folder"),
        (["export", str(tmp_path), str(tmp_path / "x.npz")], "no tabuleiro_train.json"),
        (["export", str(out), str(tmp_path / "x.npz"), "--game", "kuhn_poker"], "trained on capivari_v0"),
        (["export", str(out), str(tmp_path / "x.npz"), "--config", "wins_needed=3"], "--config needs --game"),
    ]:
        assert main(argv) == 2
        assert message in capsys.readouterr().err


def test_a_failed_export_beside_a_checkpoint_is_said_and_leaves_no_stale_policy(tmp_path):
    from training.export import export_beside

    (tmp_path / "run" / "checkpoint").mkdir(parents=True)
    stale = tmp_path / "run" / POLICY_FILE
    stale.write_bytes(b"the previous checkpoint's")
    lines: list[str] = []
    assert export_beside(tmp_path / "run" / "checkpoint", lines.append) is None
    assert not stale.exists()
    assert len(lines) == 1 and lines[0].startswith(f"no {POLICY_FILE} beside this checkpoint")


@pytest.mark.parametrize("game", GAMES)
def test_a_policy_file_loads_back_into_a_fresh_module_of_its_layout(game, tmp_path):
    s, module, _ = preset_module(game, seed=0)
    arrays = read_arrays(export_module(module, game, s.game_config, tmp_path / "p.npz"))
    _, other, _ = preset_module(game, seed=1)
    assert any(not np.array_equal(arrays[k], v) for k, v in module_arrays(other, game, s.game_config).items())
    load_module_arrays(other, arrays, "p.npz")
    again = module_arrays(other, game, s.game_config)
    assert again.keys() == arrays.keys() and all(np.array_equal(arrays[k], again[k]) for k in arrays)


def test_a_policy_file_of_other_widths_or_another_layout_is_refused_by_name():
    def module(config):
        game = envs.make("capivari_v0").game
        space = gym.spaces.Dict(
            {
                OBS_KEY: gym.spaces.Box(-1, 1, (game.obs_size,), np.float32),
                MASK_KEY: gym.spaces.Box(0, 1, (game.num_actions,), np.float32),
            }
        )
        return MaskedPPOTorchRLModule(
            observation_space=space, action_space=gym.spaces.Discrete(game.num_actions), model_config=config
        )

    arrays = module_arrays(module({"fcnet_hiddens": [16, 8]}), "capivari")
    with pytest.raises(ValueError, match=r"widths are \[16, 8\]: give the same, e.g. --set hiddens=\[16, 8\]"):
        load_module_arrays(module({"fcnet_hiddens": [32, 8]}), arrays, "p.npz")
    with pytest.raises(ValueError, match="another network than this one: nets"):
        load_module_arrays(module({"fcnet_hiddens": [16, 8], "vf_share_layers": False}), arrays, "p.npz")


def test_capivari_afterstates_with_the_candidate_head_export_too(tmp_path):
    """Capivari's ``afterstates`` rows scored by the candidate head (the move's own logit from its row, no
    candidate action space) evaluate in the compiled pass as in torch."""
    s, module, env = preset_module(
        "capivari", game_config={"observe_afterstates": True}, candidate_head="afterstates", candidate_hiddens=(16, 8)
    )
    path = export_module(module, "capivari", s.game_config, tmp_path / "capivari.npz")
    policy = load_policy(path, "capivari")
    assert policy.info.model["kind"] == "candidate" and policy.candidates is None
    obs, mask = random_play(env, 2000)
    assert_equal_passes(policy, module, obs, mask)
