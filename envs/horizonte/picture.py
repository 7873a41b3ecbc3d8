"""Horizonte as a picture: the seats round the table with initiative cards, predictions (once
revealed), tricks won and scores; the Dragon and Dog tricks in the middle; the viewer's hand.

The viewing seat sits at the bottom and play goes clockwise from it. A seat sees its own
hand and prediction; other predictions show as ``?`` until all are in (the text render's
rule). A spectator (seat None) sees every hand, listed at the bottom.
"""

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import FancyBboxPatch

from envs._picture import full_axes, new_figure, to_rgb
from envs.horizonte.rules import (
    CARD_STAR,
    CARD_SUIT,
    CARD_VALUE,
    PHASE_OVER,
    PHASE_PREDICT,
    SUIT_TITLES,
    TRICK_DOG,
    TRICK_DRAGON,
)
from envs.horizonte.text import _prediction, card_label

W, H = 110.0, 72.0  # data units; 10 px each
SUIT_COLOURS = ("#3d85c6", "#e69138", "#7f6a4f", "#8e9aaf")  # Ocean, Desert, Mountain, Cloud
DRAGON_COLOUR, DOG_COLOUR = "#cc0000", "#1155cc"
CARD_W, CARD_H = 5.4, 7.6
PANEL_W, PANEL_H = 27.0, 10.0


def _box(ax: Axes, x: float, y: float, w: float, h: float, face: str, edge: str = "#333333", lw: float = 1.0) -> None:
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.7", fc=face, ec=edge, lw=lw))


def _card(ax: Axes, x: float, y: float, card: int, below: str = "") -> None:
    """A card face: suit colour, number, a star on star cards; ``below``: a caption (who played it)."""
    _box(ax, x, y, CARD_W, CARD_H, SUIT_COLOURS[int(CARD_SUIT[card])])
    ax.text(
        x + CARD_W / 2,
        y + CARD_H * 0.55,
        str(int(CARD_VALUE[card])),
        ha="center",
        va="center",
        fontsize=14,
        weight="bold",
        color="white",
    )
    ax.text(
        x + CARD_W / 2,
        y + 1.1,
        SUIT_TITLES[int(CARD_SUIT[card])],
        ha="center",
        va="center",
        fontsize=5.5,
        color="white",
    )
    if CARD_STAR[card]:
        ax.text(x + CARD_W - 0.5, y + CARD_H - 0.4, "\u2605", ha="right", va="top", fontsize=9, color="#ffd966")
    if below:
        ax.text(x + CARD_W / 2, y - 0.9, below, ha="center", va="center", fontsize=7)


def _token(ax: Axes, x: float, y: float, text: str, colour: str) -> None:
    ax.text(
        x,
        y,
        text,
        ha="left",
        va="center",
        fontsize=8,
        weight="bold",
        color="white",
        bbox={"boxstyle": "round,pad=0.25", "fc": colour, "ec": "none"},
    )


def _seat_panel(ax: Axes, rec: np.void, p: int, seat: int | None, cx: float, cy: float) -> None:
    x, y = cx - PANEL_W / 2, cy - PANEL_H / 2
    acting = not rec["done"] and int(rec["current"]) == p
    _box(ax, x, y, PANEL_W, PANEL_H, "#fff2cc" if acting else "#f3f3f3", lw=2.2 if acting else 1.0)
    name = f"player_{p}" + (" (you)" if p == seat else "")
    ax.text(x + 1, y + PANEL_H - 1.8, name, fontsize=10.5, weight="bold", va="center")
    for title, holder, colour, right in (
        ("Dragon", rec["dragon"], DRAGON_COLOUR, 13),
        ("Dog", rec["dog"], DOG_COLOUR, 5),
    ):
        if int(holder) == p:
            _token(ax, x + PANEL_W - right, y + PANEL_H - 1.8, title, colour)
    pred = _prediction(rec, p, seat)
    ax.text(
        x + 1, y + PANEL_H - 4.6, f"prediction {pred}    cards {int(rec['hand_count'][p])}", fontsize=8.5, va="center"
    )
    ax.text(x + 1, y + 2.2, "tricks won", fontsize=8.5, va="center")
    ax.text(
        x + 8.8,
        y + 2.2,
        f"Dragon {int(rec['dragon_tricks'][p])}",
        fontsize=8.5,
        va="center",
        color=DRAGON_COLOUR,
        weight="bold",
    )
    ax.text(
        x + 15.6,
        y + 2.2,
        f"Dog {int(rec['dog_tricks'][p])}",
        fontsize=8.5,
        va="center",
        color=DOG_COLOUR,
        weight="bold",
    )
    ax.text(x + PANEL_W - 1, y + PANEL_H - 4.6, f"score {int(rec['score'][p])}", fontsize=8.5, va="center", ha="right")


