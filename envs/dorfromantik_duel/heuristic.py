"""Dorfromantik: The Duel heuristic: greedy placement on a board value.

Each legal placement (cell and rotation) of this turn's tile is tried on a copy of my
board with the rules' own ``place_tile`` and ``score_board`` (simulation.py: task markers complete or
cancel exactly as in the rules), and scored by how much it raises the board value:

- **immediate points**: the score pad (completed tasks, closed flag territories, longest
  track and stream);
- **task progress without overshoot**: every open marker promises part of its value in
  proportion to how far its territory (or its ring of touching tiles) has grown towards
  exactly N; a placement that overshoots or closes a marker short cancels it, losing that
  promise and a penalty on top;
- **edge matches**: every pair of touching edges with different terrains costs a little,
  since it closes territories that could have grown;
- **keeping territories open or closing flag territories**: an open flag territory promises
  part of its size, and closing it turns the promise into its full size on the pad.

Only my board, the tile on the table and its marker are read: all public.
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.rules import MK_CANCELLED, MK_OPEN, NUM_EXTRA, NUM_ROT, PH_PLACE, PH_SPECIAL, action_name
from envs.dorfromantik_duel.simulation import (
    NO_TILE,
    matching_edges,
    neighbour,
    occupied_neighbours,
    place_tile,
    play_special,
    score_board,
    territory,
)
from envs.dorfromantik_duel.tiles import T_CONNECTION, T_DOUBLE, TILE_FLAG, TILE_PAIR

TASK_PROMISE = 0.5  # share of an open marker's value counted, times its progress towards N
CANCEL_PENALTY = 0.5  # times a cancelled marker's value, on top of the lost promise
FLAG_PROMISE = 0.5  # share of an open flag territory's size counted
MISMATCH_COST = 0.4  # per pair of touching edges with different terrains


@njit(cache=True)
def board_value(s: np.void, p: int) -> float:
    """Seat p's pad total plus what its board promises (see the module docstring); call after score_board."""
    v = float(s.total[p])
    mismatches = 0
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
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
            v += TASK_PROMISE * value * min(1.0, progress)
        elif state == MK_CANCELLED:
            v -= CANCEL_PENALTY * s.cell_mk_value[p, c]
        f = TILE_FLAG[s.cell_tile[p, c]]
        if f >= 0:
            size, n_open = territory(s, p, f, c)
            if n_open > 0:
                v += FLAG_PROMISE * size
        for d in range(NUM_ROT):
            nb = neighbour(s.radius, c, d)
            if (
                nb >= 0
                and s.cell_tile[p, nb] != NO_TILE
                and s.cell_edge[p, nb, (d + 3) % NUM_ROT] != s.cell_edge[p, c, d]
            ):
                mismatches += 1
    return v - MISMATCH_COST * mismatches / 2.0


@njit(cache=True)
def action_values(
    base: np.ndarray,
    base_bytes: np.ndarray,
    work: np.ndarray,
    work_bytes: np.ndarray,
    seat: int,
    mask: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[a]``: the rise of my board value if legal placement ``a`` is made (0 for ``pass``)."""
    work_bytes[:] = base_bytes
    s = work[0]
    score_board(s, seat)
    before = board_value(s, seat)
    n = mask.shape[0]
    for a in range(n):
        out[a] = -1e18
        if not mask[a]:
            continue
        if a >= n - 1 - NUM_EXTRA * s.module_poi:  # pass: only legal when nothing else is
            out[a] = 0.0
            continue
        work_bytes[:] = base_bytes
        s = work[0]
        place_tile(s, seat, a // NUM_ROT, a % NUM_ROT)
        score_board(s, seat)
        out[a] = board_value(s, seat) - before


@njit(cache=True)
def special_values(
    base_bytes: np.ndarray, work: np.ndarray, work_bytes: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray
) -> None:
    """Module 2: ``out[a]``, the board value after placing the seat's special tile by ``a``."""
    for a in range(mask.shape[0]):
        out[a] = -1e18
        if mask[a]:
            work_bytes[:] = base_bytes
            s = work[0]
            play_special(s, seat, a)
            score_board(s, seat)
            out[a] = board_value(s, seat)


# Module 2's other decisions, by rule of thumb: hearts are worth most (up to 6 each), then a
# School/Barn/Oak, then the photographer; a heart goes on a tile already matching 3+ edges; the
# photographer moves onto the newest tile, which has the most empty cells round it.
POI_PREFERENCE = {"poi hearts": 5.0, "poi school": 4.0, "poi barn": 4.0, "poi oak": 4.0, "poi photographer": 3.0}


def decision_values(state: np.ndarray, seat: int, mask: np.ndarray, names: list[str]) -> np.ndarray:
    out = np.zeros(mask.shape[0])
    s = state[0]
    for a in np.flatnonzero(mask):
        name = names[a]
        out[a] = POI_PREFERENCE.get(name, 0.0)
        if name == "heart":
            c = int(s["last_cell"][seat])
            out[a] = 1.0 if matching_edges(s, seat, c) >= 3 else -1.0
        elif name == "move photographer":
            out[a] = 1.0
    return out


class Heuristic:
    """Greedy placement on the board value (see the module docstring); Module 2's decisions by rule of thumb."""

    def values(self, state: np.ndarray, seat: int, observation: dict[str, np.ndarray]) -> np.ndarray:
        mask = observation["action_mask"]
        work = np.zeros_like(state)
        out = np.empty(mask.shape[0])
        phase = int(state[0]["phase"])
        if phase == PH_PLACE:
            action_values(state, state.view(np.uint8), work, work.view(np.uint8), seat, mask, out)
        elif phase == PH_SPECIAL:
            special_values(state.view(np.uint8), work, work.view(np.uint8), seat, mask, out)
        else:
            radius = int(state[0]["radius"])
            names = [action_name(radius, a, True) if mask[a] else "" for a in range(mask.shape[0])]
            out = decision_values(state, seat, mask, names)
        return out
