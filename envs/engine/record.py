"""The fields every game's state record begins with (compiled code reads them by name).

- ``current``: seat to act next (-1 once the game is over)
- ``done``: 1 once the game is over
- ``rewards``: each seat's reward for the last step (float64, zeroed by each step)
- ``info_version``: incremented whenever ``Game.infos`` would change (round ends)
- ``num_players``: seats in this game
- ``rng``: the generator (``envs.engine.rng``); all chance comes from it

``copy_record(src, dst)`` copies one record array into another inside compiled code.
"""

import numpy as np
from numba import njit


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


@njit(cache=True)
def copy_record(src: np.ndarray, dst: np.ndarray) -> None:
    """``dst[:] = src`` for arrays of one record dtype, byte by byte in an explicit loop: numba's slice
    assignment ``dst.view(np.uint8)[:] = src.view(np.uint8)`` is far slower (the Duel's 38,817-byte
    record: 21.6 us against 1.4 us), and a heuristic copies the record once per candidate move."""
    s = src.view(np.uint8)
    d = dst.view(np.uint8)
    for k in range(s.shape[0]):
        d[k] = s[k]
