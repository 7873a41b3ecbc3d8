"""Capivari's optional ``afterstates`` piece: a row per legal move, the river right after it.

Row k describes the k-th legal action in action order (the layout a candidate head reads: ``training.candidate_head``
scores each row with one shared network, so the policy judges moves by the positions they make, not by their ids).
The move is played on a copy with the core's own ``take_herd_card`` / ``play_onca`` (push chains, Capionça effects)
and nothing after it: no refill, no scoring of the round, so only public cards shape a row. The table of a row's
features is under "Observation" in seeds/capivari.md.
"""

import numpy as np
from numba import njit

from envs.capivari import rules
from envs.capivari.core import modified_value, observe_river, play_onca, river_score, take_herd_card
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
VALUE_SCALE = 10.0
SCORE_SCALE = 40.0


@njit(cache=True)
def _clip(x: float) -> float:
    return max(-1.0, min(1.0, x))


@njit(cache=True)
def observe_afterstates(s, seat: int, piece, mask) -> None:
    """``piece`` (MAX_LEGAL x FEATURES numbers, zeroed by the caller): a row per legal action of ``mask``."""
    state = one_record_like(s)
    work = np.empty_like(state)
    row = 0
    for a in range(rules.NUM_ACTIONS):
        if not mask[a] or row >= MAX_LEGAL:
            continue
        copy_record(state, work)
        w = work[0]
        if a < rules.ONCA_BASE:
            take_herd_card(w, a)
        else:
            play_onca(w, (a - rules.ONCA_BASE) // rules.ONCA_EFFECTS, (a - rules.ONCA_BASE) % rules.ONCA_EFFECTS)
        o = row * FEATURES
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
        row += 1
