"""Capivari as an SVG picture: the river's three segments with their modifiers and Capionças, both banks
(player_0 above, player_1 below, each capybara's points after its modifier), the cards on offer, the deck.

A seat sees what the text shows it (text.py): everything but the deck's order below its top river side.
"""

from collections.abc import Collection

import numpy as np

from envs._svg import card, document, el, rect, text
from envs.capivari import core
from envs.capivari.rules import (
    CARD_NAMES,
    HERDS,
    LOC_AVAILABLE,
    LOC_DISCARD,
    NUM_CARDS,
    NUM_HERD_CARDS,
    NUM_HERDS,
    NUM_SEGMENTS,
    modifier_name,
)

WIDTH, HEIGHT = 900, 560
HERD_COLOURS = ("#e6b35a", "#a0704a", "#6f8f4a")  # crias, oxes, tches
SEG_X = (120, 380, 640)
SEG_W = 240


def _card_fill(c: int) -> str:
    return HERD_COLOURS[c // 5] if c < NUM_HERD_CARDS else "#d9534f"


def _bank(rec: np.void, side: int, y: float) -> list[str]:
    parts = []
    for seg in range(NUM_SEGMENTS):
        k = 0
        for h in range(NUM_HERDS):
            n = int(rec["seg_num"][seg, h])
            if n > 0 and int(rec["seg_side"][seg, h]) == side:
                x = SEG_X[seg] + 10 + 76 * k
                parts.append(card(x, y, 66, 70, f"{HERDS[h]}{n}", HERD_COLOURS[h]))
                pts = int(core.modified_value(rec, seg, h))
                parts.append(text(x + 60, y + 64, f"{pts:+d}", size=12, text_anchor="end", fill="#222"))
                k += 1
    return parts


def draw(rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
    """The table from ``seat``'s view (None: a spectator); ``legal`` names the moves to make clickable."""
    sub = int(rec["subtract_points"])
    who = ["you" if p == seat else f"player_{p}" for p in range(2)]
    head = (
        f"Capivari   round {int(rec['rounds_done']) + 1}   turn {int(rec['turn']) + 1}   "
        f"round wins: {who[0]} {int(rec['round_wins'][0])}, {who[1]} {int(rec['round_wins'][1])}"
    )
    parts = [text(16, 30, head, size=18, font_weight="bold")]
    if rec["done"]:
        w = int(rec["winner"])
        state = "game over: " + ("a draw" if w == core.DRAW else f"{who[w]} {'win' if w == seat else 'wins'}")
    else:
        state = f"to act: {who[int(rec['current'])]}"
    parts.append(text(16, 54, state, size=15, fill="#a33"))
    parts.append(rect(110, 170, 780, 120, fill="#9fc5e8", rx=10))
    parts.append(text(16, 236, "river", size=14))
    for seg in range(NUM_SEGMENTS):
        x = SEG_X[seg]
        mod = modifier_name(int(rec["river_card"][seg]), sub)
        parts.append(rect(x + 4, 180, SEG_W - 8, 100, fill="#cfe2f3", stroke="#3d85c6", rx=8))
        parts.append(text(x + SEG_W / 2, 210, f"segment {seg + 1}", size=14, text_anchor="middle"))
        parts.append(text(x + SEG_W / 2, 240, mod, size=17, text_anchor="middle", font_weight="bold"))
        if rec["onca_in"][seg]:
            parts.append(text(x + SEG_W / 2, 268, "Capionça tucked", size=13, text_anchor="middle", fill="#a33"))
    parts.append(text(880, 162, "current flows 1 \u2192 3", size=12, text_anchor="end"))
    for p, y in ((0, 90), (1, 300)):
        parts.append(text(16, y + 30, who[p], size=15, font_weight="bold"))
        parts.append(text(16, y + 52, f"= {int(core.river_score(rec, p))}", size=15))
        parts.extend(_bank(rec, p, y))
    parts.append(text(16, 420, "available", size=15, font_weight="bold"))
    avail = [c for c in range(NUM_CARDS) if rec["loc"][c] == LOC_AVAILABLE]
    for i, c in enumerate(avail):
        name = CARD_NAMES[c]
        parts.append(card(120 + 84 * i, 392, 74, 90, name, _card_fill(c), move=name if name in legal else None))
    left = int(rec["deck_len"]) - int(rec["deck_pos"])
    top = f", top river side: {modifier_name(int(rec['deck'][rec['deck_pos']]), sub)}" if left else ""
    parts.append(text(16, 514, f"deck: {left} cards{top}", size=14))
    if seat is None and left:
        order = " ".join(CARD_NAMES[int(c)] for c in rec["deck"][rec["deck_pos"] : rec["deck_len"]])
        parts.append(text(16, 536, f"deck order (spectator): {order}", size=12, fill="#555"))
    out = [CARD_NAMES[c] for c in range(NUM_CARDS) if rec["loc"][c] == LOC_DISCARD]
    if out:
        parts.append(text(16, 554, "out of the river: " + " ".join(out), size=12, fill="#555"))
    return document(WIDTH, HEIGHT, [el("g", "".join(parts))], "Capivari table")
