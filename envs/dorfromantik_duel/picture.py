"""The Duel as a picture: both players' hex areas side by side, the tile to place, the score pads.

Each hex is six triangles, one per edge, in that edge's terrain colour. Open task markers are
discs in their type's colour with the value; a completed one is a check mark, a cancelled one
a cross. Flags are small pennants in the flag's colour. Closed territories (forest, grain,
village) of two or more tiles, or holding a flag, are outlined in a dark shade of their terrain.
Both boards share one scale. Player_0's choice is shown only to a spectator or to player_0
until player_1 has chosen (the same rule as the text, text.py). Everything is drawn in one pixel-unit
axes: extra axes cost more time than the whole board.
"""

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.patches import Circle, Polygon

from envs._picture import full_axes, new_figure, to_rgb
from envs.dorfromantik_duel.rules import DIR_Q, DIR_R, MK_CANCELLED, MK_DONE, MK_OPEN, action_name, coords_of
from envs.dorfromantik_duel.score_pad import PAD_ROWS, score_pad
from envs.dorfromantik_duel.tiles import TASK_TYPES, TILE_EDGES, TILE_FLAG, TILE_PAIR, describe_tile

WIDTH, HEIGHT = 1400, 760
SQ3 = math.sqrt(3.0)
TERRAIN_NAMES = ("meadow", "forest", "grain", "village", "track", "stream")
TERRAIN_COLOURS = ("#b6d7a8", "#2e6b1f", "#f1c232", "#cc4125", "#8d7b68", "#3d85c6")  # M W G V T S
OUTLINE_COLOURS = ("#123d0b", "#8a6500", "#5c1206")  # closed forest, grain, village
FLAG_COLOURS = ("#38b000", "#ffd500", "#e00000")
MARKER_COLOURS = ("#2e6b1f", "#bf9000", "#cc4125", "#6d5d4b", "#1c5d99", "#7b3fa0", "#444444")
_ANG = [math.radians(90 - 60 * k) for k in range(7)]  # corner k; edge d runs from corner d to corner d + 1
CORNERS = np.array([[math.cos(a), math.sin(a)] for a in _ANG])
BOARD_BOXES = ((10.0, 50.0, 525.0, 630.0), (550.0, 50.0, 525.0, 630.0))  # x, y, width, height in pixels


class _View:
    """Maps hex units (circumradius 1; axial (q, r) centred at (sqrt3 (q + r/2), -1.5 r)) into a pixel box."""

    def __init__(self, centre: tuple[float, float], scale: float, box: tuple[float, float, float, float]) -> None:
        self.cx, self.cy = centre
        self.scale = scale
        self.ox, self.oy = box[0] + box[2] / 2, box[1] + box[3] / 2

    def point(self, x: float, y: float) -> tuple[float, float]:
        return self.ox + (x - self.cx) * self.scale, self.oy + (y - self.cy) * self.scale

    def cell(self, q: int, r: int) -> tuple[float, float]:
        return self.point(SQ3 * (q + r / 2.0), -1.5 * r)


def _cells(rec: np.void, p: int) -> list[int]:
    return [int(c) for c in rec["order"][p, : int(rec["n_placed"][p])]]


