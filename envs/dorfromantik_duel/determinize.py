"""The Duel's determinization for search agents, made independent of the hidden order it replaces.

``core.determinize`` reshuffles the face-down stacks and markers (and, for seat 1, picks a
hidden choice of seat 0) from ``seed`` only, but it shuffles them from their current
order, so its result depends on that hidden order. Sorting the hidden parts first (and
forgetting seat 0's pending choice when seat 1 searches) makes the result a function of
the seat's information and the seed alone.
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.core import determinize as resample
from envs.dorfromantik_duel.rules import NUM_MARKER_TYPES


@njit(cache=True)
def determinize(s: np.void, seat: int, seed: np.uint64) -> None:
    """Hidden stacks and markers in sorted order, then ``core.determinize`` from ``seed``."""
    s.land[s.land_pos : s.land_len].sort()
    s.task[s.task_pos : s.task_n].sort()
    for t in range(NUM_MARKER_TYPES):
        s.markers[t, s.markers_pos[t] : s.markers_n[t]].sort()
    if seat == 1 and s.current == 1:
        s.pending[0] = -1
    resample(s, seat, seed)
