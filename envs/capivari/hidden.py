"""What no Capivari seat sees, for a privileged critic: the order of the deck's cards (their capybara sides)."""

import numpy as np

from envs.capivari.rules import AVAILABLE_TARGET, NUM_CARDS, NUM_SEGMENTS

DECK_CARDS = NUM_CARDS - NUM_SEGMENTS - AVAILABLE_TARGET  # 11: the deck after the setup lays out 7 cards


def deck_order(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Row k of each game's block: the one-hot card id of the deck's k-th card from the top (zeros past its
    end), ``float32[num_games, DECK_CARDS * NUM_CARDS]``; the same for both seats, who see none of it."""
    n = len(states)
    position = states["deck_pos"].astype(np.int64)[:, None] + np.arange(DECK_CARDS)
    inside = position < states["deck_len"].astype(np.int64)[:, None]
    cards = np.take_along_axis(states["deck"].astype(np.int64), np.minimum(position, NUM_CARDS - 1), axis=1)
    out = np.zeros((n, DECK_CARDS, NUM_CARDS), np.float32)
    games, rows = np.nonzero(inside)
    out[games, rows, cards[games, rows]] = 1.0
    return out.reshape(n, DECK_CARDS * NUM_CARDS)
