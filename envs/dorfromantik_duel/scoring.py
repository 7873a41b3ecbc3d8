"""The score pad as if the game ended now: tasks, flags in closed territories, longest track and
stream, and each module's row."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.areas import territory
from envs.dorfromantik_duel.points_of_interest import score_points_of_interest
from envs.dorfromantik_duel.rules import NUM_MARKER_TYPES
from envs.dorfromantik_duel.task_cards import score_task_cards
from envs.dorfromantik_duel.tiles import STREAM, TILE_FLAG, TRACK

K_TRACK = TRACK - 1  # area kind of track edges
K_STREAM = STREAM - 1


@njit(cache=True)
def longest_line(s, p: int, k: int) -> int:
    """Tiles in p's longest track (k = K_TRACK) or stream (K_STREAM)."""
    best = 0
    for i in range(s.n_placed[p]):
        if s.area_root[p, k, i] == i:
            best = max(best, s.area_size[p, k, i])
    return best


@njit(cache=True)
def score_board(s, p: int) -> None:
    """The score pad as if the game ended now: tasks, flags in closed territories, longest lines, modules."""
    s.flag_points[p, :] = 0
    for i in range(s.n_placed[p]):
        c = np.int64(s.order[p, i])
        f = TILE_FLAG[s.cell_tile[p, c]]
        if f >= 0:
            size, n_open = territory(s, p, f, c)
            if n_open == 0:
                s.flag_points[p, f] += size
    for i in range(2):
        s.longest[p, i] = longest_line(s, p, K_TRACK + i)  # track, then stream (K_STREAM)
    total = 0
    for t in range(NUM_MARKER_TYPES):
        total += s.task_points[p, t]
    for f in range(3):
        total += s.flag_points[p, f]
    if s.module_task_cards:
        total += score_task_cards(s, p)
    if s.module_poi:
        total += score_points_of_interest(s, p)
    s.total[p] = total + s.longest[p, 0] + s.longest[p, 1]
