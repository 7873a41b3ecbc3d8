"""IS-MCTS hooks for Capivari: the utility the shared loop (agents.search.ismcts_loop) backs up."""

import numpy as np
from numba import njit


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """A match win is 1, a loss 0, a draw 0.5: the match reward (+1 / -1 / 0) mapped to [0, 1]."""
    for p in range(util.shape[0]):
        util[p] = 0.5 + 0.5 * min(1.0, max(-1.0, returns[p]))
