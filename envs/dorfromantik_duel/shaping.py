"""Reward-shaping potentials for training on the Duel: the public score pad, read from every game's record."""

import numpy as np


def margin(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """My running total minus the opponent's, in tens of points (the public score pad)."""
    total = states["total"].astype(np.float64)
    games = np.arange(len(seats))
    return (total[games, seats] - total[games, 1 - seats]) / 10.0


def own_score(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """My running total alone, in tens of points. The boards are separate, so the opponent's points do not
    depend on my placements: left out, they add no noise to my rewards."""
    games = np.arange(len(seats))
    return states["total"].astype(np.float64)[games, seats] / 10.0
