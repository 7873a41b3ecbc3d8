"""Checks a deserialized or hand-edited state record before compiled code reads it.

numba does not check bounds, so every value the core uses as an index (tile ids, cells,
labels, marker types and values, stack positions) is checked here, and the derived fields
(edges, areas, counts) are recomputed and compared: a record that passes is one the core
could have produced.
"""

import numpy as np

from envs.dorfromantik_duel import core
from envs.dorfromantik_duel.core import MAX_PLACED
from envs.dorfromantik_duel.rules import (
    MK_NONE,
    MK_OPEN,
    NUM_MARKER_TYPES,
    DorfromantikDuelConfig,
    coords_of,
    hex_distance,
    num_actions,
    num_cells,
    on_board,
)
from envs.dorfromantik_duel.state_check_modules import check_modules
from envs.dorfromantik_duel.tiles import (
    NUM_LANDSCAPE,
    NUM_TASK,
    NUM_TILE_IDS,
    NUM_TILES,
    T_DOUBLE,
    TASKS_PER_TYPE,
    TILE_EDGES,
    TILE_TASK,
)


def _in(rec: np.void, key: str, lo: int, hi: int, values: np.ndarray | None = None) -> None:
    arr = np.asarray(rec[key] if values is None else values)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(f"state field {key!r} out of range [{lo}, {hi}]")


def check_state(rec: np.void, config: DorfromantikDuelConfig) -> None:
    """ValueError naming the first field that the core could not have produced."""
    radius = config.board_radius
    got = (
        int(rec["radius"]),
        bool(rec["distinct_rotations"]),
        bool(rec["forbid_doomed_tasks"]),
        bool(rec["module_task_cards"]),
        bool(rec["module_poi"]),
    )
    want = (
        radius,
        config.distinct_rotations,
        config.forbid_doomed_tasks,
        config.module_task_cards,
        config.module_points_of_interest,
    )
    if got != want:
        raise ValueError(f"state config fields {got} differ from the env's config {want}")
    nc = num_cells(radius)
    _stacks(rec)
    _in(rec, "tile", -1, NUM_TILES - 1)
    _in(rec, "mk_type", -1, NUM_MARKER_TYPES - 1)
    _in(rec, "mk_value", 0, 6)
    _in(rec, "turn", 0, 1000)
    _in(rec, "winner", -1, 2)
    _in(rec, "unseen", 0, 1)
    _in(rec, "used", 0, 2)
    done = bool(rec["done"])
    tile = int(rec["tile"])
    if (tile < 0) != done:
        raise ValueError("state field 'tile' must be -1 exactly when the game is over")
    if tile >= 0 and (int(rec["mk_type"]) != TILE_TASK[tile] or (TILE_TASK[tile] >= 0) != (rec["mk_value"] >= 3)):
        raise ValueError("state fields 'mk_type'/'mk_value' do not fit the current tile")
    for p in range(2):
        _board(rec, p, radius, nc)
    check_modules(rec)
    holder = np.zeros(1, rec.dtype)
    holder[0] = rec
    for p in range(2):
        core.relabel_areas(holder[0], p)
        n = int(rec["n_placed"][p])
        cells = rec["order"][p, :n]
        for key in ("label", "area_size", "area_open"):
            if not np.array_equal(holder[0][key][p][:, cells], rec[key][p][:, cells]):
                raise ValueError(f"state field {key!r} does not match the board (areas recomputed)")
    _pending(rec, radius, holder)


def _stacks(rec: np.void) -> None:
    _in(rec, "land_len", 0, NUM_LANDSCAPE)
    _in(rec, "land_n", 0, int(rec["land_len"]))
    _in(rec, "land_pos", 0, int(rec["land_n"]))
    _in(rec, "task_n", 0, NUM_TASK)
    _in(rec, "task_pos", 0, int(rec["task_n"]))
    _in(rec, "land", 0, NUM_LANDSCAPE - 1, rec["land"][: int(rec["land_len"])])
    _in(rec, "task", NUM_LANDSCAPE, NUM_TILES - 1, rec["task"][: int(rec["task_n"])])
    for t in range(NUM_MARKER_TYPES):
        n = int(rec["markers_n"][t])
        if not 0 <= n <= TASKS_PER_TYPE[t] or not 0 <= int(rec["markers_pos"][t]) <= n:
            raise ValueError("state fields 'markers_n'/'markers_pos' out of range")
        left = rec["markers"][t, int(rec["markers_pos"][t]) : n]
        _in(rec, "markers", 6 if t == T_DOUBLE else 3, 6, left)
        tiles_left = rec["task"][int(rec["task_pos"]) : int(rec["task_n"])]
        if int(np.sum(TILE_TASK[tiles_left] == t)) > len(left):
            raise ValueError("state field 'markers': fewer markers left than task tiles of that type")


