"""Capivari as a picture: the three river segments with their modifiers, both banks, the cards on offer.

Player_0's bank is above the river, player_1's below; the current flows left to right
(segment 1 to 3). A capybara shows its number, and its points after the segment's
modifier when they differ. The deck order below its top card is drawn only for a
spectator (seat None), as in the text render.
"""

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import FancyBboxPatch, Rectangle

from envs._picture import full_axes, new_figure, to_rgb
from envs.capivari import core
from envs.capivari.rules import (
    CARD_NAMES,
    HERD_TITLES,
    LOC_AVAILABLE,
    LOC_DISCARD,
    NUM_CARDS,
    NUM_HERD_CARDS,
    NUM_HERDS,
    NUM_NUMBERS,
    NUM_SEGMENTS,
    modifier_name,
)

W, H = 110.0, 62.0  # data units; 10 px each
HERD_COLOURS = ("#e08a3c", "#9a63b5", "#4d9b57")  # crias, oxes, tches
ONCA_COLOUR = "#e6c229"
RIVER, BANK, CARD_BACK = "#6fa8dc", "#d9ead3", "#cfe2f3"
SEG_X0, SEG_W = 27.0, 26.5
CARD_W, CARD_H = 7.0, 9.5


def _card(ax: Axes, x: float, y: float, w: float, h: float, face: str, edge: str = "#333333") -> None:
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.8", fc=face, ec=edge, lw=1))


def _herd_card(ax: Axes, x: float, y: float, card: int, value: int | None = None) -> None:
    """A capybara side: herd colour, big number, herd name; ``value``: its points after a modifier."""
    if card >= NUM_HERD_CARDS:
        _card(ax, x, y, CARD_W, CARD_H, ONCA_COLOUR)
        ax.text(x + CARD_W / 2, y + CARD_H * 0.55, "onça", ha="center", va="center", fontsize=10, weight="bold")
        ax.text(x + CARD_W / 2, y + 1.3, CARD_NAMES[card], ha="center", va="center", fontsize=6.5)
        return
    herd, number = divmod(card, NUM_NUMBERS)
    _card(ax, x, y, CARD_W, CARD_H, HERD_COLOURS[herd])
    ax.text(
        x + CARD_W / 2,
        y + CARD_H * 0.58,
        str(number + 1),
        ha="center",
        va="center",
        fontsize=17,
        weight="bold",
        color="white",
    )
    ax.text(x + CARD_W / 2, y + 1.3, HERD_TITLES[herd], ha="center", va="center", fontsize=6.5, color="white")
    if value is not None and value != number + 1:
        ax.text(
            x + CARD_W - 0.4,
            y + CARD_H - 0.5,
            f"={value}",
            ha="right",
            va="top",
            fontsize=8.5,
            weight="bold",
            color="black",
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"},
        )


def _river(ax: Axes, rec: np.void) -> None:
    sub = int(rec["subtract_points"])
    ax.add_patch(Rectangle((SEG_X0 - 1, 25), SEG_W * NUM_SEGMENTS + 1.5, 10.5, fc=RIVER, ec="none"))
    for g in range(NUM_SEGMENTS):
        x = SEG_X0 + g * SEG_W
        if g:
            ax.plot([x - 0.25, x - 0.25], [6, 54], color="white", lw=2, ls=(0, (4, 3)))
        _card(ax, x + 5, 26.3, SEG_W - 10.5, 8, CARD_BACK, edge="#1c4587")
        ax.text(
            x + SEG_W / 2 - 0.25,
            31.7,
            modifier_name(int(rec["river_card"][g]), sub),
            ha="center",
            va="center",
            fontsize=12,
            weight="bold",
            color="#1c4587",
        )
        ax.text(x + SEG_W / 2 - 0.25, 27.9, f"segment {g + 1}", ha="center", va="center", fontsize=8, color="#1c4587")
        if rec["onca_in"][g]:
            ax.text(
                x + SEG_W - 4.7,
                26.7,
                "onça",
                ha="center",
                va="center",
                fontsize=7.5,
                weight="bold",
                bbox={"boxstyle": "round,pad=0.25", "fc": ONCA_COLOUR, "ec": "#7f6000"},
            )
    ax.annotate(
        "",
        xy=(SEG_X0 + 3.8, 30.5),
        xytext=(SEG_X0 - 0.5, 30.5),
        arrowprops={"arrowstyle": "->", "color": "white", "lw": 2},
    )


