"""Dorfromantik: The Duel (rules: seeds/dorfromantik_duel.md), its rules compiled by numba over one state record.

The rules have no single core.py: they are split by concern, read bottom up in the manual's order:
the record (state.py), the hex grid (grid.py), territories (areas.py), task markers (markers.py),
placing a tile and the legal moves (placement.py), the score pad (scoring.py), the two expansions
the manual calls modules, Module 1's task cards (task_cards.py) and Module 2's points of interest
(points_of_interest.py), the turn (turn.py), setup (setup.py), the observation (observation.py) and
the determinization for search agents (determinize.py). Search agents and the heuristic simulate
placements through simulation.py.

game.py binds them to the engine's contract; around them: the tiles (tiles.py), rules constants,
config and action names (rules.py), scenarios (scenario.py, scenario_expansions.py), state checks
(state_check.py, state_check_expansions.py), the heuristic (heuristic.py, prospects.py), search
hooks (search.py), the observation's placement candidates (candidates.py), the score pad as the
infos show it (score_pad.py), text (text.py) and pictures (picture.py), the registration and
documentation page (spec.py).

Each player has a board; both place the same tile each turn. Seat 0 chooses first in the AEC
order, but its choice is only stored (``pending``) until seat 1 has chosen too: then both
tiles go down at once, so seat 1 never sees seat 0's placement of the same turn.
"""

from envs.dorfromantik_duel.game import DorfromantikDuel
from envs.dorfromantik_duel.rules import DorfromantikDuelConfig

__all__ = ["DorfromantikDuel", "DorfromantikDuelConfig"]