def _board(rec: np.void, p: int, radius: int, nc: int) -> None:
    n = int(rec["n_placed"][p])
    if not 0 <= n <= MAX_PLACED:
        raise ValueError("state field 'n_placed' out of range")
    _in(rec, "cell_tile", -1, (NUM_TILE_IDS if rec["module_poi"] else NUM_TILES) - 1, rec["cell_tile"][p])
    _in(rec, "cell_rot", 0, 5, rec["cell_rot"][p])
    _in(rec, "cell_edge", 0, 5, rec["cell_edge"][p])
    _in(rec, "cell_mk_type", -1, NUM_MARKER_TYPES - 1, rec["cell_mk_type"][p])
    _in(rec, "cell_mk_value", 0, 6, rec["cell_mk_value"][p])
    _in(rec, "cell_mk_state", 0, 3, rec["cell_mk_state"][p])
    cells = [int(c) for c in rec["order"][p, :n]]
    if len(set(cells)) != n or any(not 0 <= c < nc or not on_board(radius, *coords_of(radius, c)) for c in cells):
        raise ValueError("state field 'order' holds repeated or off-board cells")
    occupied = np.flatnonzero(rec["cell_tile"][p] >= 0)
    if sorted(cells) != occupied.tolist():
        raise ValueError("state fields 'order' and 'cell_tile' disagree")
    tiles = rec["cell_tile"][p, cells]
    game_tiles = tiles[tiles < NUM_TILES]
    if len(set(tiles.tolist())) != n or np.any(rec["used"][p, game_tiles] != 1):
        raise ValueError("state fields 'cell_tile' and 'used' disagree")
    if int(np.sum(rec["used"][p] == 1)) != len(game_tiles):
        raise ValueError("state field 'used' marks tiles that are not on the board")
    extent = max((hex_distance(*coords_of(radius, c)) for c in cells), default=0)
    if extent != int(rec["extent"][p]):
        raise ValueError("state field 'extent' does not match the board")
    n_open = 0
    for c, tile in zip(cells, tiles.tolist(), strict=True):
        rot = int(rec["cell_rot"][p, c])
        if not np.array_equal(rec["cell_edge"][p, c], np.roll(TILE_EDGES[tile], rot)):
            raise ValueError("state field 'cell_edge' does not match the tile and rotation")
        st = int(rec["cell_mk_state"][p, c])
        if st != MK_NONE and int(rec["cell_mk_type"][p, c]) != TILE_TASK[tile]:
            raise ValueError("state field 'cell_mk_type' does not fit the tile")
        if st != MK_NONE and int(rec["cell_mk_value"][p, c]) < 3:
            raise ValueError("state field 'cell_mk_value' out of range")
        n_open += st == MK_OPEN
    empty = rec["cell_tile"][p] < 0
    if np.any(rec["cell_mk_state"][p][empty] != MK_NONE):
        raise ValueError("state field 'cell_mk_state' marks an empty cell")
    if n_open != int(rec["open_markers"][p]):
        raise ValueError("state field 'open_markers' does not match the board")


def _pending(rec: np.void, radius: int, holder: np.ndarray) -> None:
    pend = rec["pending"]
    if int(pend[1]) != -1:
        raise ValueError("state field 'pending' out of range")
    if int(rec["current"]) != 1 or not rec["acts"][0]:
        if int(pend[0]) != -1:
            raise ValueError("state field 'pending' set while seat 0 is to act")
        return
    a = int(pend[0])
    if not 0 <= a < num_actions(radius, bool(rec["module_poi"])):
        raise ValueError("state field 'pending' out of range")
    holder[0]["current"] = 0
    if not core.is_legal(holder[0], 0, a):
        raise ValueError("state field 'pending' holds an action seat 0 could not have taken")
