"""Horizonte's determinization for search agents, made independent of the hidden deal it replaces.

``core.determinize`` resamples the other hands (respecting known voids), their secret
predictions and the generator, drawing from ``seed`` only; but it gathers the hidden cards
hand by hand, so the order it shuffles (and so its result) depends on who really holds
what. Dealing the hidden cards out in card order first makes the result a function of the
seat's information and the seed alone: two states the seat cannot tell apart determinize
to the same state.
"""

import numpy as np
from numba import njit

from envs.horizonte.core import determinize as resample
from envs.horizonte.rules import NUM_CARDS, PHASE_PREDICT


@njit(cache=True)
def determinize(s: np.void, seat: int, seed: np.uint64) -> None:
    """Canonical hidden hands (card order, seat order), then ``core.determinize`` from ``seed``."""
    n = s.num_players
    hidden = np.zeros(NUM_CARDS, np.uint8)
    for q in range(n):
        if q != seat:
            for c in range(NUM_CARDS):
                if s.hand[q, c]:
                    hidden[c] = 1
                    s.hand[q, c] = 0
            if s.phase == PHASE_PREDICT and s.prediction[q] >= 0:  # still secret
                s.prediction[q] = 0
    q = 0
    room = 0
    for c in range(NUM_CARDS):
        if hidden[c]:
            while q < n and (q == seat or room >= s.hand_count[q]):
                q += 1
                room = 0
            if q >= n:  # more hidden cards than hand sizes: not a valid state; leave the rest out
                break
            s.hand[q, c] = 1
            room += 1
    resample(s, seat, seed)
