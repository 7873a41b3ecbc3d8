"""RLlib episodes built in batch: a vector env's recorded steps cut into ``SingleAgentEpisode`` chunks.

RLlib's own env runner appends every game's every step to its episode object one at a time (Python
work per decision: the ceiling of the vector-env route, docs/training.md). Here a whole ``sample()``
is recorded as arrays, step by game, and each game's rows are cut at its episode ends into chunks
whose buffers are numpy slices of those arrays: the work is per episode, not per decision.

Gymnasium's NEXT_STEP autoreset: the step after a game ends is a reset step for that game (its action is
ignored, its observation is the next game's first), so it is not a timestep of any episode.
"""

import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer


@dataclass
class Recording:
    """One ``sample()``: ``T`` vector steps of ``N`` games, observations ``T + 1`` deep (the last is the next start)."""

    observations: dict[str, np.ndarray]  # key -> (T + 1, N, ...)
    actions: np.ndarray  # (T, N)
    rewards: np.ndarray  # (T, N)
    terminated: np.ndarray  # (T, N) bool
    truncated: np.ndarray  # (T, N) bool
    reset_step: np.ndarray  # (T, N) bool: the game restarted at this step (its action was ignored)
    extra: dict[str, np.ndarray] = field(default_factory=dict)  # key -> (T, N, ...): logp, dist inputs


@dataclass
class GameThread:
    """Where each game's current episode stands between ``sample()`` calls: its id and timesteps so far."""

    ids: list[str]
    t: np.ndarray  # (N,) timesteps of the current episode already returned in earlier chunks
    ret: np.ndarray  # (N,) its return so far

    @classmethod
    def fresh(cls, n: int) -> "GameThread":
        return cls([uuid.uuid4().hex for _ in range(n)], np.zeros(n, np.int64), np.zeros(n, np.float64))


def _buffer(data: Any) -> InfiniteLookbackBuffer:
    """A finalized (numpy) buffer with no lookback over ``data``; no space (RLlib derives its struct per buffer)."""
    return InfiniteLookbackBuffer(data=data, lookback=0)


def _chunk(rec: Recording, game: int, start: int, stop: int, ended: bool, thread: GameThread) -> Any:
    """The episode chunk of ``game``: steps ``start..stop-1`` (observations ``start..stop``)."""
    obs = {k: v[start : stop + 1, game] for k, v in rec.observations.items()}
    episode = SingleAgentEpisode(
        thread.ids[game],
        observations=_buffer(obs),
        infos=_buffer([{}] * (stop + 1 - start)),
        actions=_buffer(rec.actions[start:stop, game]),
        rewards=_buffer(rec.rewards[start:stop, game]),
        terminated=bool(ended and rec.terminated[stop - 1, game]),
        truncated=bool(ended and rec.truncated[stop - 1, game]),
        extra_model_outputs={k: _buffer(v[start:stop, game]) for k, v in rec.extra.items()},
        t_started=int(thread.t[game]),
        len_lookback_buffer=0,
    )
    thread.t[game] += stop - start
    thread.ret[game] += float(rec.rewards[start:stop, game].sum())
    return episode


def cut_episodes(
    rec: Recording, thread: GameThread
) -> tuple[list[SingleAgentEpisode], list[int], list[tuple[int, float]]]:
    """Every game's chunks of ``rec`` in order, the game of each, and (length, return) per finished episode.

    ``thread`` carries episode ids, lengths and returns across calls; a finished episode's successor gets a new id.
    The chunks carry no spaces (the learner reads their arrays: ``training.learner_batch``).
    """
    steps = rec.actions.shape[0]
    ends = rec.terminated | rec.truncated
    out: list[SingleAgentEpisode] = []
    games: list[int] = []
    finished: list[tuple[int, float]] = []
    for game in range(rec.actions.shape[1]):
        start = 0
        for t in np.flatnonzero(ends[:, game] | rec.reset_step[:, game]):
            t = int(t)
            if rec.reset_step[t, game]:  # a new game begins with the observation after step t
                start = t + 1
                continue
            out.append(_chunk(rec, game, start, t + 1, True, thread))
            games.append(game)
            finished.append((int(thread.t[game]), float(thread.ret[game])))
            thread.ids[game], thread.t[game], thread.ret[game] = uuid.uuid4().hex, 0, 0.0
            start = t + 1
        if start < steps:  # the game goes on: its chunk so far (the next call continues it)
            out.append(_chunk(rec, game, start, steps, False, thread))
            games.append(game)
    return out, games, finished
