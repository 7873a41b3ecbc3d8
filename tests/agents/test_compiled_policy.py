"""Policy files without torch: a bad file gets a clear ValueError, ``policy:`` agents play only legal moves
(candidate rows mapped back to the game's actions), and they play whole games where torch cannot be imported.

The files here are written with numpy (random weights in the file's layout); tests/training/test_export.py
checks the forward pass against torch's on modules built as training builds them."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import envs
from agents.compiled_policy import (
    MASKED_LOGIT,
    CompiledPolicy,
    PolicyAgent,
    encoder_widths,
    header,
    load_policy,
    network_settings,
    read_arrays,
    reference_file,
    save_policy,
)
from agents.match import play_game
from agents.registry import check_spec, make_agent, parse_spec
from envs.engine.candidate_actions import candidate_actions_of

ROOT = Path(__file__).resolve().parents[2]
DUEL = "dorfromantik_duel_v0"
DUEL_CONFIG = {"placement_candidates": True, "observe_boards": False, "board_radius": 4}


def _net(arrays: dict, nets: dict, name: str, sizes: list[int], rng, bias: bool = True, last: str = "linear"):
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
        arrays[f"{name}.{i}.weight"] = rng.normal(0, 1 / np.sqrt(n_in), (n_out, n_in)).astype(np.float32)
        if bias:
            arrays[f"{name}.{i}.bias"] = rng.normal(0, 0.1, n_out).astype(np.float32)
        layers.append({"activation": "relu" if i < len(sizes) - 2 else last, "bias": bias})
    nets[name] = layers


def mlp_arrays(game: str = "capivari_v0", config: dict | None = None, seed: int = 0, critic: bool = False) -> dict:
    """A random-weight mlp policy file's arrays for ``game`` (encoder 16-16, linear heads)."""
    g = envs.make(game, **(config or {})).game
    rng = np.random.default_rng(seed)
    arrays: dict = {}
    nets: dict = {}
    _net(arrays, nets, "actor_encoder", [g.obs_size, 16, 16], rng, last="relu")
    if critic:
        _net(arrays, nets, "critic_encoder", [g.obs_size, 8], rng, last="tanh")
    _net(arrays, nets, "pi", [16, g.num_actions], rng)
    _net(arrays, nets, "vf", [8 if critic else 16, 1], rng)
    model = {"kind": "mlp", "outputs": g.num_actions, "cut": None, "action_prior": None, "candidate_head": None}
    return header(g, model | {"candidate_actions": None, "nets": nets}) | arrays


def candidate_arrays(config: dict | None = None, seed: int = 0) -> dict:
    """A random-weight candidate-head policy file for the Duel, choosing among candidate rows (as its preset)."""
    g = envs.make(DUEL, **(config or DUEL_CONFIG)).game
    lay = g.observation_layout()
    rows, features = lay.shape("placement_candidates")
    start = lay.offset("placement_candidates")
    view = candidate_actions_of(g, "placement_candidates")
    rng = np.random.default_rng(seed)
    arrays: dict = {"candidate_head.overflow": np.array(0.25, np.float32)}
    nets: dict = {}
    _net(arrays, nets, "actor_encoder", [g.obs_size - rows * features, 16], rng, last="relu")
    _net(arrays, nets, "candidate_rows", [features, 8], rng)
    _net(arrays, nets, "candidate_context", [16, 8], rng, bias=False)
    _net(arrays, nets, "candidate_score", [8, 8, 1], rng)
    _net(arrays, nets, "candidate_others", [16, view.size - rows], rng)
    _net(arrays, nets, "vf", [16 + 2 * features, 1], rng)
    model = {
        "kind": "candidate",
        "outputs": view.size,
        "cut": [start, rows * features],
        "action_prior": None,
        "candidate_head": {"start": start, "rows": rows, "features": features, "actions": rows},
        "candidate_actions": {"placements": view.placements, "rows": rows},
        "nets": nets,
    }
    return header(g, model) | arrays


def observations(game: str, config: dict, count: int, seed: int = 0):
    """``count`` (observation dict, env) pairs from random play."""
    env = envs.game_module(game).raw_env(**config)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out = []
    while len(out) < count:
        if not env.agents:
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        observation = env.observe(env.agent_selection)
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
            continue
        out.append({k: np.array(v) for k, v in observation.items()})
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return out, env


