"""The fields every game's state record begins with (compiled code reads them by name).

- ``current``: seat to act next (-1 once the game is over)
- ``done``: 1 once the game is over
- ``rewards``: each seat's reward for the last step (float64, zeroed by each step)
- ``info_version``: incremented whenever ``Game.infos`` would change (round ends)
- ``num_players``: seats in this game
- ``rng``: the generator (``envs.engine.rng``); all chance comes from it
"""

import numpy as np


def header_fields(max_players: int) -> list[tuple]:
    """The fields every game's state record begins with (see the module docstring)."""
    return [
        ("current", np.int8),
        ("done", np.uint8),
        ("num_players", np.int8),
        ("info_version", np.int32),
        ("rng", np.uint64),
        ("rewards", np.float64, (max_players,)),
    ]
