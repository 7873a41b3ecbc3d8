"""The Duel's determinization for search agents: resample what a seat cannot see (the stacks' and
markers' order, future chance, and to seat 1 a choice of seat 0 not yet revealed)."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.grid import action_count
from envs.dorfromantik_duel.placement import legal_for
from envs.dorfromantik_duel.rules import NUM_MARKER_TYPES
from envs.engine.rng import rng_below, rng_seed, rng_shuffle


@njit(cache=True)
def determinize(s, seat: int, seed: np.uint64) -> None:
    """Resample what ``seat`` cannot see: the order of both stacks (which 3 landscape tiles are
    boxed included), the face-down markers' order, future chance, and for seat 1 a choice of
    seat 0 not yet revealed (any legal one). Public facts (boards, counts, seen tiles) stay.
    The hidden parts are sorted first, so the result depends on the seat's view and ``seed`` only."""
    s.land[s.land_pos : s.land_len].sort()
    s.task[s.task_pos : s.task_n].sort()
    for t in range(NUM_MARKER_TYPES):
        s.markers[t, s.markers_pos[t] : s.markers_n[t]].sort()
    rng_seed(s, seed)
    rng_shuffle(s, s.land[s.land_pos :], s.land_len - s.land_pos)
    rng_shuffle(s, s.task[s.task_pos :], s.task_n - s.task_pos)
    for t in range(NUM_MARKER_TYPES):
        rng_shuffle(s, s.markers[t, s.markers_pos[t] :], s.markers_n[t] - s.markers_pos[t])
    if seat == 1 and not s.done and s.current == 1 and s.acts[0]:
        mask = np.zeros(action_count(s), np.int8)
        s.current = 0
        n = legal_for(s, np.int64(s.current), mask)
        s.current = 1
        k = rng_below(s, n)
        for a in range(mask.shape[0]):
            if mask[a]:
                if k == 0:
                    s.pending[0] = a
                    break
                k -= 1
