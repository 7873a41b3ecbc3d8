"""Placing a tile and the legal moves: the placement rules (an empty cell next to one's tiles,
track to track, stream to stream), the task-tile rule, putting a tile (this turn's or a special
one) on a board with what it sets off, the frontier of cells a tile may go to, and the seat's
legal actions in each phase."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.areas import facing_roots, join_areas, territory_if_placed
from envs.dorfromantik_duel.grid import (
    HAS_LINE,
    LINE_BITS,
    LINE_CODE,
    action_count,
    hex_steps,
    line_code,
    next_cell,
    occupied_neighbours,
    on_board,
    origin,
    pass_action,
    tile_edge,
)
from envs.dorfromantik_duel.markers import VERDICT_CANCEL, check_task_markers, marker_verdict
from envs.dorfromantik_duel.points_of_interest import after_placement, poi_open
from envs.dorfromantik_duel.rules import (
    MK_OPEN,
    NUM_ROT,
    PH_HEART,
    PH_PHOTO,
    PH_PLACE,
    PH_POI,
    PH_SPECIAL,
    POI_NONE,
    X_HEART,
    X_KEEP,
    X_MOVE,
    X_NO_HEART,
    X_POI,
)
from envs.dorfromantik_duel.state import MAX_FRONTIER, NO_TILE
from envs.dorfromantik_duel.tiles import (
    NUM_LANDSCAPE,
    NUM_TILES,
    PHOTOGRAPHER_TILE,
    T_CONNECTION,
    T_DOUBLE,
    TILE_CANON,
    TILE_PAIR,
    TILE_TASK,
)
from envs.engine.bits import kth_legal

MAX_LISTED = NUM_ROT * MAX_FRONTIER  # every rotation in every cell next to the seat's tiles


@njit(cache=True)
def facing_lines(s, p: int, c: int, facing):
    """The edge each neighbour of c shows towards c (-1: no tile there) into ``facing``; returns
    how many tiles touch c and the (code, mask) of the lines they show it: a tile fits when its
    ``LINE_CODE`` agrees with ``code`` wherever ``mask`` is set (``edges_fit``)."""
    touching = 0
    code = 0
    mask = 0
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
            facing[d] = -1
            continue
        f = s.cell_edge[p, nb, (d + 3) % NUM_ROT]
        facing[d] = f
        touching += 1
        mask |= 3 << (LINE_BITS * d)
        code |= line_code(f) << (LINE_BITS * d)
    return touching, code, mask


@njit(cache=True)
def edges_fit(tile: int, rot: int, code: int, mask: int) -> bool:
    """Track edges only against track edges, stream only against stream; the rest meet anything."""
    return (LINE_CODE[tile, rot] ^ code) & mask == 0


@njit(cache=True)
def doomed_task_placement(s, p: int, tile: int, rot: int, facing, roots, touching: int) -> bool:
    """A task tile may not go where its territory already exceeds N or is closed below N
    (a connection tile: where more than N tiles already touch it). ``facing``, ``roots`` and
    ``touching`` describe the cell (``facing_roots``)."""
    t = TILE_TASK[tile]
    value = s.mk_value
    if t == T_CONNECTION:
        return touching > value
    k1 = t
    k2 = t
    if t == T_DOUBLE:
        k1 = TILE_PAIR[tile, 0]
        k2 = TILE_PAIR[tile, 1]
    size1, open1 = territory_if_placed(s, p, tile, rot, k1, facing, roots)
    size2, open2 = size1, open1
    if k2 != k1:
        size2, open2 = territory_if_placed(s, p, tile, rot, k2, facing, roots)
    return marker_verdict(t, value, size1, open1, size2, open2, 0) == VERDICT_CANCEL


@njit(cache=True)
def placement_ok(s, p: int, tile: int, c: int, rot: int) -> bool:
    """The placement rules: an empty cell touching one of p's tiles (the origin for the first),
    track edges only against track edges and stream only against stream; then the task rule."""
    if s.cell_tile[p, c] != NO_TILE:
        return False
    facing = np.empty(NUM_ROT, np.int64)
    touching, code, lines = facing_lines(s, p, c, facing)
    if s.n_placed[p] == 0:
        if c != origin(s.radius):
            return False
    elif touching == 0 or not edges_fit(tile, rot, code, lines):
        return False
    if TILE_TASK[tile] >= 0 and s.forbid_doomed_tasks:
        roots = np.empty(NUM_ROT, np.int64)
        facing_roots(s, p, c, facing, roots)
        return not doomed_task_placement(s, p, tile, rot, facing, roots, touching)
    return True


@njit(cache=True)
def place_tile(s, p: int, c: int, rot: int) -> None:
    """Put this turn's tile (and its marker, open) on p's board, refresh the areas, check markers."""
    put_tile(s, p, s.tile, c, rot)
    if s.mk_type >= 0:
        s.cell_mk_type[p, c] = s.mk_type
        s.cell_mk_value[p, c] = s.mk_value
        s.cell_mk_state[p, c] = MK_OPEN
        s.open_markers[p] += 1
    join_areas(s, p, c)
    check_task_markers(s, p)
    if s.module_poi:
        after_placement(s, p, c, s.tile < NUM_LANDSCAPE)


@njit(cache=True)
def put_tile(s, p: int, tile: int, c: int, rot: int) -> None:
    s.cell_tile[p, c] = tile
    s.cell_rot[p, c] = rot
    for d in range(NUM_ROT):
        s.cell_edge[p, c, d] = tile_edge(tile, rot, d)
    s.order[p, s.n_placed[p]] = c
    s.cell_index[p, c] = s.n_placed[p]
    s.n_placed[p] += 1
    # the extent first: grow_frontier reads the neighbours of c's neighbours, which next_cell finds by
    # unchecked arithmetic only while the extent says they are on the board
    s.extent[p] = max(s.extent[p], hex_steps(s.radius, c))
    grow_frontier(s, p, c)
    if tile < NUM_TILES:
        s.used[p, tile] = 1


@njit(cache=True)
def place_special(s, p: int, c: int, rot: int) -> None:
    """Put the seat's special tile down; the photographer stands on his own tile."""
    tile = s.to_place[p]
    s.to_place[p] = -1
    put_tile(s, p, tile, c, rot)
    join_areas(s, p, c)
    check_task_markers(s, p)
    after_placement(s, p, c, np.bool_(False))
    if tile == PHOTOGRAPHER_TILE:
        s.photo_cell[p] = c
    else:
        s.special_cell[p] = c


