"""Horizonte as an SVG picture: every seat's cards, prediction (secret until everyone has chosen), tricks won
and score; the Dragon and Dog tricks in play order; the seat's own hand (a spectator sees every hand).

A seat sees what the text shows it (text.py).
"""

from collections.abc import Collection

import numpy as np

from envs._svg import card, document, rect, text
from envs.horizonte.rules import CARD_NAMES, CARD_STAR, CARD_SUIT, PHASE_OVER, PHASE_PREDICT, TRICK_DOG, TRICK_DRAGON

WIDTH = 1000
SUIT_COLOURS = ("#9fd3f0", "#f3d08a", "#c9b29b", "#e8e8f4")  # Ocean, Desert, Mountain, Cloud


def _label(c: int) -> str:
    return CARD_NAMES[c] + ("*" if CARD_STAR[c] else "")


def _prediction(rec: np.void, p: int, seat: int | None) -> str:
    pred = int(rec["prediction"][p])
    if pred < 0:
        return "-"
    if rec["phase"] != PHASE_PREDICT or seat is None or seat == p:
        return str(pred)
    return "?"


def _hand(rec: np.void, p: int, y: float, legal: Collection[str]) -> list[str]:
    cards = [int(c) for c in np.flatnonzero(rec["hand"][p])]
    parts = []
    for i, c in enumerate(cards):
        name = CARD_NAMES[c]
        fill = SUIT_COLOURS[int(CARD_SUIT[c])]
        parts.append(card(150 + 51 * i, y, 46, 66, _label(c), fill, move=name if name in legal else None))
    if not cards:
        parts.append(text(150, y + 40, "(empty)", size=14))
    return parts


def _trick(rec: np.void, t: int, title: str, y: float, who: list[str]) -> list[str]:
    parts = [text(16, y + 40, title, size=15, font_weight="bold")]
    for i in range(int(rec["trick_count"][t])):
        c = int(rec["trick_card"][t, i])
        x = 150 + 90 * i
        parts.append(card(x, y, 60, 70, _label(c), SUIT_COLOURS[int(CARD_SUIT[c])]))
        parts.append(text(x + 30, y + 86, who[int(rec["trick_seat"][t, i])], size=11, text_anchor="middle"))
    return parts


def draw(rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
    """The table from ``seat``'s view (None: a spectator); ``legal`` names the moves to make clickable."""
    n = int(rec["num_players"])
    who = ["you" if p == seat else f"player_{p}" for p in range(n)]
    rounds = int(rec["num_rounds"])
    over = rec["phase"] == PHASE_OVER
    merged = rec["dragon"] == rec["dog"]
    shown_round = min(int(rec["rounds_done"]) + 1, rounds)
    parts = [text(16, 30, f"Horizonte   round {shown_round}/{rounds}", size=20, font_weight="bold")]
    if over:
        scores = rec["score"][:n]
        best = [who[p] for p in range(n) if scores[p] == scores.min()]
        status = f"game over: {' and '.join(best)} {'win' if len(best) > 1 or seat in best else 'wins'}"
    elif rec["phase"] == PHASE_PREDICT:
        status = f"to act: {who[int(rec['current'])]}, predicting (secret until everyone has chosen)"
    else:
        into = "the merged trick" if merged else ("the Dog trick" if rec["active"] == TRICK_DOG else "the Dragon trick")
        status = f"to act: {who[int(rec['current'])]}, playing into {into}"
    parts.append(text(16, 54, status, size=15, fill="#a33"))
    cols = ((16, "seat"), (180, "cards"), (260, "prediction"), (380, "dragon tricks"), (520, "dog tricks"))
    cols += ((640, "score"), (720, "initiative"))
    y = 84
    parts.extend(text(x, y, title, size=13, font_weight="bold") for x, title in cols)
    for p in range(n):
        y += 24
        if p == seat:
            parts.append(rect(10, y - 17, 960, 22, fill="#fff3c4"))
        held = [name for name, holder in (("Dragon", rec["dragon"]), ("Dog", rec["dog"])) if holder == p]
        row = (who[p], int(rec["hand_count"][p]), _prediction(rec, p, seat), int(rec["dragon_tricks"][p]))
        row += (int(rec["dog_tricks"][p]), int(rec["score"][p]), " + ".join(held) or "-")
        parts.extend(text(x, y, str(v), size=14) for (x, _), v in zip(cols, row, strict=True))
    y += 30
    if not over:
        if merged:
            parts.extend(_trick(rec, TRICK_DRAGON, "merged trick", y, who))
            y += 100
        else:
            parts.extend(_trick(rec, TRICK_DRAGON, "Dragon trick", y, who))
            parts.extend(_trick(rec, TRICK_DOG, "Dog trick", y + 100, who))
            y += 200
    if rec["last_winner"][0] >= 0:
        d, g = (int(x) for x in rec["last_winner"])
        dc, gc = (_label(int(x)) for x in rec["last_card"])
        parts.append(text(16, y + 16, f"last resolved: Dragon {who[d]} with {dc}, Dog {who[g]} with {gc}", size=14))
        y += 30
    hands = [seat] if seat is not None else list(range(n))
    for p in hands:
        parts.append(text(16, y + 40, "your hand" if p == seat else f"{who[p]} hand", size=15, font_weight="bold"))
        parts.extend(_hand(rec, p, y, legal if p == seat else ()))
        y += 80
    predict = sorted((m for m in legal if m.startswith("predict ")), key=lambda m: int(m.split()[1]))
    if predict:
        parts.append(text(16, y + 30, "predict", size=15, font_weight="bold"))
        for i, m in enumerate(predict):
            parts.append(card(150 + 44 * (i % 18), y + 8 + 44 * (i // 18), 40, 36, m.split()[1], "#fff6d5", move=m))
        y += 44 * ((len(predict) + 17) // 18) + 10
    parts.append(text(16, y + 24, "* star card: a trick won with it counts as two", size=12, fill="#555"))
    return document(WIDTH, int(y + 40), parts, "Horizonte table")
