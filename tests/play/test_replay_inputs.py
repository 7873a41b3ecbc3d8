"""Replay files from elsewhere: every field type- and range-checked, one clear ValueError, and the
`tabuleiro replay` command prints it and exits 2, never a traceback nor a false "match"."""

import json
from pathlib import Path

import pytest

from envs import replay as replay_module
from envs.replay import check_outcome, from_dict, load, make_env, steps, verify
from tabuleiro.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = json.loads((ROOT / "docs" / "replays" / "capivari.json").read_text())


def _write(tmp_path, text: str) -> Path:
    path = tmp_path / "replay.json"
    path.write_text(text)
    return path


def _edited(tmp_path, **changes) -> Path:
    return _write(tmp_path, json.dumps(GOOD | changes))


def test_the_unedited_file_replays():
    verify(from_dict(dict(GOOD)))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"returns": [float("nan"), 1.0]}, r"'returns' must list finite numbers \(no NaN or infinity\): item 0 is nan"),
        ({"returns": [-1.0, float("inf")]}, "'returns' must list finite numbers .*item 1 is inf"),
        ({"returns": [10**400, 1]}, "'returns' must list finite numbers"),
        ({"returns": [-1.0]}, "'returns' has 1 values for 2 seats"),
        ({"returns": [True, 1.0]}, "'returns' must list finite numbers"),
        ({"scores": [float("nan"), 2.0]}, "'scores' must list finite numbers"),
        ({"scores": [0.0, 2.0, 1.0]}, "'scores' has 3 values for 2 seats"),
        ({"seed": -1}, r"'seed' must be in 0..2\*\*64-1"),
        ({"seed": 2**64}, r"'seed' must be in 0..2\*\*64-1"),
        ({"seed": 1.5}, "'seed' has the wrong type"),
        ({"actions": [3, 4]}, "'actions' must list action names"),
        ({"actions": [""]}, "'actions' must list action names"),
        ({"actions": ["x" * 5000]}, "'actions' must list action names"),
        ({"agents": []}, "'agents' must name 1..16 seats"),
        ({"agents": ["random", ""]}, "'agents' must list agent specs"),
        ({"game": ""}, "'game' must be a non-empty string"),
        ({"rules_version": "v" * 5000}, "'rules_version' must be a non-empty string"),
        ({"config": {"wins_needed": [[1]]}}, "'config': 'wins_needed' must be a number, string, bool, null"),
        ({"config": {"wins_needed": {"a": 1}}}, "'config': 'wins_needed' must be"),
        ({"config": []}, "'config' has the wrong type"),
        ({"extra": 1}, r"unknown field\(s\) \['extra'\]"),
    ],
)
def test_fields_out_of_type_or_range_are_refused_when_loaded(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        load(_edited(tmp_path, **changes))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"config": GOOD["config"] | {"render_mode": "human"}}, r"'config' has unknown key\(s\) \['render_mode'\]"),
        ({"config": {"board": 3}}, r"'config' has unknown key\(s\) \['board'\]; capivari_v0 knows"),
        ({"config": {"wins_needed": "two"}}, "'config': config 'wins_needed' must be an int"),
        ({"config": {"wins_needed": 10**30}}, "'config': config 'wins_needed' must be in"),
        ({"game": "chess"}, "'game': unknown game 'chess'"),
        ({"agents": ["random", "random", "random"], "returns": [0, 0, 0], "scores": None}, "3 agents for 2 seats"),
    ],
)
def test_fields_that_do_not_fit_the_game_are_refused_before_any_step(tmp_path, changes, message):
    replay = load(_edited(tmp_path, **changes))
    with pytest.raises(ValueError, match=message):
        make_env(replay)


def test_nan_returns_never_match_even_past_the_loader():
    """The outcome check itself cannot be fooled by NaN (it used to report "re-simulated exactly ... match")."""
    replay = from_dict(dict(GOOD))
    env = make_env(replay, render_mode=None)
    returns = [0.0, 0.0]
    for step in steps(replay, env):
        if step.index:
            replay_module.add_rewards(returns, env)
    replay.returns = [float("nan"), 1.0]
    with pytest.raises(ValueError, match="re-simulation gives returns"):
        check_outcome(replay, env, returns)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "its JSON is nested too deeply"),
        ('{"seed": ' + "9" * 10_000 + "}", "not valid JSON"),
        ("NaN", "must be a JSON object"),
    ],
)
def test_hostile_json_is_refused_with_a_value_error(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load(_write(tmp_path, text))


def test_binary_and_oversized_files_are_refused(tmp_path, monkeypatch):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        load(path)
    monkeypatch.setattr(replay_module, "MAX_FILE_BYTES", 100)
    with pytest.raises(ValueError, match="is larger than"):
        load(_edited(tmp_path))
    with pytest.raises(ValueError, match="cannot read replay"):
        load(tmp_path)  # a folder


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"returns": [float("nan"), 1.0]}, "'returns' must list finite numbers"),
        ({"config": GOOD["config"] | {"render_mode": "human"}}, "unknown key(s) ['render_mode']"),
        ({"seed": -7}, "'seed' must be in 0..2**64-1"),
    ],
)
def test_the_replay_command_prints_the_problem_and_exits_2(tmp_path, capsys, changes, message):
    path = _edited(tmp_path, **changes)
    assert main(["replay", str(path), "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert "tabuleiro replay: error: " in err and message in err, err
    assert "Traceback" not in err and "match the replay" not in out


def test_the_replay_command_refuses_deep_json(tmp_path, capsys):
    path = _write(tmp_path, "[" * 100_000 + "]" * 100_000)
    assert main(["replay", str(path)]) == 2
    assert "nested too deeply" in capsys.readouterr().err
