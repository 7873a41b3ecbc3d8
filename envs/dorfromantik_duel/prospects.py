"""What a board promises beyond its score pad: the readings the heuristic weighs and the observation's
``placement_candidates`` piece shows per placement (seeds/dorfromantik_duel.md, "Observation").

``board_prospects(s, p, weights)`` reads seat p's board after ``score_board``; all of it is public (my board
only). It also sums the readings with the heuristic's weights in the order the heuristic always has, so the
heuristic's values (and the games it plays) stay bit for bit as they were. ``prospects_of(s, p, cells, n,
mismatched, weights)`` is the same from the cells that can promise anything and a count of mismatched edges
(simulation.py's ``trial_prospects``: a placement tried on a board whose readings are known).
"""

# numba functions take state records and arrays, typed by numba rather than by hints

from numba import njit

from envs.dorfromantik_duel.areas import territory
from envs.dorfromantik_duel.grid import mismatched_edges, occupied_neighbours
from envs.dorfromantik_duel.rules import MK_CANCELLED, MK_OPEN
from envs.dorfromantik_duel.tiles import T_CONNECTION, T_DOUBLE, TILE_FLAG, TILE_PAIR


@njit(cache=True)
def prospects_of(
    s, p: int, cells, n: int, mismatched: int, task_w: float, cancel_w: float, flag_w: float, mismatch_w: float
):
    """``board_prospects`` read from ``cells[:n]`` (p's cells in placement order, at least every one with an
    open or cancelled marker or a flag: the others promise nothing) and ``mismatched``, the sum over p's tiles
    of their ``mismatched_edges`` (each pair counted from both sides)."""
    v = float(s.total[p])
    progress_sum = 0.0
    cancelled = 0.0
    open_flags = 0.0
    for i in range(n):
        c = cells[i]
        state = s.cell_mk_state[p, c]
        if state == MK_OPEN:
            t = s.cell_mk_type[p, c]
            value = s.cell_mk_value[p, c]
            if t == T_CONNECTION:
                progress = occupied_neighbours(s, p, c) / value
            elif t == T_DOUBLE:
                tile = s.cell_tile[p, c]
                a, _ = territory(s, p, TILE_PAIR[tile, 0], c)
                b, _ = territory(s, p, TILE_PAIR[tile, 1], c)
                progress = max(a, b) / value
            else:
                size, _ = territory(s, p, t, c)
                progress = size / value
            progress_sum += value * min(1.0, progress)
            v += task_w * value * min(1.0, progress)
        elif state == MK_CANCELLED:
            cancelled += s.cell_mk_value[p, c]
            v -= cancel_w * s.cell_mk_value[p, c]
        f = TILE_FLAG[s.cell_tile[p, c]]
        if f >= 0:
            size, n_open = territory(s, p, f, c)
            if n_open > 0:
                open_flags += size
                v += flag_w * size
    value = v - mismatch_w * mismatched / 2.0
    return value, float(s.total[p]), progress_sum, cancelled, open_flags, mismatched / 2.0


@njit(cache=True)
def board_mismatches(s, p: int) -> int:
    """The sum of ``mismatched_edges`` over p's tiles: twice the pairs of touching edges with different terrains."""
    m = 0
    for i in range(s.n_placed[p]):
        m += mismatched_edges(s, p, s.order[p, i])
    return m


@njit(cache=True)
def board_prospects(s, p: int, task_w: float, cancel_w: float, flag_w: float, mismatch_w: float):
    """``(value, pad total, task progress, cancelled value, open flag territory, mismatched edge pairs)`` of seat
    p, value = total + task_w progress - cancel_w cancelled + flag_w open flags - mismatch_w mismatches:

    - task progress: over open markers, value times how far (capped at 1) its territory, its ring of
      touching tiles (connection) or the larger of its two territories (double) has grown towards N;
    - cancelled value: the values of the board's cancelled markers;
    - open flag territory: tiles of flagged territories not closed yet, counted once per flag;
    - mismatched edge pairs: touching edges showing different terrains (each pair once)."""
    return prospects_of(s, p, s.order[p], s.n_placed[p], board_mismatches(s, p), task_w, cancel_w, flag_w, mismatch_w)
