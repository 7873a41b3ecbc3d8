"""IS-MCTS hooks for Kuhn poker: the utility the shared loop (agents.search.ismcts_loop) backs up."""

import numpy as np
from numba import njit

MAX_WON = 2.0  # the most chips a hand wins or loses (ante + bet)


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """Chips won, -2..+2, mapped linearly to [0, 1]: the search maximizes expected chips, not wins."""
    for p in range(util.shape[0]):
        util[p] = 0.5 + 0.5 * min(1.0, max(-1.0, returns[p] / MAX_WON))
