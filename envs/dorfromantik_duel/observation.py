"""The Duel's observation: its layout declared once as named pieces with shapes (``envs.engine.layout``),
and the compiled ``observe_into`` that writes it.

The first piece, ``boards``, is a spatial tensor (height x width x channels, channels last, as
PettingZoo's classic board games and Pgx lay boards out): box cell (q, r) is row r + R, column q + R,
and its channels are my board's few (``CHANNELS``: a tile, the terrain of each edge as a scaled value,
markers, flags) then the opponent's. A network reshapes that first piece to (H, W, C); the tile to
place, the stacks and the score pads follow as a small vector.

The layout depends on the config: the radius sets the tensor's height and width, Module 2 adds five
channels per board, and each module appends a block to the vector. With ``placement_prior`` one more
piece comes after them: the heuristic's judgement of each placement (``observe_placement_prior``), a
(2R+1, 2R+1, 6) block in the cell order of the boards and of the ``place`` actions; with
``placement_candidates`` a last one, a row per legal placement (candidates.py); ``boards=False`` leaves
the tensor out. ``layout(radius, task_cards, points_of_interest, placement_prior, placement_candidates,
boards)`` declares it, and everything else derives from it:
``DorfromantikDuel.obs_size`` and ``observation_layout()``, the rules document's table
(seeds/dorfromantik_duel.md, "Observation"; a test checks it against the default config) and the
offsets the compiled code writes at. Inside a piece, the channels of a board and the columns of a
seat's pad are small layouts of their own (``CHANNELS``, ``PAD``, ...), so no index is written by hand.

numba bakes ints and NumPy arrays into machine code, not Python objects, so the compiled side reads
each piece's offset from two small tables built here from ``layout``: with the switches numbered
``m = switch_index((task_cards, points_of_interest, placement_prior, placement_candidates, boards))`` (bit b:
switch b; ``obs_offset`` computes it from the record), piece ``k`` (its index in ``PIECES``) starts at
``OFFSET_BASE[m, k] + OFFSET_PER_CELL[m, k] * cells`` (``cells`` = (2R+1)^2), and column ``END`` holds
the size the same way (-1 for a piece the config does not have). Every piece's length is a multiple
of the cells or independent of them, so this is exact (checked at import: ``_check_tables``).
"""

# numba functions take state records and arrays, typed by numba rather than by hints

import functools

import numpy as np
from numba import njit

from envs.dorfromantik_duel.candidates import CANDIDATE, MAX_CANDIDATES, observe_placement_candidates
from envs.dorfromantik_duel.grid import action_count, pass_action
from envs.dorfromantik_duel.heuristic import action_values
from envs.dorfromantik_duel.markers import MARKERS_PER_TYPE
from envs.dorfromantik_duel.placement import legal_for
from envs.dorfromantik_duel.rules import (
    CAMERA_MARKERS,
    CARD_KINDS,
    CARD_LANDSCAPES,
    CLOSED_CARD_POINTS,
    MANY_CARD_POINTS,
    MAX_BOARD_RADIUS,
    MK_OPEN,
    MOST_CARD_POINTS,
    NUM_MARKER_TYPES,
    NUM_ROT,
    PH_PLACE,
    PH_SPECIAL,
    PHASE_NAMES,
    POI_NAMES,
)
from envs.dorfromantik_duel.tiles import (
    FLAG_NAMES,
    NUM_LANDSCAPE,
    NUM_TASK,
    NUM_TILES,
    SPECIAL_FIRST,
    SPECIAL_NAMES,
    T_DOUBLE,
    TERRAIN_NAMES,
    TILE_EDGES,
    TILE_FLAG,
    TILE_TASK,
)
from envs.engine.layout import ObsLayout
from envs.engine.record import one_record_like

