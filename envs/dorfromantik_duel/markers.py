"""Task markers: after each placement every open marker is completed, cancelled or stays open,
judged from its territory (or touching tiles) as the manual's task rules say."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.areas import territory
from envs.dorfromantik_duel.grid import occupied_neighbours
from envs.dorfromantik_duel.rules import MK_CANCELLED, MK_DONE, MK_OPEN
from envs.dorfromantik_duel.tiles import T_CONNECTION, T_DOUBLE, TASKS_PER_TYPE, TILE_PAIR

MARKERS_PER_TYPE = np.array(TASKS_PER_TYPE, np.int64)
VERDICT_OPEN, VERDICT_DONE, VERDICT_CANCEL = 0, 1, 2


@njit(cache=True)
def marker_verdict(mk_type: int, value: int, size1: int, open1: int, size2: int, open2: int, touching: int) -> int:
    """Open, completed or cancelled, from the territory (or territories, or touching tiles).

    Single task: exactly N tiles completes; more than N, or closed below N, cancels.
    Double task: either territory at exactly N completes; cancelled only when neither can still.
    Connection task: exactly N touching tiles completes; never cancelled."""
    if mk_type == T_CONNECTION:
        return VERDICT_DONE if touching == value else VERDICT_OPEN
    if mk_type == T_DOUBLE:
        if size1 == value or size2 == value:
            return VERDICT_DONE
        dead1 = size1 > value or open1 == 0
        dead2 = size2 > value or open2 == 0
        return VERDICT_CANCEL if dead1 and dead2 else VERDICT_OPEN
    if size1 == value:
        return VERDICT_DONE
    if size1 > value or open1 == 0:
        return VERDICT_CANCEL
    return VERDICT_OPEN


@njit(cache=True)
def check_task_markers(s, p: int) -> None:
    """After a placement: every open marker on p's board is completed (scores its value),
    cancelled (scores nothing) or stays open. One placement may settle several."""
    for i in range(s.n_placed[p]):
        c = np.int64(s.order[p, i])
        if s.cell_mk_state[p, c] != MK_OPEN:
            continue
        t = s.cell_mk_type[p, c]
        value = s.cell_mk_value[p, c]
        size1 = 0
        open1 = 0
        size2 = 0
        open2 = 0
        touching = 0
        if t == T_CONNECTION:
            touching = occupied_neighbours(s, p, c)
        elif t == T_DOUBLE:
            tile = s.cell_tile[p, c]
            size1, open1 = territory(s, p, TILE_PAIR[tile, 0], c)
            size2, open2 = territory(s, p, TILE_PAIR[tile, 1], c)
        else:
            size1, open1 = territory(s, p, t, c)
        verdict = marker_verdict(t, value, size1, open1, size2, open2, touching)
        if verdict == VERDICT_DONE:
            s.cell_mk_state[p, c] = MK_DONE
            s.task_points[p, t] += value
            s.tasks_done[p, t] += 1
            s.open_markers[p] -= 1
        elif verdict == VERDICT_CANCEL:
            s.cell_mk_state[p, c] = MK_CANCELLED
            s.tasks_cancelled[p, t] += 1
            s.open_markers[p] -= 1
