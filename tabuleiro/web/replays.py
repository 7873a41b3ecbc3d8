"""A replay opened in the browser: re-simulated once, exactly as `tabuleiro replay` does, its states kept so the
page can step forward and back and show any seat's view (or the full one) at every step."""

import json
from pathlib import Path
from typing import Any

import numpy as np

from envs.replay import MAX_SEATS, add_rewards, check_outcome, from_dict, make_env, steps
from tabuleiro.web.views import log_line, table_view

MAX_REPLAY_BYTES = 1024**2  # a real replay is a few kilobytes
MAX_REPLAY_STEPS = 20_000  # every step's state is kept in memory


def parse_replay(raw: bytes) -> Any:
    """A Replay from uploaded bytes; ValueError saying what is wrong."""
    if len(raw) > MAX_REPLAY_BYTES:
        raise ValueError(f"a replay is at most {MAX_REPLAY_BYTES // 1024} KB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError) as exc:
        raise ValueError(f"not a replay: not valid JSON text ({type(exc).__name__})") from None
    replay = from_dict(data)
    if len(replay.actions) > MAX_REPLAY_STEPS:
        raise ValueError(f"this replay has {len(replay.actions)} moves; the browser shows at most {MAX_REPLAY_STEPS}")
    return replay


class ReplayView:
    """Every state of a replay's game, checked against its recorded outcome."""

    def __init__(self, replay: Any, name: str) -> None:
        env = make_env(replay, render_mode=None)
        self.name, self.replay, self.game = name, replay, env.game
        self.players = len(env.possible_agents)
        self.states: list[np.ndarray] = []
        self.movers: list[int] = []
        self.actions: list[int] = []
        returns = [0.0] * self.players
        for step in steps(replay, env):
            if step.index:
                add_rewards(returns, env)
                self.movers.append(step.seat)
                self.actions.append(self.game.action_from_name(step.action))
            self.states.append(env._states.copy())
        check_outcome(replay, env, returns)

    def view(self, index: int, seat: int | None) -> dict[str, Any]:
        """Step ``index`` (0: the start) as ``seat`` saw it (None: everything)."""
        if not 0 <= index < len(self.states):
            raise ValueError(f"step must be 0..{len(self.states) - 1}, got {index}")
        if seat is not None and not 0 <= seat < min(self.players, MAX_SEATS):
            raise ValueError(f"seat must be 0..{self.players - 1} or 'all', got {seat}")
        out = table_view(self.game, self.states[index][0], seat, [])
        out.update(
            game=self.game.name,
            name=self.name,
            seat=seat,
            players=self.players,
            agents=self.replay.agents,
            step=index,
            steps=len(self.states) - 1,
            log=[
                log_line(self.game, m, a, seat) for m, a in zip(self.movers[:index], self.actions[:index], strict=True)
            ],
        )
        if index == len(self.states) - 1:
            out["returns"] = self.replay.returns
        return out


def replay_files(folder: Path | None) -> list[str]:
    """The replay files (``*.json``) directly in ``folder``, by name."""
    if folder is None or not folder.is_dir():
        return []
    return sorted(p.name for p in folder.glob("*.json") if p.is_file())


def read_replay_file(folder: Path | None, name: str) -> bytes:
    """The bytes of a replay listed in ``folder`` (only a listed name: never a path from the request)."""
    if name not in replay_files(folder):
        raise LookupError(f"no replay named {name!r} in the replays folder")
    with open(folder / name, "rb") as f:
        return f.read(MAX_REPLAY_BYTES + 1)
