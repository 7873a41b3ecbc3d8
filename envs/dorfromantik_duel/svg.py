"""The Duel as an SVG picture: both hex areas (tiles edge by edge in their terrains' colours, open, completed
and cancelled task markers, flags, closed territories outlined), the tile to place in each rotation, the score pads.

For the seat to act, each cell where the tile may go is a dashed target (``data-cell``, ``data-moves`` listing the
legal placements there) and each rotation of the tile a ``data-rot`` choice, so a page can offer only legal
placements. Player_0's choice stays hidden from player_1 until it has chosen too, as in the text (text.py).
"""

import math
import re
from collections.abc import Collection

import numpy as np

from envs._svg import circle, document, el, polygon, rect, text
from envs.dorfromantik_duel.grid import TURNED_EDGES
from envs.dorfromantik_duel.rules import DIR_Q, DIR_R, MK_CANCELLED, MK_DONE, MK_OPEN, NUM_ROT, action_name, coords_of
from envs.dorfromantik_duel.score_pad import PAD_ROWS, score_pad
from envs.dorfromantik_duel.tiles import TASK_TYPES, TILE_FLAG, describe_tile

WIDTH, HEIGHT = 1400, 760
SQ3 = math.sqrt(3.0)
TERRAIN_COLOURS = ("#b6d7a8", "#2e6b1f", "#f1c232", "#cc4125", "#8d7b68", "#3d85c6")  # M W G V T S
OUTLINE_COLOURS = ("#123d0b", "#8a6500", "#5c1206")  # closed forest, grain, village
FLAG_COLOURS = ("#38b000", "#ffd500", "#e00000")
MARKER_COLOURS = ("#2e6b1f", "#bf9000", "#cc4125", "#6d5d4b", "#1c5d99", "#7b3fa0", "#444444")
CORNERS = [(math.cos(math.radians(90 - 60 * k)), -math.sin(math.radians(90 - 60 * k))) for k in range(7)]
BOXES = ((10.0, 70.0, 525.0, 640.0), (550.0, 70.0, 525.0, 640.0))
_PLACE = re.compile(r"^place q=(-?\d+) r=(-?\d+) rot=(\d)$")


def _xy(q: int, r: int) -> tuple[float, float]:
    return SQ3 * (q + r / 2.0), 1.5 * r


def _hex(cx: float, cy: float, s: float, edges: np.ndarray) -> str:
    """A hex of six triangles, triangle d in the terrain of edge d."""
    out = []
    for d in range(6):
        a = (cx + s * CORNERS[d][0], cy + s * CORNERS[d][1])
        b = (cx + s * CORNERS[d + 1][0], cy + s * CORNERS[d + 1][1])
        colour = TERRAIN_COLOURS[int(edges[d])]
        out.append(polygon([(cx, cy), a, b], fill=colour, stroke=colour, stroke_width=0.4))
    out.append(
        polygon([(cx + s * x, cy + s * y) for x, y in CORNERS[:6]], fill="none", stroke="#555", stroke_width=0.6)
    )
    return "".join(out)


def _pennant(x: float, y: float, s: float, colour: str) -> str:
    pole = el("line", x1=f"{x:.1f}", y1=f"{y + 0.55 * s:.1f}", x2=f"{x:.1f}", y2=f"{y - 0.55 * s:.1f}", stroke="black")
    top = y - 0.55 * s
    return pole + polygon([(x, top), (x + 0.6 * s, top + 0.18 * s), (x, top + 0.36 * s)], fill=colour, stroke="black")


def _closed_areas(rec: np.void, p: int, cells: list[int]) -> list[tuple[int, set[int]]]:
    """(kind, cells) of each closed forest, grain or village area of two or more tiles, or holding a flag."""
    out = []
    for k in range(3):
        members: dict[int, set[int]] = {}
        for i, c in enumerate(cells):
            root = int(rec["area_root"][p, k, i])
            if root >= 0:
                members.setdefault(root, set()).add(c)
        for root, group in members.items():
            flagged = any(TILE_FLAG[int(rec["cell_tile"][p, c])] == k for c in group)
            if int(rec["area_open"][p, k, root]) == 0 and (len(group) > 1 or flagged):
                out.append((k, group))
    return out