NUM_TERRAINS = len(TERRAIN_NAMES)
NUM_FLAGS = len(FLAG_NAMES)
MAX_CARD_POINTS = max(*CLOSED_CARD_POINTS, *MOST_CARD_POINTS, *MANY_CARD_POINTS)  # the most a task card scores
PRIOR_SCALE = 10.0  # placement_prior: a placement this many heuristic points below the best shows 0 (the best 1)

# A board's channels at each cell of the spatial tensor (seeds/dorfromantik_duel.md lists their content).
BASE_CHANNELS = (
    ("tile", (1,)),
    ("edge_terrain", (NUM_ROT,)),  # the edge facing direction d: (terrain + 1) / 6, 0 where no tile is
    ("task_tile", (1,)),
    ("marker_value", (1,)),  # an open marker: value / 6
    ("marker_type", (1,)),  # an open marker: (type + 1) / 7
    ("flag", (1,)),  # a flag: (colour + 1) / 3
)
POI_CHANNELS = (  # Module 2's, after the others
    ("special_tile", (1,)),
    ("heart", (1,)),
    ("cameras", (1,)),  # camera markers / 3
    ("photographer", (1,)),
    ("latest_placement", (1,)),
)
CHANNELS = ObsLayout(*BASE_CHANNELS)
CHANNELS_POI = ObsLayout(*BASE_CHANNELS, *POI_CHANNELS)
# A seat's score pad in the vector part, and each module's per-seat columns.
PAD = ObsLayout(
    ("open_markers", (1,)),  # / 10
    ("task_points", (NUM_MARKER_TYPES,)),  # / 18
    ("flag_points", (NUM_FLAGS,)),  # / 100
    ("longest_track", (1,)),  # / tiles
    ("longest_stream", (1,)),
    ("total", (1,)),  # / 300
)
CARD_PAD = ObsLayout(
    ("closed_2plus", (len(CARD_LANDSCAPES),)),  # closed territories of 2+ tiles / 8, by landscape
    ("card_points", (len(CARD_LANDSCAPES),)),  # / MAX_CARD_POINTS
)
POI_PAD = ObsLayout(
    ("choices_owed", (1,)),  # / 3
    ("taken", (len(POI_NAMES),)),
    ("gone", (3,)),  # School, Barn, Oak no longer open to the seat
    ("hearts", (1,)),  # / 3
    ("hearts_ready", (1,)),
    ("photographer", (1,)),
    ("cameras", (1,)),  # / CAMERA_MARKERS
    ("points", (3,)),  # special tile, cameras, hearts / 20
)


@functools.cache
def layout(
    radius: int,
    task_cards: bool = False,
    points_of_interest: bool = False,
    placement_prior: bool = False,
    placement_candidates: bool = False,
    boards: bool = True,
) -> ObsLayout:
    """The observation's pieces for a config, in order; ego-centric ("my" is the observing seat's).
    The content of each is described in seeds/dorfromantik_duel.md."""
    w = 2 * radius + 1
    channels = (CHANNELS_POI if points_of_interest else CHANNELS).size
    pieces = []
    if boards:  # row r + R, column q + R: my board's channels, then the opponent's
        pieces += [("boards", (w, w, 2 * channels))]
    pieces += [
        ("tile_edges", (NUM_ROT, NUM_TERRAINS)),  # the tile to place, unrotated
        ("tile_is_task", (1,)),
        ("tile_marker_type", (NUM_MARKER_TYPES,)),
        ("tile_marker_value", (1,)),
        ("tile_flag", (NUM_FLAGS,)),
        ("tile_id", (NUM_TILES,)),
        ("unseen_tiles", (NUM_TILES,)),
        ("markers_left", (NUM_MARKER_TYPES, 4)),  # by type and value 3..6
        ("landscape_left", (1,)),
        ("task_tiles_left", (1,)),
        ("pads", (2, PAD.size)),  # me, the opponent
        ("turn", (1,)),
        ("opponent_chose", (1,)),
        ("i_chose", (1,)),
    ]
    if task_cards:
        pieces += [
            ("task_cards", (len(CARD_LANDSCAPES), len(CARD_KINDS))),  # landscape x card kind, one-hot
            ("card_pads", (2, CARD_PAD.size)),
        ]
    if points_of_interest:
        pieces += [
            ("phase", (len(PHASE_NAMES),)),
            ("special_to_place", (len(SPECIAL_NAMES),)),
            ("poi_pads", (2, POI_PAD.size)),
            ("cameras_left", (1,)),
            ("hearts_taken", (1,)),
        ]
    if placement_prior:
        # at each cell and rotation, as the place actions: the heuristic's judgement (observe_placement_prior)
        pieces += [("placement_prior", (w, w, NUM_ROT))]
    if placement_candidates:
        # a row per legal placement, in action order: what it would do to my board (candidates.py)
        pieces += [("placement_candidates", (MAX_CANDIDATES, CANDIDATE.size))]
    return ObsLayout(*pieces)


