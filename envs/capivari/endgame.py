"""Capivari's round endings solved exactly: once the deck holds at most two cards, nothing is hidden.

The top card's river side names it and the other is the one card not seen anywhere else (seeds/capivari.md,
"The card table"), so from then on the round is a two-player game of perfect information with no chance left:
alpha-beta search over every move to the round's end gives each legal move's exact worth. A round's end is worth
its match value to the searching seat: 1 a won match, 0 a lost one, 0.5 a draw, and for a match that goes on its
value with every later round a fair coin (``coin_match_value``). The round's margin counts for nothing: moves that
lead to the same match value are equally good. The three turns before the round's last refill are solved in
expectation (``refill_values``): the refill's 12 equally likely outcomes averaged, exact play after it.
"""

import numpy as np
from numba import njit

from envs.capivari.core import legal_into, step
from envs.engine.record import copy_record

KNOWN_DECK = 2  # a deck this short is fully known to both seats
MAX_PLIES = 16  # the most moves left in a round once the deck is known (5 in the rules' 14-turn round)
NO_VALUE = -1e18  # an illegal move's entry in ``endgame_values``


@njit(cache=True)
def is_solvable(s: np.void) -> bool:
    """A live round whose remaining deck (at most ``KNOWN_DECK`` cards) both seats know card by card."""
    return not s.done and s.deck_len - s.deck_pos <= KNOWN_DECK


@njit(cache=True)
def coin_match_value(wins: int, theirs: int, needed: int) -> float:
    """The chance of winning the match from these round wins if every later round were a fair coin (no ties):
    the first to ``needed`` wins with more than the other; at a shared ``needed`` the next round decides."""
    if wins >= needed or theirs >= needed:  # both there (a shared win): one more round decides
        return 0.5
    # a race to `needed`: probability that `needed - wins` heads come before `needed - theirs` tails
    a = needed - wins
    b = needed - theirs
    table = np.zeros((a + 1, b + 1))
    for i in range(a + 1):
        for j in range(b + 1):
            if i == 0 and j == 0:
                table[i, j] = 0.5
            elif i == 0:
                table[i, j] = 1.0
            elif j == 0:
                table[i, j] = 0.0
            else:
                table[i, j] = 0.5 * table[i - 1, j] + 0.5 * table[i, j - 1]
    return table[a, b]


@njit(cache=True)
def round_end_value(s: np.void, seat: int, round_index: int) -> float:
    """What the round ``round_index``, just scored in ``s``, is worth to ``seat``: its match value (module doc)."""
    if s.done:
        return 0.5 if s.winner != seat and s.winner != 1 - seat else (1.0 if s.winner == seat else 0.0)
    return coin_match_value(s.round_wins[seat], s.round_wins[1 - seat], s.wins_needed)


