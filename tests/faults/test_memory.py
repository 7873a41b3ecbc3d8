"""Bounds from memory: batches whose buffers would not fit are refused before allocating, and the random-play
kernel runs in bounded calls that Ctrl-C can stop."""

import os
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import envs.batch
from envs.batch import BatchEnv
from envs.engine.memory import MEMORY_SHARE, machine_memory

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("num_envs", [2**24, 300_000])
def test_a_batch_beyond_memory_is_refused_before_allocating(num_envs):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="memory"):
            BatchEnv("dorfromantik_duel_v0", num_envs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20


def test_the_vector_env_counts_its_own_buffers_too():
    pytest.importorskip("gymnasium")
    from training.vector_env import GameVectorEnv

    record = envs.make("dorfromantik_duel_v0").game.new_state().dtype.itemsize
    fits_batch_only = int(MEMORY_SHARE * machine_memory() / (record * 2.5))  # about: a batch's records fit, 3x not
    with pytest.raises(ValueError, match="GameVectorEnv.*memory"):
        GameVectorEnv("dorfromantik_duel_v0", fits_batch_only)


def test_random_steps_in_bounded_calls_play_like_one_call(monkeypatch):
    one = BatchEnv("kuhn_poker_v0", 8, seed=0, threads=1)
    one.reset(seed=0)
    finished = int(one._k.random_steps(one.states, np.uint64(3), 1000))
    monkeypatch.setattr(envs.batch, "STEPS_PER_CALL", 8 * 7)  # 7 steps a game per call: 143 calls
    chunked = BatchEnv("kuhn_poker_v0", 8, seed=0, threads=1)
    chunked.reset(seed=0)
    assert chunked.random_steps(1000, seed=3) == finished
    assert chunked.states.tobytes() == one.states.tobytes()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals a subprocess")
def test_ctrl_c_stops_random_steps_of_2_to_the_40():
    code = (
        "from envs.batch import BatchEnv\n"
        "b = BatchEnv('kuhn_poker_v0', 64, threads=1); b.reset(seed=0); b.random_steps(1)\n"
        "print('playing', flush=True)\n"
        "b.random_steps(2**40)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background job's children ignore it
    )
    try:
        assert proc.stdout.readline() == "playing\n"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
