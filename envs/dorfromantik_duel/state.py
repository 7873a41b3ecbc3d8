"""The Duel's state record: every field the rules read and write, for a board of any radius.

Everything lives in one numpy structured record (no Python objects), so the compiled rules take
it as their only argument and a game is saved, copied and checked as bytes."""

import numpy as np

from envs.dorfromantik_duel.rules import DEFAULT_RADIUS, NUM_KINDS, NUM_MARKER_TYPES, NUM_ROT, num_cells
from envs.dorfromantik_duel.tiles import NUM_LANDSCAPE, NUM_TASK, NUM_TILES
from envs.engine.record import header_fields

MAX_PLACED = NUM_TILES + 2  # the game's tiles plus Module 2's special tile and photographer's tile
MAX_FRONTIER = 2 * MAX_PLACED + 4  # n tiles have at most 2n + 4 empty neighbours
NO_TILE = -1


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
            ("placement_prior", np.uint8),  # the observation's optional pieces and its boards (observation.py)
            ("placement_candidates", np.uint8),
            ("observe_boards", np.uint8),
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
            ("cell_index", np.int8, (2, nc)),  # the tile's place in ``order`` (-1: empty cell)
            ("extent", np.int8, (2,)),  # farthest placed tile from the origin, in steps
            # empty cells touching the seat's tiles, in the order the tiles they touch were placed
            ("frontier", np.int16, (2, MAX_FRONTIER)),
            ("n_frontier", np.int16, (2,)),
            # per frontier cell, the lines its neighbours show it (grid.LINE_BITS per direction) and
            # which neighbours are tiles (3 in those bits): the track/stream rule as one mask test
            ("frontier_code", np.int16, (2, MAX_FRONTIER)),
            ("frontier_mask", np.int16, (2, MAX_FRONTIER)),
            # areas by tile (its place in ``order``): per kind, the area's root (its earliest tile,
            # -1: no edge of that kind), and at the root the area's size in tiles and open edges
            ("area_root", np.int8, (2, NUM_KINDS, MAX_PLACED)),
            ("area_size", np.int16, (2, NUM_KINDS, MAX_PLACED)),
            ("area_open", np.int16, (2, NUM_KINDS, MAX_PLACED)),
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