@njit(cache=True)
def _fold(v: float, depth: int, maximising: bool, best: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> None:
    """A child's value ``v`` into the alpha-beta bounds of the position at ``depth``."""
    if maximising:
        best[depth] = max(best[depth], v)
        alpha[depth] = max(alpha[depth], v)
    else:
        best[depth] = min(best[depth], v)
        beta[depth] = min(beta[depth], v)


@njit(cache=True)
def _open_level(
    depth: int, rec: np.void, seat: int, lo: float, hi: float, legal: np.ndarray, alpha: np.ndarray, beta: np.ndarray,
    best: np.ndarray, next_move: np.ndarray,
) -> None:  # fmt: skip
    """Start the alpha-beta level ``depth`` at position ``rec``: its legal moves, the window ``(lo, hi)`` it inherits,
    the worst value for the seat to act, no move tried yet."""
    legal_into(rec, legal[depth])
    alpha[depth] = lo
    beta[depth] = hi
    best[depth] = -np.inf if rec.current == seat else np.inf
    next_move[depth] = 0


@njit(cache=True)
def _search(stack: np.ndarray, masks: np.ndarray, seat: int, round_index: int) -> float:
    """Alpha-beta value for ``seat`` of ``stack[1]`` (the searching seat maximises, the other minimises), with an
    explicit stack of positions (``stack[d]``), their legal moves (``masks[d]``) and the next move to try."""
    levels = stack.shape[0]
    alpha = np.empty(levels)
    beta = np.empty(levels)
    best = np.empty(levels)
    next_move = np.zeros(levels, np.int64)
    depth = 1
    _open_level(depth, stack[1], seat, -np.inf, np.inf, masks, alpha, beta, best, next_move)
    while True:
        a = next_move[depth]
        while a < masks.shape[1] and not masks[depth, a]:
            a += 1
        if a >= masks.shape[1] or alpha[depth] >= beta[depth]:  # every move tried, or cut off: back up
            v = best[depth]
            if depth == 1:
                return v
            depth -= 1
        else:
            next_move[depth] = a + 1
            copy_record(stack[depth : depth + 1], stack[depth + 1 : depth + 2])
            child = stack[depth + 1]
            step(child, a)
            if child.rounds_done > round_index:
                v = round_end_value(child, seat, round_index)
            else:  # descend
                depth += 1
                _open_level(depth, child, seat, alpha[depth - 1], beta[depth - 1], masks, alpha, beta, best, next_move)
                continue
        _fold(v, depth, stack[depth].current == seat, best, alpha, beta)  # into the position at `depth`


@njit(cache=True)
def endgame_values(state: np.ndarray, stack: np.ndarray, masks: np.ndarray, out: np.ndarray) -> None:
    """``out[a]``: the exact worth of legal move ``a`` to the seat to act in ``state`` (one record, ``is_solvable``),
    both seats playing on perfectly to the round's end; ``NO_VALUE`` for illegal moves. ``stack``: ``MAX_PLIES + 1``
    records of the state's dtype; ``masks``: int8 ``(MAX_PLIES + 1, actions)``."""
    s = state[0]
    seat = s.current
    round_index = s.rounds_done
    copy_record(state, stack[0:1])
    legal_into(s, masks[0])
    for a in range(out.shape[0]):
        out[a] = NO_VALUE
        if a >= masks.shape[1] or not masks[0, a]:
            continue
        copy_record(state, stack[1:2])
        child = stack[1]
        step(child, a)
        if child.rounds_done > round_index:
            out[a] = round_end_value(child, seat, round_index)
        else:
            out[a] = _search(stack, masks, seat, round_index)


def new_solver_buffers(state: np.ndarray, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``stack`` and ``masks`` arrays ``endgame_values`` works in, for records like ``state``'s."""
    return np.zeros(MAX_PLIES + 1, state.dtype), np.zeros((MAX_PLIES + 1, num_actions), np.int8)


# -- the three turns before the round's last refill -------------------------------------------------------------

LAST_REFILL_DECK = 5  # the deck in those turns: its top (its river side names it) and four unseen cards
ARRANGEMENTS = 12  # how the refill can fall: the two unseen cards it reveals (6 pairs) x which other one is on top


@njit(cache=True)
def before_last_refill(s: np.void) -> bool:
    """A live round between its last two refills (turns 6-8): the deck holds its known top and four unseen cards;
    the next refill reveals the top and two of them, and leaves the round solvable (``is_solvable``)."""
    return not s.done and s.deck_len - s.deck_pos == LAST_REFILL_DECK


@njit(cache=True)
def arrange_last_refill(state: np.ndarray, out: np.ndarray) -> None:
    """``out[k]``: ``state`` with its four unseen deck cards in the k-th of the last refill's 12 equally likely
    outcomes (the order of the two it reveals does not matter: they join the available cards)."""
    s = state[0]
    pos = s.deck_pos
    k = 0
    for i in range(4):
        for j in range(i + 1, 4):
            for top in range(4):
                if top == i or top == j:
                    continue
                last = 6 - i - j - top  # the fourth index
                copy_record(state, out[k : k + 1])
                deck = out[k].deck
                deck[pos + 1] = s.deck[pos + 1 + i]
                deck[pos + 2] = s.deck[pos + 1 + j]
                deck[pos + 3] = s.deck[pos + 1 + top]
                deck[pos + 4] = s.deck[pos + 1 + last]
                k += 1


@njit(cache=True)
def _play_all(levels: np.ndarray, depth: int, a: int) -> None:
    """``levels[depth + 1]``: each of the arrangements ``levels[depth]`` after move ``a``."""
    for k in range(ARRANGEMENTS):
        copy_record(levels[depth, k : k + 1], levels[depth + 1, k : k + 1])
        step(levels[depth + 1, k], a)


@njit(cache=True)
def _solved_value(rec: np.ndarray, seat: int, round_index: int, stack: np.ndarray, masks: np.ndarray) -> float:
    """Exact worth to ``seat`` of a position (one record) the last refill has made solvable, or that ended the round."""
    if rec[0].rounds_done > round_index:
        return round_end_value(rec[0], seat, round_index)
    copy_record(rec, stack[1:2])
    return _search(stack, masks, seat, round_index)


@njit(cache=True)
def _mean_solved(arranged: np.ndarray, seat: int, round_index: int, stack: np.ndarray, masks: np.ndarray) -> float:
    """Mean exact worth to ``seat`` of the 12 arrangements of a position just past the last refill."""
    total = 0.0
    for k in range(ARRANGEMENTS):
        total += _solved_value(arranged[k : k + 1], seat, round_index, stack, masks)
    return total / ARRANGEMENTS


@njit(cache=True)
def _expected_value(
    levels: np.ndarray, first: int, seat: int, round_index: int, stack: np.ndarray, masks: np.ndarray
) -> float:
    """Worth to ``seat`` of the 12 arrangements ``levels[first]`` of one position: before the last refill each seat
    picks its move on their mean (it cannot see how the refill will fall), exact play after it. Alpha-beta over the
    moves before the refill with an explicit stack of levels, as ``_search``; the means are its leaves."""
    if not before_last_refill(levels[first, 0]):
        return _mean_solved(levels[first], seat, round_index, stack, masks)
    depths = levels.shape[0]
    legal = np.zeros((depths, masks.shape[1]), np.int8)
    alpha = np.empty(depths)
    beta = np.empty(depths)
    best = np.empty(depths)
    next_move = np.zeros(depths, np.int64)
    depth = first
    _open_level(depth, levels[depth, 0], seat, -np.inf, np.inf, legal, alpha, beta, best, next_move)
    while True:
        a = next_move[depth]
        while a < legal.shape[1] and not legal[depth, a]:
            a += 1
        if a >= legal.shape[1] or alpha[depth] >= beta[depth]:  # every move tried, or cut off: back up
            v = best[depth]
            if depth == first:
                return v
            depth -= 1
        else:
            next_move[depth] = a + 1
            _play_all(levels, depth, a)
            if before_last_refill(levels[depth + 1, 0]):  # descend
                depth += 1
                rec = levels[depth, 0]
                _open_level(depth, rec, seat, alpha[depth - 1], beta[depth - 1], legal, alpha, beta, best, next_move)
                continue
            v = _mean_solved(levels[depth + 1], seat, round_index, stack, masks)
        _fold(v, depth, levels[depth, 0].current == seat, best, alpha, beta)


@njit(cache=True)
def refill_values(state: np.ndarray, levels: np.ndarray, stack: np.ndarray, masks: np.ndarray, out: np.ndarray) -> None:
    """``out[a]``: the exact expected worth of legal move ``a`` to the seat to act in ``state`` (one record,
    ``before_last_refill``): the mean over the refill's 12 outcomes, moves before it chosen on that mean, exact play
    by both seats after it; ``NO_VALUE`` for illegal moves. It reads which cards are unseen, never their order.
    ``levels``: ``(4, ARRANGEMENTS)`` records; ``stack`` and ``masks`` as for ``endgame_values``."""
    s = state[0]
    seat = s.current
    round_index = s.rounds_done
    arrange_last_refill(state, levels[0])
    mask = np.zeros(masks.shape[1], np.int8)
    legal_into(s, mask)
    for a in range(out.shape[0]):
        out[a] = NO_VALUE
        if a >= mask.shape[0] or not mask[a]:
            continue
        _play_all(levels, 0, a)
        out[a] = _expected_value(levels, 1, seat, round_index, stack, masks)


def new_refill_levels(state: np.ndarray) -> np.ndarray:
    """The ``levels`` array ``refill_values`` works in: the 12 arrangements at the root and after each of the (at
    most three) moves before the refill."""
    return np.zeros((4, ARRANGEMENTS), state.dtype)
