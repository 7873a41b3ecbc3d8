"""Horizonte's determinization for search agents (``Horizonte.determinize_fn``).

``determinize`` resamples what a seat cannot see: the other hands (same sizes, respecting the
suits each seat has shown it lacks), their secret predictions and the generator, drawing from
``seed`` only. It first deals the hidden cards out in card order (``_canonical``), so that the
result is a function of the seat's information and the seed alone: two states the seat cannot
tell apart determinize to the same state. Then ``_resample`` shuffles them out again.
"""

import numpy as np
from numba import njit

from envs.engine.rng import rng_below, rng_seed, rng_shuffle
from envs.horizonte.rules import CARD_SUIT, NUM_CARDS, NUM_SUITS, PHASE_PREDICT


@njit(cache=True)
def determinize(s: np.void, seat: int, seed: np.uint64) -> None:
    """Canonical hidden hands (card order, seat order), then resampled from ``seed``."""
    _canonical(s, seat)
    _resample(s, seat, seed)


@njit(cache=True)
def _canonical(s: np.void, seat: int) -> None:
    """The hidden cards dealt to the other seats in card order (hand sizes kept), unrevealed
    predictions set to 0: what the seat cannot tell apart, made one state."""
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


@njit(cache=True)
def _deal_feasible(s: np.void, seat: int, left: np.ndarray, room: np.ndarray) -> bool:
    """Hall's condition: every set of suits still to place fits in the seats not void in one of them."""
    n = s.num_players
    for subset in range(1, 1 << NUM_SUITS):
        need = 0
        for u in range(NUM_SUITS):
            if subset & (1 << u):
                need += left[u]
        cap = 0
        for p in range(n):
            if p != seat:
                for u in range(NUM_SUITS):
                    if subset & (1 << u) and not s.void[p, u]:
                        cap += room[p]
                        break
        if need > cap:
            return False
    return True


@njit(cache=True)
def _resample(s: np.void, seat: int, seed: np.uint64) -> None:
    """Deal the other hands' cards out again at random (same sizes, respecting known voids), redraw
    their secret predictions, reseed the generator (future deals). Draws from `seed` only."""
    n = s.num_players
    rng_seed(s, seed)
    pool = np.empty(NUM_CARDS, np.int8)
    left = np.zeros(NUM_SUITS, np.int64)
    room = np.zeros(n, np.int64)
    m = 0
    for p in range(n):
        if p != seat:
            room[p] = s.hand_count[p]
            for c in range(NUM_CARDS):
                if s.hand[p, c]:
                    pool[m] = c
                    m += 1
                    left[CARD_SUIT[c]] += 1
                    s.hand[p, c] = 0
    rng_shuffle(s, pool, m)
    for i in range(m):
        c = pool[i]
        u = CARD_SUIT[c]
        left[u] -= 1
        start = rng_below(s, n)
        chosen = -1
        for j in range(n):
            p = (start + j) % n
            if p != seat and room[p] > 0 and not s.void[p, u]:
                room[p] -= 1
                if _deal_feasible(s, seat, left, room):
                    chosen = p
                    break
                room[p] += 1
        if chosen < 0:  # unreachable from a valid state (the real deal satisfies the constraints)
            for p in range(n):
                if p != seat and room[p] > 0:
                    room[p] -= 1
                    chosen = p
                    break
        s.hand[chosen, c] = 1
    for p in range(n):
        if p != seat:
            for c in range(NUM_CARDS):
                s.dealt[p, c] = s.hand[p, c] | s.played[p, c]
            if s.phase == PHASE_PREDICT and s.prediction[p] >= 0:
                s.prediction[p] = rng_below(s, s.max_prediction + 1)
