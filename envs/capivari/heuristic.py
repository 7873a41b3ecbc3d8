"""Capivari heuristic: one-ply lookahead on the round score, pushes and modifiers included.

For each legal action the heuristic plays it on a determinized copy of the table (the
core's own ``step``, so push chains, a 1 pushing a 5, Capionça pushes, flips and swaps and
every segment's modifier count exactly as in the rules) and scores the river: my modified
total minus the opponent's. If the move ends the round, the round's recorded score is used
instead, and a move that wins (loses) the match is worth far more (less) than any margin.
Only the cards the seat can see matter: the lookahead never draws a hidden card.
"""

import numpy as np
from numba import njit

from envs.capivari.core import river_score, step
from envs.engine.record import copy_record

_MATCH = 1000.0  # a match win outweighs any round margin


@njit(cache=True)
def action_values(state: np.ndarray, work: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """``out[a]``: my river total minus the opponent's right after legal action ``a`` (``state``: one record).

    The one implementation: the vector env's compiled opponents and ``Heuristic.values`` both call it;
    ``work`` is a one-record scratch array of the same dtype.
    """
    b = state[0]
    for a in range(mask.shape[0]):
        out[a] = -1e18
        if not mask[a]:
            continue
        copy_record(state, work)
        s = work[0]
        step(s, a)
        if s.rounds_done > b.rounds_done:
            r = b.rounds_done
            margin = float(s.round_scores[r, seat] - s.round_scores[r, 1 - seat])
        else:
            margin = float(river_score(s, seat) - river_score(s, 1 - seat))
        if s.done and s.winner == seat:
            margin += _MATCH
        elif s.done and s.winner == 1 - seat:
            margin -= _MATCH
        out[a] = margin
