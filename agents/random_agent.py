"""Uniform random play over the legal actions, seeded."""

from typing import Any

import numpy as np


class RandomAgent:
    """Picks uniformly among the legal actions of the mask (its own seeded generator)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        return int(legal[self._rng.integers(legal.size)])
