"""Capivari's determinization for search agents: resample what a seat cannot see.

A seat sees everything on the table except the order of the deck below its top card
(seeds/capivari.md, "Hidden information"), and the future: later rounds' deals come from
the state's generator. So a determinization puts the hidden deck cards in a canonical
order (by card id), shuffles them with a generator seeded from ``seed`` only, and reseeds
``s.rng`` from ``seed`` too. The result depends on the seat's information and the seed,
never on the hidden order it replaced.
"""

import numpy as np
from numba import njit

from envs.engine.rng import rng_next, rng_seed, rng_shuffle


@njit(cache=True)
def determinize(s: np.void, seat: int, seed: np.uint64) -> None:
    """Resample in place the deck order below the top card and the future chance of record ``s``."""
    rng_seed(s, seed)
    lo = s.deck_pos + 1  # the top card's river side is public, and it identifies the card
    hi = s.deck_len
    if hi - lo > 1:
        hidden = s.deck[lo:hi]
        hidden.sort()
        rng_shuffle(s, hidden, hi - lo)
    rng_seed(s, rng_next(s))  # future deals: drawn from the seed as well, after the shuffle
