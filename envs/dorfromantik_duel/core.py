"""Dorfromantik: The Duel, compiled core: the state record and the rules as numba functions.

Read top to bottom it follows the manual (seeds/dorfromantik_duel.md): set up the stacks,
reveal a tile, check where it may go, place it, find territories (flood fill over the axial
hex grid), complete or cancel task markers, and score flags, longest track and stream.

Each player has a board; both place the same tile each turn. Seat 0 chooses first in the AEC
order, but its choice is only stored (``pending``) until seat 1 has chosen too: then both
tiles go down at once, so seat 1 never sees seat 0's placement of the same turn.
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.rules import (
    BOXED_LANDSCAPE,
    DEFAULT_RADIUS,
    DIR_Q,
    DIR_R,
    DOUBLE_VALUE,
    FIRST_TASK_TURNS,
    MIN_OPEN_MARKERS,
    MK_CANCELLED,
    MK_DONE,
    MK_NONE,
    MK_OPEN,
    NUM_KINDS,
    NUM_MARKER_TYPES,
    NUM_ROT,
    num_cells,
)
from envs.dorfromantik_duel.tiles import (
    NUM_LANDSCAPE,
    NUM_TASK,
    NUM_TILES,
    STREAM,
    T_CONNECTION,
    T_DOUBLE,
    TASKS_PER_TYPE,
    TILE_CANON,
    TILE_EDGES,
    TILE_FLAG,
    TILE_PAIR,
    TILE_TASK,
    TRACK,
)
from envs.engine.game import header_fields
from envs.engine.rng import rng_below, rng_seed, rng_shuffle

DQ = np.array(DIR_Q, np.int64)
DR = np.array(DIR_R, np.int64)
MARKERS_PER_TYPE = np.array(TASKS_PER_TYPE, np.int64)
K_TRACK = TRACK - 1  # area kind of track edges
K_STREAM = STREAM - 1
NO_TILE = -1
VERDICT_OPEN, VERDICT_DONE, VERDICT_CANCEL = 0, 1, 2


def state_dtype(radius: int) -> np.dtype:
    """The state record for a board of this radius (every array lives in the record)."""
    nc = num_cells(radius)
    return np.dtype(
        header_fields(2)
        + [
            # config, written once by new_state
            ("radius", np.int16),
            ("distinct_rotations", np.uint8),
            ("forbid_doomed_tasks", np.uint8),
            # the turn
            ("turn", np.int16),  # turns completed
            ("tile", np.int16),  # tile both players place this turn (-1: none, game over)
            ("mk_type", np.int8),  # its task marker's type (-1: a landscape tile)
            ("mk_value", np.int8),
            ("pending", np.int32, (2,)),  # seat 0's chosen action, hidden until seat 1 has chosen (-1: none)
            # the face-down player's stacks (order hidden)
            ("land", np.int8, (NUM_LANDSCAPE,)),  # landscape stack, top first
            ("land_n", np.int8),  # tiles to reveal; land_n..land_len-1 are the boxed ones
            ("land_len", np.int8),
            ("land_pos", np.int8),
            ("task", np.int8, (NUM_TASK,)),  # task stack (tile ids)
            ("task_n", np.int8),
            ("task_pos", np.int8),
            ("markers", np.int8, (NUM_MARKER_TYPES, 4)),  # marker values by type, face down
            ("markers_n", np.int8, (NUM_MARKER_TYPES,)),
            ("markers_pos", np.int8, (NUM_MARKER_TYPES,)),
            ("unseen", np.uint8, (NUM_TILES,)),  # not revealed yet (stack or box): public
            ("used", np.uint8, (2, NUM_TILES)),  # 1 placed, 2 passed (no legal placement)
            # the two boards (box-indexed cells)
            ("cell_tile", np.int16, (2, nc)),
            ("cell_rot", np.int8, (2, nc)),
            ("cell_edge", np.int8, (2, nc, NUM_ROT)),  # terrain facing each direction
            ("cell_mk_type", np.int8, (2, nc)),
            ("cell_mk_value", np.int8, (2, nc)),
            ("cell_mk_state", np.int8, (2, nc)),  # MK_NONE / OPEN / DONE / CANCELLED
            ("order", np.int16, (2, NUM_TILES)),  # cells in placement order
            ("n_placed", np.int16, (2,)),
            ("extent", np.int8, (2,)),  # farthest placed tile from the origin, in steps
            # areas: per kind, each tile's area label (its first cell) and the area's size and open edges
            ("label", np.int16, (2, NUM_KINDS, nc)),
            ("area_size", np.int16, (2, NUM_KINDS, nc)),
            ("area_open", np.int16, (2, NUM_KINDS, nc)),
            # the score pad
            ("open_markers", np.int8, (2,)),
            ("task_points", np.int16, (2, NUM_MARKER_TYPES)),
            ("tasks_done", np.int8, (2, NUM_MARKER_TYPES)),
            ("tasks_cancelled", np.int8, (2, NUM_MARKER_TYPES)),
            ("flag_points", np.int16, (2, 3)),
            ("longest", np.int16, (2, 2)),  # longest track, longest stream
            ("total", np.int16, (2,)),
            ("winner", np.int8),  # -1 while playing, else the winning seat, 2 for a draw
        ]
    )


STATE_DTYPE = state_dtype(DEFAULT_RADIUS)  # the default config's layout; other radii: state_dtype(radius)


# -- observation layout (see seeds/dorfromantik_duel.md) -----------------------------------
P_OCC = 0  # tile present
P_EDGE = 1  # 36 planes: 1 + direction * 6 + terrain
P_TASK = 37  # a task tile
P_MARKER = 38  # 7 planes: open marker of that type, value / 6
P_FLAG = 45  # 3 planes: green, yellow, red flag
NUM_PLANES = 48
V_EDGE = 0  # current tile, rotation 0: 36 one-hot
V_IS_TASK = 36
V_MK_TYPE = 37  # 7 one-hot
V_MK_VALUE = 44
V_FLAG = 45  # 3 one-hot
V_TILE_ID = 48  # 69 one-hot
V_UNSEEN = 117  # 69: tiles not yet revealed (in a stack or boxed)
V_MARKERS_LEFT = 186  # 7 x 4: markers of (type, value 3..6) still face down
V_LAND_LEFT = 214
V_TASK_LEFT = 215
V_SEAT = 216  # 2 x 14: me, opponent (below)
SEAT_OPEN, SEAT_TASKS, SEAT_FLAGS, SEAT_TRACK, SEAT_STREAM, SEAT_TOTAL, SEAT_LEN = 0, 1, 8, 11, 12, 13, 14
V_TURN = 244
V_OPP_PLACED = 245
V_ME_PLACED = 246
VEC_SIZE = 247


def obs_size(radius: int) -> int:
    """Length of the flat observation: two boards of planes, then the vector part."""
    return 2 * NUM_PLANES * num_cells(radius) + VEC_SIZE


# -- the hex grid --------------------------------------------------------------------------


@njit(cache=True)
def neighbour(radius: int, c: int, d: int) -> int:
    """Cell next to c in direction d (0 = NE, clockwise), or -1 off the board."""
    w = 2 * radius + 1
    q = c % w - radius + DQ[d]
    r = c // w - radius + DR[d]
    if q < -radius or q > radius or r < -radius or r > radius or q + r < -radius or q + r > radius:
        return -1
    return (r + radius) * w + q + radius


@njit(cache=True)
def on_board(radius: int, c: int) -> bool:
    w = 2 * radius + 1
    if c < 0 or c >= w * w:
        return False
    q = c % w - radius
    r = c // w - radius
    return -radius <= q + r <= radius


@njit(cache=True)
def origin(radius: int) -> int:
    return radius * (2 * radius + 1) + radius


@njit(cache=True)
def hex_steps(radius: int, c: int) -> int:
    w = 2 * radius + 1
    q = c % w - radius
    r = c // w - radius
    return max(abs(q), abs(r), abs(q + r))


@njit(cache=True)
def tile_edge(tile: int, rot: int, d: int) -> int:
    """Terrain a tile turned ``rot`` steps clockwise shows in direction d."""
    return TILE_EDGES[tile, (d - rot + NUM_ROT) % NUM_ROT]


# -- setup -----------------------------------------------------------------------------------


@njit(cache=True)
def clear_boards(s) -> None:
    s.cell_tile[:, :] = NO_TILE
    s.cell_rot[:, :] = 0
    s.cell_edge[:, :, :] = 0
    s.cell_mk_type[:, :] = -1
    s.cell_mk_value[:, :] = 0
    s.cell_mk_state[:, :] = MK_NONE
    s.order[:, :] = -1
    s.n_placed[:] = 0
    s.extent[:] = 0
    s.label[:, :, :] = -1
    s.area_size[:, :, :] = 0
    s.area_open[:, :, :] = 0
    s.used[:, :] = 0
    s.open_markers[:] = 0
    s.task_points[:, :] = 0
    s.tasks_done[:, :] = 0
    s.tasks_cancelled[:, :] = 0
    s.flag_points[:, :] = 0
    s.longest[:, :] = 0
    s.total[:] = 0


@njit(cache=True)
def reset(s, seed: np.uint64) -> None:
    """Setup: shuffle the landscape stack (3 go to the box unseen), the task stack and the markers by type."""
    rng_seed(s, seed)
    s.done = 0
    s.current = 0
    s.info_version = 0
    s.rewards[:] = 0.0
    s.winner = -1
    s.turn = 0
    s.pending[:] = -1
    clear_boards(s)
    for i in range(NUM_LANDSCAPE):
        s.land[i] = i
    rng_shuffle(s, s.land, NUM_LANDSCAPE)
    s.land_n = NUM_LANDSCAPE - BOXED_LANDSCAPE
    s.land_len = NUM_LANDSCAPE
    s.land_pos = 0
    for i in range(NUM_TASK):
        s.task[i] = NUM_LANDSCAPE + i
    rng_shuffle(s, s.task, NUM_TASK)
    s.task_n = NUM_TASK
    s.task_pos = 0
    for t in range(NUM_MARKER_TYPES):
        s.markers[t, :] = 0
        if t == T_DOUBLE:
            for i in range(MARKERS_PER_TYPE[t]):
                s.markers[t, i] = DOUBLE_VALUE
        else:
            for i in range(4):
                s.markers[t, i] = 3 + i
            rng_shuffle(s, s.markers[t], 4)
        s.markers_n[t] = MARKERS_PER_TYPE[t]
        s.markers_pos[t] = 0
    s.unseen[:] = 1
    begin_turn(s)


# -- which tile this turn ----------------------------------------------------------------------


@njit(cache=True)
def reveal_next_tile(s) -> bool:
    """A task tile on the first 3 turns or while either area has < 3 open markers (if any are
    left), else a landscape tile. False when a landscape tile is due and none is left."""
    need_task = s.turn < FIRST_TASK_TURNS or min(s.open_markers[0], s.open_markers[1]) < MIN_OPEN_MARKERS
    if need_task and s.task_pos < s.task_n:
        tile = s.task[s.task_pos]
        s.task_pos += 1
        t = TILE_TASK[tile]
        s.mk_type = t
        s.mk_value = s.markers[t, s.markers_pos[t]]
        s.markers_pos[t] += 1
    elif s.land_pos < s.land_n:
        tile = s.land[s.land_pos]
        s.land_pos += 1
        s.mk_type = -1
        s.mk_value = 0
    else:
        s.tile = NO_TILE
        s.mk_type = -1
        s.mk_value = 0
        return False
    s.tile = tile
    s.unseen[tile] = 0
    return True


@njit(cache=True)
def begin_turn(s) -> None:
    """Reveal the tile both players place now, or end the game."""
    s.pending[:] = -1
    if reveal_next_tile(s):
        s.current = 0
    else:
        end_game(s)


# -- territories ---------------------------------------------------------------------------


@njit(cache=True)
def has_kind(s, p: int, c: int, tk: int) -> bool:
    for d in range(NUM_ROT):
        if s.cell_edge[p, c, d] == tk:
            return True
    return False


@njit(cache=True)
def relabel_areas(s, p: int) -> None:
    """Flood fill every area of every kind on p's board: label, size in tiles, open edges.

    Two tiles are in one area of kind k when they touch through two edges of that terrain;
    all edges of one terrain on a tile belong to one area (our simplification). An edge is
    open when it faces an empty cell (or the board's rim)."""
    radius = s.radius
    n = s.n_placed[p]
    stack = np.empty(NUM_TILES, np.int64)
    for k in range(NUM_KINDS):
        for i in range(n):
            s.label[p, k, s.order[p, i]] = -1
    for k in range(NUM_KINDS):
        tk = k + 1
        for i in range(n):
            start = s.order[p, i]
            if s.label[p, k, start] != -1 or not has_kind(s, p, start, tk):
                continue
            s.label[p, k, start] = start
            stack[0] = start
            top = 1
            size = 0
            n_open = 0
            while top > 0:
                top -= 1
                x = stack[top]
                size += 1
                for d in range(NUM_ROT):
                    if s.cell_edge[p, x, d] != tk:
                        continue
                    nb = neighbour(radius, x, d)
                    if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
                        n_open += 1
                    elif s.cell_edge[p, nb, (d + 3) % NUM_ROT] == tk and s.label[p, k, nb] == -1:
                        s.label[p, k, nb] = start
                        stack[top] = nb
                        top += 1
            s.area_size[p, k, start] = size
            s.area_open[p, k, start] = n_open


@njit(cache=True)
def territory(s, p: int, k: int, c: int):
    """(tiles, open edges) of the kind-k area through the tile at c; (1, 0) if it has no such edge."""
    lab = s.label[p, k, c]
    if lab < 0:
        return 1, 0
    return s.area_size[p, k, lab], s.area_open[p, k, lab]


@njit(cache=True)
def territory_if_placed(s, p: int, tile: int, c: int, rot: int, k: int):
    """(tiles, open edges) the kind-k area through ``tile`` would have if placed at c turned rot."""
    radius = s.radius
    tk = k + 1
    joined = np.empty(NUM_ROT, np.int64)
    nj = 0
    own = False
    for d in range(NUM_ROT):
        if tile_edge(tile, rot, d) != tk:
            continue
        own = True
        nb = neighbour(radius, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE or s.cell_edge[p, nb, (d + 3) % NUM_ROT] != tk:
            continue
        lab = s.label[p, k, nb]
        seen = False
        for j in range(nj):
            seen = seen or joined[j] == lab
        if not seen:
            joined[nj] = lab
            nj += 1
    if not own:
        return 1, 0
    size = 1
    n_open = 0
    for j in range(nj):
        size += s.area_size[p, k, joined[j]]
        n_open += s.area_open[p, k, joined[j]]
    for d in range(NUM_ROT):
        nb = neighbour(radius, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
            if tile_edge(tile, rot, d) == tk:
                n_open += 1
        elif s.cell_edge[p, nb, (d + 3) % NUM_ROT] == tk:
            lab = s.label[p, k, nb]
            for j in range(nj):
                if joined[j] == lab:
                    n_open -= 1  # this edge of a joined area faced c: now joined or closed
    return size, n_open


@njit(cache=True)
def occupied_neighbours(s, p: int, c: int) -> int:
    n = 0
    for d in range(NUM_ROT):
        nb = neighbour(s.radius, c, d)
        if nb >= 0 and s.cell_tile[p, nb] != NO_TILE:
            n += 1
    return n


# -- task markers --------------------------------------------------------------------------


@njit(cache=True)
def marker_verdict(mk_type: int, value: int, size1: int, open1: int, size2: int, open2: int, touching: int) -> int:
    """Open, completed or cancelled, from the territory (or territories, or touching tiles).

    Single task: exactly N tiles completes; more than N, or closed below N, cancels.
    Double task: either territory at exactly N completes; cancelled only when neither can still.
    Connection task: exactly N touching tiles completes; never cancelled."""
    if mk_type == T_CONNECTION:
        return VERDICT_DONE if touching == value else VERDICT_OPEN
    if mk_type == T_DOUBLE:
        if size1 == value or size2 == value:
            return VERDICT_DONE
        dead1 = size1 > value or open1 == 0
        dead2 = size2 > value or open2 == 0
        return VERDICT_CANCEL if dead1 and dead2 else VERDICT_OPEN
    if size1 == value:
        return VERDICT_DONE
    if size1 > value or open1 == 0:
        return VERDICT_CANCEL
    return VERDICT_OPEN


@njit(cache=True)
def doomed_task_placement(s, p: int, tile: int, c: int, rot: int) -> bool:
    """A task tile may not go where its territory already exceeds N or is closed below N
    (a connection tile: where more than N tiles already touch it)."""
    t = TILE_TASK[tile]
    value = s.mk_value
    if t == T_CONNECTION:
        return occupied_neighbours(s, p, c) > value
    k1 = t
    k2 = t
    if t == T_DOUBLE:
        k1 = TILE_PAIR[tile, 0]
        k2 = TILE_PAIR[tile, 1]
    size1, open1 = territory_if_placed(s, p, tile, c, rot, k1)
    size2, open2 = territory_if_placed(s, p, tile, c, rot, k2)
    return marker_verdict(t, value, size1, open1, size2, open2, 0) == VERDICT_CANCEL


@njit(cache=True)
def check_task_markers(s, p: int) -> None:
    """After a placement: every open marker on p's board is completed (scores its value),
    cancelled (scores nothing) or stays open. One placement may settle several."""
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
        if s.cell_mk_state[p, c] != MK_OPEN:
            continue
        t = s.cell_mk_type[p, c]
        value = s.cell_mk_value[p, c]
        size1 = 0
        open1 = 0
        size2 = 0
        open2 = 0
        touching = 0
        if t == T_CONNECTION:
            touching = occupied_neighbours(s, p, c)
        elif t == T_DOUBLE:
            tile = s.cell_tile[p, c]
            size1, open1 = territory(s, p, TILE_PAIR[tile, 0], c)
            size2, open2 = territory(s, p, TILE_PAIR[tile, 1], c)
        else:
            size1, open1 = territory(s, p, t, c)
        verdict = marker_verdict(t, value, size1, open1, size2, open2, touching)
        if verdict == VERDICT_DONE:
            s.cell_mk_state[p, c] = MK_DONE
            s.task_points[p, t] += value
            s.tasks_done[p, t] += 1
            s.open_markers[p] -= 1
        elif verdict == VERDICT_CANCEL:
            s.cell_mk_state[p, c] = MK_CANCELLED
            s.tasks_cancelled[p, t] += 1
            s.open_markers[p] -= 1


# -- placement -------------------------------------------------------------------------------


@njit(cache=True)
def facing_edges(s, p: int, c: int, facing) -> int:
    """The edge each neighbour of c shows towards c (-1: no tile there); returns how many touch c."""
    n = 0
    for d in range(NUM_ROT):
        nb = neighbour(s.radius, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
            facing[d] = -1
        else:
            facing[d] = s.cell_edge[p, nb, (d + 3) % NUM_ROT]
            n += 1
    return n


@njit(cache=True)
def edges_fit(tile: int, rot: int, facing) -> bool:
    """Track edges only against track edges, stream only against stream; the rest meet anything."""
    for d in range(NUM_ROT):
        f = facing[d]
        if f < 0:
            continue
        e = tile_edge(tile, rot, d)
        if (e >= TRACK or f >= TRACK) and e != f:
            return False
    return True


@njit(cache=True)
def placement_ok(s, p: int, tile: int, c: int, rot: int) -> bool:
    """The placement rules: an empty cell touching one of p's tiles (the origin for the first),
    track edges only against track edges and stream only against stream; then the task rule."""
    if s.cell_tile[p, c] != NO_TILE:
        return False
    facing = np.empty(NUM_ROT, np.int64)
    touching = facing_edges(s, p, c, facing)
    if s.n_placed[p] == 0:
        if c != origin(s.radius):
            return False
    elif touching == 0 or not edges_fit(tile, rot, facing):
        return False
    if TILE_TASK[tile] >= 0 and s.forbid_doomed_tasks:
        return not doomed_task_placement(s, p, tile, c, rot)
    return True


@njit(cache=True)
def place_tile(s, p: int, c: int, rot: int) -> None:
    """Put this turn's tile (and its marker, open) on p's board, refresh the areas, check markers."""
    tile = s.tile
    s.cell_tile[p, c] = tile
    s.cell_rot[p, c] = rot
    for d in range(NUM_ROT):
        s.cell_edge[p, c, d] = tile_edge(tile, rot, d)
    s.order[p, s.n_placed[p]] = c
    s.n_placed[p] += 1
    s.used[p, tile] = 1
    s.extent[p] = max(s.extent[p], hex_steps(s.radius, c))
    if s.mk_type >= 0:
        s.cell_mk_type[p, c] = s.mk_type
        s.cell_mk_value[p, c] = s.mk_value
        s.cell_mk_state[p, c] = MK_OPEN
        s.open_markers[p] += 1
    relabel_areas(s, p)
    check_task_markers(s, p)


@njit(cache=True)
def seat_acts(s, seat: int) -> bool:
    """Seats still to place this turn: both at its start, then seat 1 alone."""
    if s.done:
        return False
    return seat == 1 or s.current == 0


@njit(cache=True)
def legal_for(s, seat: int, mask) -> int:
    """Seat's legal actions into ``mask``; ``pass`` only when no placement is legal."""
    mask[:] = 0
    if not seat_acts(s, seat):
        return 0
    radius = s.radius
    tile = s.tile
    nc = (2 * radius + 1) ** 2
    count = 0
    if s.n_placed[seat] == 0:
        c = origin(radius)
        for rot in range(NUM_ROT):
            if (not s.distinct_rotations or TILE_CANON[tile, rot] == rot) and placement_ok(s, seat, tile, c, rot):
                mask[c * NUM_ROT + rot] = 1
                count += 1
    else:
        seen = np.zeros(nc, np.uint8)
        facing = np.empty(NUM_ROT, np.int64)
        task_rule = TILE_TASK[tile] >= 0 and s.forbid_doomed_tasks
        for i in range(s.n_placed[seat]):
            x = s.order[seat, i]
            for d in range(NUM_ROT):
                c = neighbour(radius, x, d)
                if c < 0 or seen[c] or s.cell_tile[seat, c] != NO_TILE:
                    continue
                seen[c] = 1
                facing_edges(s, seat, c, facing)
                for rot in range(NUM_ROT):
                    if s.distinct_rotations and TILE_CANON[tile, rot] != rot:
                        continue
                    if not edges_fit(tile, rot, facing):
                        continue
                    if task_rule and doomed_task_placement(s, seat, tile, c, rot):
                        continue
                    mask[c * NUM_ROT + rot] = 1
                    count += 1
    if count == 0:
        mask[nc * NUM_ROT] = 1
        count = 1
    return count


@njit(cache=True)
def legal_into(s, mask) -> int:
    """The acting seat's legal actions (the engine contract)."""
    if s.done:
        mask[:] = 0
        return 0
    return legal_for(s, s.current, mask)


@njit(cache=True)
def is_legal(s, seat: int, a: int) -> bool:
    if not seat_acts(s, seat):
        return False
    radius = s.radius
    nc = (2 * radius + 1) ** 2
    if a < 0 or a > nc * NUM_ROT:
        return False
    if a == nc * NUM_ROT:
        mask = np.zeros(nc * NUM_ROT + 1, np.int8)
        legal_for(s, seat, mask)
        return mask[a] == 1
    c = a // NUM_ROT
    rot = a % NUM_ROT
    if not on_board(radius, c):
        return False
    if s.distinct_rotations and TILE_CANON[s.tile, rot] != rot:
        return False
    return placement_ok(s, seat, s.tile, c, rot)


@njit(cache=True)
def play_action(s, p: int, a: int) -> None:
    nc = (2 * s.radius + 1) ** 2
    if a == nc * NUM_ROT:
        s.used[p, s.tile] = 2  # no legal placement: the tile (and its marker) leaves p's game
    else:
        place_tile(s, p, a // NUM_ROT, a % NUM_ROT)


# -- scoring ---------------------------------------------------------------------------------


@njit(cache=True)
def longest_line(s, p: int, k: int) -> int:
    """Tiles in p's longest track (k = K_TRACK) or stream (K_STREAM)."""
    best = 0
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
        if s.label[p, k, c] == c:
            best = max(best, s.area_size[p, k, c])
    return best


@njit(cache=True)
def score_board(s, p: int) -> None:
    """The score pad as if the game ended now: tasks, flags in closed territories, longest lines."""
    s.flag_points[p, :] = 0
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
        f = TILE_FLAG[s.cell_tile[p, c]]
        if f >= 0:
            size, n_open = territory(s, p, f, c)
            if n_open == 0:
                s.flag_points[p, f] += size
    s.longest[p, 0] = longest_line(s, p, K_TRACK)
    s.longest[p, 1] = longest_line(s, p, K_STREAM)
    total = 0
    for t in range(NUM_MARKER_TYPES):
        total += s.task_points[p, t]
    for f in range(3):
        total += s.flag_points[p, f]
    s.total[p] = total + s.longest[p, 0] + s.longest[p, 1]


@njit(cache=True)
def end_game(s) -> None:
    """Score both pads; higher total wins (+1 / -1), equal totals draw (0)."""
    score_board(s, 0)
    score_board(s, 1)
    s.done = 1
    s.current = -1
    s.tile = NO_TILE
    s.pending[:] = -1
    s.info_version += 1
    if s.total[0] > s.total[1]:
        s.winner = 0
        s.rewards[0] = 1.0
        s.rewards[1] = -1.0
    elif s.total[1] > s.total[0]:
        s.winner = 1
        s.rewards[0] = -1.0
        s.rewards[1] = 1.0
    else:
        s.winner = 2


# -- the turn ----------------------------------------------------------------------------------


@njit(cache=True)
def step(s, a: int) -> int:
    """Seat 0's choice is held back; seat 1's choice places both tiles, then the next tile is revealed."""
    if s.done:
        return 1
    p = s.current
    if not is_legal(s, p, a):
        return 1
    s.rewards[:] = 0.0
    if p == 0:
        s.pending[0] = a
        s.current = 1
        return 0
    play_action(s, 0, s.pending[0])
    play_action(s, 1, a)
    s.turn += 1
    score_board(s, 0)
    score_board(s, 1)
    s.info_version += 1
    begin_turn(s)
    return 0


# -- observation -----------------------------------------------------------------------------


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """Ego-centric: board planes of me then the opponent (as of the turn's start), then the vector."""
    obs[:] = 0.0
    radius = s.radius
    nc = (2 * radius + 1) ** 2
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        base = b * NUM_PLANES * nc
        for i in range(s.n_placed[p]):
            c = s.order[p, i]
            tile = s.cell_tile[p, c]
            obs[base + P_OCC * nc + c] = 1.0
            for d in range(NUM_ROT):
                obs[base + (P_EDGE + d * 6 + s.cell_edge[p, c, d]) * nc + c] = 1.0
            if TILE_TASK[tile] >= 0:
                obs[base + P_TASK * nc + c] = 1.0
            if s.cell_mk_state[p, c] == MK_OPEN:
                obs[base + (P_MARKER + s.cell_mk_type[p, c]) * nc + c] = s.cell_mk_value[p, c] / 6.0
            if TILE_FLAG[tile] >= 0:
                obs[base + (P_FLAG + TILE_FLAG[tile]) * nc + c] = 1.0
    v = 2 * NUM_PLANES * nc
    tile = s.tile
    if tile >= 0:
        for d in range(NUM_ROT):
            obs[v + V_EDGE + d * 6 + TILE_EDGES[tile, d]] = 1.0
        if s.mk_type >= 0:
            obs[v + V_IS_TASK] = 1.0
            obs[v + V_MK_TYPE + s.mk_type] = 1.0
            obs[v + V_MK_VALUE] = s.mk_value / 6.0
        if TILE_FLAG[tile] >= 0:
            obs[v + V_FLAG + TILE_FLAG[tile]] = 1.0
        obs[v + V_TILE_ID + tile] = 1.0
    for t in range(NUM_TILES):
        obs[v + V_UNSEEN + t] = s.unseen[t]
    for t in range(NUM_MARKER_TYPES):
        scale = 1.0 / MARKERS_PER_TYPE[t] if t == T_DOUBLE else 1.0
        for i in range(s.markers_pos[t], s.markers_n[t]):
            obs[v + V_MARKERS_LEFT + t * 4 + s.markers[t, i] - 3] += scale
    obs[v + V_LAND_LEFT] = (s.land_n - s.land_pos) / NUM_LANDSCAPE
    obs[v + V_TASK_LEFT] = (s.task_n - s.task_pos) / NUM_TASK
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = v + V_SEAT + b * SEAT_LEN
        obs[o + SEAT_OPEN] = min(s.open_markers[p] / 10.0, 1.0)
        for t in range(NUM_MARKER_TYPES):
            obs[o + SEAT_TASKS + t] = min(s.task_points[p, t] / 18.0, 1.0)
        for f in range(3):
            obs[o + SEAT_FLAGS + f] = min(s.flag_points[p, f] / 100.0, 1.0)
        obs[o + SEAT_TRACK] = s.longest[p, 0] / NUM_TILES
        obs[o + SEAT_STREAM] = s.longest[p, 1] / NUM_TILES
        obs[o + SEAT_TOTAL] = min(s.total[p] / 300.0, 1.0)
    obs[v + V_TURN] = min(s.turn / 100.0, 1.0)
    if not s.done and s.current == 1:
        obs[v + (V_OPP_PLACED if seat == 1 else V_ME_PLACED)] = 1.0
    legal_for(s, seat, mask)


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for a seat."""
    nc = (2 * s.radius + 1) ** 2
    obs = np.empty(2 * NUM_PLANES * nc + VEC_SIZE, np.float32)
    mask = np.empty(nc * NUM_ROT + 1, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask


# -- scenarios -------------------------------------------------------------------------------


@njit(cache=True)
def setup_scenario(s) -> int:
    """After a scenario wrote boards and stacks: rebuild areas and counts, then reveal the first
    tile. Returns p * cells + cell of an open marker the board already settles, else -1."""
    nc = (2 * s.radius + 1) ** 2
    s.done = 0
    s.winner = -1
    s.rewards[:] = 0.0
    for p in range(2):
        relabel_areas(s, p)
        n_open = 0
        for i in range(s.n_placed[p]):
            c = s.order[p, i]
            if s.cell_mk_state[p, c] == MK_OPEN:
                n_open += 1
        s.open_markers[p] = n_open
    for p in range(2):
        before = s.open_markers[p]
        check_task_markers(s, p)
        if s.open_markers[p] != before:
            for i in range(s.n_placed[p]):
                c = s.order[p, i]
                if s.cell_mk_state[p, c] == MK_DONE or s.cell_mk_state[p, c] == MK_CANCELLED:
                    return p * nc + c
        score_board(s, p)
    begin_turn(s)
    return -1


# -- hidden information ----------------------------------------------------------------------


@njit(cache=True)
def determinize(s, seat: int, seed: np.uint64) -> None:
    """Resample what ``seat`` cannot see: the order of both stacks (which 3 landscape tiles are
    boxed included), the face-down markers' order, future chance, and for seat 1 a choice of
    seat 0 not yet revealed (any legal one). Public facts (boards, counts, seen tiles) stay.
    The hidden parts are sorted first, so the result depends on the seat's view and ``seed`` only."""
    s.land[s.land_pos : s.land_len].sort()
    s.task[s.task_pos : s.task_n].sort()
    for t in range(NUM_MARKER_TYPES):
        s.markers[t, s.markers_pos[t] : s.markers_n[t]].sort()
    rng_seed(s, seed)
    rng_shuffle(s, s.land[s.land_pos :], s.land_len - s.land_pos)
    rng_shuffle(s, s.task[s.task_pos :], s.task_n - s.task_pos)
    for t in range(NUM_MARKER_TYPES):
        rng_shuffle(s, s.markers[t, s.markers_pos[t] :], s.markers_n[t] - s.markers_pos[t])
    if seat == 1 and not s.done and s.current == 1:
        nc = (2 * s.radius + 1) ** 2
        mask = np.zeros(nc * NUM_ROT + 1, np.int8)
        s.current = 0
        n = legal_for(s, 0, mask)
        s.current = 1
        k = rng_below(s, n)
        for a in range(mask.shape[0]):
            if mask[a]:
                if k == 0:
                    s.pending[0] = a
                    break
                k -= 1
