"""Shared by the play tests: run `tabuleiro play` as a subprocess, and find the human's turns in a replay."""

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from envs.replay import Replay, make_env, steps

ROOT = Path(__file__).resolve().parents[2]
HEADER = "=== your move "


def run_play(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    """`python -m tabuleiro play ARGS` fed ``stdin``; text output captured."""
    return subprocess.run(
        [sys.executable, "-m", "tabuleiro", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


def screens(stdout: str) -> list[str]:
    """What the human saw before each decision: from a turn's header to its first prompt."""
    out = []
    for chunk in stdout.split(HEADER)[1:]:
        out.append(HEADER + chunk.split("your move>", 1)[0])
    return out


def decision_points(replay: Replay, seat: int) -> Iterator[tuple[object, object, list[str]]]:
    """(game, a copy of the state record, the legal move names) at each point where ``seat`` had to choose."""
    env = make_env(replay)
    for _ in steps(replay, env):
        if not all(env.terminations.values()) and env.agent_selection == f"player_{seat}":
            states = env.game.new_state()
            states[0] = env.core_state
            yield env.game, states[0], [env.action_name(a) for a in env.legal_actions()]