def with_model(arrays: dict, **changes) -> dict:
    model = json.loads(str(arrays["model"][()]))
    return arrays | {"model": np.array(json.dumps(model | changes))}


# -- a good file ---------------------------------------------------------------------------------------------


def test_a_file_round_trips_and_its_agent_plays_the_argmax_of_the_legal_logits(tmp_path):
    arrays = mlp_arrays(critic=True)
    path = save_policy(arrays, tmp_path / "sub" / "capivari.npz")
    assert sorted(read_arrays(path)) == sorted(arrays)
    assert not list(path.parent.glob("*.tmp"))  # the temporary file was renamed into place
    policy = load_policy(path, "capivari")
    assert policy.game == "capivari_v0" and policy.info.model["kind"] == "mlp"
    agent = make_agent(f"policy:{path}", "capivari", seed=1)
    for observation in observations("capivari_v0", {}, 40)[0]:
        mask = observation["action_mask"]
        logits, value = policy.logits(observation["observation"], mask.astype(np.float32))
        assert np.isfinite(value) and np.all(logits[mask == 0] == MASKED_LOGIT)
        # the compiled pass, by hand in numpy
        x = observation["observation"].astype(np.float64)
        h = x
        for i in range(2):
            h = np.maximum(arrays[f"actor_encoder.{i}.weight"] @ h + arrays[f"actor_encoder.{i}.bias"], 0)
        expected = arrays["pi.0.weight"] @ h + arrays["pi.0.bias"]
        np.testing.assert_allclose(logits[mask > 0], expected[mask > 0], atol=1e-4)
        c = np.tanh(arrays["critic_encoder.0.weight"] @ x + arrays["critic_encoder.0.bias"])
        np.testing.assert_allclose(value, (arrays["vf.0.weight"] @ c + arrays["vf.0.bias"])[0], atol=1e-4)
        assert agent.act(observation) == int(np.argmax(np.where(mask > 0, expected, -np.inf)))
    # a run folder stands for its policy.npz
    save_policy(arrays, tmp_path / "run" / "policy.npz")
    assert load_policy(tmp_path / "run").game == "capivari_v0"


def test_a_candidate_policy_scores_each_legal_placement_by_its_row_and_maps_rows_back(tmp_path):
    arrays = candidate_arrays()
    policy = CompiledPolicy(arrays)
    view = policy.candidates
    obs_list, _ = observations(DUEL, DUEL_CONFIG, 30, seed=2)
    agent = PolicyAgent(policy)
    sampler = PolicyAgent(policy, sample=True, seed=3)
    start = json.loads(str(arrays["model"][()]))["candidate_head"]["start"]
    features = arrays["candidate_rows.0.weight"].shape[1]
    for observation in obs_list:
        game_mask = observation["action_mask"]
        mask = policy.module_mask(game_mask)
        logits, _ = policy.logits(observation["observation"], mask)
        assert np.all(logits[mask == 0] == MASKED_LOGIT) and np.all(logits[mask > 0] > MASKED_LOGIT)
        legal = np.flatnonzero(game_mask[: view.placements])
        obs = observation["observation"].astype(np.float64)
        if len(legal):  # row 0 scores the first legal placement
            emb_in = np.concatenate([obs[:start], obs[start + view.rows * features :]])
            e = np.maximum(arrays["actor_encoder.0.weight"] @ emb_in + arrays["actor_encoder.0.bias"], 0)
            row = obs[start : start + features]
            h = np.maximum(
                arrays["candidate_rows.0.weight"] @ row
                + arrays["candidate_rows.0.bias"]
                + arrays["candidate_context.0.weight"] @ e,
                0,
            )
            h = np.maximum(arrays["candidate_score.0.weight"] @ h + arrays["candidate_score.0.bias"], 0)
            score = (arrays["candidate_score.1.weight"] @ h + arrays["candidate_score.1.bias"])[0]
            np.testing.assert_allclose(logits[0], score, atol=1e-4)
        full, _ = policy.game_logits(observation["observation"], game_mask)
        assert np.all(full[game_mask == 0] == MASKED_LOGIT)
        np.testing.assert_array_equal(full[legal[: view.rows]], logits[: min(len(legal), view.rows)])
        a = agent.act(observation)
        assert game_mask[a] and a == int(np.argmax(full))
        assert game_mask[sampler.act(observation)]


