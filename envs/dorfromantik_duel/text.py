"""The Duel as text: both boards as hex maps, open markers, score pads, the tile to place.

Each cell shows three characters: the tile's main terrain (the letter on most of its edges),
then an open marker as type initial and value (``g4``), a flag as ``*``, or a completed
marker as ``+``. Rows are skewed half a cell per row, as axial hex coordinates are. Under each
map, the board's tiles in the order placed, with cell and rotation (the whole tile, which the map abbreviates).
"""

import numpy as np

from envs.dorfromantik_duel.rules import MK_DONE, MK_OPEN, PH_PLACE, PHASE_NAMES, action_name, coords_of
from envs.dorfromantik_duel.tiles import (
    NUM_TILES,
    TASK_TYPES,
    TERRAIN_LETTERS,
    TILE_EDGES,
    TILE_FLAG,
    TILE_PAIR,
    describe_tile,
)

_INITIAL = "fgvtscd"  # forest grain village track stream connection double


def _token(rec: np.void, p: int, c: int) -> str:
    tile = int(rec["cell_tile"][p, c])
    counts = np.bincount(TILE_EDGES[tile], minlength=6)
    counts[0] = 0
    main = TERRAIN_LETTERS[int(np.argmax(counts))] if counts.max() else "M"
    st = int(rec["cell_mk_state"][p, c])
    if rec["module_poi"]:
        extra = "@" if c == int(rec["photo_cell"][p]) else ("h" if rec["cell_heart"][p, c] else " ")
        if tile >= NUM_TILES:
            return f"{main}{'SBOP'[tile - NUM_TILES]}{extra}"
        if extra != " " and st != MK_OPEN:
            return f"{main}{extra} "
    if st == MK_OPEN:
        return f"{main}{_INITIAL[int(rec['cell_mk_type'][p, c])]}{int(rec['cell_mk_value'][p, c])}"
    if TILE_FLAG[tile] >= 0:
        return f"{main}* "
    if st == MK_DONE:
        return f"{main}+ "
    return f"{main}  "


def board_map(rec: np.void, p: int) -> list[str]:
    """Seat p's board as text rows; cell (q, r) sits at half-cell column 2q + r."""
    radius = int(rec["radius"])
    cells = [int(c) for c in rec["order"][p, : int(rec["n_placed"][p])]]
    if not cells:
        return ["  (no tiles yet)"]
    at = {coords_of(radius, c): c for c in cells}
    rs = [r for _, r in at]
    xs = [2 * q + r for q, r in at]
    xmin, xmax = min(xs) - 1, max(xs) + 1
    rows = []
    for r in range(min(rs), max(rs) + 1):
        buf = [" "] * ((xmax - xmin) * 2 + 3)
        for x in range(xmin, xmax + 1):
            if (x - r) % 2:
                continue
            q = (x - r) // 2
            token = _token(rec, p, at[(q, r)]) if (q, r) in at else " . "
            pos = (x - xmin) * 2
            buf[pos : pos + 3] = token
        rows.append(f"  r={r:+d}  " + "".join(buf).rstrip())
    return rows


def placed_tiles(rec: np.void, p: int) -> str:
    """Seat p's tiles in the order placed, each with its cell and rotation: the map shows only each cell's main
    terrain, and the other edges decide where the next tiles fit (an information state must tell them apart)."""
    radius = int(rec["radius"])
    out = []
    for c in rec["order"][p, : int(rec["n_placed"][p])]:
        c = int(c)
        q, r = coords_of(radius, c)
        tile = describe_tile(int(rec["cell_tile"][p, c])).split()[0]
        out.append(f"{tile} q={q} r={r} rot={int(rec['cell_rot'][p, c])}")
    return "  placed: " + (", ".join(out) if out else "-")


def _markers(rec: np.void, p: int) -> str:
    radius = int(rec["radius"])
    out = []
    for c in rec["order"][p, : int(rec["n_placed"][p])]:
        c = int(c)
        if rec["cell_mk_state"][p, c] != MK_OPEN:
            continue
        q, r = coords_of(radius, c)
        t = int(rec["cell_mk_type"][p, c])
        name = TASK_TYPES[t]
        if t == 6:
            tile = int(rec["cell_tile"][p, c])
            name = "double " + "+".join(TASK_TYPES[int(k)] for k in TILE_PAIR[tile])
        out.append(f"{name} {int(rec['cell_mk_value'][p, c])} at q={q} r={r}")
    return "; ".join(out) or "none"


def render_table(rec: np.void, seat: int | None) -> str:
    """The table from one seat's view (None: a spectator, who also sees a choice not yet revealed)."""
    radius = int(rec["radius"])
    lines = [f"Dorfromantik: The Duel, turn {int(rec['turn']) + (0 if rec['done'] else 1)}"]
    if rec["done"]:
        w = int(rec["winner"])
        lines.append("game over: " + ("a draw" if w == 2 else f"player_{w} wins"))
    else:
        tile = int(rec["tile"])
        what = describe_tile(tile)
        if rec["mk_type"] >= 0:
            what += f", marker {TASK_TYPES[int(rec['mk_type'])]} {int(rec['mk_value'])}"
        lines.append(f"tile to place: {what}   (player_{int(rec['current'])} to choose)")
        if rec["module_poi"] and int(rec["phase"]) != PH_PLACE:
            seats = " and ".join(f"player_{p}" for p in range(2) if rec["acts"][p])
            lines.append(f"now: {PHASE_NAMES[int(rec['phase'])]} ({seats})")
    left_land = int(rec["land_n"]) - int(rec["land_pos"])
    left_task = int(rec["task_n"]) - int(rec["task_pos"])
    lines.append(f"stacks: {left_land} landscape, {left_task} task tiles left")
    pending = int(rec["pending"][0])
    if pending >= 0 and seat in (None, 0):
        name = action_name(radius, pending, bool(rec["module_poi"]))
        lines.append(f"player_0 has chosen {name} (hidden from player_1 until it chooses)")
    elif pending >= 0:
        lines.append("player_0 has chosen (hidden until you choose)")
    for p in range(2):
        who = f"player_{p}" + (" (you)" if seat == p else "")
        lines.append(
            f"{who}: total {int(rec['total'][p])} = tasks {int(rec['task_points'][p].sum())}"
            f" + flags {int(rec['flag_points'][p].sum())} + track {int(rec['longest'][p, 0])}"
            f" + stream {int(rec['longest'][p, 1])}{_module_text(rec, p)}; open markers: {_markers(rec, p)}"
        )
        lines.extend(board_map(rec, p))
        lines.append(placed_tiles(rec, p))
    lines.append("cells: main terrain (M W G V T S), then an open marker (g4), * flag, + completed task")
    if rec["module_poi"]:
        lines.append("module 2: S B O P school, barn, oak, photographer's tile; h heart; @ the photographer")
    return "\n".join(lines)


def _module_text(rec: np.void, p: int) -> str:
    out = ""
    if rec["module_task_cards"]:
        out += f" + task cards {int(rec['card_points'][p].sum())}"
    if rec["module_poi"]:
        pts = rec["poi_points"][p]
        out += (
            f" + special {int(pts[0])} + cameras {int(pts[1])} + hearts {int(pts[2])}"
            f" ({int(rec['hearts_left'][p])} hearts in hand, {int(rec['cameras_left'])} cameras left)"
        )
    return out
