"""Capivari's optional ``afterstates`` piece: a row per legal move, the river right after it.

Row k describes the k-th legal action in action order (the layout a candidate head reads: ``training.candidate_head``
scores each row with one shared network, so the policy judges moves by the positions they make, not by their ids).
The move is played on a copy with the core's own ``take_herd_card`` / ``play_onca`` (push chains, Capionça effects)
and nothing after it: no refill, no scoring of the round, so only public cards shape a row. With ``observe_replies``
a row has one more number, the margin after the opponent's best one-card reply (``reply_margin``). The table of a
row's features is under "Observation" in seeds/capivari.md.
"""

import numpy as np
from numba import njit

from envs.capivari import rules
from envs.capivari.core import (
    legal_bits,
    make_available,
    modified_value,
    observe_river,
    play_onca,
    river_score,
    take_herd_card,
)
from envs.engine.bits import popcount
from envs.engine.record import copy_record, one_record_like

# legal moves at most: with 4 cards available, a Capionça among them (its 7 effects a segment) and 3 herd cards
MAX_LEGAL = rules.AVAILABLE_TARGET - 1 + rules.NUM_SEGMENTS * rules.ONCA_EFFECTS
R_RIVER = 0  # the river_capybaras piece of the position after the move
# segment x herd: (mine, theirs) modified value / 10
R_VALUES = R_RIVER + rules.NUM_SEGMENTS * rules.NUM_HERDS * rules.NUM_NUMBERS * 2
R_TUCKED = R_VALUES + rules.NUM_SEGMENTS * rules.NUM_HERDS * 2  # a Capionça under each segment
R_SCORE = R_TUCKED + rules.NUM_SEGMENTS  # (mine, theirs, mine - theirs) river totals / 40, clipped to [-1, 1]
R_ENDS = R_SCORE + 3  # 1: the move takes the round's last card, so this river is scored
R_CARD = R_ENDS + 1  # the card taken: a herd card by id, or (last column) a Capionça
FEATURES = R_CARD + rules.NUM_HERD_CARDS + 1
R_REPLY = FEATURES  # with observe_replies: my margin after the opponent's best reply / 40, clipped to [-1, 1]
VALUE_SCALE = 10.0
SCORE_SCALE = 40.0


@njit(cache=True)
def _clip(x: float) -> float:
    return max(-1.0, min(1.0, x))


@njit(cache=True)
def row_width(observe_replies: bool) -> int:
    """Numbers in a row: ``FEATURES``, and the reply's margin with ``observe_replies``."""
    return FEATURES + (1 if observe_replies else 0)


@njit(cache=True)
def play_move(w, a: int) -> None:
    """Action ``a`` for the seat to act, the card taken and its push or Capionça effect only (no refill, no scoring)."""
    if a < rules.ONCA_BASE:
        take_herd_card(w, a)
    else:
        play_onca(w, (a - rules.ONCA_BASE) // rules.ONCA_EFFECTS, (a - rules.ONCA_BASE) % rules.ONCA_EFFECTS)


@njit(cache=True)
def reply_margin(after: np.ndarray, seat: int, reply: np.ndarray, probe: np.ndarray) -> float:
    """My river total minus the opponent's after their best one-card reply to ``after`` (my move played, one
    record), best by their own margin as the heuristic judges; the replies are the public cards: those still
    available and, when my move leaves one, the deck's top (the rest of that refill is hidden). With no reply left
    (my move took the round's last card) my margin as it stands. ``reply``, ``probe``: one-record scratch."""
    copy_record(after, reply)
    r = reply[0]
    if popcount(np.uint64(r.avail)) == 1:
        if r.deck_pos >= r.deck_len:
            return float(river_score(r, seat) - river_score(r, 1 - seat))
        make_available(r, r.deck[r.deck_pos])
    r.current = 1 - seat
    bits = legal_bits(r)
    best = -1e18
    for b in range(rules.NUM_ACTIONS):
        if (bits >> np.uint64(b)) & np.uint64(1):
            copy_record(reply, probe)
            p = probe[0]
            play_move(p, b)
            best = max(best, float(river_score(p, 1 - seat) - river_score(p, seat)))
    return -best


@njit(cache=True)
def observe_afterstates(s, seat: int, piece, mask) -> None:
    """``piece`` (MAX_LEGAL rows of ``row_width`` numbers, zeroed by the caller): a row per legal action of ``mask``."""
    state = one_record_like(s)
    work = np.empty_like(state)
    reply = np.empty_like(state)
    probe = np.empty_like(state)
    width = row_width(s.observe_replies)
    row = 0
    for a in range(rules.NUM_ACTIONS):
        if not mask[a] or row >= MAX_LEGAL:
            continue
        copy_record(state, work)
        w = work[0]
        play_move(w, a)
        o = row * width
        observe_river(w, seat, piece, o + R_RIVER)
        for seg in range(rules.NUM_SEGMENTS):
            piece[o + R_TUCKED + seg] = w.onca_in[seg]
            for h in range(rules.NUM_HERDS):
                if w.seg_num[seg, h] > 0:
                    theirs = 0 if w.seg_side[seg, h] == seat else 1
                    piece[o + R_VALUES + (seg * rules.NUM_HERDS + h) * 2 + theirs] = _clip(
                        modified_value(w, seg, h) / VALUE_SCALE
                    )
        mine = river_score(w, seat)
        other = river_score(w, 1 - seat)
        piece[o + R_SCORE] = _clip(mine / SCORE_SCALE)
        piece[o + R_SCORE + 1] = _clip(other / SCORE_SCALE)
        piece[o + R_SCORE + 2] = _clip((mine - other) / SCORE_SCALE)
        piece[o + R_ENDS] = 1.0 if popcount(np.uint64(w.avail)) == 1 and w.deck_pos >= w.deck_len else 0.0
        piece[o + R_CARD + min(a, rules.NUM_HERD_CARDS)] = 1.0
        if s.observe_replies:
            piece[o + R_REPLY] = _clip(reply_margin(work, seat, reply, probe) / SCORE_SCALE)
        row += 1