def obs_size(radius: int, *switches: bool) -> int:
    """Length of the flat observation: ``layout(radius, *switches).size``."""
    return layout(radius, *switches).size


PIECES = tuple(layout(1, True, True, True, True, True).names())
END = len(PIECES)  # the tables' last column: the size
# (task_cards, points_of_interest, placement_prior, placement_candidates, boards): every combination, numbered
# by switch_index
NUM_SWITCHES = 5
SWITCHES = tuple(tuple(bool(i >> b & 1) for b in range(NUM_SWITCHES)) for i in range(2**NUM_SWITCHES))


def switch_index(switches: tuple[bool, ...]) -> int:
    """The tables' row for a combination of the layout's switches (bit b: switch b)."""
    return sum(int(on) << b for b, on in enumerate(switches))


def _offsets(radius: int, *switches: bool) -> np.ndarray:
    """Each piece's offset (-1: not in this config), then the size, computed from ``layout`` directly."""
    lay = layout(radius, *switches)
    return np.array([lay.offset(n) if n in lay.names() else -1 for n in PIECES] + [lay.size], np.int64)


def _tables() -> tuple[np.ndarray, np.ndarray]:
    base = np.zeros((len(SWITCHES), END + 1), np.int64)
    per_cell = np.zeros_like(base)
    for m in SWITCHES:
        i = switch_index(m)
        one, two = _offsets(1, *m), _offsets(2, *m)  # 9 and 25 cells
        per_cell[i] = np.where(one >= 0, (two - one) // 16, 0)
        base[i] = np.where(one >= 0, one - 9 * per_cell[i], -1)
    return base, per_cell


OFFSET_BASE, OFFSET_PER_CELL = _tables()


def _check_tables() -> None:
    """The tables give ``layout``'s offsets for every radius the config allows and every switch."""
    for m in SWITCHES:
        i = switch_index(m)
        for radius in range(1, MAX_BOARD_RADIUS + 1):
            cells = (2 * radius + 1) ** 2
            want = _offsets(radius, *m)
            got = OFFSET_BASE[i] + OFFSET_PER_CELL[i] * cells
            if not np.array_equal(np.where(want >= 0, got, -1), want):
                raise AssertionError(f"observation offsets are not linear in the cells at {(radius, *m)}")


_check_tables()

K_BOARDS = PIECES.index("boards")
K_TILE_EDGES = PIECES.index("tile_edges")
K_TILE_IS_TASK = PIECES.index("tile_is_task")
K_TILE_MARKER_TYPE = PIECES.index("tile_marker_type")
K_TILE_MARKER_VALUE = PIECES.index("tile_marker_value")
K_TILE_FLAG = PIECES.index("tile_flag")
K_TILE_ID = PIECES.index("tile_id")
K_UNSEEN = PIECES.index("unseen_tiles")
K_MARKERS_LEFT = PIECES.index("markers_left")
K_LANDSCAPE_LEFT = PIECES.index("landscape_left")
K_TASK_LEFT = PIECES.index("task_tiles_left")
K_PADS = PIECES.index("pads")
K_TURN = PIECES.index("turn")
K_OPPONENT_CHOSE = PIECES.index("opponent_chose")
K_I_CHOSE = PIECES.index("i_chose")
K_TASK_CARDS = PIECES.index("task_cards")
K_CARD_PADS = PIECES.index("card_pads")
K_PHASE = PIECES.index("phase")
K_SPECIAL_TO_PLACE = PIECES.index("special_to_place")
K_POI_PADS = PIECES.index("poi_pads")
K_CAMERAS_LEFT = PIECES.index("cameras_left")
K_HEARTS_TAKEN = PIECES.index("hearts_taken")
K_PLACEMENT_PRIOR = PIECES.index("placement_prior")
K_PLACEMENT_CANDIDATES = PIECES.index("placement_candidates")
# Channels of a board, columns of a seat's pad and of each module's per-seat block.
C_TILE = CHANNELS.offset("tile")
C_EDGE = CHANNELS.offset("edge_terrain")
C_TASK = CHANNELS.offset("task_tile")
C_MK_VALUE = CHANNELS.offset("marker_value")
C_MK_TYPE = CHANNELS.offset("marker_type")
C_FLAG = CHANNELS.offset("flag")
C_SPECIAL = CHANNELS_POI.offset("special_tile")
C_HEART = CHANNELS_POI.offset("heart")
C_CAMERA = CHANNELS_POI.offset("cameras")
C_PHOTO = CHANNELS_POI.offset("photographer")
C_LAST = CHANNELS_POI.offset("latest_placement")
BOARD_CHANNELS = CHANNELS.size  # per board, at each cell
BOARD_CHANNELS_POI = CHANNELS_POI.size
SEAT_OPEN = PAD.offset("open_markers")
SEAT_TASKS = PAD.offset("task_points")
SEAT_FLAGS = PAD.offset("flag_points")
SEAT_TRACK = PAD.offset("longest_track")
SEAT_STREAM = PAD.offset("longest_stream")
SEAT_TOTAL = PAD.offset("total")
SEAT_LEN = PAD.size
S1_CLOSED = CARD_PAD.offset("closed_2plus")
S1_POINTS = CARD_PAD.offset("card_points")
S1_LEN = CARD_PAD.size
S2_DUE = POI_PAD.offset("choices_owed")
S2_TAKEN = POI_PAD.offset("taken")
S2_GONE = POI_PAD.offset("gone")
S2_HEARTS = POI_PAD.offset("hearts")
S2_HEARTS_READY = POI_PAD.offset("hearts_ready")
S2_PHOTO = POI_PAD.offset("photographer")
S2_CAMERAS = POI_PAD.offset("cameras")
S2_POINTS = POI_PAD.offset("points")
S2_LEN = POI_PAD.size


@njit(cache=True, inline="always")  # inlined: called with 22 literal piece indices, each its own compile otherwise
def obs_offset(s, k: int) -> int:
    """Where piece ``k`` (its index in ``PIECES``) starts for this record's config; ``END``: the size."""
    nc = (2 * s.radius + 1) ** 2
    i = s.module_task_cards + 2 * s.module_poi + 4 * s.placement_prior + 8 * s.placement_candidates
    i += 16 * s.observe_boards  # switch_index
    return OFFSET_BASE[i, k] + OFFSET_PER_CELL[i, k] * nc


@njit(cache=True)
def write_cell(s, p: int, c: int, obs, o: int) -> None:
    """Seat p's tile in cell c as a board's channels, starting at ``obs[o]``."""
    tile = s.cell_tile[p, c]
    obs[o + C_TILE] = 1.0
    for d in range(NUM_ROT):
        obs[o + C_EDGE + d] = (s.cell_edge[p, c, d] + 1) / NUM_TERRAINS
    if TILE_TASK[tile] >= 0:
        obs[o + C_TASK] = 1.0
    if s.cell_mk_state[p, c] == MK_OPEN:
        obs[o + C_MK_VALUE] = s.cell_mk_value[p, c] / 6.0
        obs[o + C_MK_TYPE] = (s.cell_mk_type[p, c] + 1) / NUM_MARKER_TYPES
    if TILE_FLAG[tile] >= 0:
        obs[o + C_FLAG] = (TILE_FLAG[tile] + 1) / NUM_FLAGS
    if s.module_poi:
        obs[o + C_SPECIAL] = tile >= SPECIAL_FIRST
        obs[o + C_HEART] = s.cell_heart[p, c]
        obs[o + C_CAMERA] = min(s.cell_camera[p, c] / 3.0, 1.0)


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """Ego-centric: the boards' tensor (me, then the opponent as of the turn's start), then the vector:
    the pieces of ``layout`` (table in seeds/dorfromantik_duel.md). Only placed tiles' cells are written,
    so the cost follows the tiles on the table, not the board's size."""
    obs[:] = 0.0
    if s.observe_boards:
        observe_boards(s, seat, obs)
    observe_vector(s, seat, obs)
    if s.module_task_cards:
        observe_task_cards(s, seat, obs)
    if s.module_poi:
        observe_points_of_interest(s, seat, obs)
    legal_for(s, seat, mask)
    if s.placement_prior:
        observe_placement_prior(s, seat, obs, mask)
    if s.placement_candidates:
        observe_placement_candidates(s, seat, obs, obs_offset(s, K_PLACEMENT_CANDIDATES), mask)


@njit(cache=True)
def observe_boards(s, seat: int, obs) -> None:
    """The ``boards`` piece (already zeroed): me, then the opponent as of the turn's start."""
    per_board = BOARD_CHANNELS_POI if s.module_poi else BOARD_CHANNELS
    stride = 2 * per_board  # channels per cell
    base = obs_offset(s, K_BOARDS)
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = base + b * per_board
        for i in range(s.n_placed[p]):
            c = s.order[p, i]
            write_cell(s, p, c, obs, o + c * stride)
        if s.module_poi:
            if s.photo_cell[p] >= 0:
                obs[o + s.photo_cell[p] * stride + C_PHOTO] = 1.0
            if s.last_cell[p] >= 0:
                obs[o + s.last_cell[p] * stride + C_LAST] = 1.0


@njit(cache=True)
def observe_vector(s, seat: int, obs) -> None:
    """The pieces after the boards that every config has: the tile to place, stacks, pads, the turn."""
    tile = s.tile
    if tile >= 0:
        o = obs_offset(s, K_TILE_EDGES)
        for d in range(NUM_ROT):
            obs[o + d * NUM_TERRAINS + TILE_EDGES[tile, d]] = 1.0
        if s.mk_type >= 0:
            obs[obs_offset(s, K_TILE_IS_TASK)] = 1.0
            obs[obs_offset(s, K_TILE_MARKER_TYPE) + s.mk_type] = 1.0
            obs[obs_offset(s, K_TILE_MARKER_VALUE)] = s.mk_value / 6.0
        if TILE_FLAG[tile] >= 0:
            obs[obs_offset(s, K_TILE_FLAG) + TILE_FLAG[tile]] = 1.0
        obs[obs_offset(s, K_TILE_ID) + tile] = 1.0
    o = obs_offset(s, K_UNSEEN)
    for t in range(NUM_TILES):
        obs[o + t] = s.unseen[t]
    o = obs_offset(s, K_MARKERS_LEFT)
    for t in range(NUM_MARKER_TYPES):
        scale = 1.0 / MARKERS_PER_TYPE[t] if t == T_DOUBLE else 1.0
        for i in range(s.markers_pos[t], s.markers_n[t]):
            obs[o + t * 4 + s.markers[t, i] - 3] += scale
    obs[obs_offset(s, K_LANDSCAPE_LEFT)] = (s.land_n - s.land_pos) / NUM_LANDSCAPE
    obs[obs_offset(s, K_TASK_LEFT)] = (s.task_n - s.task_pos) / NUM_TASK
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = obs_offset(s, K_PADS) + b * SEAT_LEN
        obs[o + SEAT_OPEN] = min(s.open_markers[p] / 10.0, 1.0)
        for t in range(NUM_MARKER_TYPES):
            obs[o + SEAT_TASKS + t] = min(s.task_points[p, t] / 18.0, 1.0)
        for f in range(3):
            obs[o + SEAT_FLAGS + f] = min(s.flag_points[p, f] / 100.0, 1.0)
        obs[o + SEAT_TRACK] = s.longest[p, 0] / NUM_TILES
        obs[o + SEAT_STREAM] = s.longest[p, 1] / NUM_TILES
        obs[o + SEAT_TOTAL] = min(s.total[p] / 300.0, 1.0)
    obs[obs_offset(s, K_TURN)] = min(s.turn / 100.0, 1.0)
    if not s.done and s.current == 1 and s.acts[0]:
        obs[obs_offset(s, K_OPPONENT_CHOSE if seat == 1 else K_I_CHOSE)] = 1.0


@njit(cache=True)
def observe_task_cards(s, seat: int, obs) -> None:
    v = obs_offset(s, K_TASK_CARDS)
    for k in range(3):
        obs[v + k * 3 + s.cards[k]] = 1.0
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = obs_offset(s, K_CARD_PADS) + b * S1_LEN
        for k in range(3):
            obs[o + S1_CLOSED + k] = min(s.closed2[p, k] / 8.0, 1.0)
            obs[o + S1_POINTS + k] = s.card_points[p, k] / MAX_CARD_POINTS


@njit(cache=True)
def observe_points_of_interest(s, seat: int, obs) -> None:
    if not s.done:
        obs[obs_offset(s, K_PHASE) + s.phase] = 1.0
        if s.phase == PH_SPECIAL and s.to_place[seat] >= 0:
            obs[obs_offset(s, K_SPECIAL_TO_PLACE) + s.to_place[seat] - SPECIAL_FIRST] = 1.0
    for b in range(2):
        p = seat if b == 0 else 1 - seat
        o = obs_offset(s, K_POI_PADS) + b * S2_LEN
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
    obs[obs_offset(s, K_CAMERAS_LEFT)] = s.cameras_left / CAMERA_MARKERS
    obs[obs_offset(s, K_HEARTS_TAKEN)] = s.hearts_claimed


@njit(cache=True)
def observe_placement_prior(s, seat: int, obs, mask) -> None:
    """The ``placement_prior`` piece (already zeroed), at action ``a`` = cell * 6 + rotation: for each
    legal placement ``max(0, 1 + (v[a] - v_best) / PRIOR_SCALE)``, v the heuristic's values (the rise in
    its board value, ``heuristic.placement_values``) and v_best the best of them; 0 elsewhere, and
    everywhere outside the placement phase or when the seat has no legal placement. The heuristic
    reads public parts only (heuristic.py) and draws nothing: the tests resample the hidden parts."""
    if s.done or s.phase != PH_PLACE:
        return
    n = pass_action(s)
    any_legal = False
    for a in range(n):
        if mask[a]:
            any_legal = True
            break
    if not any_legal:
        return
    state = one_record_like(s)
    values = np.empty(mask.shape[0])
    action_values(state, np.empty_like(state), seat, mask, values)
    best = -np.inf
    for a in range(n):
        if mask[a] and values[a] > best:
            best = values[a]
    o = obs_offset(s, K_PLACEMENT_PRIOR)
    for a in range(n):
        if mask[a]:
            obs[o + a] = max(0.0, 1.0 + (values[a] - best) / PRIOR_SCALE)


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for a seat."""
    obs = np.empty(obs_offset(s, END), np.float32)
    mask = np.empty(action_count(s), np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask
