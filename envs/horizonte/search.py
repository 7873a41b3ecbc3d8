"""IS-MCTS hooks for Horizonte: the utility the shared loop (agents.search.ismcts_loop) backs up."""

import numpy as np
from numba import njit

WIN_WEIGHT = 0.7  # the rest of the utility rewards a total close to the best one


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """Finishing first (shared: split) blended with how close my total is to the lowest, in [0, 1]."""
    n = s.num_players
    low = s.score[0]
    high = s.score[0]
    for p in range(n):
        low = min(low, s.score[p])
        high = max(high, s.score[p])
    winners = 0
    for p in range(n):
        winners += s.score[p] == low
    spread = max(1.0, float(high - low))
    for p in range(util.shape[0]):
        util[p] = 0.0
    for p in range(n):
        first = 1.0 / winners if s.score[p] == low else 0.0
        util[p] = WIN_WEIGHT * first + (1.0 - WIN_WEIGHT) * (1.0 - (s.score[p] - low) / spread)
