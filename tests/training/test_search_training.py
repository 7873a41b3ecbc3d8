"""Training from search (``tabuleiro train --algo exit``): a tiny run, resume, SIGTERM, bad settings."""

import json
import os
import signal

import numpy as np
import pytest

import envs
from agents.compiled_policy import load_agent, load_policy
from agents.guided import GuidedAgent
from agents.manifest import verify_checkpoint

TINY = {
    "games": 2,
    "moves_per_iteration": 30,
    "search_iterations": 4,
    "hiddens": [16],
    "min_buffer": 4,
    "batch_size": 16,
    "updates_per_iteration": 2,
    "eval_games": 4,
    "eval_steps": 4,
}


@pytest.fixture(autouse=True)
def one_torch_thread():
    import torch

    torch.set_num_threads(1)


def _settings(**extra):
    from training.search_training import checked_settings

    return checked_settings("capivari", {}, 0, {**TINY, **extra})


def _rows(out):
    return [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]


def test_a_tiny_run_writes_a_policy_file_that_plays_and_progress_rows(tmp_path):
    from training.loop import format_progress
    from training.search_training import train_from_search

    out = tmp_path / "run"
    meta = train_from_search(_settings(), out, iterations=2, checkpoint_every=1, echo=lambda line: None)
    assert meta["algo"] == "exit" and meta["iteration"] == 2 and "interrupted" not in meta
    rows = _rows(out)
    assert [r["iteration"] for r in rows] == [1, 2]
    assert all(r["decisions"] == 2 * 30 for r in rows)
    assert sum(r["episodes"] for r in rows) >= 1  # a Capivari game is shorter than 60 decisions
    assert rows[-1]["loss"] is not None and rows[-1]["buffer"] > 0
    assert all(r["lr"] == _settings().lr for r in rows)  # the rate, as PPO's rows give theirs
    assert set(rows[-1]["opponents"]) <= {"random", "heuristic"}
    format_progress(rows[-1])  # PPO's progress line reads the row
    policy = load_policy(out, "capivari")
    assert (out / "checkpoint" / "policy.npz").read_bytes() == (out / "policy.npz").read_bytes()
    env = envs.make("capivari")
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    action = load_agent(out, "capivari").act(observation, env)
    assert observation["action_mask"][action]
    guided = GuidedAgent("capivari", policy, iterations=8, seed=0)
    assert observation["action_mask"][guided.act(observation, env)]
    verify_checkpoint(out / "checkpoint")


@pytest.mark.parametrize("expert", ["guided", "ismcts"])
def test_self_play_is_the_same_games_on_one_thread_or_two(expert):
    from agents.compiled_policy import CompiledPolicy
    from tests.agents.test_compiled_policy import mlp_arrays
    from training.search_selfplay import SelfPlay

    game = envs.make("capivari").game
    policy = CompiledPolicy(mlp_arrays("capivari_v0"))
    played = [
        SelfPlay(game, policy, 5, 40, 1.5, 0.5, 6, seed=9, expert=expert, threads=threads).play(80)
        for threads in (1, 2)
    ]
    assert played[0].games >= 3 and played[0].searches > 0
    for key in ("obs", "mask", "policy", "value"):
        np.testing.assert_array_equal(getattr(played[0], key), getattr(played[1], key))
    if expert == "ismcts":  # the targets are IS-MCTS's root visits: whole counts of its 40 iterations
        searched = (played[0].mask > 0).sum(axis=1) > 1
        counts = played[0].policy[searched] * 40
        np.testing.assert_allclose(counts, np.round(counts), atol=1e-4)
        assert np.all(played[0].policy[played[0].mask == 0] == 0)


def test_the_policy_targets_are_the_visit_shares_or_all_on_the_most_visited_legal_action():
    from training.search_targets import best_target, visit_target

    visits = np.array([5.0, 30.0, 0.0, 15.0, 99.0])
    mask = np.array([1, 1, 1, 1, 0], np.int8)  # the 99 visits of an illegal action count for nothing
    np.testing.assert_allclose(visit_target(visits, mask), [0.1, 0.6, 0.0, 0.3, 0.0])
    np.testing.assert_array_equal(best_target(visits, mask), [0, 1, 0, 0, 0])
    from training.search_selfplay import SelfPlay

    assert _settings(policy_target="best", expert="ismcts").policy_target == "best"
    game = envs.make("capivari").game
    played = {
        target: SelfPlay(game, None, 2, 30, 1.5, 0.5, 0, 4, expert="ismcts", policy_target=target).play(60)
        for target in ("visits", "best")
    }
    searched = (played["best"].mask > 0).sum(axis=1) > 1
    assert searched.any()
    assert set(np.unique(played["best"].policy[searched])) == {0.0, 1.0}
    np.testing.assert_array_equal(  # the same games: the target is the argmax of the same visits
        played["best"].policy[searched].argmax(axis=1), played["visits"].policy[searched].argmax(axis=1)
    )


