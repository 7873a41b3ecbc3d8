"""The Duel's batch and rollout kernels: the shared kernel source compiled against this core, with
a faster random pick for placements (tests/dorfromantik_duel/referee.py plays whole random games)."""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.core import (  # noqa: F401
    STATE_DTYPE,
    legal_into,
    obs_size,
    observe,
    observe_into,
    reset,
    step,
)
from envs.dorfromantik_duel.grid import pass_action
from envs.dorfromantik_duel.placement import MAX_LISTED, list_placements, seat_tile
from envs.dorfromantik_duel.rules import MAX_BOARD_RADIUS, PH_PLACE, PH_SPECIAL, num_actions
from envs.engine.bits import kth_legal
from envs.engine.kernels import compile_kernels


@njit(cache=True)
def pick_random_action(s, mask, r):
    """A uniformly random legal action: placements come straight from the list of cells next to
    the seat's tiles, without building and scanning a mask of every action."""
    if s.phase == PH_PLACE or s.phase == PH_SPECIAL:
        listed = np.empty(MAX_LISTED, np.int64)
        seat = np.int64(s.current)
        n = list_placements(s, seat, seat_tile(s, seat), listed)
        if n == 0:
            return pass_action(s)
        return listed[np.uint64(r) % np.uint64(n)]
    n = legal_into(s, mask)
    return kth_legal(mask, np.uint64(r) % np.uint64(n))


# The shared batch and rollout kernels (envs.engine.kernels), compiled against this core; with
# STATE_DTYPE (the default radius's layout) also the AEC adapter's byte-buffer fast path. Their
# masks are sized NUM_ACTIONS: the largest board the config allows, so any radius is in bounds.
NUM_ACTIONS = num_actions(MAX_BOARD_RADIUS, True)
OBS_SIZE = obs_size(MAX_BOARD_RADIUS, True, True, True, True, True)
compile_kernels(globals())