@njit(cache=True)
def seat_acts(s, seat: int) -> bool:
    """Seats still to decide in this phase: those acting at its start, then seat 1 alone."""
    if s.done or not s.acts[seat]:
        return False
    return seat == 1 or s.current == 0


@njit(cache=True)
def seat_tile(s, seat: int) -> int:
    """The tile the seat places in this phase: the turn's tile, or its special tile."""
    return s.to_place[seat] if s.phase == PH_SPECIAL else s.tile


@njit(cache=True)
def legal_placements(s, seat: int, tile: int, mask) -> int:
    """Marks the legal placements of ``tile`` in ``mask``; returns how many."""
    out = np.empty(MAX_LISTED, np.int64)
    count = list_placements(s, seat, tile, out)
    for i in range(count):
        mask[out[i]] = 1
    return count


@njit(cache=True)
def frontier_place(s, p: int, c: int) -> int:
    """Where cell c is in p's frontier (-1: not in it)."""
    for i in range(s.n_frontier[p]):
        if s.frontier[p, i] == c:
            return i
    return -1


@njit(cache=True)
def set_frontier(s, p: int, i: int, c: int, code: int, mask: int) -> None:
    s.frontier[p, i] = c
    s.frontier_code[p, i] = code
    s.frontier_mask[p, i] = mask


@njit(cache=True)
def grow_frontier(s, p: int, c: int) -> int:
    """After a tile went down at c: c leaves p's frontier (the order of the rest kept), c's empty
    neighbours that touch no other tile join it at the end, so the frontier stays in the order of
    the tiles its cells first touch, and each empty neighbour notes the line c shows it.
    Returns c's former place in the frontier (-1: not in it)."""
    n = s.n_frontier[p]
    at = frontier_place(s, p, c)
    if at >= 0:
        for i in range(at, n - 1):
            set_frontier(s, p, i, s.frontier[p, i + 1], s.frontier_code[p, i + 1], s.frontier_mask[p, i + 1])
        n -= 1
        set_frontier(s, p, n, -1, 0, 0)
    s.n_frontier[p] = n
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
        if nb < 0 or s.cell_tile[p, nb] != NO_TILE:
            continue
        shift = LINE_BITS * ((d + 3) % NUM_ROT)  # c is in the opposite direction, seen from nb
        code = line_code(s.cell_edge[p, c, d]) << shift
        if occupied_neighbours(s, p, nb) == 1:
            set_frontier(s, p, n, nb, code, 3 << shift)
            n += 1
            s.n_frontier[p] = n
        else:
            i = frontier_place(s, p, nb)
            s.frontier_code[p, i] |= code
            s.frontier_mask[p, i] |= 3 << shift
    return at


@njit(cache=True)
def index_board(s, p: int) -> None:
    """``cell_index`` and the frontier rebuilt from p's ``order`` (after a scenario wrote the board)."""
    s.cell_index[p, :] = -1
    s.frontier[p, :] = -1
    s.frontier_code[p, :] = 0
    s.frontier_mask[p, :] = 0
    for i in range(s.n_placed[p]):
        s.cell_index[p, s.order[p, i]] = i
    n = 0
    facing = np.empty(NUM_ROT, np.int64)
    for i in range(s.n_placed[p]):
        for d in range(NUM_ROT):
            nb = next_cell(s, p, np.int64(s.order[p, i]), d)
            if nb < 0 or s.cell_tile[p, nb] != NO_TILE:
                continue
            known = False
            for j in range(n):
                known = known or s.frontier[p, j] == nb
            if not known:
                _, code, mask = facing_lines(s, p, nb, facing)
                set_frontier(s, p, n, nb, code, mask)
                n += 1
    s.n_frontier[p] = n