def test_sampling_is_seeded_and_legal():
    policy = CompiledPolicy(mlp_arrays(seed=4))
    obs_list, _ = observations("capivari_v0", {}, 30, seed=5)
    runs = []
    for _ in range(2):
        agent = PolicyAgent(policy, sample=True, seed=9)
        runs.append([agent.act(o) for o in obs_list])
    assert runs[0] == runs[1]
    assert all(o["action_mask"][a] for o, a in zip(obs_list, runs[0], strict=True))
    agent.reset(seed=10)
    assert all(o["action_mask"][agent.act(o)] for o in obs_list)


def test_the_spec_parses_and_checks_its_options(tmp_path):
    assert parse_spec("policy:/x/p.npz,sample=true") == ("policy", "/x/p.npz", {"sample": "true"})
    check_spec("policy:/x/p.npz,sample=false")
    for bad, message in [
        ("policy", "needs a policy file"),
        ("policy:sample=true", "needs a policy file"),
        ("policy:/x/p.npz,sample=maybe", "must be true or false"),
        ("policy:/x/p.npz,temperature=2", "unknown policy option"),
    ]:
        with pytest.raises(ValueError, match=message):
            check_spec(bad)
    path = save_policy(mlp_arrays(), tmp_path / "p.npz")
    agent = make_agent(f"policy:{path},sample=true", "capivari", seed=3)
    assert agent.sample and agent.name == "policy:p.npz"


# -- bad files: each gets a clear ValueError -------------------------------------------------------------------


def _write(tmp_path: Path, arrays: dict) -> Path:
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)  # unchecked, as a broken or hand-edited file would be
    return path


def test_a_policy_of_another_game_or_config_is_refused(tmp_path):
    path = save_policy(mlp_arrays(), tmp_path / "capivari.npz")
    with pytest.raises(ValueError, match="exported for capivari_v0, not kuhn_poker_v0"):
        make_agent(f"policy:{path}", "kuhn_poker")
    agent = make_agent(f"policy:{path}", "capivari")
    env = envs.make("capivari_v0", wins_needed=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"exported for capivari_v0 with config .*'wins_needed': 2.*'wins_needed': 3"):
        agent.act(env.observe(env.agent_selection), env)
    # a Horizonte policy for 4 seats at a table of 3: the sizes differ too
    four = make_agent(f"policy:{save_policy(mlp_arrays('horizonte_v0'), tmp_path / 'h.npz')}", "horizonte")
    env = envs.make("horizonte_v0", num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="'num_players': 4"):
        four.act(env.observe(env.agent_selection), env)
    with pytest.raises(ValueError, match="observations of"):
        four.act(env.observe(env.agent_selection))  # no env: the sizes still tell
    # a file whose game config this tabuleiro cannot make, or that observes otherwise here
    bad = mlp_arrays() | {"game_config": np.array(json.dumps({"wins_needed": 99}))}
    with pytest.raises(ValueError, match="cannot be made here"):
        load_policy(_write(tmp_path, bad))
    observation = json.loads(str(mlp_arrays()["observation"][()]))
    observation["pieces"][0][0] = "renamed"
    with pytest.raises(ValueError, match="another version of the game's observation"):
        load_policy(_write(tmp_path, mlp_arrays() | {"observation": np.array(json.dumps(observation))}))


def test_a_policy_plays_a_table_that_differs_from_its_file_only_in_observation_options(tmp_path):
    """The file observes candidate rows and no boards; at a table of the default observation it sees each state as
    its own config would, so every game goes move for move as at a table of the file's config."""
    path = save_policy(candidate_arrays(), tmp_path / "duel.npz")
    for seed in range(3):
        played = []
        for config in (DUEL_CONFIG, {"board_radius": 4}):
            agents = [
                make_agent(f"policy:{path}", DUEL, seed=1),
                make_agent(f"policy:{path},sample=true", DUEL, seed=2),
            ]
            played.append(play_game(envs.make(DUEL, **config), agents, seed=seed, record_actions=True))
        assert played[0].actions == played[1].actions and played[0].scores == played[1].scores
        assert len(played[0].actions) > 20
    agent = make_agent(f"policy:{path}", DUEL)
    env = envs.make(DUEL, board_radius=4, forbid_doomed_tasks=False)  # another rule: refused
    env.reset(seed=0)
    with pytest.raises(ValueError, match="differs from its own only in observation options"):
        agent.act(env.observe(env.agent_selection), env)


