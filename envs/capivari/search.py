"""IS-MCTS for Capivari: the shared loop compiled against Capivari's core and determinization."""

import numpy as np
from numba import njit

from envs.capivari.core import legal_into, step  # noqa: F401
from envs.capivari.determinize import determinize  # noqa: F401
from envs.capivari.kernels import pick_random_action, random_playout  # noqa: F401


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """A match win is 1, a loss 0, a draw 0.5: the match reward (+1 / -1 / 0) mapped to [0, 1]."""
    for p in range(util.shape[0]):
        util[p] = 0.5 + 0.5 * min(1.0, max(-1.0, returns[p]))
