"""Averaged policy files: the mean of the weights, counted by how many policies each file already averages, one
layout only, and a file the arena plays."""

import numpy as np
import pytest

from agents.compiled_policy import AVERAGED, check_arrays, load_policy, read_arrays, save_policy
from agents.match import play_game
from agents.policy_average import add_to_average, averaged_count, write_average
from agents.registry import make_agent
from envs import game_module
from tabuleiro.cli import main
from tests.agents.test_compiled_policy import mlp_arrays


def _files(tmp_path, seeds, **kwargs) -> list:
    paths = []
    for seed in seeds:
        paths.append(save_policy(mlp_arrays(seed=seed, **kwargs), tmp_path / f"p{seed}.npz"))
    return paths


def test_the_mean_of_files_is_the_mean_of_each_weight_and_plays(tmp_path):
    paths = _files(tmp_path, [0, 1, 2])
    out = tmp_path / "mean.npz"
    write_average(paths, out)
    mean, parts = read_arrays(out), [read_arrays(p) for p in paths]
    assert averaged_count(mean) == 3
    for key in ("actor_encoder.0.weight", "actor_encoder.1.bias", "pi.0.weight", "vf.0.bias"):
        assert mean[key].dtype == np.float32
        np.testing.assert_allclose(mean[key], np.mean([p[key] for p in parts], axis=0), atol=1e-6)
        assert not np.allclose(mean[key], parts[0][key])
    assert str(mean["model"]) == str(parts[0]["model"])
    env = game_module("capivari_v0").raw_env()
    result = play_game(env, [make_agent(f"policy:{out}", "capivari", seed=k) for k in range(2)], seed=0)
    assert result.steps > 0


def test_a_running_mean_equals_the_mean_of_all_its_files(tmp_path):
    paths = _files(tmp_path, [0, 1, 2, 3])
    running = tmp_path / "running.npz"
    counts = [add_to_average(running, p) for p in paths]
    assert counts == [1, 2, 3, 4]
    whole = write_average(paths, tmp_path / "whole.npz")
    got = read_arrays(running)
    for key in whole:
        if whole[key].dtype == np.float32:
            np.testing.assert_allclose(got[key], whole[key], atol=1e-6)
    # a mean of 3 and one more file: 4 policies, the three weighing three times the one
    mean3 = tmp_path / "mean3.npz"
    write_average(paths[:3], mean3)
    again = write_average([mean3, paths[3]], tmp_path / "again.npz")
    assert int(again[AVERAGED]) == 4
    np.testing.assert_allclose(again["pi.0.weight"], whole["pi.0.weight"], atol=1e-6)


def test_files_of_another_game_config_or_layout_are_refused_by_name(tmp_path):
    (base,) = _files(tmp_path, [0])
    other_config = save_policy(mlp_arrays(config={"observe_margins": True}), tmp_path / "margins.npz")
    with pytest.raises(ValueError, match="'game_config' differ"):
        write_average([base, other_config], tmp_path / "x.npz")
    critic = save_policy(mlp_arrays(critic=True), tmp_path / "critic.npz")
    with pytest.raises(ValueError, match="'model' differ"):
        write_average([base, critic], tmp_path / "x.npz")
    kuhn = save_policy(mlp_arrays("kuhn_poker"), tmp_path / "kuhn.npz")
    with pytest.raises(ValueError, match="'game' differ"):
        write_average([base, kuhn], tmp_path / "x.npz")
    with pytest.raises(ValueError, match="no policy files"):
        write_average([], tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("bad", [np.array(0, np.int64), np.array(2.0), np.array([2], np.int64)])
def test_a_bad_averaged_count_is_refused(bad):
    arrays = mlp_arrays() | {AVERAGED: bad}
    with pytest.raises(ValueError, match="'averaged' must be an int scalar >= 1"):
        check_arrays(arrays)


def test_the_average_command_writes_the_mean_and_refuses_a_mismatch(tmp_path, capsys):
    paths = _files(tmp_path, [0, 1])
    out = tmp_path / "out" / "mean.npz"
    assert main(["average", *map(str, paths), "--out", str(out)]) == 0
    assert "the mean of 2 capivari_v0 policies" in capsys.readouterr().out
    assert load_policy(out).game == "capivari_v0"
    kuhn = save_policy(mlp_arrays("kuhn_poker"), tmp_path / "kuhn.npz")
    assert main(["average", str(paths[0]), str(kuhn), "--out", str(tmp_path / "bad.npz")]) == 2
    assert "'game' differ" in capsys.readouterr().err
    assert not (tmp_path / "bad.npz").exists()
