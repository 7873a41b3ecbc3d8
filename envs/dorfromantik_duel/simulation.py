"""The simulation API for search agents and the heuristic: the rules' own functions for trying a
placement on a record (and taking it back), rescoring the pad and reading a board, so a simulated
placement completes or cancels markers and scores exactly as in play.

- ``place_tile(s, p, c, rot)``: this turn's tile (and its marker) on p's board; areas merge, markers
  are judged, Module 2's follow-ups are noted; ``play_action(s, p, a)`` the same from an action
  (or ``pass``); ``play_special(s, p, a)`` Module 2's special tile;
- ``relabel_areas(s, p)``: p's territories recomputed from the board (after taking a tile back);
  ``shrink_frontier(s, p, c, at, n)``: p's frontier as it was before the tile at c went down;
- ``score_board(s, p)``: p's score pad as if the game ended now;
- ``try_placement(state, work, p, a)``: ``work`` a fresh copy of ``state`` with placement ``a`` made and
  p's pad rescored (the heuristic's and the observation's ``placement_candidates`` way to try a placement);
- reads: ``territory(s, p, k, c)`` (tiles, open edges of the kind-k area through c),
  ``occupied_neighbours``, ``matching_edges``, ``neighbour``, ``tile_edge``; ``NO_TILE``, ``MAX_PLACED``.
"""

from numba import njit

from envs.dorfromantik_duel.areas import relabel_areas, territory
from envs.dorfromantik_duel.grid import neighbour, occupied_neighbours, tile_edge
from envs.dorfromantik_duel.module_poi import matching_edges
from envs.dorfromantik_duel.placement import place_tile, play_action, play_special, shrink_frontier
from envs.dorfromantik_duel.rules import NUM_ROT
from envs.dorfromantik_duel.scoring import score_board
from envs.dorfromantik_duel.state import MAX_PLACED, NO_TILE
from envs.engine.record import copy_record

__all__ = [
    "MAX_PLACED",
    "NO_TILE",
    "matching_edges",
    "neighbour",
    "occupied_neighbours",
    "place_tile",
    "play_action",
    "play_special",
    "relabel_areas",
    "score_board",
    "shrink_frontier",
    "territory",
    "tile_edge",
    "try_placement",
]


@njit(cache=True)
def try_placement(state, work, p: int, a: int):
    """``work[0]``, made a copy of ``state[0]`` (``copy_record``) with this turn's tile placed by action
    ``a`` (cell * 6 + rotation) on p's board and p's pad rescored."""
    copy_record(state, work)
    s = work[0]
    place_tile(s, p, a // NUM_ROT, a % NUM_ROT)
    score_board(s, p)
    return s
