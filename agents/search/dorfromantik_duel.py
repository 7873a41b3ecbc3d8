"""IS-MCTS for Dorfromantik: The Duel, compiled against the Duel's core and determinization.

Random placements wreck a landscape, so random playouts to the end say little about a
placement: here the tree's leaves are scored directly (``ROLLOUT_STEPS = 0``) with the
greedy heuristic's board value (pad total plus open tasks and flag territories, minus
mismatched edges), seat 0's held-back choice placed first. Each seat's utility is its own
board value, not the margin: the boards are separate, and the margin would drown the
effect of my placement in the noise of the opponent's; for the same reason the tree holds
only my own placements (the opponent places at random in between), so the search reaches
my next turns, with the next tiles drawn by the determinization; and the root is narrowed
to the greedy heuristic's best few placements. At the end the result counts too.
"""

import numpy as np
from numba import njit

from agents.heuristics.dorfromantik_duel import action_values, board_value
from agents.search.kernel import compile_search
from envs.dorfromantik_duel.core import (  # noqa: F401
    NO_TILE,
    determinize,
    legal_into,
    neighbour,
    play_action,
    score_board,
    step,
    tile_edge,
)
from envs.dorfromantik_duel.kernels import pick_random_action, random_playout  # noqa: F401
from envs.dorfromantik_duel.rules import NUM_ROT
from envs.engine.rng import splitmix64

ROLLOUT_STEPS = 0  # evaluate where the tree ends
OPPONENTS_IN_TREE = False  # separate boards: the opponent's placements are noise to my search
EXPLORATION = 0.05  # UCB constant: leaf values after one placement are exact, little to explore
VALUE_PER_TURN = 2.0  # a board's value grows about this much a turn (heuristic games: ~90 in 45 turns)
VALUE_SCALE = 6.0  # board value above that pace which moves the utility from 0.5 to ~0.73
ROOT_CANDIDATES = 12  # placements searched at the root: the greedy heuristic's best
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


@njit(cache=True)
def expand_action(s: np.void, untried: np.ndarray, n_untried: int, r: np.uint64) -> int:
    """The untried placement matching most touching edges (ties at random): good moves get looked at first."""
    p = s.current
    best = untried[0]
    best_score = -1e9
    for i in range(n_untried):
        a = untried[i]
        r = splitmix64(r)
        score = (r >> np.uint64(11)) * (0.5 / 9007199254740992.0)  # jitter in [0, 0.5): random tie-break
        c = a // NUM_ROT
        rot = a % NUM_ROT
        if s.tile >= 0 and c < s.cell_tile.shape[1]:
            for d in range(NUM_ROT):
                nb = neighbour(s.radius, c, d)
                if nb >= 0 and s.cell_tile[p, nb] != NO_TILE:
                    score += 1.0 if tile_edge(s.tile, rot, d) == s.cell_edge[p, nb, (d + 3) % NUM_ROT] else -1.0
        if score > best_score:
            best_score = score
            best = a
    return best


def root_candidates(root: np.ndarray, seat: int, game: object, seed: int, root_mask: np.ndarray) -> None:
    """Narrow the root to the greedy heuristic's ``ROOT_CANDIDATES`` best placements (judged on a
    determinized copy, so on public information only): a tile has ~100-300 placements, too many
    to look past the first move of each within a second."""
    state = root.copy()
    determinize(state[0], seat, np.uint64(seed))
    mask = np.zeros(root_mask.shape[0], np.int8)
    legal_into(state[0], mask)
    values = np.empty(mask.shape[0])
    work = np.zeros_like(state)
    action_values(state, state.view(np.uint8), work, work.view(np.uint8), seat, mask, values)
    legal = np.flatnonzero(mask)
    keep = legal[np.argsort(-values[legal], kind="stable")[:ROOT_CANDIDATES]]
    root_mask[:] = 0
    root_mask[keep] = 1


compile_search(globals())
