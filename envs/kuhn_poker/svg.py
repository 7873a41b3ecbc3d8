"""Kuhn poker as an SVG picture: both cards (a seat sees the other's only at a showdown), the betting, the pot."""

from collections.abc import Collection

import numpy as np

from envs._svg import card, document, rect, text
from envs.kuhn_poker import core
from envs.kuhn_poker.rules import ACTION_NAMES, CARD_NAMES, NUM_PLAYERS

WIDTH, HEIGHT = 640, 360


def draw(rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
    """The table from ``seat``'s view (None: a spectator); ``legal`` names the moves to make clickable."""
    who = ["you" if p == seat else f"player_{p}" for p in range(NUM_PLAYERS)]
    done = bool(rec["done"])
    showdown = done and not core.folded(rec)
    parts = [text(20, 34, "Kuhn poker", size=22, font_weight="bold")]
    for p in range(NUM_PLAYERS):
        c = int(rec["cards"][p])
        y = 60 + 150 * p
        if c == core.UNDEALT:
            label, fill = "-", "#eeeeee"
        elif seat is None or p == seat or showdown:
            label, fill = CARD_NAMES[c], "#ffffff"
        else:
            label, fill = "?", "#7f93b5"
        parts.append(card(20, y, 70, 100, label, fill))
        parts.append(text(110, y + 30, f"{who[p]}: {core.chips_in(rec, p)} in the pot", size=16))
        if not done and p == int(rec["current"]) and int(core.UNDEALT) not in [int(x) for x in rec["cards"]]:
            parts.append(text(110, y + 56, "to act", size=14, fill="#a33"))
    betting = [f"{who[core.mover(rec, i)]} {ACTION_NAMES[rec['history'][i]]}" for i in range(rec["moves"])]
    parts.append(rect(360, 60, 260, 250, rx=8, fill="#eef4ea", stroke="#8a8"))
    parts.append(text(375, 88, "betting", size=16, font_weight="bold"))
    for i, line in enumerate(betting):
        parts.append(text(375, 116 + 24 * i, line, size=15))
    if done:
        winner = 0 if rec["rewards"][0] > 0 else 1
        how = "showdown" if showdown else "fold"
        parts.append(text(375, 280, f"{who[winner]} won {int(rec['rewards'][winner])} ({how})", size=15))
    for i, name in enumerate(sorted(legal)):
        parts.append(card(110 + 90 * i, 330 - 50, 80, 36, name, "#fff6d5", move=name))
    return document(WIDTH, HEIGHT, parts, "Kuhn poker table")
