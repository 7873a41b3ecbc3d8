"""IS-MCTS for Dorfromantik: The Duel, compiled against the Duel's core and determinization.

The greedy heuristic is strong here because the boards are separate: a placement matters
through my own board only, and random placements wreck a landscape, so random playouts say
little. The search is therefore a flat, determinized greedy lookahead on top of the heuristic:

- the root is narrowed to the heuristic's ``ROOT_CANDIDATES`` best placements, and the tree
  holds only those (``MAX_TREE_DEPTH = 1``);
- each iteration determinizes the record for my seat (the stacks' order and the face-down
  markers resampled: the next tiles are drawn from what is still unseen), makes one
  candidate placement, then plays ``LOOKAHEAD_TURNS`` more turns in which both seats place
  greedily on the heuristic's board value (``greedy_action``: each placement tried with the
  rules' ``place_tile`` and taken back, ``heuristic.placement_value``, among the ``SHORTLIST``
  best by edge matches, or the ``OPPONENT_SHORTLIST`` best for the opponent, whose board only
  steers when task tiles come);
- the leaf is scored by my board value (pad total plus open tasks and flag territories,
  minus mismatched edges; at the end of the game the pad total alone, plus the result)
  against the pace of the turn, squashed into [0, 1]. Each seat's utility is its own board
  value, not the margin: the opponent's board would only add noise;
- the candidates are searched uniformly (``EXPLORATION = inf``), one round of them a
  determinization (``SHARED_DETERMINIZATIONS = 0``): each is tried on the same tile
  sequences as the others (common random numbers), and the one of best mean utility is
  played (``PLAY_BY_VALUE``).
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.determinize import determinize
from envs.dorfromantik_duel.heuristic import action_values, board_value, placement_value
from envs.dorfromantik_duel.placement import legal_into
from envs.dorfromantik_duel.rules import NUM_ROT, PH_PLACE
from envs.dorfromantik_duel.simulation import (
    NO_TILE,
    begin_trials,
    neighbour,
    new_trial,
    play_action,
    score_board,
    tile_edge,
)
from envs.engine.contract import SearchHooks
from envs.engine.rng import splitmix64

LOOKAHEAD_TURNS = 3  # each iteration: my candidate, then this many turns of greedy play by both seats
ROLLOUT_STEPS = 2 * LOOKAHEAD_TURNS  # plies after the tree (two a turn)
MAX_TREE_DEPTH = 1  # the tree is the root's candidates; below them the greedy default policy plays
OPPONENTS_IN_TREE = False  # separate boards: the opponent's placements are noise to my search
SHORTLIST = 20  # my greedy placements in the lookahead: judged among the best this many by edge matches (0: all)
OPPONENT_SHORTLIST = 6  # the opponent's (its board only decides when task tiles come)
EXPLORATION = float("inf")  # uniform: every candidate once a determinization
PLAY_BY_VALUE = True  # play the candidate of best mean (they all have as many visits)
VALUE_PER_TURN = 2.0  # a board's value grows about this much a turn (heuristic games: ~90 in 45 turns)
VALUE_SCALE = 6.0  # board value above that pace which moves the utility from 0.5 to ~0.73
ROOT_CANDIDATES = 12  # placements searched at the root: the greedy heuristic's best
SHARED_DETERMINIZATIONS = 0  # a round of the candidates meets the same tiles (common random numbers)
WIN_WEIGHT = 0.5  # at the end: a win is worth this much on top of the board part


@njit(cache=True)
def utility(s: np.void, returns: np.ndarray, util: np.ndarray) -> None:
    """Each seat's squashed board value (at the end: its pad total) against the pace of the turn,
    plus the result at the end; in [0, 1].

    ``s`` is scratch (the search's working copy): seat 0's pending placement is made in it."""
    if not s.done and s.pending[0] >= 0 and s.phase == PH_PLACE:
        play_action(s, 0, s.pending[0])
        s.pending[0] = -1
        score_board(s, 0)
    for p in range(2):
        value = float(s.total[p]) if s.done else board_value(s, p)  # at the end promises are worth nothing
        part = 1.0 / (1.0 + np.exp(-(value - VALUE_PER_TURN * s.turn) / VALUE_SCALE))
        if s.done:
            util[p] = (1.0 - WIN_WEIGHT) * part + WIN_WEIGHT * (0.5 + 0.5 * returns[p])
        else:
            util[p] = part


@njit(cache=True)
def edge_score(s: np.void, p: int, c: int, rot: int) -> float:
    """Touching edges this placement matches minus those it mismatches (a cheap first look)."""
    score = 0.0
    for d in range(NUM_ROT):
        nb = neighbour(s.radius, c, d)
        if nb >= 0 and s.cell_tile[p, nb] != NO_TILE:
            score += 1.0 if tile_edge(s.tile, rot, d) == s.cell_edge[p, nb, (d + 3) % NUM_ROT] else -1.0
    return score


@njit(cache=True)
def greedy_action(s: np.void, mask: np.ndarray, r: np.uint64, shortlist: int) -> int:
    """The heuristic's greedy placement for the acting seat (highest board value after it; ties at
    random), judged among all legal placements (``shortlist`` <= 0) or only the ``shortlist``
    best by ``edge_score``."""
    p = s.current
    n = legal_into(s, mask)
    acts = np.empty(n, np.int64)
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            acts[k] = a
            k += 1
    if n == 1 or s.n_placed[p] == 0 or s.tile < 0 or s.phase != PH_PLACE:  # Module 2's decisions: at random
        return acts[np.uint64(r) % np.uint64(n)]
    if 0 < shortlist < n:
        quick = np.empty(n)
        for i in range(n):
            r = splitmix64(r)
            quick[i] = edge_score(s, p, acts[i] // NUM_ROT, acts[i] % NUM_ROT) + (r >> np.uint64(11)) * (
                0.5 / 9007199254740992.0
            )
        acts = acts[np.argsort(-quick)[:shortlist]]
    trial = new_trial()
    begin_trials(s, p, trial)
    best = acts[0]
    best_v = -1e18
    for i in range(acts.shape[0]):
        r = splitmix64(r)
        v = placement_value(s, p, acts[i], trial) + (r >> np.uint64(11)) * (1e-6 / 9007199254740992.0)
        if v > best_v:
            best_v = v
            best = acts[i]
    return best


@njit(cache=True)
def default_policy(s: np.void, seat: int, mask: np.ndarray, r: np.uint64) -> int:
    """Outside the tree both seats place greedily (``greedy_action``), judging the ``SHORTLIST``
    (mine) or ``OPPONENT_SHORTLIST`` (the opponent's: it only steers which tiles come) best
    placements by edge matches."""
    return greedy_action(s, mask, r, SHORTLIST if s.current == seat else OPPONENT_SHORTLIST)


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
    if int(state[0]["phase"]) != PH_PLACE:
        return  # Module 2's decisions: few choices, all searched (a special tile: all its places)
    determinize(state[0], seat, np.uint64(seed))
    mask = np.zeros(root_mask.shape[0], np.int8)
    legal_into(state[0], mask)
    values = np.empty(mask.shape[0])
    action_values(state, np.zeros_like(state), seat, mask, values)
    legal = np.flatnonzero(mask)
    keep = legal[np.argsort(-values[legal], kind="stable")[:ROOT_CANDIDATES]]
    root_mask[:] = 0
    root_mask[keep] = 1


SEARCH_HOOKS = SearchHooks(
    utility=utility,
    expand_action=expand_action,
    default_policy=default_policy,
    root_candidates=root_candidates,
    rollout_steps=ROLLOUT_STEPS,
    opponents_in_tree=OPPONENTS_IN_TREE,
    max_tree_depth=MAX_TREE_DEPTH,
    shared_determinizations=SHARED_DETERMINIZATIONS,
    exploration=EXPLORATION,
    play_by_value=PLAY_BY_VALUE,
)
