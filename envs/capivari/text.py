"""Capivari as text: the river, both banks, the cards on offer, from one seat's view."""

import numpy as np

from envs.capivari import core
from envs.capivari.rules import (
    CARD_NAMES,
    HERDS,
    LOC_AVAILABLE,
    LOC_DISCARD,
    NUM_CARDS,
    NUM_HERDS,
    NUM_SEGMENTS,
    modifier_name,
)

_W = 22


def _bank(rec: np.void, side: int) -> list[str]:
    cells = []
    for seg in range(NUM_SEGMENTS):
        names = [
            f"{HERDS[h]}{rec['seg_num'][seg, h]}"
            for h in range(NUM_HERDS)
            if rec["seg_num"][seg, h] > 0 and rec["seg_side"][seg, h] == side
        ]
        cells.append(" ".join(names) or "-")
    return cells


def render_table(rec: np.void, seat: int | None) -> str:
    """The table as text; `seat` sees only what that player may see (None: everything)."""
    sub = int(rec["subtract_points"])
    who = ["you" if p == seat else f"player_{p}" for p in range(2)]
    lines = [
        f"Capivari  round {int(rec['rounds_done']) + 1}  turn {int(rec['turn']) + 1}  "
        f"round wins: {who[0]} {rec['round_wins'][0]}, {who[1]} {rec['round_wins'][1]}"
    ]
    if rec["done"]:
        w = int(rec["winner"])
        lines.append("game over: " + ("draw" if w == core.DRAW else ("you win" if w == seat else f"{who[w]} wins")))
    else:
        lines.append(f"to act: {who[int(rec['current'])]}")
    head = ["segment"] + [
        f"{g + 1}:[{modifier_name(int(rec['river_card'][g]), sub)}]" + ("*" if rec["onca_in"][g] else "")
        for g in range(NUM_SEGMENTS)
    ]
    lines.append("".join(c.ljust(_W) for c in head) + "  (* Capionça tucked; current flows 1 -> 3)")
    for p in range(2):
        lines.append("".join(c.ljust(_W) for c in [who[p]] + _bank(rec, p)) + f"  = {core.river_score(rec, p)}")
    avail = [CARD_NAMES[c] for c in range(NUM_CARDS) if rec["loc"][c] == LOC_AVAILABLE]
    lines.append("available: " + " ".join(avail))
    left = int(rec["deck_len"]) - int(rec["deck_pos"])
    top = f", top river side [{modifier_name(int(rec['deck'][rec['deck_pos']]), sub)}]" if left else ""
    lines.append(f"deck: {left} cards{top}")
    if seat is None and left:
        order = [CARD_NAMES[int(c)] for c in rec["deck"][rec["deck_pos"] : rec["deck_len"]]]
        lines.append("deck order (spectator): " + " ".join(order))
    out = [CARD_NAMES[c] for c in range(NUM_CARDS) if rec["loc"][c] == LOC_DISCARD]
    if out:
        lines.append("out of the river: " + " ".join(out))
    return "\n".join(lines)
