"""IS-MCTS for Dorfromantik: The Duel, compiled against the Duel's core and determinization.

Random placements wreck a landscape, so random playouts to the end say little about a
placement: here the tree's leaves are scored directly (``ROLLOUT_STEPS = 0``) with the
greedy heuristic's board value (pad total plus open tasks and flag territories, minus
mismatched edges), seat 0's held-back choice placed first. Each seat's utility is its own
board value, not the margin: the boards are separate, and the margin would drown the
effect of my placement in the noise of the opponent's; for the same reason the tree holds
only my own placements (the opponent places at random in between), so the search reaches
my next turns, with the next tiles drawn by the determinization. At the end the result
counts too.
"""

import numpy as np
from numba import njit

from agents.heuristics.dorfromantik_duel import board_value
from agents.search.kernel import compile_search
from envs.dorfromantik_duel.core import legal_into, play_action, score_board, step  # noqa: F401
from envs.dorfromantik_duel.determinize import determinize  # noqa: F401
from envs.dorfromantik_duel.kernels import pick_random_action, random_playout  # noqa: F401

ROLLOUT_STEPS = 0  # evaluate where the tree ends
OPPONENTS_IN_TREE = False  # separate boards: the opponent's placements are noise to my search
EXPLORATION = 0.05  # UCB constant: leaf values after one placement are exact, little to explore
VALUE_PER_TURN = 2.0  # a board's value grows about this much a turn (heuristic games: ~90 in 45 turns)
VALUE_SCALE = 6.0  # board value above that pace which moves the utility from 0.5 to ~0.73
WIN_WEIGHT = 0.5  # at the end: a win is worth this much on top of the board part


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """Each seat's squashed board value against the pace of the turn, plus the result at the end; in [0, 1].

    ``s`` is scratch (the search's working copy): seat 0's pending choice is placed in it."""
    if not s.done and s.pending[0] >= 0:
        play_action(s, 0, s.pending[0])
        s.pending[0] = -1
        score_board(s, 0)
    for p in range(2):
        part = 1.0 / (1.0 + np.exp(-(board_value(s, p) - VALUE_PER_TURN * s.turn) / VALUE_SCALE))
        if s.done:
            util[p] = (1.0 - WIN_WEIGHT) * part + WIN_WEIGHT * (0.5 + 0.5 * returns[p])
        else:
            util[p] = part


compile_search(globals())