def _bank(ax: Axes, rec: np.void, side: int, y0: float, label: str, label_y: float) -> None:
    ax.add_patch(Rectangle((SEG_X0 - 1, y0), SEG_W * NUM_SEGMENTS + 1.5, 17.5, fc=BANK, ec="none"))
    ax.text(
        SEG_X0 - 0.5,
        label_y,
        f"{label}:  {core.river_score(rec, side)} points",
        ha="left",
        va="center",
        fontsize=12,
        weight="bold",
    )
    for g in range(NUM_SEGMENTS):
        here = [h for h in range(NUM_HERDS) if rec["seg_num"][g, h] > 0 and rec["seg_side"][g, h] == side]
        x = SEG_X0 + g * SEG_W + (SEG_W - len(here) * (CARD_W + 1)) / 2
        for i, h in enumerate(here):
            card = h * NUM_NUMBERS + int(rec["seg_num"][g, h]) - 1
            _herd_card(ax, x + i * (CARD_W + 1), y0 + 4, card, int(core.modified_value(rec, g, h)))


def _side_panel(ax: Axes, rec: np.void, seat: int | None) -> None:
    sub = int(rec["subtract_points"])
    ax.text(1.5, 53.5, "available", fontsize=11, weight="bold", va="center")
    avail = [c for c in range(NUM_CARDS) if rec["loc"][c] == LOC_AVAILABLE]
    for i, c in enumerate(avail):
        _herd_card(ax, 1.5 + (i % 3) * (CARD_W + 0.6), 42 - (i // 3) * (CARD_H + 1), c)
    left = int(rec["deck_len"]) - int(rec["deck_pos"])
    ax.text(1.5, 29.5, f"deck: {left} cards", fontsize=11, weight="bold", va="center")
    if left:
        top = int(rec["deck"][rec["deck_pos"]])
        _card(ax, 1.5, 21.5, 15, 6, CARD_BACK, edge="#1c4587")
        ax.text(9, 25.2, modifier_name(top, sub), ha="center", va="center", fontsize=10, weight="bold", color="#1c4587")
        ax.text(9, 22.8, "top card, river side", ha="center", va="center", fontsize=7, color="#1c4587")
    out = [CARD_NAMES[c] for c in range(NUM_CARDS) if rec["loc"][c] == LOC_DISCARD]
    lines = ["out of the river:"] + [" ".join(out[i : i + 4]) for i in range(0, len(out), 4)] if out else []
    if seat is None and left > 1:
        order = [CARD_NAMES[int(c)] for c in rec["deck"][int(rec["deck_pos"]) : int(rec["deck_len"])]]
        lines += ["deck order (spectator):"] + [" ".join(order[i : i + 4]) for i in range(0, len(order), 4)]
    ax.text(1.5, 19, "\n".join(lines), fontsize=8, va="top", linespacing=1.4)


def draw(rec: np.void, seat: int | None) -> np.ndarray:
    """The table as an H x W x 3 uint8 picture from ``seat``'s view (None: a spectator)."""
    fig = new_figure(int(W * 10), int(H * 10))
    ax = full_axes(fig, W, H)
    who = ["you" if p == seat else f"player_{p}" for p in range(2)]
    wins = rec["round_wins"]
    if rec["done"]:
        w = int(rec["winner"])
        state = "game over: " + ("a draw" if w == core.DRAW else f"{who[w]} {'win' if w == seat else 'wins'}")
    else:
        state = f"to act: {who[int(rec['current'])]}"
    view = "spectator view" if seat is None else f"seen by player_{seat}"
    ax.text(
        1.5,
        59,
        f"Capivari   round {int(rec['rounds_done']) + 1}, turn {int(rec['turn']) + 1}   "
        f"round wins {who[0]} {wins[0]} : {wins[1]} {who[1]}   {state}",
        fontsize=13,
        weight="bold",
        va="center",
    )
    ax.text(W - 1.5, 59, view, fontsize=9, ha="right", va="center", color="#666666")
    _river(ax, rec)
    _bank(ax, rec, 0, 36.5, f"player_0 ({who[0]})" if seat == 0 else "player_0", 55.5)
    _bank(ax, rec, 1, 6.5, f"player_1 ({who[1]})" if seat == 1 else "player_1", 3.5)
    _side_panel(ax, rec, seat)
    return to_rgb(fig)
