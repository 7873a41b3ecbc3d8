"""The simulation API for search agents and the heuristic: the rules' own functions for trying a
placement on a record (and taking it back), rescoring the pad and reading a board, so a simulated
placement completes or cancels markers and scores exactly as in play.

- ``place_tile(s, p, c, rot)``: this turn's tile (and its marker) on p's board; areas merge, markers
  are judged, Module 2's follow-ups are noted; ``play_action(s, p, a)`` the same from an action
  (or ``pass``); ``play_special(s, p, a)`` Module 2's special tile;
- ``relabel_areas(s, p)``: p's territories recomputed from the board (after taking a tile back);
  ``shrink_frontier(s, p, c, at, n)``: p's frontier as it was before the tile at c went down;
- ``score_board(s, p)``: p's score pad as if the game ended now;
- reads: ``territory(s, p, k, c)`` (tiles, open edges of the kind-k area through c),
  ``occupied_neighbours``, ``matching_edges``, ``neighbour``, ``tile_edge``; ``NO_TILE``, ``MAX_PLACED``.
"""

from envs.dorfromantik_duel.areas import relabel_areas, territory
from envs.dorfromantik_duel.grid import neighbour, occupied_neighbours, tile_edge
from envs.dorfromantik_duel.module_poi import matching_edges
from envs.dorfromantik_duel.placement import place_tile, play_action, play_special, shrink_frontier
from envs.dorfromantik_duel.scoring import score_board
from envs.dorfromantik_duel.state import MAX_PLACED, NO_TILE

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
]