def _marks(rec: np.void, p: int, c: int, cx: float, cy: float, s: float) -> str:
    out = ""
    flag = int(TILE_FLAG[int(rec["cell_tile"][p, c])])
    if flag >= 0:
        out += _pennant(cx - 0.35 * s, cy, s, FLAG_COLOURS[flag])
    state = int(rec["cell_mk_state"][p, c])
    font = max(7.0, min(14.0, 0.55 * s))
    if state == MK_OPEN:
        t = int(rec["cell_mk_type"][p, c])
        out += circle(cx, cy, min(0.55 * s, 15.0), fill=MARKER_COLOURS[t], stroke="white")
        out += text(
            cx, cy + font / 3, str(int(rec["cell_mk_value"][p, c])), size=font, fill="white", text_anchor="middle"
        )
    elif state == MK_DONE:
        out += circle(cx, cy, min(0.45 * s, 12.0), fill="#38761d", stroke="white")
        out += text(cx, cy + font / 3, "\u2713", size=font, fill="white", text_anchor="middle")
    elif state == MK_CANCELLED:
        out += text(cx, cy + font / 3, "\u2717", size=font * 1.2, fill="#222", text_anchor="middle")
    if rec["module_poi"]:
        label = {69: "S", 70: "B", 71: "O", 72: "P"}.get(int(rec["cell_tile"][p, c]), "")
        if label:
            out += text(cx, cy + font / 3, label, size=font * 1.3, font_weight="bold", text_anchor="middle")
        if rec["cell_heart"][p, c]:
            out += text(cx + 0.4 * s, cy + 0.45 * s, "\u2665", size=font, fill="#c00000", text_anchor="middle")
        if c == int(rec["photo_cell"][p]):
            out += text(cx + 0.4 * s, cy - 0.3 * s, "\u25c9", size=font, fill="#1f3f8f", text_anchor="middle")
    return out


def _targets(legal: Collection[str]) -> dict[tuple[int, int], list[str]]:
    """Legal placements grouped by cell."""
    out: dict[tuple[int, int], list[str]] = {}
    for name in legal:
        m = _PLACE.match(name)
        if m:
            out.setdefault((int(m[1]), int(m[2])), []).append(name)
    return out


def _board(rec: np.void, p: int, seat: int | None, targets: dict[tuple[int, int], list[str]], scale: float) -> str:
    radius = int(rec["radius"])
    x0, y0, w, h = BOXES[p]
    cells = [int(c) for c in rec["order"][p, : int(rec["n_placed"][p])]]
    coords = [coords_of(radius, c) for c in cells]
    pts = [_xy(q, r) for q, r in coords + list(targets)] or [(0.0, 0.0)]
    cx = (max(x for x, _ in pts) + min(x for x, _ in pts)) / 2
    cy = (max(y for _, y in pts) + min(y for _, y in pts)) / 2

    def at(q: int, r: int) -> tuple[float, float]:
        x, y = _xy(q, r)
        return x0 + w / 2 + (x - cx) * scale, y0 + h / 2 + (y - cy) * scale

    who = f"player_{p}" + (" (you)" if p == seat else "")
    out = [rect(x0, y0, w, h, fill="#f4f1e6", stroke="#ccc", rx=8)]
    out.append(text(x0 + w / 2, y0 - 10, f"{who}: {int(rec['total'][p])} points", size=16, text_anchor="middle"))
    for c, (q, r) in zip(cells, coords, strict=True):
        out.append(_hex(*at(q, r), scale, rec["cell_edge"][p, c]))
    for k, group in _closed_areas(rec, p, cells):
        for c in group:
            q, r = coords_of(radius, c)
            hx, hy = at(q, r)
            for d in range(6):
                nq, nr = q + DIR_Q[d], r + DIR_R[d]
                if abs(nq) <= radius and abs(nr) <= radius and (nr + radius) * (2 * radius + 1) + nq + radius in group:
                    continue
                a, b = CORNERS[d], CORNERS[d + 1]
                out.append(
                    el(
                        "line",
                        x1=f"{hx + 0.92 * scale * a[0]:.1f}",
                        y1=f"{hy + 0.92 * scale * a[1]:.1f}",
                        x2=f"{hx + 0.92 * scale * b[0]:.1f}",
                        y2=f"{hy + 0.92 * scale * b[1]:.1f}",
                        stroke=OUTLINE_COLOURS[k],
                        stroke_width=f"{max(1.5, scale / 6):.1f}",
                    )
                )
    for c, (q, r) in zip(cells, coords, strict=True):
        out.append(_marks(rec, p, c, *at(q, r), scale))
    if p == seat:
        for (q, r), names in sorted(targets.items()):
            hx, hy = at(q, r)
            shape = polygon([(hx + 0.9 * scale * a, hy + 0.9 * scale * b) for a, b in CORNERS[:6]], class_="hexcell")
            out.append(el("g", shape, class_="target", data_cell=f"{q},{r}", data_moves="|".join(sorted(names))))
    return "".join(out)


