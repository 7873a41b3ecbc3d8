"""IS-MCTS for Kuhn poker: the shared loop compiled against Kuhn poker's core and determinization."""

import numpy as np
from numba import njit

from envs.kuhn_poker.core import legal_into, step  # noqa: F401
from envs.kuhn_poker.determinize import determinize  # noqa: F401
from envs.kuhn_poker.kernels import pick_random_action, random_playout  # noqa: F401

MAX_WON = 2.0  # the most chips a hand wins or loses (ante + bet)


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """Chips won, -2..+2, mapped linearly to [0, 1]: the search maximizes expected chips, not wins."""
    for p in range(util.shape[0]):
        util[p] = 0.5 + 0.5 * min(1.0, max(-1.0, returns[p] / MAX_WON))
