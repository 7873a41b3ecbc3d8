"""The training loop's plumbing that needs no Ray: settings round trip, budgets, signals, progress lines."""

import json
import os
import signal
from dataclasses import replace

import pytest

import envs
from training.config import settings_for
from training.loop import (
    _terminate_as_interrupt,
    find_checkpoint,
    format_progress,
    settings_from_json,
    settings_to_json,
    train,
)


def test_settings_round_trip_through_json():
    s = settings_for("horizonte", game_config={"num_players": 5}, seed=4)
    assert settings_from_json(settings_to_json(s)) == s


def test_presets_apply_and_overrides_win():
    s = settings_for("dorfromantik_duel", train_batch_size=99)
    assert s.game == "dorfromantik_duel_v0" and s.train_batch_size == 99
    assert s.game_config == {"placement_candidates": True, "observe_boards": False}


def test_duel_preset_candidate_head_and_shaping_reach_the_config():
    from envs.dorfromantik_duel.candidates import CANDIDATE, MAX_CANDIDATES
    from training.config import build_config  # optional heavy: ray

    s = settings_for("dorfromantik_duel")
    assert settings_from_json(json.loads(json.dumps(settings_to_json(s)))) == s  # through a checkpoint's JSON
    config = build_config(s)
    model = config.rl_module_spec.model_config
    layout = envs.make("dorfromantik_duel", **s.game_config).game.observation_layout()
    assert "image_shape" not in model  # no boards in this observation: no conv stack
    assert model["candidate_head"] == {
        "start": layout.offset("placement_candidates"),
        "rows": MAX_CANDIDATES,
        "features": CANDIDATE.size,
        "actions": MAX_CANDIDATES,  # the learner's first actions are the rows (candidate_actions)
        "hiddens": list(s.candidate_hiddens),
    }
    assert model["candidate_actions"] == {"placements": 33 * 33 * 6, "rows": MAX_CANDIDATES}
    assert config.env_config["candidate_actions"] == "placement_candidates"
    assert config.env_config["shaping"] == "duel_score" and config.env_config["shaping_gamma"] == s.gamma
    assert config.env_config["threads"] == 1 and build_config(replace(s, env_threads=2)).env_config["threads"] == 2
    assert build_config(settings_for("capivari")).env_config["shaping"] is None  # off unless a preset asks


def test_a_game_config_given_adds_to_the_presets(monkeypatch):
    import training.config

    monkeypatch.setattr(training.config, "preset", lambda game: {"game_config": {"placement_prior": True}})
    s = settings_for("dorfromantik_duel", game_config={"board_radius": 9})
    assert s.game_config == {"placement_prior": True, "board_radius": 9}
    assert settings_for("dorfromantik_duel").game_config == {"placement_prior": True}


def test_set_checks_each_setting_against_its_type():
    from training.config import checked_overrides

    given = {"lr": 1, "hiddens": [64, 32], "conv_filters": [[8, 3, 1]], "cell_head": None, "action_prior": "x"}
    assert checked_overrides(given) == {**given, "hiddens": (64, 32), "conv_filters": ((8, 3, 1),)}
    for bad, message in [
        ({"learning_rate": 1e-3}, "no training setting 'learning_rate'; settings: action_prior"),
        ({"pool": {"random": 1}}, "--set pool: give it with --pool"),
        ({"game_config": {}}, "--config KEY=VALUE"),
        ({"lr": "fast"}, "lr='fast': must be float"),
        ({"lr": float("inf")}, "must be float"),
        ({"num_epochs": 1.5}, "must be int"),
        ({"num_epochs": True}, "must be int"),
        ({"hiddens": [64, "x"]}, r"must be tuple\[int, ...\]"),
        ({"cell_head": [8]}, "must be tuple"),
        ({"average_after_minutes": -1}, "average_after_minutes=-1: must be >= 0"),
        ({"average_after_minutes": "late"}, "must be float"),
    ]:
        with pytest.raises(ValueError, match=message):
            checked_overrides(bad)


def test_a_learning_rate_schedule_is_checked_and_reaches_the_learner():
    from training.config import build_config, checked_overrides  # optional heavy: ray

    given = checked_overrides({"lr": [[0, 5e-4], [100_000_000, 2e-5]]})
    assert given["lr"] == ((0, 5e-4), (100_000_000, 2e-5))
    assert build_config(settings_for("capivari", **given)).lr == [[0, 5e-4], [100_000_000, 2e-5]]
    assert build_config(settings_for("capivari")).lr == settings_for("capivari").lr  # a plain rate stays one
    scheduled = settings_for("capivari", **given)
    assert settings_from_json(json.loads(json.dumps(settings_to_json(scheduled)))) == scheduled  # resumed as given
    for bad, message in [
        ([[10, 5e-4]], "starts at step 0"),
        ([], "starts at step 0"),
        ([[0, 5e-4], [0, 1e-5]], "steps must increase"),
        ([[0, 5e-4], [10, 0.0]], "rates must be positive"),
        (-1e-3, "rates must be positive"),
        ([[0, "x"]], "must be float"),
    ]:
        with pytest.raises(ValueError, match=message):
            checked_overrides({"lr": bad})


