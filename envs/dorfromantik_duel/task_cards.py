"""Module 1 (the manual's name for this expansion), task cards: one card revealed per landscape at
setup, the closed-5+ cards claimed at the end of each turn, the other cards scored on the pad as if
the game ended now."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.areas import closed_territories
from envs.dorfromantik_duel.rules import (
    CARD_CLOSED,
    CARD_MANY,
    CARD_MOST,
    CLOSED_CARD_POINTS,
    CLOSED_CARD_SIZE,
    COUNTED_SIZE,
    MANY_CARD_POINTS,
    MOST_CARD_POINTS,
)
from envs.engine.rng import rng_below

MANY_POINTS = np.array(MANY_CARD_POINTS, np.int64)


@njit(cache=True)
def draw_task_cards(s) -> None:
    """Module 1 setup: of each landscape's three cards one is revealed at random."""
    for k in range(3):
        s.cards[k] = rng_below(s, 3)


@njit(cache=True)
def score_task_cards(s, p: int) -> int:
    """Module 1 as if the game ended now: the closed-5+ cards keep what they scored during play;
    most closed 2+: 8 more, 4 fewer, 6 each when equal; many closed 2+: by the card's table."""
    total = 0
    for k in range(3):
        mine = closed_territories(s, p, k, np.int64(COUNTED_SIZE))
        s.closed2[p, k] = mine
        if s.cards[k] == CARD_MOST:
            theirs = closed_territories(s, 1 - p, k, np.int64(COUNTED_SIZE))
            if mine > theirs:
                s.card_points[p, k] = MOST_CARD_POINTS[0]
            elif mine < theirs:
                s.card_points[p, k] = MOST_CARD_POINTS[1]
            else:
                s.card_points[p, k] = MOST_CARD_POINTS[2]
        elif s.cards[k] == CARD_MANY:
            s.card_points[p, k] = MANY_POINTS[min(mine, MANY_POINTS.shape[0] - 1)]
        total += s.card_points[p, k]
    return total


@njit(cache=True)
def claim_closed_cards(s) -> None:
    """End of a turn: a closed-5+ card scores 8 for the first to have such a territory, 4 for the
    second; both in the same turn: 6 each. Once per player."""
    for k in range(3):
        if s.cards[k] != CARD_CLOSED:
            continue
        new = np.zeros(2, np.bool_)
        for p in range(2):
            new[p] = s.card_points[p, k] == 0 and closed_territories(s, p, k, np.int64(CLOSED_CARD_SIZE)) > 0
        for p in range(2):
            if not new[p]:
                continue
            if new[1 - p]:
                s.card_points[p, k] = CLOSED_CARD_POINTS[2]
            elif s.card_points[1 - p, k] > 0:
                s.card_points[p, k] = CLOSED_CARD_POINTS[1]
            else:
                s.card_points[p, k] = CLOSED_CARD_POINTS[0]
