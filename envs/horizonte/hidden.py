"""What a Horizonte seat does not see, for a privileged critic: the other seats' hands and secret predictions."""

import numpy as np

from envs.horizonte.rules import MAX_PLAYERS, NUM_CARDS

BLOCK = NUM_CARDS + 2  # a hand's cards, then whether the prediction is chosen and its share of the maximum


def other_hands(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Block k - 1 of each game: seat (seat + k)'s hand (one number a card) and prediction, for k = 1 ..
    players - 1; zeros for the seats a smaller table lacks. ``float32[num_games, (MAX_PLAYERS - 1) * BLOCK]``."""
    n = len(states)
    out = np.zeros((n, MAX_PLAYERS - 1, BLOCK), np.float32)
    players = states["num_players"].astype(np.int64)
    games = np.arange(n)
    top = np.maximum(states["max_prediction"].astype(np.float32), 1.0)
    for k in range(1, MAX_PLAYERS):
        here = k < players
        other = (seats.astype(np.int64) + k) % np.maximum(players, 1)
        prediction = states["prediction"][games, other].astype(np.float32)
        block = out[:, k - 1]
        block[:, :NUM_CARDS] = states["hand"][games, other]
        block[:, NUM_CARDS] = prediction >= 0
        block[:, NUM_CARDS + 1] = np.where(prediction >= 0, prediction / top, 0.0)
        block[~here] = 0.0
    return out.reshape(n, (MAX_PLAYERS - 1) * BLOCK)