@njit(cache=True)
def list_placements(s, seat: int, tile: int, out) -> int:
    """The legal placements of ``tile`` as actions in ``out`` (the frontier's cells in its order,
    rotations in turn); returns how many."""
    count = 0
    if s.n_placed[seat] == 0:
        c = origin(s.radius)
        for rot in range(NUM_ROT):
            if (not s.distinct_rotations or TILE_CANON[tile, rot] == rot) and placement_ok(s, seat, tile, c, rot):
                out[count] = c * NUM_ROT + rot
                count += 1
        return count
    facing = np.empty(NUM_ROT, np.int64)
    roots = np.empty(NUM_ROT, np.int64)
    task_rule = TILE_TASK[tile] >= 0 and s.forbid_doomed_tasks
    for i in range(s.n_frontier[seat]):
        c = np.int64(s.frontier[seat, i])
        code = np.int64(s.frontier_code[seat, i])
        lines = np.int64(s.frontier_mask[seat, i])
        touching = 0
        if task_rule:
            touching, _, _ = facing_lines(s, seat, c, facing)
            facing_roots(s, seat, c, facing, roots)
        if not HAS_LINE[tile] and code == 0:
            lines = 0  # no line on either side: every rotation fits
        for rot in range(NUM_ROT):
            if s.distinct_rotations and TILE_CANON[tile, rot] != rot:
                continue
            if not edges_fit(tile, rot, code, lines):
                continue
            if task_rule and doomed_task_placement(s, seat, tile, rot, facing, roots, touching):
                continue
            out[count] = c * NUM_ROT + rot
            count += 1
    return count


@njit(cache=True)
def legal_for(s, seat: int, mask) -> int:
    """Seat's legal actions into ``mask``; ``pass`` only when no placement is legal."""
    mask[:] = 0
    if not seat_acts(s, seat):
        return 0
    extra = pass_action(s) + 1
    if s.phase == PH_HEART:
        mask[extra + X_HEART] = 1
        mask[extra + X_NO_HEART] = 1
        return 2
    if s.phase == PH_PHOTO:
        mask[extra + X_MOVE] = 1
        mask[extra + X_KEEP] = 1
        return 2
    if s.phase == PH_POI:
        count = 0
        for i in range(POI_NONE + 1):
            if poi_open(s, seat, i):
                mask[extra + X_POI + i] = 1
                count += 1
        return count
    count = legal_placements(s, seat, seat_tile(s, seat), mask)
    if count == 0:
        mask[extra - 1] = 1
        count = 1
    return count


@njit(cache=True)
def legal_into(s, mask) -> int:
    """The acting seat's legal actions (the engine contract)."""
    if s.done:
        mask[:] = 0
        return 0
    return legal_for(s, np.int64(s.current), mask)


@njit(cache=True)
def is_legal(s, seat: int, a: int) -> bool:
    if not seat_acts(s, seat):
        return False
    radius = s.radius
    if a < 0 or a >= action_count(s):
        return False
    if a >= pass_action(s) or s.phase != PH_PLACE and s.phase != PH_SPECIAL:
        mask = np.zeros(action_count(s), np.int8)
        legal_for(s, seat, mask)
        return mask[a] == 1
    c = a // NUM_ROT
    rot = a % NUM_ROT
    if not on_board(radius, c):
        return False
    tile = seat_tile(s, seat)
    if s.distinct_rotations and TILE_CANON[tile, rot] != rot:
        return False
    return placement_ok(s, seat, tile, c, rot)


@njit(cache=True)
def play_action(s, p: int, a: int) -> None:
    """Seat p's placement (or pass) of this turn's tile."""
    if a == pass_action(s):
        s.used[p, s.tile] = 2  # no legal placement: the tile (and its marker) leaves p's game
    else:
        place_tile(s, p, a // NUM_ROT, a % NUM_ROT)


@njit(cache=True)
def play_special(s, p: int, a: int) -> None:
    """Seat p's placement of its special tile; with no place for it, it leaves the game."""
    if a == pass_action(s):
        s.to_place[p] = -1
    else:
        place_special(s, p, a // NUM_ROT, a % NUM_ROT)


@njit(cache=True)
def pick_random_action(s, mask, r):
    """A uniformly random legal action: placements come straight from the list of cells next to
    the seat's tiles, without building and scanning a mask of every action."""
    if s.phase == PH_PLACE or s.phase == PH_SPECIAL:
        listed = np.empty(MAX_LISTED, np.int64)
        seat = np.int64(s.current)
        n = list_placements(s, seat, seat_tile(s, seat), listed)
        if n == 0:
            return pass_action(s)
        return listed[np.uint64(r) % np.uint64(n)]
    n = legal_into(s, mask)
    return kth_legal(mask, np.uint64(r) % np.uint64(n))