def _views(rec: np.void) -> list[_View]:
    """One view per board: centred on its tiles, one scale for both, fitted to the boxes."""
    radius = int(rec["radius"])
    spans, centres = [], []
    for p in range(2):
        pts = [(SQ3 * (q + r / 2.0), -1.5 * r) for q, r in (coords_of(radius, c) for c in _cells(rec, p))]
        pts = pts or [(0.0, 0.0)]
        xs, ys = [x for x, _ in pts], [y for _, y in pts]
        spans.append((max(xs) - min(xs) + 3.2, max(ys) - min(ys) + 3.2))
        centres.append(((max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2))
    w, h = BOARD_BOXES[0][2], BOARD_BOXES[0][3]
    scale = min(w / max(max(s[0] for s in spans), 8.0), h / max(max(s[1] for s in spans), 8.0))
    return [_View(centres[p], scale, BOARD_BOXES[p]) for p in range(2)]


def _closed_areas(rec: np.void, p: int, cells: list[int]) -> list[tuple[int, set[int]]]:
    """(kind, cells) of each closed forest/grain/village area worth outlining."""
    out = []
    for k in range(3):
        members: dict[int, set[int]] = {}
        for i, c in enumerate(cells):  # areas are kept by tile: its place in ``order``
            root = int(rec["area_root"][p, k, i])
            if root >= 0:
                members.setdefault(root, set()).add(c)
        for root, group in members.items():
            flagged = any(TILE_FLAG[int(rec["cell_tile"][p, c])] == k for c in group)
            if int(rec["area_open"][p, k, root]) == 0 and (len(group) > 1 or flagged):
                out.append((k, group))
    return out


def _hexes(ax: Axes, centres: np.ndarray, edges: np.ndarray, scale: float) -> None:
    """Hexes at pixel ``centres`` (N x 2), triangle d coloured by terrain ``edges[:, d]``."""
    a = centres[:, None, :] + scale * CORNERS[None, :6, :]
    b = centres[:, None, :] + scale * CORNERS[None, 1:, :]
    mid = np.broadcast_to(centres[:, None, :], a.shape)
    tris = np.stack([mid, a, b], axis=2).reshape(-1, 3, 2)
    colours = [TERRAIN_COLOURS[int(e)] for e in edges.reshape(-1)]
    ax.add_collection(PolyCollection(tris, facecolors=colours, edgecolors=colours, linewidths=0.3))
    rims = np.stack([a, b], axis=2).reshape(-1, 2, 2)
    ax.add_collection(LineCollection(rims, colors="#555555", linewidths=0.5))


def _pennant(ax: Axes, x: float, y: float, size: float, colour: str) -> None:
    ax.plot([x, x], [y - 0.55 * size, y + 0.55 * size], color="black", lw=1)
    top = y + 0.55 * size
    ax.add_patch(
        Polygon([(x, top), (x + 0.6 * size, top - 0.18 * size), (x, top - 0.36 * size)], fc=colour, ec="black", lw=0.6)
    )


def _board(ax: Axes, rec: np.void, p: int, view: _View, title: str) -> None:
    radius = int(rec["radius"])
    x, y, w, h = BOARD_BOXES[p]
    ax.text(x + w / 2, y + h + 12, title, ha="center", va="center", fontsize=12, weight="bold")
    cells = _cells(rec, p)
    if not cells:
        ax.text(x + w / 2, y + h / 2, "(no tiles yet)", ha="center", va="center", fontsize=11)
        return
    centres = np.array([view.cell(*coords_of(radius, c)) for c in cells])
    _hexes(ax, centres, np.asarray(rec["cell_edge"][p])[cells], view.scale)
    for k, group in _closed_areas(rec, p, cells):
        segs = []
        for c in group:
            q, r = coords_of(radius, c)
            cx, cy = view.cell(q, r)
            for d in range(6):
                nq, nr = q + DIR_Q[d], r + DIR_R[d]
                if abs(nq) <= radius and abs(nr) <= radius and (nr + radius) * (2 * radius + 1) + nq + radius in group:
                    continue
                a, b = CORNERS[d] * 0.92 * view.scale, CORNERS[d + 1] * 0.92 * view.scale
                segs.append([(cx + a[0], cy + a[1]), (cx + b[0], cy + b[1])])
        ax.add_collection(LineCollection(segs, colors=OUTLINE_COLOURS[k], linewidths=max(1.5, view.scale / 6)))
    font = float(np.clip(view.scale * 0.5, 4.0, 11.0))
    for c, (cx, cy) in zip(cells, centres, strict=True):
        _marks(ax, rec, p, c, cx, cy, view.scale, font)


def _marks(ax: Axes, rec: np.void, p: int, c: int, cx: float, cy: float, size: float, font: float) -> None:
    flag = int(TILE_FLAG[int(rec["cell_tile"][p, c])])
    if flag >= 0:
        _pennant(ax, cx - 0.35 * size, cy, size, FLAG_COLOURS[flag])
    state = int(rec["cell_mk_state"][p, c])
    if state == MK_OPEN:
        t = int(rec["cell_mk_type"][p, c])
        ax.add_patch(Circle((cx, cy), min(0.55 * size, 15.0), fc=MARKER_COLOURS[t], ec="white", lw=1))
        ax.text(
            cx,
            cy,
            str(int(rec["cell_mk_value"][p, c])),
            ha="center",
            va="center",
            fontsize=font,
            weight="bold",
            color="white",
        )
    elif state == MK_DONE:
        ax.add_patch(Circle((cx, cy), min(0.45 * size, 12.0), fc="#38761d", ec="white", lw=1))
        ax.text(cx, cy, "\u2713", ha="center", va="center", fontsize=font, weight="bold", color="white")
    elif state == MK_CANCELLED:
        ax.text(cx, cy, "\u2717", ha="center", va="center", fontsize=font * 1.2, color="#222222")
    if rec["module_poi"]:
        _module_marks(ax, rec, p, c, cx, cy, size, font)


def _module_marks(ax: Axes, rec: np.void, p: int, c: int, cx: float, cy: float, size: float, font: float) -> None:
    """Module 2: a special tile's initial, a heart, the photographer (camera glyph) and his cameras."""
    tile = int(rec["cell_tile"][p, c])
    label = {69: "S", 70: "B", 71: "O", 72: "P"}.get(tile, "")
    if label:
        ax.text(cx, cy, label, ha="center", va="center", fontsize=font * 1.3, weight="bold", color="black")
    if rec["cell_heart"][p, c]:
        ax.text(cx + 0.4 * size, cy - 0.35 * size, "\u2665", ha="center", va="center", fontsize=font, color="#c00000")
    if c == int(rec["photo_cell"][p]) or rec["cell_camera"][p, c]:
        text = ("\u25c9" if c == int(rec["photo_cell"][p]) else "") + (
            f"{int(rec['cell_camera'][p, c])}" if rec["cell_camera"][p, c] else ""
        )
        ax.text(cx + 0.4 * size, cy + 0.4 * size, text, ha="center", va="center", fontsize=font * 0.8, color="#1f3f8f")


def _marker_text(rec: np.void) -> str:
    if rec["mk_type"] < 0:
        return ""
    t = int(rec["mk_type"])
    name = TASK_TYPES[t]
    if t == 6:
        name = "double " + "+".join(TASK_TYPES[int(k)] for k in TILE_PAIR[int(rec["tile"])])
    return f"task marker: {name} {int(rec['mk_value'])}"


def _side(ax: Axes, rec: np.void, seat: int | None) -> None:
    """The tile to place (unrotated) and both score pads, in the right-hand column."""
    tile = int(rec["tile"])
    if tile >= 0:
        size = 42.0
        _hexes(ax, np.array([[1140.0, 630.0]]), TILE_EDGES[tile][None, :], size)
        if TILE_FLAG[tile] >= 0:
            _pennant(ax, 1140 - 0.35 * size, 630, size, FLAG_COLOURS[int(TILE_FLAG[tile])])
        if rec["mk_type"] >= 0:
            ax.add_patch(Circle((1140, 630), 0.5 * size, fc=MARKER_COLOURS[int(rec["mk_type"])], ec="white", lw=1))
            ax.text(
                1140,
                630,
                str(int(rec["mk_value"])),
                ha="center",
                va="center",
                fontsize=12,
                weight="bold",
                color="white",
            )
    info = [describe_tile(tile) if tile >= 0 else "none: the game is over", _marker_text(rec)]
    ax.text(1195, 630, "tile to place\n" + "\n".join(x for x in info if x), fontsize=9, va="center", linespacing=1.5)
    left_land = int(rec["land_n"]) - int(rec["land_pos"])
    left_task = int(rec["task_n"]) - int(rec["task_pos"])
    pads = [score_pad(rec, p) for p in range(2)]
    names = ["you" if p == seat else f"player {p}" for p in range(2)]  # no "_": its descent would shift the rows
    rows = [f"stacks: {left_land} landscape, {left_task} task", "", "score pad"]
    cols: list[list[str]] = [["", "", names[0]], ["", "", names[1]]]
    for row in PAD_ROWS:
        if not row.startswith("module") or rec[("module_task_cards" if "1" in row else "module_poi")]:
            rows.append(row)
            for p in range(2):
                cols[p].append(str(pads[p][row]))
        if row.endswith("subtotal"):
            rows.append("")
            cols[0].append("")
            cols[1].append("")
    style = {"fontsize": 8.5, "va": "top", "linespacing": 1.4}
    ax.text(1090, 560, "\n".join(rows), **style)  # one text per column: padding spaces cost glyph renders
    for p in range(2):
        ax.text(1300 + 80 * p, 560, "\n".join(cols[p]), ha="right", **style)


def _title(rec: np.void, seat: int | None) -> str:
    head = f"Dorfromantik: The Duel   turn {int(rec['turn']) + (0 if rec['done'] else 1)}   "
    if rec["done"]:
        w = int(rec["winner"])
        return head + ("game over: a draw" if w == 2 else f"game over: player_{w} wins")
    text = head + f"player_{int(rec['current'])} to place the tile"
    pending = int(rec["pending"][0])
    if pending >= 0 and seat in (None, 0):
        text += f"   (player_0 chose {action_name(int(rec['radius']), pending)}, hidden from player_1)"
    elif pending >= 0:
        text += "   (player_0 has chosen, hidden until you place)"
    return text


def _legend(ax: Axes) -> None:
    x = 12.0
    for name, colour in zip(TERRAIN_NAMES, TERRAIN_COLOURS, strict=True):
        ax.add_patch(Polygon([(x, 9), (x + 12, 9), (x + 12, 21), (x, 21)], fc=colour, ec="#555555", lw=0.5))
        ax.text(x + 16, 15, name, fontsize=8.5, va="center")
        x += 76
    ax.text(
        x - 6,
        15,
        "disc: open task marker and its value, in its terrain's colour (connection purple, double grey)   "
        "\u2713 completed   \u2717 cancelled   pennant: flag   thick line: closed territory",
        fontsize=8,
        va="center",
        color="#444444",
    )


def draw(rec: np.void, seat: int | None) -> np.ndarray:
    """Both areas, the tile to place and the score pads as an H x W x 3 uint8 picture (seat None: a spectator)."""
    fig = new_figure(WIDTH, HEIGHT)
    ax = full_axes(fig, WIDTH, HEIGHT)
    ax.text(12, HEIGHT - 26, _title(rec, seat), fontsize=13, weight="bold", va="center")
    view = "spectator view" if seat is None else f"seen by player_{seat}"
    ax.text(WIDTH - 12, HEIGHT - 26, view, fontsize=9, ha="right", va="center", color="#666666")
    for p, v in enumerate(_views(rec)):
        who = f"player_{p}" + (" (you)" if p == seat else "")
        _board(ax, rec, p, v, f"{who}: {int(rec['total'][p])} points")
    _side(ax, rec, seat)
    _legend(ax)
    return to_rgb(fig)
