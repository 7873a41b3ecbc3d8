"""The self-play opponent pool: which kind of opponent fills the seats "main" does not play, drawn per episode.

Kinds: ``random``; ``heuristic`` (the game's rule-based agent, when the agent registry has one);
``snapshot`` (a frozen copy of main, added when main wins often enough); ``self`` (main in every
seat, a mirror game). Draws come from the env's own seeded generator, so a seed fixes the sequence.
"""

import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

import envs
from agents.random_agent import RandomAgent
from agents.registry import make_agent

KINDS = ("random", "heuristic", "snapshot", "self")


@dataclass(frozen=True)
class PoolWeights:
    """Relative probability of each opponent kind; kinds not available yet (no snapshot so far) are skipped."""

    random: float = 0.2
    heuristic: float = 0.5
    snapshot: float = 0.3
    self: float = 0.0

    def __post_init__(self) -> None:
        for kind, w in asdict(self).items():
            if not (isinstance(w, (int, float)) and w >= 0):
                raise ValueError(f"pool weight {kind!r} must be a number >= 0, got {w!r}")
        if sum(asdict(self).values()) <= 0:
            raise ValueError("at least one pool weight must be > 0")

    @classmethod
    def parse(cls, text: str) -> "PoolWeights":
        """``"random=0.2,heuristic=0.5,snapshot=0.3"`` (kinds left out weigh 0)."""
        values = dict.fromkeys(KINDS, 0.0)
        for part in filter(None, (p.strip() for p in text.split(","))):
            kind, _, w = part.partition("=")
            if kind not in values:
                raise ValueError(f"unknown opponent kind {kind!r}; kinds: {list(KINDS)}")
            try:
                values[kind] = float(w)
            except ValueError:
                raise ValueError(f"pool weight for {kind!r} must be a number, got {w!r}") from None
        return cls(**values)


def make_heuristic(game: str, seed: int | None = None) -> Any | None:
    """The game's heuristic agent from the agent registry, or None where the game declares none."""
    if envs.spec(game).heuristic is None:
        return None
    try:
        return make_agent("heuristic", game, seed)
    except (ValueError, KeyError, NotImplementedError, TypeError) as exc:
        warnings.warn(f"no heuristic agent for {game}: {exc}", stacklevel=2)
        return None


class OpponentPool:
    """Opponent agents for one env: draws a kind per episode and hands out one agent per opponent seat."""

    def __init__(self, game: str, num_seats: int, weights: PoolWeights) -> None:
        self.game = game
        self.weights = weights
        n_opp = num_seats - 1
        self._random = [RandomAgent() for _ in range(n_opp)]
        heuristic = [make_heuristic(game) for _ in range(n_opp)] if weights.heuristic else []
        self._heuristic = heuristic if heuristic and all(h is not None for h in heuristic) else []
        self.snapshots: dict[str, Any] = {}  # name -> agent acting from a frozen copy of main

    def available(self) -> list[str]:
        """Kinds that can be drawn now."""
        have = {
            "random": True,
            "heuristic": bool(self._heuristic),
            "snapshot": bool(self.snapshots),
            "self": True,
        }
        return [k for k in KINDS if have[k] and getattr(self.weights, k) > 0] or ["random"]

    def draw(self, rng: np.random.Generator) -> tuple[str, str, list[Any]]:
        """(kind, opponent name, agents for the opponent seats) for one episode; agents are reset from ``rng``."""
        kinds = self.available()
        w = np.array([getattr(self.weights, k) for k in kinds], dtype=np.float64)
        kind = kinds[int(rng.choice(len(kinds), p=w / w.sum()))] if w.sum() > 0 else "random"
        if kind == "random":
            agents, name = self._random, "random"
        elif kind == "heuristic":
            agents, name = self._heuristic, "heuristic"
        elif kind == "snapshot":
            names = sorted(self.snapshots)
            name = names[int(rng.integers(len(names)))]
            agents = [self.snapshots[name]] * len(self._random)
        else:
            return kind, "self", []
        for agent in agents:
            agent.reset(int(rng.integers(2**63)))
        return kind, name, agents
