"""The one protocol every agent follows, whatever the game."""

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Picks an action for the seat to act.

    ``observation`` is the PettingZoo dict (``"observation"``, ``"action_mask"``) of that seat;
    ``env`` is the AEC env, which search agents may only use through the game's
    determinization (they never read hidden state).
    """

    name: str

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int: ...

    def reset(self, seed: int | None = None) -> None:
        """Called before each game, with a seed derived from the match seed."""
