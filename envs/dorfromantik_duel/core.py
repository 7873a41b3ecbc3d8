"""Dorfromantik: The Duel, compiled core: the public surface of the rules, which run as numba
functions over one state record (seeds/dorfromantik_duel.md).

What the game contract (game.py, kernels.py) calls lives here; the rules themselves are split by
concern, read bottom up in the manual's order: the record (state.py), the hex grid (grid.py),
territories (areas.py), task markers (markers.py), placing a tile and the legal moves
(placement.py), the score pad (scoring.py), Module 1 (module_cards.py) and Module 2
(module_poi.py), the turn (turn.py), setup and scenarios (setup.py), the observation
(observation.py) and the determinization for search agents (determinize.py). Search agents and
the heuristic simulate placements through simulation.py.

Each player has a board; both place the same tile each turn. Seat 0 chooses first in the AEC
order, but its choice is only stored (``pending``) until seat 1 has chosen too: then both
tiles go down at once, so seat 1 never sees seat 0's placement of the same turn.
"""

from envs.dorfromantik_duel.determinize import determinize
from envs.dorfromantik_duel.observation import layout, obs_size, observe, observe_into
from envs.dorfromantik_duel.placement import legal_into
from envs.dorfromantik_duel.setup import reset
from envs.dorfromantik_duel.state import STATE_DTYPE, state_dtype
from envs.dorfromantik_duel.turn import step

__all__ = [
    "STATE_DTYPE",
    "determinize",
    "layout",
    "legal_into",
    "obs_size",
    "observe",
    "observe_into",
    "reset",
    "state_dtype",
    "step",
]
