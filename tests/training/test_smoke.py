"""Per game: two tiny PPO iterations on the session's Ray, a checkpoint, and the reloaded policy playing legally.

Not a learning test (that is ``benchmarks/learning.py``): it checks the plumbing end to end, with
settings small enough for CI (``num_env_runners=0``: sampling and learning in this process).
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import envs
from agents.compiled_policy import POLICY_FILE, read_arrays
from agents.match import play_game
from agents.policy_average import AVERAGE_FILE, averaged_count
from agents.random_agent import RandomAgent

pytestmark = pytest.mark.xdist_group("ray")  # with --dist loadgroup, every Ray test shares one worker

TINY = {
    "num_env_runners": 0,
    "num_envs_per_env_runner": 2,
    "train_batch_size": 64,
    "minibatch_size": 32,
    "num_epochs": 1,
    "hiddens": (16,),
    "snapshot_threshold": 0.0,  # freeze a snapshot after the first iteration: the pool path runs too
    "snapshot_min_games": 1,
    "compiled_snapshots": True,  # the Duel's preset (a conv stack) plays its snapshots outside all the same
}
# long games need a bigger batch for an episode to finish within one iteration
LONG_GAMES = {"num_envs_per_env_runner": 2, "train_batch_size": 192, "minibatch_size": 64}
TINY_PER_GAME = {"dorfromantik_duel_v0": LONG_GAMES, "horizonte_v0": LONG_GAMES}


def train_tiny(game: str, out, iterations: int, resume=None, **settings_given):
    from training.config import settings_for
    from training.loop import train

    lines: list[str] = []
    given = TINY | TINY_PER_GAME.get(game, {}) | settings_given
    settings = None if resume else settings_for(game, seed=3, **given)
    meta = train(settings, out, iterations=iterations, resume=resume, checkpoint_every=1, echo=lines.append)
    rows = [json.loads(ln) for ln in (out / "progress.jsonl").read_text().splitlines()]
    return meta, rows, lines


def plays_a_legal_game(checkpoint, game: str, game_config: dict) -> None:
    from agents.rllib_policy import load_agent

    agent = load_agent(checkpoint, game, seed=0)
    env = envs.game_module(game).raw_env(**game_config)  # strict: an illegal action raises IllegalActionError
    n = len(env.possible_agents)
    for seat in range(n):
        lineup = [RandomAgent(s) for s in range(n - 1)]
        lineup.insert(seat, agent)
        result = play_game(env, lineup, seed=seat)
        assert result.steps > 0


@pytest.mark.parametrize("game", [spec.name for spec in envs.specs()])
def test_ppo_iterations_checkpoint_and_legal_play(ray_session, tmp_path, game):
    from training.config import settings_for

    out = tmp_path / "run"
    meta, rows, lines = train_tiny(game, out, iterations=2)
    assert meta["iteration"] == 2 and [r["iteration"] for r in rows] == [1, 2]
    for row in rows:
        assert row["loss"] is not None and math.isfinite(row["loss"]), "learner results hold no loss"
        assert row["env_steps"] >= 64 and row["steps_per_s"] > 0
        assert 0 < row["learner_decisions"] <= row["decisions"] and row["learner_decisions_per_s"] > 0
        assert row["sample_s"] > 0 and row["learn_s"] > 0
        assert row["lr"] == pytest.approx(settings_for(game, **(TINY | TINY_PER_GAME.get(game, {}))).lr)  # its rate
        assert sum(o["games"] for o in row["opponents"].values()) > 0
        assert all(0.0 <= o["win_rate"] <= 1.0 for o in row["opponents"].values() if "win_rate" in o)
    assert rows[0]["new_snapshot"] == "main_v1"
    if game != "dorfromantik_duel_v0":  # MLP presets without a `self` opponent: every opponent moves in the kernel
        assert all(row["outside_decisions"] == 0 for row in rows)
    assert (out / "checkpoint" / "pool" / "main_v1.npz").is_file()
    assert any(ln.startswith("iter    2") for ln in lines)
    plays_a_legal_game(out / "checkpoint", game, meta["game_config"])


def test_resume_continues_the_run(ray_session, tmp_path):
    out = tmp_path / "run"
    train_tiny("capivari_v0", out, iterations=1)
    meta, rows, lines = train_tiny("capivari_v0", out, iterations=2, resume=out)
    assert lines[0].startswith("resumed capivari_v0") and meta["iteration"] == 2
    assert [r["iteration"] for r in rows] == [1, 2]
    assert "main_v1" in rows[1]["snapshots"]  # the pool came back with the checkpoint
    assert meta["env_steps"] == sum(r["env_steps"] for r in rows)
    assert not (out / AVERAGE_FILE).exists()  # no mean unless asked for


def test_a_run_keeps_the_mean_of_its_policy_files_and_a_resume_extends_it(ray_session, tmp_path):
    out = tmp_path / "run"
    _, _, lines = train_tiny("capivari_v0", out, iterations=2, average_after_minutes=0.0)
    first = read_arrays(out / AVERAGE_FILE)
    assert averaged_count(first) == 2 and f"{AVERAGE_FILE}: the mean of 2 policies (since minute 0)" in lines
    last = read_arrays(out / POLICY_FILE)
    assert not np.array_equal(first["pi.0.weight"], last["pi.0.weight"])  # a mean, not the last policy
    train_tiny("capivari_v0", out, iterations=3, resume=out)
    after, newest = read_arrays(out / AVERAGE_FILE), read_arrays(out / POLICY_FILE)
    assert averaged_count(after) == 3
    for key in ("actor_encoder.0.weight", "pi.0.weight", "vf.0.bias"):
        np.testing.assert_allclose(after[key], (2 * first[key] + newest[key]) / 3, atol=1e-6)


def test_policy_loads_without_starting_ray(ray_session, tmp_path):
    out = tmp_path / "run"
    train_tiny("capivari_v0", out, iterations=1)
    code = (
        "import ray, sys\n"
        "from agents.registry import make_agent\n"
        f"agent = make_agent('rllib:{out}', 'capivari')\n"
        "import envs, numpy as np\n"
        "env = envs.make('capivari_v0'); env.reset(seed=1)\n"
        "a = agent.act(env.observe(env.agent_selection), env)\n"
        "assert env.action_mask()[a] == 1\n"
        "print('ray initialized:', ray.is_initialized())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ray initialized: False" in done.stdout
