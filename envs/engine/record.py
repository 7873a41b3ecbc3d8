"""The fields every game's state record begins with (compiled code reads them by name).

- ``current``: seat to act next (-1 once the game is over)
- ``done``: 1 once the game is over
- ``rewards``: each seat's reward for the last step (float64, zeroed by each step)
- ``info_version``: incremented whenever ``Game.infos`` would change (round ends)
- ``num_players``: seats in this game
- ``rng``: the generator (``envs.engine.rng``); all chance comes from it

``copy_record(src, dst)`` copies one record array into another inside compiled code;
``one_record_like(s)`` makes a one-record array holding a copy of record ``s`` there.
"""

import numpy as np
from numba import njit
from numba.extending import overload
from numba.np.numpy_support import as_dtype


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
    assignment ``dst.view(np.uint8)[:] = src.view(np.uint8)`` is far slower, and a heuristic copies the
    record once per candidate move."""
    s = src.view(np.uint8)
    d = dst.view(np.uint8)
    for k in range(s.shape[0]):
        d[k] = s[k]


def one_record_like(s: np.void) -> np.ndarray:
    """A one-record array holding a copy of record ``s``, inside compiled code: for functions that
    take a state array (``copy_record`` and the heuristics that use it) when only a record is at
    hand (an ``observe_into``). Compiled code only (numba ``overload``)."""
    raise NotImplementedError("one_record_like is for compiled code only")


@overload(one_record_like)
def _one_record_like(s):  # noqa: ANN001 (numba's type of the record, at compile time)
    dt = as_dtype(s)

    def impl(s):  # noqa: ANN001
        out = np.empty(1, dt)
        out[0] = s
        return out

    return impl
