"""Optional potential-based reward shaping per game, for games whose +-1 end reward is too sparse to learn from fast.

Main's reward at each of its decisions gets ``gamma * phi(now) - phi(at its previous decision)``, and
``-phi(previous)`` when the game ends (``phi`` of a finished game is 0). Shaping of this form leaves
the optimal policy unchanged (Ng, Harada, Russell 1999); it only tells the learner sooner which
moves helped. ``phi`` reads the acting seat's PettingZoo infos, so it sees what that seat may see.
The training metrics (win rate, mean score) always use the game's own rewards.
"""

from collections.abc import Callable
from typing import Any


def _duel_margin(info: dict[str, Any]) -> float:
    """Dorfromantik: The Duel: my running score minus the opponent's, in tens of points."""
    score = info.get("score")
    if not isinstance(score, dict) or "opponent_total" not in info:
        return 0.0
    return (float(score.get("total", 0)) - float(info["opponent_total"])) / 10.0


# name -> phi(infos of the seat) ; a game preset selects one with TrainSettings.shaping
POTENTIALS: dict[str, Callable[[dict[str, Any]], float]] = {
    "duel_margin": _duel_margin,
}


def potential(name: str) -> Callable[[dict[str, Any]], float]:
    """The potential called ``name``; ValueError naming the known ones."""
    if name not in POTENTIALS:
        raise ValueError(f"unknown reward shaping {name!r}; known: {sorted(POTENTIALS)}")
    return POTENTIALS[name]