def _trick(ax: Axes, rec: np.void, t: int, title: str, colour: str, y: float) -> None:
    k = int(rec["trick_count"][t])
    led = f", led {SUIT_TITLES[int(CARD_SUIT[rec['trick_card'][t, 0]])]}" if k else ""
    ax.text(W / 2, y + CARD_H + 1.6, title + led, ha="center", va="center", fontsize=10, weight="bold", color=colour)
    n = int(rec["num_players"])
    x0 = W / 2 - (n * (CARD_W + 0.8)) / 2
    for i in range(n):
        x = x0 + i * (CARD_W + 0.8)
        if i < k:
            _card(ax, x, y, int(rec["trick_card"][t, i]), f"player_{int(rec['trick_seat'][t, i])}")
        else:
            _box(ax, x, y, CARD_W, CARD_H, "white", edge="#bbbbbb")


def _title(rec: np.void, seat: int | None) -> str:
    n = int(rec["num_players"])
    rounds = int(rec["num_rounds"])
    head = f"Horizonte   round {min(int(rec['rounds_done']) + 1, rounds)}/{rounds}   "
    if rec["phase"] == PHASE_OVER:
        scores = rec["score"][:n]
        best = [f"player_{p}" for p in range(n) if scores[p] == scores.min()]
        return head + f"game over: {' and '.join(best)} {'win' if len(best) > 1 else 'wins'} with {scores.min()}"
    who = f"player_{int(rec['current'])}"
    if rec["phase"] == PHASE_PREDICT:
        return head + f"{who} to predict (secret until all have chosen)"
    into = "merged" if rec["dragon"] == rec["dog"] else ("Dog" if rec["active"] == TRICK_DOG else "Dragon")
    return head + f"{who} to play into the {into} trick"


def draw(rec: np.void, seat: int | None) -> np.ndarray:
    """The table as an H x W x 3 uint8 picture from ``seat``'s view (None: a spectator)."""
    fig = new_figure(int(W * 10), int(H * 10))
    ax = full_axes(fig, W, H)
    n = int(rec["num_players"])
    ax.text(1.5, H - 2.5, _title(rec, seat), fontsize=13, weight="bold", va="center")
    view = "spectator view" if seat is None else f"seen by player_{seat}"
    ax.text(W - 1.5, H - 2.5, view, fontsize=9, ha="right", va="center", color="#666666")
    bottom = 0 if seat is None else seat
    for k in range(n):
        angle = math.radians(-90 - k * 360 / n)  # clockwise from the bottom
        _seat_panel(ax, rec, (bottom + k) % n, seat, 55 + 40 * math.cos(angle), 38.5 + 22 * math.sin(angle))
    if rec["phase"] != PHASE_OVER:
        if rec["dragon"] == rec["dog"]:
            _trick(ax, rec, TRICK_DRAGON, "merged trick (Dragon and Dog rules)", "#674ea7", 33)
        else:
            _trick(ax, rec, TRICK_DRAGON, "Dragon trick (high wins)", DRAGON_COLOUR, 39.5)
            _trick(ax, rec, TRICK_DOG, "Dog trick (low wins)", DOG_COLOUR, 27)
    if rec["last_winner"][0] >= 0:
        d, g = (int(x) for x in rec["last_winner"])
        dc, gc = (card_label(int(x)) for x in rec["last_card"])
        ax.text(
            W / 2,
            23.3,
            f"last resolved: Dragon to player_{d} with {dc}, Dog to player_{g} with {gc}",
            ha="center",
            va="center",
            fontsize=8.5,
            color="#444444",
        )
    if seat is not None:
        hand = [int(c) for c in np.flatnonzero(rec["hand"][seat])]
        ax.text(1.5, 5.5, "your\nhand", fontsize=9, weight="bold", va="center")
        for i, c in enumerate(hand):
            _card(ax, 8 + i * (CARD_W + 0.6), 1.6, c)
    else:
        lines = [
            f"player_{p}: " + (" ".join(card_label(int(c)) for c in np.flatnonzero(rec["hand"][p])) or "(empty)")
            for p in range(n)
        ]
        ax.text(1.5, 10.5, "hands (spectator)\n" + "\n".join(lines), fontsize=7.5, va="top", family="monospace")
    return to_rgb(fig)