def test_a_file_older_than_a_config_knob_plays_with_that_knobs_default(tmp_path):
    """A file written before a knob existed lacks it: read with the knob's default (which plays as before); at a
    table where that observation option is on, it still observes as its default."""
    config = json.loads(str(mlp_arrays()["game_config"][()]))
    del config["observe_margins"]
    path = _write(tmp_path, mlp_arrays() | {"game_config": np.array(json.dumps(config))})
    assert load_policy(path).info.game_config["observe_margins"] is False
    agent = make_agent(f"policy:{path}", "capivari")
    env = envs.make("capivari_v0")
    env.reset(seed=0)
    action = agent.act(env.observe(env.agent_selection), env)
    assert env.observe(env.agent_selection)["action_mask"][action]
    margins = envs.make("capivari_v0", observe_margins=True)
    margins.reset(seed=0)
    assert agent._observer is None  # the plain table is the file's config
    assert agent.act(margins.observe(margins.agent_selection), margins) == action
    assert agent._observer.game.config.observe_margins is False


def test_missing_keys_are_named(tmp_path):
    arrays = mlp_arrays()
    for key in ("model", "format_version", "game"):
        with pytest.raises(ValueError, match=rf"missing key\(s\) \['{key}'\]"):
            load_policy(_write(tmp_path, {k: v for k, v in arrays.items() if k != key}))
    with pytest.raises(ValueError, match="missing key 'pi.0.bias'"):
        load_policy(_write(tmp_path, {k: v for k, v in arrays.items() if k != "pi.0.bias"}))
    with pytest.raises(ValueError, match=r"needs nets .*missing \['vf'\]"):
        nets = json.loads(str(arrays["model"][()]))["nets"]
        load_policy(_write(tmp_path, with_model(arrays, nets={k: v for k, v in nets.items() if k != "vf"})))


def test_an_unknown_version_or_format_is_refused(tmp_path):
    arrays = mlp_arrays()
    with pytest.raises(ValueError, match=r"unknown format version 2 \(this tabuleiro reads version 1\)"):
        load_policy(_write(tmp_path, arrays | {"format_version": np.array(2)}))
    with pytest.raises(ValueError, match="format is 'other'"):
        load_policy(_write(tmp_path, arrays | {"format": np.array("other")}))
    with pytest.raises(ValueError, match="'model' is not valid JSON"):
        load_policy(_write(tmp_path, arrays | {"model": np.array("{nope")}))
    with pytest.raises(ValueError, match="model kind 'transformer'"):
        load_policy(_write(tmp_path, with_model(arrays, kind="transformer")))


def test_wrong_shapes_are_refused(tmp_path):
    arrays = mlp_arrays()
    w = arrays["actor_encoder.1.weight"]
    for key, value, message in [
        ("actor_encoder.1.weight", w[:, :-1], r"actor_encoder.1.weight reads 15 numbers, but 16 reach it"),
        ("actor_encoder.0.bias", arrays["actor_encoder.0.bias"][:-1], r"has shape \(15,\), expected \(16,\)"),
        ("pi.0.weight", arrays["pi.0.weight"][:-1], r"'pi.0.bias' has shape \(36,\), expected \(35,\)"),
        ("vf.0.weight", np.zeros((2, 16), np.float32), r"has shape \(1,\), expected \(2,\)|vf must end in one number"),
        ("pi.0.weight", arrays["pi.0.weight"].astype(np.float64), "must be float32"),
        ("pi.0.weight", arrays["pi.0.weight"][None], "expected 2-D"),
    ]:
        with pytest.raises(ValueError, match=message):
            load_policy(_write(tmp_path, arrays | {key: value}))
    cut = {k: arrays[k][:-1] for k in ("pi.0.weight", "pi.0.bias")}
    with pytest.raises(ValueError, match="pi gives 35 logits for 36 actions"):
        load_policy(_write(tmp_path, arrays | cut))
    with pytest.raises(ValueError, match="the model has 7 outputs"):
        load_policy(_write(tmp_path, with_model(arrays, outputs=7)))
    with pytest.raises(ValueError, match="unexpected key"):
        load_policy(_write(tmp_path, arrays | {"stowaway": np.zeros(3, np.float32)}))
    cand = candidate_arrays()
    with pytest.raises(ValueError, match="candidate_others must give"):
        grown = {
            k: np.concatenate([cand[k], cand[k]]) for k in ("candidate_others.0.weight", "candidate_others.0.bias")
        }
        load_policy(_write(tmp_path, cand | grown))