def _scale(rec: np.void, targets: dict[tuple[int, int], list[str]]) -> float:
    """One scale for both boards, so they compare at a glance."""
    radius = int(rec["radius"])
    spans = []
    for p in range(2):
        coords = [coords_of(radius, int(c)) for c in rec["order"][p, : int(rec["n_placed"][p])]] + list(targets)
        pts = [_xy(q, r) for q, r in coords] or [(0.0, 0.0)]
        spans.append(
            (
                max(x for x, _ in pts) - min(x for x, _ in pts) + 3.2,
                max(y for _, y in pts) - min(y for _, y in pts) + 3.2,
            )
        )
    return min(BOXES[0][2] / max(max(s[0] for s in spans), 8.0), BOXES[0][3] / max(max(s[1] for s in spans), 8.0))


def _side(rec: np.void, seat: int | None, playable: bool) -> str:
    """The tile to place in each rotation (choices when ``playable``), the stacks and both score pads."""
    tile = int(rec["tile"])
    out = [text(1090, 90, "tile to place", size=15, font_weight="bold")]
    if tile >= 0:
        out.append(text(1090, 110, describe_tile(tile), size=11))
        if rec["mk_type"] >= 0:
            out.append(
                text(1090, 126, f"task marker: {TASK_TYPES[int(rec['mk_type'])]} {int(rec['mk_value'])}", size=11)
            )
        for k in range(NUM_ROT):
            x, y = 1125 + 85 * (k % 3), 170 + 80 * (k // 3)
            body = _hex(x, y, 34, TURNED_EDGES[tile, k]) + text(x, y + 50, f"rot {k}", size=11, text_anchor="middle")
            if TILE_FLAG[tile] >= 0:
                body += _pennant(x - 12, y, 34, FLAG_COLOURS[int(TILE_FLAG[tile])])
            if rec["mk_type"] >= 0:
                body += circle(x, y, 13, fill=MARKER_COLOURS[int(rec["mk_type"])], stroke="white")
                body += text(x, y + 5, str(int(rec["mk_value"])), size=13, fill="white", text_anchor="middle")
            out.append(el("g", body, class_="rot" if playable else None, data_rot=k if playable else None))
    else:
        out.append(text(1090, 110, "none: the game is over", size=12))
    left_land = int(rec["land_n"]) - int(rec["land_pos"])
    left_task = int(rec["task_n"]) - int(rec["task_pos"])
    out.append(text(1090, 350, f"stacks: {left_land} landscape, {left_task} task", size=12))
    pads = [score_pad(rec, p) for p in range(2)]
    names = ["you" if p == seat else f"player_{p}" for p in range(2)]
    y = 376
    out.append(text(1090, y, "score pad", size=12, font_weight="bold"))
    out.extend(text(1300 + 85 * p, y, names[p], size=12, text_anchor="end", font_weight="bold") for p in range(2))
    for row in PAD_ROWS:
        if row.startswith("module") and not rec["module_task_cards" if "1" in row else "module_poi"]:
            continue
        y += 16
        out.append(text(1090, y, row, size=11))
        out.extend(text(1300 + 85 * p, y, str(pads[p][row]), size=11, text_anchor="end") for p in range(2))
    return "".join(out)


def draw(rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
    """Both areas, the tile to place and the score pads from ``seat``'s view (None: a spectator); ``legal`` names
    the moves to make clickable (placements as cell targets and rotations, other moves by name)."""
    targets = _targets(legal)
    scale = _scale(rec, targets)
    head = f"Dorfromantik: The Duel   turn {int(rec['turn']) + (0 if rec['done'] else 1)}   "
    if rec["done"]:
        w = int(rec["winner"])
        head += "game over: a draw" if w == 2 else f"game over: player_{w} wins"
    else:
        head += f"player_{int(rec['current'])} to place the tile"
    pending = int(rec["pending"][0])
    if pending >= 0 and seat in (None, 0):
        head += f"   (player_0 chose {action_name(int(rec['radius']), pending, bool(rec['module_poi']))})"
    elif pending >= 0:
        head += "   (player_0 has chosen, hidden until you place)"
    parts = [text(12, 30, head, size=18, font_weight="bold")]
    parts.extend(_board(rec, p, seat, targets, scale) for p in range(2))
    parts.append(_side(rec, seat, bool(targets)))
    x = 12.0
    names = ("meadow", "forest", "grain", "village", "track", "stream")
    for name, colour in zip(names, TERRAIN_COLOURS, strict=True):
        parts.append(rect(x, 730, 12, 12, fill=colour, stroke="#555"))
        parts.append(text(x + 16, 741, name, size=11))
        x += 80
    return document(WIDTH, HEIGHT, parts, "Dorfromantik: The Duel table")
