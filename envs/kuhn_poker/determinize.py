"""Kuhn poker's determinization for search agents: resample what a seat cannot see.

A seat sees its own card and every move; it does not see the other seat's card, except after a
showdown. So a determinization deals the other seat one of the two cards ``seat`` does not hold,
uniformly, from a generator seeded from ``seed`` only, and reseeds ``s.rng`` from ``seed`` too.
The result depends on the seat's information and the seed, never on the card it replaced.
"""

import numpy as np
from numba import njit

from envs.engine.rng import rng_below, rng_next, rng_seed
from envs.kuhn_poker.core import folded
from envs.kuhn_poker.rules import NUM_CARDS


@njit(cache=True)
def determinize(s: np.void, seat: int, seed: np.uint64) -> None:
    """Resample in place the other seat's card (unless a showdown showed it) and the future chance."""
    rng_seed(s, seed)
    if not (s.done and not folded(s)):
        s.cards[1 - seat] = (s.cards[seat] + 1 + rng_below(s, NUM_CARDS - 1)) % NUM_CARDS
    rng_seed(s, rng_next(s))