def test_non_finite_weights_are_refused(tmp_path):
    arrays = mlp_arrays()
    for bad in (np.nan, np.inf):
        w = arrays["actor_encoder.0.weight"].copy()
        w[3, 4] = bad
        with pytest.raises(ValueError, match="'actor_encoder.0.weight' holds non-finite weights"):
            load_policy(_write(tmp_path, arrays | {"actor_encoder.0.weight": w}))
        with pytest.raises(ValueError, match="non-finite"):  # never written either
            save_policy(arrays | {"actor_encoder.0.weight": w}, tmp_path / "never.npz")
    assert not (tmp_path / "never.npz").exists()
    with pytest.raises(ValueError, match="'candidate_head.overflow' holds non-finite"):
        load_policy(_write(tmp_path, candidate_arrays() | {"candidate_head.overflow": np.array(np.nan, np.float32)}))


def test_what_is_not_a_policy_file_is_refused_without_unpickling(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_policy(tmp_path / "nothing.npz")
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="not a readable .npz array file"):
        load_policy(garbage)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, **(mlp_arrays() | {"model": np.array([{"evil": 1}], dtype=object)}))
    with pytest.raises(ValueError, match="not a readable .npz array file.*allow_pickle"):
        load_policy(pickled)
    single = tmp_path / "single.npy"
    np.save(single, np.zeros(3))
    with pytest.raises(ValueError, match="not an .npz archive"):
        load_policy(single)


# -- whole games where torch cannot be imported -----------------------------------------------------------------


def test_policy_agents_play_whole_games_where_torch_cannot_be_imported(tmp_path):
    capivari = save_policy(mlp_arrays(), tmp_path / "capivari.npz")
    duel = save_policy(candidate_arrays(), tmp_path / "duel.npz")
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["torch"] = None  # `import torch` raises ImportError from here on; so does Ray
        sys.modules["ray"] = None
        import envs
        from agents.match import play_game
        from agents.registry import make_agent

        lineups = [("capivari_v0", {str(capivari)!r}, {{}}), ("{DUEL}", {str(duel)!r}, {DUEL_CONFIG!r})]
        for game, path, config in lineups:
            env = envs.game_module(game).raw_env(**config)  # strict: an illegal move raises
            n = len(env.possible_agents)
            agents = [make_agent(f"policy:{{path}}" + (",sample=true" if k else ""), game, seed=k) for k in range(n)]
            result = play_game(env, agents, seed=1)
            assert result.steps > 0 and not env.agents, result
            print(game, "steps", result.steps, "returns", result.returns)
        assert sys.modules["torch"] is None and sys.modules["ray"] is None
        print("played without torch")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "played without torch" in done.stdout


def test_policy_agents_play_legally_in_the_strict_env():
    env = envs.game_module(DUEL).raw_env(**DUEL_CONFIG)
    agents = [PolicyAgent(CompiledPolicy(candidate_arrays(seed=s)), sample=bool(s), seed=s) for s in range(2)]
    result = play_game(env, agents, seed=3)
    assert result.steps > 0 and not any(info.get("illegal_move") for info in result.infos)


def test_the_network_settings_of_each_shipped_file_name_its_encoder_and_candidate_head():
    """What ``tabuleiro exploit --init`` builds to load a file: the encoder widths, and a candidate head's
    observation piece (at the head's offset in the file's layout) and row-network widths."""
    widths = {"capivari": (128, 128), "dorfromantik_duel": (64,)}
    pieces = {"capivari": "afterstates", "dorfromantik_duel": "placement_candidates", "horizonte": None}
    for game, piece in pieces.items():
        arrays = read_arrays(reference_file(game))
        settings = network_settings(arrays)
        assert settings["hiddens"] == encoder_widths(arrays)
        assert settings.get("candidate_head") == piece and settings.get("candidate_hiddens") == widths.get(game)
