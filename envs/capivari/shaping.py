"""Reward-shaping potentials for training on Capivari: the public match score, read from every game's record."""

import numpy as np


def round_wins(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """My round wins minus the opponent's, over the wins a match needs: a round won is worth its share of the
    match at once instead of only at the match's end (a tied round, a win for both, changes nothing)."""
    wins = states["round_wins"].astype(np.float64)
    games = np.arange(len(seats))
    need = np.maximum(states["wins_needed"].astype(np.float64), 1.0)
    return (wins[games, seats] - wins[games, 1 - seats]) / need
