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
    CAMERA_MARKERS,
    CARD_CLOSED,
    CARD_MANY,
    CARD_MOST,
    CLOSED_CARD_POINTS,
    CLOSED_CARD_SIZE,
    COUNTED_SIZE,
    DEFAULT_RADIUS,
    DIR_Q,
    DIR_R,
    DOUBLE_VALUE,
    FIRST_TASK_TURNS,
    HEARTS_FIRST,
    HEARTS_LATER,
    MANY_CARD_POINTS,
    MAX_HEART_POINTS,
    MIN_OPEN_MARKERS,
    MK_CANCELLED,
    MK_DONE,
    MK_NONE,
    MK_OPEN,
    MOST_CARD_POINTS,
    NUM_EXTRA,
    NUM_KINDS,
    NUM_MARKER_TYPES,
    NUM_ROT,
    PH_HEART,
    PH_PHOTO,
    PH_PLACE,
    PH_POI,
    PH_SPECIAL,
    POI_MILESTONES,
    POI_NONE,
    POI_PHOTOGRAPHER,
    SPECIAL_REACH,
    X_HEART,
    X_KEEP,
    X_MOVE,
    X_NO_HEART,
    X_POI,
    num_cells,
)
from envs.dorfromantik_duel.tiles import (
    NUM_LANDSCAPE,
    NUM_TASK,
    NUM_TILES,
    PHOTOGRAPHER_TILE,
    SPECIAL_FIRST,
    SPECIAL_TERRAIN,
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
from envs.engine.record import header_fields
from envs.engine.rng import rng_below, rng_seed, rng_shuffle

DQ = np.array(DIR_Q, np.int64)
DR = np.array(DIR_R, np.int64)
MARKERS_PER_TYPE = np.array(TASKS_PER_TYPE, np.int64)
MANY_POINTS = np.array(MANY_CARD_POINTS, np.int64)
MILESTONES = np.array(POI_MILESTONES, np.int64)
SPECIAL_KIND = np.array(SPECIAL_TERRAIN, np.int64)
MAX_PLACED = NUM_TILES + 2  # the game's tiles plus Module 2's special tile and photographer's tile
MAX_LISTED = NUM_ROT * (2 * MAX_PLACED + 4)  # n tiles have at most 2n + 4 empty neighbours
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
            ("module_task_cards", np.uint8),
            ("module_poi", np.uint8),
            # the turn
            ("turn", np.int16),  # turns completed
            ("tile", np.int16),  # tile both players place this turn (-1: none, game over)
            ("mk_type", np.int8),  # its task marker's type (-1: a landscape tile)
            ("mk_value", np.int8),
            ("phase", np.int8),  # PH_PLACE, or one of Module 2's decisions (rules.PHASE_NAMES)
            ("acts", np.uint8, (2,)),  # seats deciding in this phase
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
            ("used", np.uint8, (2, NUM_TILES)),  # 1 placed, 2 passed (no legal placement); game tiles only
            # the two boards (box-indexed cells)
            ("cell_tile", np.int16, (2, nc)),
            ("cell_rot", np.int8, (2, nc)),
            ("cell_edge", np.int8, (2, nc, NUM_ROT)),  # terrain facing each direction
            ("cell_mk_type", np.int8, (2, nc)),
            ("cell_mk_value", np.int8, (2, nc)),
            ("cell_mk_state", np.int8, (2, nc)),  # MK_NONE / OPEN / DONE / CANCELLED
            ("order", np.int16, (2, MAX_PLACED)),  # cells in placement order
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
            # Module 1: task cards (forest, grain, village), public
            ("cards", np.int8, (3,)),  # CARD_CLOSED / CARD_MOST / CARD_MANY per landscape
            ("closed2", np.int16, (2, 3)),  # closed territories of 2+ tiles per landscape
            ("card_points", np.int16, (2, 3)),
            # Module 2: points of interest
            ("milestones", np.int8, (2,)),  # milestones (4th, 7th, 10th task) reached so far
            ("poi_due", np.int8, (2,)),  # points of interest still to choose
            ("poi_taken", np.uint8, (2, 6)),  # chosen so far, by POI_*
            ("special_gone", np.uint8, (2, 3)),  # School/Barn/Oak no longer open to the seat
            ("to_place", np.int16, (2,)),  # special tile the seat places now (-1: none)
            ("last_cell", np.int16, (2,)),  # the seat's latest placement (hearts, photographer)
            ("ask_heart", np.uint8, (2,)),
            ("ask_photo", np.uint8, (2,)),
            ("hearts_left", np.int8, (2,)),
            ("hearts_from", np.int16, (2,)),  # first turn the seat may place hearts
            ("hearts_claimed", np.uint8),  # someone took the hearts: later takers get 2
            ("photo_cell", np.int16, (2,)),  # the photographer's cell (-1: not in play)
            ("special_cell", np.int16, (2,)),  # the School/Barn/Oak's cell (-1: none)
            ("cameras_left", np.int8),
            ("cameras", np.int8, (2,)),
            ("cell_heart", np.uint8, (2, nc)),
            ("cell_camera", np.int8, (2, nc)),
            ("poi_points", np.int16, (2, 3)),  # special tile, cameras, hearts
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
# Module 2 adds five planes per board.
P_SPECIAL = 48  # a special tile (School, Barn, Oak, photographer's tile)
P_HEART = 49
P_CAMERA = 50  # camera markers on the tile / 3
P_PHOTO = 51  # the photographer stands here
P_LAST = 52  # the seat's latest placement: where a heart or the photographer would go
NUM_PLANES_POI = 53
# Module 1's vector block (after the base vector): the cards, then me and the opponent.
M1_CARDS = 0  # 3 x 3 one-hot: landscape x card kind
M1_SEAT = 9  # 2 x 6: closed territories of 2+ tiles / 8 by landscape, card points / 8 by landscape
M1_SIZE = 21
# Module 2's vector block (after Module 1's, if on).
M2_PHASE = 0  # 5 one-hot
M2_TO_PLACE = 5  # 4 one-hot: the special tile I place now
M2_SEAT = 9  # 2 x 17: me, opponent (below)
S2_DUE, S2_TAKEN, S2_GONE, S2_HEARTS, S2_HEARTS_READY = 0, 1, 7, 10, 11  # choices owed / 3, taken, gone, hearts / 3
S2_PHOTO, S2_CAMERAS, S2_POINTS, S2_LEN = 12, 13, 14, 17  # photographer in play, cameras / 18, points / 20 x 3
M2_CAMERAS_LEFT = 43
M2_HEARTS_CLAIMED = 44
M2_SIZE = 45


def num_planes(points_of_interest: bool) -> int:
    return NUM_PLANES_POI if points_of_interest else NUM_PLANES


def obs_size(radius: int, task_cards: bool = False, points_of_interest: bool = False) -> int:
    """Length of the flat observation: two boards of planes, the vector part, then each module's block."""
    size = 2 * num_planes(points_of_interest) * num_cells(radius) + VEC_SIZE
    return size + (M1_SIZE if task_cards else 0) + (M2_SIZE if points_of_interest else 0)


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
def next_cell(s, p: int, c: int, d: int) -> int:
    """``neighbour`` for a cell on or next to p's tiles: plain index arithmetic while every such
    cell's neighbours are on the board (the common case), else the checked version."""
    if s.extent[p] + 2 <= s.radius:
        return c + DQ[d] + DR[d] * (2 * s.radius + 1)
    return neighbour(s.radius, c, d)


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


def _turned_edges() -> np.ndarray:
    out = np.zeros((TILE_EDGES.shape[0], NUM_ROT, NUM_ROT), np.int8)
    for rot in range(NUM_ROT):
        out[:, rot, :] = np.roll(TILE_EDGES, rot, axis=1)
    return out


TURNED_EDGES = _turned_edges()  # [tile, rot, d]: the terrain a turned tile shows in direction d
HAS_LINE = np.array([(TILE_EDGES[t] >= TRACK).any() for t in range(TILE_EDGES.shape[0])], np.bool_)


@njit(cache=True)
def tile_edge(tile: int, rot: int, d: int) -> int:
    """Terrain a tile turned ``rot`` steps clockwise shows in direction d."""
    return TURNED_EDGES[tile, rot, d]


@njit(cache=True)
def pass_action(s) -> int:
    """The ``pass`` action of this state's board; Module 2's decisions follow it (rules.EXTRA_NAMES)."""
    return (2 * s.radius + 1) ** 2 * NUM_ROT


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
    clear_modules(s)


@njit(cache=True)
def clear_modules(s) -> None:
    """Module bookkeeping at its start-of-game values (the cards are drawn by ``reset``)."""
    s.closed2[:, :] = 0
    s.card_points[:, :] = 0
    s.milestones[:] = 0
    s.poi_due[:] = 0
    s.poi_taken[:, :] = 0
    s.special_gone[:, :] = 0
    s.to_place[:] = -1
    s.last_cell[:] = -1
    s.ask_heart[:] = 0
    s.ask_photo[:] = 0
    s.hearts_left[:] = 0
    s.hearts_from[:] = 0
    s.hearts_claimed = 0
    s.photo_cell[:] = -1
    s.special_cell[:] = -1
    s.cameras_left = CAMERA_MARKERS
    s.cameras[:] = 0
    s.cell_heart[:, :] = 0
    s.cell_camera[:, :] = 0
    s.poi_points[:, :] = 0


@njit(cache=True)
def draw_task_cards(s) -> None:
    """Module 1 setup: of each landscape's three cards one is revealed at random."""
    for k in range(3):
        s.cards[k] = rng_below(s, 3)


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
    s.cards[:] = -1
    if s.module_task_cards:
        draw_task_cards(s)
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
    s.phase = PH_PLACE
    s.acts[:] = 1
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
                    nb = next_cell(s, p, x, d)
                    if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
                        n_open += 1
                    elif s.cell_edge[p, nb, (d + 3) % NUM_ROT] == tk and s.label[p, k, nb] == -1:
                        s.label[p, k, nb] = start
                        stack[top] = nb
                        top += 1
            s.area_size[p, k, start] = size
            s.area_open[p, k, start] = n_open


@njit(cache=True)
def add_once(labels, n: int, lab: int) -> int:
    """Append ``lab`` to the first n ``labels`` unless it is there; returns the new count."""
    for j in range(n):
        if labels[j] == lab:
            return n
    labels[n] = lab
    return n + 1


@njit(cache=True)
def placed_before(s, p: int, a: int, b: int) -> bool:
    """Whether p placed the tile at cell a before the one at b."""
    for i in range(s.n_placed[p]):
        x = s.order[p, i]
        if x == a:
            return True
        if x == b:
            return False
    return False


@njit(cache=True)
def join_areas(s, p: int, c: int) -> None:
    """The areas after a tile went down at c, updated in place (``relabel_areas`` gives the same):
    edges facing c are no longer open; c joins the areas its own edges meet, which merge, and
    the merged area is labelled by its earliest tile, as a fresh flood fill would."""
    joined = np.empty(NUM_ROT, np.int64)
    for k in range(NUM_KINDS):
        tk = k + 1
        nj = 0
        own_open = 0
        for d in range(NUM_ROT):
            nb = next_cell(s, p, c, d)
            mine = s.cell_edge[p, c, d] == tk
            if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
                own_open += mine
                continue
            if s.cell_edge[p, nb, (d + 3) % NUM_ROT] != tk:
                continue
            lab = s.label[p, k, nb]
            s.area_open[p, k, lab] -= 1  # its edge faced an empty cell; now it meets c
            if mine:
                nj = add_once(joined, nj, lab)
        if not has_kind(s, p, c, tk):
            continue
        root = c
        size = 1
        n_open = own_open
        for j in range(nj):
            size += s.area_size[p, k, joined[j]]
            n_open += s.area_open[p, k, joined[j]]
            if root == c or placed_before(s, p, joined[j], root):
                root = joined[j]
        if nj > 1:
            for i in range(s.n_placed[p]):
                x = s.order[p, i]
                lab = s.label[p, k, x]
                for j in range(nj):
                    if lab == joined[j]:
                        s.label[p, k, x] = root
        s.label[p, k, c] = root
        s.area_size[p, k, root] = size
        s.area_open[p, k, root] = n_open


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
    tk = k + 1
    joined = np.empty(NUM_ROT, np.int64)
    nj = 0
    own = False
    for d in range(NUM_ROT):
        if tile_edge(tile, rot, d) != tk:
            continue
        own = True
        nb = next_cell(s, p, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE or s.cell_edge[p, nb, (d + 3) % NUM_ROT] != tk:
            continue
        nj = add_once(joined, nj, s.label[p, k, nb])
    if not own:
        return 1, 0
    size = 1
    n_open = 0
    for j in range(nj):
        size += s.area_size[p, k, joined[j]]
        n_open += s.area_open[p, k, joined[j]]
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
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
        nb = next_cell(s, p, c, d)
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
    size2, open2 = size1, open1
    if k2 != k1:
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
        nb = next_cell(s, p, c, d)
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
        e = TURNED_EDGES[tile, rot, d]
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
    s.n_placed[p] += 1
    if tile < NUM_TILES:
        s.used[p, tile] = 1
    s.extent[p] = max(s.extent[p], hex_steps(s.radius, c))


# -- Module 2: points of interest -----------------------------------------------------------


@njit(cache=True)
def touches(radius: int, a: int, b: int) -> bool:
    for d in range(NUM_ROT):
        if neighbour(radius, a, d) == b:
            return True
    return False


@njit(cache=True)
def after_placement(s, p: int, c: int, landscape: bool) -> None:
    """What a placement sets off: a heart may go on a landscape tile, the photographer may move
    onto a tile touching his (while cameras last), and each 4th/7th/10th task earns a choice."""
    s.last_cell[p] = c
    s.ask_heart[p] = landscape and s.hearts_left[p] > 0 and s.turn >= s.hearts_from[p]
    s.ask_photo[p] = s.photo_cell[p] >= 0 and s.cameras_left > 0 and touches(s.radius, c, s.photo_cell[p])
    done = 0
    for t in range(NUM_MARKER_TYPES):
        done += s.tasks_done[p, t]
    reached = 0
    for m in range(MILESTONES.shape[0]):
        if done >= MILESTONES[m]:
            reached += 1
    if reached > s.milestones[p]:
        s.poi_due[p] += reached - s.milestones[p]
        s.milestones[p] = reached


@njit(cache=True)
def place_special(s, p: int, c: int, rot: int) -> None:
    """Put the seat's special tile down; the photographer stands on his own tile."""
    tile = s.to_place[p]
    s.to_place[p] = -1
    put_tile(s, p, tile, c, rot)
    join_areas(s, p, c)
    check_task_markers(s, p)
    after_placement(s, p, c, False)
    if tile == PHOTOGRAPHER_TILE:
        s.photo_cell[p] = c
    else:
        s.special_cell[p] = c


@njit(cache=True)
def poi_open(s, p: int, i: int) -> bool:
    """Whether seat p may choose point of interest i now."""
    if i == POI_NONE:
        return True
    if s.poi_taken[p, i]:
        return False
    if i < POI_PHOTOGRAPHER:
        for j in range(3):
            if s.poi_taken[p, j]:
                return False  # one of School, Barn, Oak per player
        return not s.special_gone[p, i]
    return True


@njit(cache=True)
def choose_points_of_interest(s, a0: int, a1: int) -> None:
    """Both choices at once: a School/Barn/Oak taken by one seat only leaves the other's game;
    the first to take the hearts gets 3 (both at once: 3 each), a later taker 2."""
    base = pass_action(s) + 1 + X_POI
    pick = np.full(2, -1, np.int64)
    if a0 >= 0:
        pick[0] = a0 - base
    if a1 >= 0:
        pick[1] = a1 - base
    claimed = s.hearts_claimed
    for p in range(2):
        i = pick[p]
        if i < 0:
            continue
        s.poi_due[p] -= 1
        if i == POI_NONE:
            continue
        s.poi_taken[p, i] = 1
        if i < POI_PHOTOGRAPHER:
            s.to_place[p] = SPECIAL_FIRST + i
            if pick[1 - p] != i:
                s.special_gone[1 - p, i] = 1
        elif i == POI_PHOTOGRAPHER:
            s.to_place[p] = PHOTOGRAPHER_TILE
        else:
            s.hearts_left[p] = HEARTS_LATER if claimed else HEARTS_FIRST
            s.hearts_from[p] = s.turn + 1
            s.hearts_claimed = 1


@njit(cache=True)
def take_photos(s, a0: int, a1: int) -> None:
    """Each activated photographer may move onto the new tile, then takes a camera marker.
    One marker left for two at once: the seat with fewer cameras gets it; equal, nobody."""
    base = pass_action(s) + 1
    n = 0
    for p in range(2):
        a = a0 if p == 0 else a1
        if a < 0:
            continue
        s.ask_photo[p] = 0
        if a == base + X_MOVE:
            s.photo_cell[p] = s.last_cell[p]
        n += 1
    for p in range(2):
        a = a0 if p == 0 else a1
        if a < 0 or s.cameras_left == 0:
            continue
        if n == 2 and s.cameras_left == 1 and s.cameras[p] >= s.cameras[1 - p]:
            continue
        s.cameras_left -= 1
        s.cameras[p] += 1
        s.cell_camera[p, s.photo_cell[p]] += 1


@njit(cache=True)
def place_hearts(s, a0: int, a1: int) -> None:
    base = pass_action(s) + 1
    for p in range(2):
        a = a0 if p == 0 else a1
        if a < 0:
            continue
        s.ask_heart[p] = 0
        if a == base + X_HEART:
            s.cell_heart[p, s.last_cell[p]] = 1
            s.hearts_left[p] -= 1


@njit(cache=True)
def seat_needs(s, p: int, phase: int) -> bool:
    if phase == PH_HEART:
        return s.ask_heart[p] == 1
    if phase == PH_PHOTO:
        return s.ask_photo[p] == 1
    if phase == PH_POI:
        return s.poi_due[p] > 0
    return s.to_place[p] >= 0


# -- legal actions ---------------------------------------------------------------------------


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
def list_placements(s, seat: int, tile: int, out) -> int:
    """The legal placements of ``tile`` as actions in ``out`` (cells next to the seat's tiles, in
    placement order of the tiles they touch); returns how many."""
    radius = s.radius
    w = 2 * radius + 1
    count = 0
    if s.n_placed[seat] == 0:
        c = origin(radius)
        for rot in range(NUM_ROT):
            if (not s.distinct_rotations or TILE_CANON[tile, rot] == rot) and placement_ok(s, seat, tile, c, rot):
                out[count] = c * NUM_ROT + rot
                count += 1
        return count
    seen = np.zeros(w * w, np.uint8)
    facing = np.empty(NUM_ROT, np.int64)
    task_rule = TILE_TASK[tile] >= 0 and s.forbid_doomed_tasks
    for i in range(s.n_placed[seat]):
        x = s.order[seat, i]
        for d in range(NUM_ROT):
            c = next_cell(s, seat, x, d)
            if c < 0 or seen[c] or s.cell_tile[seat, c] != NO_TILE:
                continue
            seen[c] = 1
            facing_edges(s, seat, c, facing)
            lines = HAS_LINE[tile]
            for d2 in range(NUM_ROT):
                lines = lines or facing[d2] >= TRACK
            for rot in range(NUM_ROT):
                if s.distinct_rotations and TILE_CANON[tile, rot] != rot:
                    continue
                if lines and not edges_fit(tile, rot, facing):
                    continue
                if task_rule and doomed_task_placement(s, seat, tile, c, rot):
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
    return legal_for(s, s.current, mask)


@njit(cache=True)
def action_count(s) -> int:
    """Size of the action space of this state's config."""
    n = pass_action(s) + 1
    return n + NUM_EXTRA if s.module_poi else n


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
def closed_territories(s, p: int, k: int, min_size: int) -> int:
    """How many closed kind-k territories of at least ``min_size`` tiles p has."""
    n = 0
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
        if s.label[p, k, c] == c and s.area_open[p, k, c] == 0 and s.area_size[p, k, c] >= min_size:
            n += 1
    return n


@njit(cache=True)
def score_task_cards(s, p: int) -> int:
    """Module 1 as if the game ended now: the closed-5+ cards keep what they scored during play;
    most closed 2+: 8 more, 4 fewer, 6 each when equal; many closed 2+: by the card's table."""
    total = 0
    for k in range(3):
        mine = closed_territories(s, p, k, COUNTED_SIZE)
        s.closed2[p, k] = mine
        if s.cards[k] == CARD_MOST:
            theirs = closed_territories(s, 1 - p, k, COUNTED_SIZE)
            if mine > theirs:
                s.card_points[p, k] = MOST_CARD_POINTS[0]
            elif mine < theirs:
                s.card_points[p, k] = MOST_CARD_POINTS[1]
            else:
                s.card_points[p, k] = MOST_CARD_POINTS[2]
        elif s.cards[k] == CARD_MANY:
            s.card_points[p, k] = MANY_POINTS[min(mine, MANY_POINTS.shape[0] - 1)]
        total += s.card_points[p, k]
    return total


@njit(cache=True)
def claim_closed_cards(s) -> None:
    """End of a turn: a closed-5+ card scores 8 for the first to have such a territory, 4 for the
    second; both in the same turn: 6 each. Once per player."""
    for k in range(3):
        if s.cards[k] != CARD_CLOSED:
            continue
        new = np.zeros(2, np.bool_)
        for p in range(2):
            new[p] = s.card_points[p, k] == 0 and closed_territories(s, p, k, CLOSED_CARD_SIZE) > 0
        for p in range(2):
            if not new[p]:
                continue
            if new[1 - p]:
                s.card_points[p, k] = CLOSED_CARD_POINTS[2]
            elif s.card_points[1 - p, k] > 0:
                s.card_points[p, k] = CLOSED_CARD_POINTS[1]
            else:
                s.card_points[p, k] = CLOSED_CARD_POINTS[0]


@njit(cache=True)
def special_tile_points(s, p: int) -> int:
    """1 per other tile showing the special tile's terrain within 2 steps (empty cells count as steps)."""
    c = s.special_cell[p]
    if c < 0:
        return 0
    tk = SPECIAL_KIND[s.cell_tile[p, c] - SPECIAL_FIRST]
    w = 2 * s.radius + 1
    q0 = c % w
    r0 = c // w
    n = 0
    for i in range(s.n_placed[p]):
        x = s.order[p, i]
        dq = x % w - q0
        dr = x // w - r0
        if x == c or max(abs(dq), abs(dr), abs(dq + dr)) > SPECIAL_REACH:
            continue
        for d in range(NUM_ROT):
            if s.cell_edge[p, x, d] == tk:
                n += 1
                break
    return n


@njit(cache=True)
def heart_points(s, p: int) -> int:
    """1 per edge of a heart tile meeting the same terrain on a neighbour, at most 6 a heart."""
    n = 0
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
        if not s.cell_heart[p, c]:
            continue
        n += min(matching_edges(s, p, c), MAX_HEART_POINTS)
    return n


@njit(cache=True)
def matching_edges(s, p: int, c: int) -> int:
    """Edges of the tile at c that meet the same terrain on a neighbouring tile."""
    m = 0
    for d in range(NUM_ROT):
        nb = neighbour(s.radius, c, d)
        if nb >= 0 and s.cell_tile[p, nb] != NO_TILE:
            m += s.cell_edge[p, nb, (d + 3) % NUM_ROT] == s.cell_edge[p, c, d]
    return m


@njit(cache=True)
def score_points_of_interest(s, p: int) -> int:
    s.poi_points[p, 0] = special_tile_points(s, p)
    s.poi_points[p, 1] = s.cameras[p]
    s.poi_points[p, 2] = heart_points(s, p)
    return s.poi_points[p, 0] + s.poi_points[p, 1] + s.poi_points[p, 2]


@njit(cache=True)
def score_board(s, p: int) -> None:
    """The score pad as if the game ended now: tasks, flags in closed territories, longest lines, modules."""
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
    if s.module_task_cards:
        total += score_task_cards(s, p)
    if s.module_poi:
        total += score_points_of_interest(s, p)
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
    """A phase's choices are simultaneous: seat 0's is held back while seat 1 still chooses."""
    if s.done:
        return 1
    p = s.current
    if not is_legal(s, p, a):
        return 1
    s.rewards[:] = 0.0
    if p == 0 and s.acts[1]:
        s.pending[0] = a
        s.current = 1
        return 0
    a0 = a if p == 0 else s.pending[0]
    a1 = a if p == 1 else -1
    s.pending[:] = -1
    if s.phase == PH_PLACE:
        play_action(s, 0, a0)
        play_action(s, 1, a1)
    elif s.phase == PH_HEART:
        place_hearts(s, a0, a1)
    elif s.phase == PH_PHOTO:
        take_photos(s, a0, a1)
    elif s.phase == PH_POI:
        choose_points_of_interest(s, a0, a1)
    else:
        if a0 >= 0:
            play_special(s, 0, a0)
        if a1 >= 0:
            play_special(s, 1, a1)
    next_phase(s)
    return 0


@njit(cache=True)
def next_phase(s) -> None:
    """Module 2's decisions in order (hearts, photographer, points of interest, special tiles),
    each for the seats it concerns; when none is left the turn ends."""
    if s.module_poi:
        for phase in range(PH_HEART, PH_SPECIAL + 1):
            need0 = seat_needs(s, 0, phase)
            need1 = seat_needs(s, 1, phase)
            if need0 or need1:
                s.info_version += 1  # the infos name the phase
                s.phase = phase
                s.acts[0] = need0
                s.acts[1] = need1
                s.current = 0 if need0 else 1
                return
    end_turn(s)


@njit(cache=True)
def end_turn(s) -> None:
    s.turn += 1
    if s.module_task_cards:
        claim_closed_cards(s)
    score_board(s, 0)
    score_board(s, 1)
    s.info_version += 1
    begin_turn(s)


# -- observation -----------------------------------------------------------------------------


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """Ego-centric: board planes of me then the opponent (as of the turn's start), then the vector."""
    obs[:] = 0.0
    radius = s.radius
    nc = (2 * radius + 1) ** 2
    planes = NUM_PLANES_POI if s.module_poi else NUM_PLANES
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        base = b * planes * nc
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
            if s.module_poi:
                obs[base + P_SPECIAL * nc + c] = tile >= SPECIAL_FIRST
                obs[base + P_HEART * nc + c] = s.cell_heart[p, c]
                obs[base + P_CAMERA * nc + c] = min(s.cell_camera[p, c] / 3.0, 1.0)
        if s.module_poi:
            if s.photo_cell[p] >= 0:
                obs[base + P_PHOTO * nc + s.photo_cell[p]] = 1.0
            if s.last_cell[p] >= 0:
                obs[base + P_LAST * nc + s.last_cell[p]] = 1.0
    v = 2 * planes * nc
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
    if not s.done and s.current == 1 and s.acts[0]:
        obs[v + (V_OPP_PLACED if seat == 1 else V_ME_PLACED)] = 1.0
    v += VEC_SIZE
    if s.module_task_cards:
        observe_task_cards(s, seat, obs, v)
        v += M1_SIZE
    if s.module_poi:
        observe_points_of_interest(s, seat, obs, v)
    legal_for(s, seat, mask)


@njit(cache=True)
def observe_task_cards(s, seat: int, obs, v: int) -> None:
    for k in range(3):
        obs[v + M1_CARDS + k * 3 + s.cards[k]] = 1.0
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = v + M1_SEAT + b * 6
        for k in range(3):
            obs[o + k] = min(s.closed2[p, k] / 8.0, 1.0)
            obs[o + 3 + k] = s.card_points[p, k] / 8.0


@njit(cache=True)
def observe_points_of_interest(s, seat: int, obs, v: int) -> None:
    if not s.done:
        obs[v + M2_PHASE + s.phase] = 1.0
        if s.phase == PH_SPECIAL and s.to_place[seat] >= 0:
            obs[v + M2_TO_PLACE + s.to_place[seat] - SPECIAL_FIRST] = 1.0
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = v + M2_SEAT + b * S2_LEN
        obs[o + S2_DUE] = s.poi_due[p] / 3.0
        for i in range(6):
            obs[o + S2_TAKEN + i] = s.poi_taken[p, i]
        for i in range(3):
            obs[o + S2_GONE + i] = s.special_gone[p, i]
        obs[o + S2_HEARTS] = s.hearts_left[p] / 3.0
        obs[o + S2_HEARTS_READY] = s.hearts_left[p] > 0 and s.turn >= s.hearts_from[p]
        obs[o + S2_PHOTO] = s.photo_cell[p] >= 0
        obs[o + S2_CAMERAS] = s.cameras[p] / CAMERA_MARKERS
        for i in range(3):
            obs[o + S2_POINTS + i] = min(s.poi_points[p, i] / 20.0, 1.0)
    obs[v + M2_CAMERAS_LEFT] = s.cameras_left / CAMERA_MARKERS
    obs[v + M2_HEARTS_CLAIMED] = s.hearts_claimed


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for a seat."""
    nc = (2 * s.radius + 1) ** 2
    size = 2 * (NUM_PLANES_POI if s.module_poi else NUM_PLANES) * nc + VEC_SIZE
    size += (M1_SIZE if s.module_task_cards else 0) + (M2_SIZE if s.module_poi else 0)
    obs = np.empty(size, np.float32)
    mask = np.empty(action_count(s), np.int8)
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
    if seat == 1 and not s.done and s.current == 1 and s.acts[0]:
        mask = np.zeros(action_count(s), np.int8)
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
