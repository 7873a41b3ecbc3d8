"""The simulation API for search agents and the heuristic: the rules' own functions for trying a
placement on a record (and taking it back), rescoring the pad and reading a board, so a simulated
placement completes or cancels markers and scores exactly as in play.

- ``place_tile(s, p, c, rot)``: this turn's tile (and its marker) on p's board; areas merge, markers
  are judged, Module 2's follow-ups are noted; ``play_action(s, p, a)`` the same from an action
  (or ``pass``); ``play_special(s, p, a)`` Module 2's special tile;
- ``score_board(s, p)``: p's score pad as if the game ended now;
- trying this turn's placements one after another on one record, without copying it:
  ``trial = new_trial()``; ``begin_trials(s, p, trial)`` once (it notes what a trial changes), then per
  placement ``try_placement(s, p, a, trial)`` (``place_tile`` and ``score_board``), reads of the board
  (``trial_prospects(s, p, trial, weights)``: ``board_prospects`` of it, faster), and
  ``take_back(s, p, trial)``, which leaves ``s`` byte for byte as ``begin_trials`` found it;
- reads: ``territory(s, p, k, c)`` (tiles, open edges of the kind-k area through c),
  ``occupied_neighbours``, ``matching_edges``, ``neighbour``, ``tile_edge``; ``NO_TILE``, ``MAX_PLACED``.
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.areas import territory
from envs.dorfromantik_duel.grid import mismatched_edges, neighbour, next_cell, occupied_neighbours, tile_edge
from envs.dorfromantik_duel.placement import place_tile, play_action, play_special
from envs.dorfromantik_duel.points_of_interest import matching_edges
from envs.dorfromantik_duel.prospects import board_mismatches, prospects_of
from envs.dorfromantik_duel.rules import MK_CANCELLED, MK_OPEN, NUM_KINDS, NUM_MARKER_TYPES, NUM_ROT
from envs.dorfromantik_duel.scoring import score_board
from envs.dorfromantik_duel.state import MAX_FRONTIER, MAX_PLACED, NO_TILE
from envs.dorfromantik_duel.tiles import MEADOW, TILE_FLAG

__all__ = [
    "MAX_PLACED",
    "NO_TILE",
    "begin_trials",
    "matching_edges",
    "neighbour",
    "new_trial",
    "occupied_neighbours",
    "place_tile",
    "play_action",
    "play_special",
    "score_board",
    "take_back",
    "territory",
    "tile_edge",
    "trial_prospects",
    "try_placement",
]

# What trying a placement changes on seat p's board, as it stood at ``begin_trials`` (the state's fields of
# the same names, p's row), what ``trial_prospects`` needs, and the cell of the placement being tried.
TRIAL_DTYPE = np.dtype(
    [
        ("n_placed", np.int64),
        ("tile", np.int64),
        ("used", np.uint8),  # used[p, tile]
        ("extent", np.int8),
        ("open_markers", np.int8),
        ("task_points", np.int16, (NUM_MARKER_TYPES,)),
        ("tasks_done", np.int8, (NUM_MARKER_TYPES,)),
        ("tasks_cancelled", np.int8, (NUM_MARKER_TYPES,)),
        ("flag_points", np.int16, (3,)),
        ("longest", np.int16, (2,)),
        ("total", np.int16),
        ("closed2", np.int16, (3,)),  # Module 1
        ("card_points", np.int16, (3,)),
        ("last_cell", np.int16),  # Module 2
        ("ask_heart", np.uint8),
        ("ask_photo", np.uint8),
        ("poi_due", np.int8),
        ("milestones", np.int8),
        ("poi_points", np.int16, (3,)),
        ("area_root", np.int8, (NUM_KINDS, MAX_PLACED)),  # the first n_placed + 1 tiles'
        ("area_size", np.int16, (NUM_KINDS, MAX_PLACED)),
        ("area_open", np.int16, (NUM_KINDS, MAX_PLACED)),
        ("n_frontier", np.int64),
        ("frontier", np.int16, (MAX_FRONTIER,)),  # the first n_frontier + 6 places'
        ("frontier_code", np.int16, (MAX_FRONTIER,)),
        ("frontier_mask", np.int16, (MAX_FRONTIER,)),
        ("n_open", np.int64),
        ("open_cells", np.int16, (MAX_PLACED,)),  # cells of open markers (a placement may settle them)
        ("n_cells", np.int64),
        ("cells", np.int16, (MAX_PLACED + 1,)),  # cells that can promise anything, in order (prospects_of)
        ("mismatched", np.int64),  # board_mismatches
        # the placement being tried: its cell as it was
        ("cell", np.int64),
        ("cell_tile", np.int16),
        ("cell_rot", np.int8),
        ("cell_edge", np.int8, (NUM_ROT,)),
        ("cell_mk_type", np.int8),
        ("cell_mk_value", np.int8),
        ("cell_mk_state", np.int8),
        ("cell_index", np.int8),
        ("order", np.int16),  # order[p, n_placed]
    ]
)


@njit(cache=True)
def new_trial():
    """Scratch for ``begin_trials``, ``try_placement`` and ``take_back``: a one-record array."""
    return np.empty(1, TRIAL_DTYPE)


@njit(cache=True)
def begin_trials(s, p: int, trial) -> None:
    """Note in ``trial`` what trying this turn's tile on p's board changes, and what ``trial_prospects``
    reads; good for any number of ``try_placement`` / ``take_back`` pairs on this board."""
    t = trial[0]
    n = s.n_placed[p]
    t.n_placed = n
    t.tile = s.tile
    t.used = s.used[p, s.tile]
    t.extent = s.extent[p]
    t.open_markers = s.open_markers[p]
    for i in range(NUM_MARKER_TYPES):
        t.task_points[i] = s.task_points[p, i]
        t.tasks_done[i] = s.tasks_done[p, i]
        t.tasks_cancelled[i] = s.tasks_cancelled[p, i]
    for i in range(3):
        t.flag_points[i] = s.flag_points[p, i]
        t.closed2[i] = s.closed2[p, i]
        t.card_points[i] = s.card_points[p, i]
        t.poi_points[i] = s.poi_points[p, i]
    t.longest[0] = s.longest[p, 0]
    t.longest[1] = s.longest[p, 1]
    t.total = s.total[p]
    t.last_cell = s.last_cell[p]
    t.ask_heart = s.ask_heart[p]
    t.ask_photo = s.ask_photo[p]
    t.poi_due = s.poi_due[p]
    t.milestones = s.milestones[p]
    for k in range(NUM_KINDS):
        for i in range(n + 1):
            t.area_root[k, i] = s.area_root[p, k, i]
            t.area_size[k, i] = s.area_size[p, k, i]
            t.area_open[k, i] = s.area_open[p, k, i]
    t.n_frontier = s.n_frontier[p]
    for i in range(min(MAX_FRONTIER, s.n_frontier[p] + NUM_ROT)):
        t.frontier[i] = s.frontier[p, i]
        t.frontier_code[i] = s.frontier_code[p, i]
        t.frontier_mask[i] = s.frontier_mask[p, i]
    n_open = 0
    n_cells = 0
    for i in range(n):
        c = s.order[p, i]
        state = s.cell_mk_state[p, c]
        if state == MK_OPEN:
            t.open_cells[n_open] = c
            n_open += 1
        if state == MK_OPEN or state == MK_CANCELLED or TILE_FLAG[s.cell_tile[p, c]] >= 0:
            t.cells[n_cells] = c
            n_cells += 1
    t.n_open = n_open
    t.n_cells = n_cells
    t.mismatched = board_mismatches(s, p)


@njit(cache=True)
def try_placement(s, p: int, a: int, trial) -> None:
    """This turn's tile placed by action ``a`` (cell * 6 + rotation) on p's board (``place_tile``) and p's
    pad rescored (``score_board``), as in play; ``take_back`` undoes it (``trial``: from ``begin_trials``)."""
    t = trial[0]
    c = a // NUM_ROT
    t.cell = c
    t.cell_tile = s.cell_tile[p, c]
    t.cell_rot = s.cell_rot[p, c]
    for d in range(NUM_ROT):
        t.cell_edge[d] = s.cell_edge[p, c, d]
    t.cell_mk_type = s.cell_mk_type[p, c]
    t.cell_mk_value = s.cell_mk_value[p, c]
    t.cell_mk_state = s.cell_mk_state[p, c]
    t.cell_index = s.cell_index[p, c]
    t.order = s.order[p, t.n_placed]
    place_tile(s, p, c, a % NUM_ROT)
    score_board(s, p)


@njit(cache=True)
def take_back(s, p: int, trial) -> None:
    """The tile ``try_placement`` put down taken back: ``s`` exactly as ``begin_trials`` found it."""
    t = trial[0]
    c = t.cell
    n = t.n_placed
    # the areas join_areas changed: the roots of the areas c met, the areas c is in, merged areas' tiles
    merged = 0  # a bit per kind whose areas c merged
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
            continue
        f = s.cell_edge[p, nb, (d + 3) % NUM_ROT]
        if f == MEADOW:
            continue
        k = f - 1
        was = t.area_root[k, s.cell_index[p, nb]]
        s.area_open[p, k, was] = t.area_open[k, was]
        if s.cell_edge[p, c, d] == f and was != s.area_root[p, k, n]:
            merged |= 1 << k
    for d in range(NUM_ROT):
        e = s.cell_edge[p, c, d]
        if e == MEADOW:
            continue
        k = e - 1
        root = s.area_root[p, k, n]
        s.area_size[p, k, root] = t.area_size[k, root]
        s.area_open[p, k, root] = t.area_open[k, root]
        if merged >> k & 1:
            merged ^= 1 << k
            for i in range(n):
                if s.area_root[p, k, i] == root:
                    s.area_root[p, k, i] = t.area_root[k, i]
    for k in range(NUM_KINDS):
        s.area_root[p, k, n] = t.area_root[k, n]
        s.area_size[p, k, n] = t.area_size[k, n]
        s.area_open[p, k, n] = t.area_open[k, n]
    s.cell_tile[p, c] = t.cell_tile
    s.cell_rot[p, c] = t.cell_rot
    for d in range(NUM_ROT):
        s.cell_edge[p, c, d] = t.cell_edge[d]
    s.cell_mk_type[p, c] = t.cell_mk_type
    s.cell_mk_value[p, c] = t.cell_mk_value
    s.cell_mk_state[p, c] = t.cell_mk_state
    s.cell_index[p, c] = t.cell_index
    s.order[p, n] = t.order
    s.n_placed[p] = n
    for i in range(max(t.n_frontier, s.n_frontier[p])):
        s.frontier[p, i] = t.frontier[i]
        s.frontier_code[p, i] = t.frontier_code[i]
        s.frontier_mask[p, i] = t.frontier_mask[i]
    s.n_frontier[p] = t.n_frontier
    for i in range(t.n_open):
        s.cell_mk_state[p, t.open_cells[i]] = MK_OPEN
    s.used[p, t.tile] = t.used
    s.extent[p] = t.extent
    s.open_markers[p] = t.open_markers
    for i in range(NUM_MARKER_TYPES):
        s.task_points[p, i] = t.task_points[i]
        s.tasks_done[p, i] = t.tasks_done[i]
        s.tasks_cancelled[p, i] = t.tasks_cancelled[i]
    for i in range(3):
        s.flag_points[p, i] = t.flag_points[i]
        s.closed2[p, i] = t.closed2[i]
        s.card_points[p, i] = t.card_points[i]
        s.poi_points[p, i] = t.poi_points[i]
    s.longest[p, 0] = t.longest[0]
    s.longest[p, 1] = t.longest[1]
    s.total[p] = t.total
    s.last_cell[p] = t.last_cell
    s.ask_heart[p] = t.ask_heart
    s.ask_photo[p] = t.ask_photo
    s.poi_due[p] = t.poi_due
    s.milestones[p] = t.milestones


@njit(cache=True)
def trial_prospects(s, p: int, trial, task_w: float, cancel_w: float, flag_w: float, mismatch_w: float):
    """``board_prospects(s, p, ...)`` after ``try_placement``, bit for bit, from what ``begin_trials`` noted:
    only the cells that can promise anything are read, and the mismatched edges grow by the placed tile's."""
    t = trial[0]
    c = t.cell
    t.cells[t.n_cells] = c
    mismatched = t.mismatched + 2 * mismatched_edges(s, p, c)
    return prospects_of(s, p, t.cells, t.n_cells + 1, mismatched, task_w, cancel_w, flag_w, mismatch_w)