def test_average_after_minutes_keeps_the_mean_of_the_policy_files_saved_since(tmp_path):
    from agents.compiled_policy import read_arrays
    from agents.policy_average import AVERAGE_FILE, averaged_count
    from training.search_training import train_from_search

    out, lines = tmp_path / "run", []
    saved = []

    def echo(line):
        lines.append(line)
        if (out / "policy.npz").is_file() and "policy-average" in line:
            saved.append(read_arrays(out / "policy.npz"))

    train_from_search(_settings(average_after_minutes=0), out, iterations=3, checkpoint_every=1, echo=echo)
    mean = read_arrays(out / AVERAGE_FILE)
    assert averaged_count(mean) == len(saved) == 3
    assert f"{AVERAGE_FILE}: the mean of 3 policies (since minute 0)" in lines
    weights = [k for k in mean if k in saved[0] and mean[k].dtype == np.float32 and mean[k].size > 1]
    assert weights and not all(np.array_equal(saved[0][k], saved[-1][k]) for k in weights)
    for key in weights:
        np.testing.assert_allclose(mean[key], np.mean([s[key] for s in saved], axis=0), rtol=1e-5, atol=1e-6)
    train_from_search(_settings(), tmp_path / "plain", iterations=1, echo=lambda line: None)
    assert not (tmp_path / "plain" / AVERAGE_FILE).exists()  # no mean unless asked for


def test_resume_continues_the_iteration_count_and_the_buffer(tmp_path):
    from training.search_training import train_from_search

    out = tmp_path / "run"
    train_from_search(_settings(), out, iterations=2, checkpoint_every=5, echo=lambda line: None)
    first = _rows(out)
    lines = []
    meta = train_from_search(None, out, iterations=3, resume=out, echo=lines.append)
    assert meta["iteration"] == 3 and tuple(meta["settings"]["hiddens"]) == (16,)
    assert any(line.startswith("resumed capivari_v0") and "iteration 2" in line for line in lines)
    rows = _rows(out)
    assert [r["iteration"] for r in rows] == [1, 2, 3]
    assert rows[:2] == first
    assert rows[2]["positions"] >= first[1]["positions"]  # the buffer came back with the checkpoint
    assert meta["env_steps"] == sum(r["env_steps"] for r in rows)
    with pytest.raises(ValueError, match="already holds a training run"):
        train_from_search(_settings(), out, iterations=4)


def test_sigterm_leaves_a_complete_checkpoint_to_resume_from(tmp_path):
    from training import search_checkpoint
    from training.search_training import train_from_search

    out = tmp_path / "run"

    def echo(line):
        if line.startswith("iter    1"):
            os.kill(os.getpid(), signal.SIGTERM)  # as a scheduler would, in the middle of the run

    meta = train_from_search(_settings(), out, iterations=50, checkpoint_every=100, echo=echo)
    assert meta["interrupted"] == "SIGTERM" and meta["iteration"] < 50
    ckpt = search_checkpoint.newest(out)
    assert ckpt == out / "checkpoint"
    verify_checkpoint(ckpt)
    assert json.loads((ckpt / "tabuleiro_train.json").read_text())["iteration"] == meta["iteration"]
    load_policy(out, "capivari")
    again = train_from_search(None, out, iterations=meta["iteration"] + 1, resume=out, echo=lambda line: None)
    assert again["iteration"] == meta["iteration"] + 1


def test_an_interrupted_save_resumes_from_the_newest_complete_checkpoint(tmp_path):
    from training import search_checkpoint
    from training.search_training import train_from_search

    out = tmp_path / "run"
    train_from_search(_settings(), out, iterations=1, echo=lambda line: None)
    (out / "checkpoint").rename(out / "checkpoint.old")  # killed between the two renames
    (out / "checkpoint.tmp").mkdir()  # and a half-written new one
    (out / "checkpoint.tmp" / "policy.npz").write_bytes(b"half")
    assert search_checkpoint.newest(out) == out / "checkpoint.old"
    meta = train_from_search(None, out, iterations=2, resume=out, echo=lambda line: None)
    assert meta["iteration"] == 2
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("checkpoint")) == ["checkpoint"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"gamez": 3}, "no setting 'gamez'"),
        ({"games": 0}, "games=0: must be an int"),
        ({"games": 2.5}, "games=2.5: must be an int"),
        ({"search_iterations": True}, "search_iterations=True"),
        ({"value_weight": 2}, r"value_weight=2: must be a number in \[0, 1\]"),
        ({"lr": float("nan")}, "lr=nan"),
        ({"hiddens": [0]}, "hiddens"),
        ({"hiddens": "big"}, "hiddens"),
        ({"seed": 1}, "give it with --seed"),
        ({"min_buffer": 50, "buffer_size": 10}, "min_buffer=50 exceeds buffer_size=10"),
        ({"init_policy": "/no/such/policy.npz"}, "does not exist"),
        ({"init_policy": 3}, "must be the path of a policy file"),
        ({"expert": "alphabeta"}, "expert='alphabeta': must be one of guided, ismcts"),
        ({"search_threads": 0}, "search_threads=0: must be an int"),
        ({"policy_target": "softmax"}, "policy_target='softmax': must be one of visits, best"),
        ({"average_after_minutes": -1}, r"average_after_minutes=-1: must be a number in \[0, 1e\+06\]"),
    ],
)
def test_bad_settings_are_refused_with_their_name(values, message):
    from training.search_training import checked_settings

    with pytest.raises(ValueError, match=message):
        checked_settings("capivari", {}, 0, values)


def test_a_warm_start_file_of_another_game_or_config_is_refused(tmp_path):
    from training.search_training import checked_settings, train_from_search

    train_from_search(_settings(), tmp_path / "run", iterations=1, echo=lambda line: None)
    path = str(tmp_path / "run" / "policy.npz")
    with pytest.raises(ValueError, match="is a policy for capivari_v0"):
        checked_settings("kuhn_poker", {}, 0, {"init_policy": path})
    with pytest.raises(ValueError, match="is a policy for capivari_v0 with config"):
        checked_settings("capivari", {"subtract_points": 2}, 0, {"init_policy": path})


def test_bad_budgets_and_runs_are_refused(tmp_path):
    from training.search_training import train_from_search

    for kwargs in ({}, {"minutes": 0}, {"minutes": float("inf")}, {"iterations": 0}):
        with pytest.raises(ValueError, match="budget"):
            train_from_search(_settings(), tmp_path / "a", **kwargs)
    with pytest.raises(ValueError, match="no complete checkpoint"):
        train_from_search(None, tmp_path / "b", iterations=1, resume=tmp_path)
    ppo = tmp_path / "ppo"
    (ppo / "checkpoint").mkdir(parents=True)
    (ppo / "checkpoint" / "tabuleiro_train.json").write_text(json.dumps({"game": "capivari_v0", "iteration": 1}))
    from tabuleiro.cli import main

    assert main(["train", "capivari", "--resume", str(ppo), "--algo", "exit", "--iterations", "1"]) == 2
    argv = ["train", "capivari", "--algo", "exit", "--iterations", "1", "--out", str(tmp_path / "c")]
    assert main(argv + ["--pool", "random=1"]) == 2  # a PPO option
    assert main(argv + ["--set", "games=-1"]) == 2
    assert main(argv + ["--set", "clip_param=0.1"]) == 2  # PPO's setting, not this one's
    assert not (tmp_path / "c" / "progress.jsonl").exists()


def test_a_warm_start_from_a_policy_file_starts_from_its_weights(tmp_path):
    from training.search_training import train_from_search

    out = tmp_path / "first"
    train_from_search(_settings(), out, iterations=1, echo=lambda line: None)
    s = _settings(init_policy=str(out / "policy.npz"), hiddens=[8], updates_per_iteration=0)
    assert s.hiddens == (16,)  # the file's widths
    second = tmp_path / "second"
    train_from_search(s, second, iterations=1, echo=lambda line: None)
    a, b = load_policy(out, "capivari"), load_policy(second, "capivari")
    obs = np.zeros((1, a.info.obs_size), np.float32)
    mask = np.ones((1, a.outputs), np.float32)
    np.testing.assert_array_equal(a.forward(obs, mask)[0], b.forward(obs, mask)[0])  # no update ran