def test_train_command_passes_config_and_set_to_the_run(monkeypatch, tmp_path):
    import training.loop
    from tabuleiro.cli import main

    seen = {}

    def fake_train(settings, out, **kwargs):
        seen["settings"] = settings
        return {"interrupted": None}

    monkeypatch.setattr(training.loop, "train", fake_train)
    argv = ["train", "dorfromantik_duel", "--iterations", "1", "--eval-games", "0", "--out", str(tmp_path / "r")]
    extra = ["--config", "placement_prior=true", "--set", "action_prior=placement_prior", "--set", "lr=0.001"]
    assert main(argv + extra + ["--set", "cell_head=[4,1]"]) == 0
    s = seen["settings"]
    assert s.game_config == {**settings_for("dorfromantik_duel").game_config, "placement_prior": True}
    assert s.action_prior == "placement_prior"
    assert s.lr == 0.001 and s.cell_head == (4, 1) and s.hiddens == settings_for("dorfromantik_duel").hiddens
    assert main(argv + ["--config", "board_radius=99"]) == 2
    assert main(argv + ["--set", "shaping=round_wins"]) == 2  # Capivari's potential, not the Duel's
    assert main(argv[:1] + ["capivari"] + argv[2:] + ["--set", "shaping=round_wins"]) == 0
    assert seen["settings"].shaping == "round_wins"
    assert main(argv + ["--resume", str(tmp_path), "--set", "lr=0.1"]) == 2
    assert main(["train", "horizonte", "--players", "4", "--config", "num_players=3", "--iterations", "1"]) == 2


def test_an_action_prior_reaches_the_module_where_the_observation_holds_it():
    from training.config import build_config  # optional heavy: ray

    plain = {"placement_candidates": False, "observe_boards": True}  # the preset's observation without candidates

    def prior_settings(game_config: dict, piece: str):
        given = settings_for("dorfromantik_duel", game_config=plain | game_config, action_prior=piece)
        return replace(given, candidate_head=None, candidate_actions=False)

    s = prior_settings({"placement_prior": True, "board_radius": 9}, "placement_prior")
    layout = envs.make("dorfromantik_duel", placement_prior=True, board_radius=9).game.observation_layout()
    prior = build_config(s).rl_module_spec.model_config["action_prior"]
    assert prior == {"start": layout.offset("placement_prior"), "length": 19 * 19 * 6, "scale": 1.0}
    assert prior["start"] + prior["length"] == layout.size  # the last piece
    for game_config, piece in (({"board_radius": 9}, "placement_prior"), ({"placement_prior": True}, "boards")):
        with pytest.raises(ValueError, match="action_prior"):
            build_config(prior_settings(game_config, piece))
    with pytest.raises(ValueError, match="cannot be combined"):
        build_config(replace(s, candidate_head="placement_candidates"))


@pytest.mark.parametrize(
    "budget", [{}, {"minutes": 0}, {"iterations": 0}, {"minutes": float("nan")}, {"minutes": float("inf")}]
)
def test_a_budget_is_required(tmp_path, budget):
    with pytest.raises(ValueError, match="budget"):
        train(settings_for("capivari"), tmp_path, **budget)


def test_a_new_run_refuses_a_folder_that_holds_a_run(tmp_path):
    (tmp_path / "progress.jsonl").write_text('{"iteration": 1}\n')
    with pytest.raises(ValueError, match="already holds a training run"):
        train(settings_for("capivari"), tmp_path, iterations=1)
    assert (tmp_path / "progress.jsonl").read_text() == '{"iteration": 1}\n'


def test_resume_needs_a_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="no tabuleiro checkpoint"):
        find_checkpoint(tmp_path)


def test_sigterm_becomes_an_interrupt():
    previous = _terminate_as_interrupt()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs between bytecodes
                pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_progress_line_shows_rates_and_pool():
    row = {
        "iteration": 12,
        "elapsed_s": 151.0,
        "iteration_s": 2.0,
        "sample_s": 1.2,
        "learner_decisions_per_s": 12034.4,
        "decisions_per_s": 24100.0,
        "loss": 0.1234,
        "opponents": {"random": {"games": 230, "win_rate": 0.83}, "self": {"games": 10}},
        "snapshots": ["main_v1", "main_v2"],
        "new_snapshot": "main_v2",
    }
    line = format_progress(row)
    expected = "iter 12 2:31 learner/s 12034 total/s 24100 sample 60% loss 0.123 random 83% (230) pool 2 +main_v2"
    assert line.split() == expected.split()


def test_train_evaluates_the_averaged_policy_too_when_the_run_kept_one(monkeypatch, tmp_path):
    import json

    import tabuleiro.commands.train
    import training.loop
    from agents.compiled_policy import save_policy
    from agents.policy_average import AVERAGE_FILE
    from tabuleiro.cli import main
    from tests.agents.test_compiled_policy import mlp_arrays

    out = tmp_path / "r"

    def fake_train(settings, out_dir, **kwargs):
        save_policy(mlp_arrays(), out_dir / AVERAGE_FILE)  # as --set average_after_minutes leaves it
        return {"game": "capivari_v0", "game_config": {}, "interrupted": None}

    real_evaluation = tabuleiro.commands.train.final_evaluation
    asked = []

    def evaluation(checkpoint, game, game_config, games, seed, policy_file=None):
        asked.append(policy_file)
        return [] if policy_file is None else real_evaluation(checkpoint, game, game_config, games, seed, policy_file)

    monkeypatch.setattr(training.loop, "train", fake_train)
    monkeypatch.setattr(tabuleiro.commands.train, "final_evaluation", evaluation)
    assert main(["train", "capivari", "--iterations", "1", "--eval-games", "4", "--out", str(out)]) == 0
    assert asked == [None, out / AVERAGE_FILE]
    report = json.loads((out / "evaluation.json").read_text())
    rows = report["evaluation_average"]
    assert [r["opponent"] for r in rows] == ["random", "heuristic"] and all(r["games"] == 4 for r in rows)
