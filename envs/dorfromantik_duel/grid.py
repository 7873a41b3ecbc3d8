"""The hex grid: axial cells in a (2R+1) x (2R+1) box, neighbours, the rim, turned tile edges,
and the action numbering over the cells (a placement is ``cell * 6 + rot``, then ``pass``).

Every other part of the rules reaches the board through these few functions."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.rules import DIR_Q, DIR_R, NUM_EXTRA, NUM_ROT
from envs.dorfromantik_duel.state import NO_TILE
from envs.dorfromantik_duel.tiles import TILE_EDGES, TRACK

DQ = np.array(DIR_Q, np.int64)
DR = np.array(DIR_R, np.int64)


@njit(cache=True)
def neighbour(radius: int, c: int, d: int) -> int:
    """Cell next to c in direction d (0 = NE, clockwise), or -1 off the board."""
    w = 2 * radius + 1
    q = c % w - radius + DQ[d]
    r = c // w - radius + DR[d]
    if q < -radius or q > radius or r < -radius or r > radius or q + r < -radius or q + r > radius:
        return -1
    return (r + radius) * w + q + radius


@njit(cache=True)
def next_cell(s, p: int, c: int, d: int) -> int:
    """``neighbour`` for a cell on or next to p's tiles: plain index arithmetic while every such
    cell's neighbours are on the board (the common case), else the checked version."""
    if s.extent[p] + 2 <= s.radius:
        return c + DQ[d] + DR[d] * (2 * s.radius + 1)
    return neighbour(s.radius, c, d)


@njit(cache=True)
def on_board(radius: int, c: int) -> bool:
    w = 2 * radius + 1
    if c < 0 or c >= w * w:
        return False
    q = c % w - radius
    r = c // w - radius
    return -radius <= q + r <= radius


@njit(cache=True)
def origin(radius: int) -> int:
    return radius * (2 * radius + 1) + radius


@njit(cache=True)
def hex_steps(radius: int, c: int) -> int:
    w = 2 * radius + 1
    q = c % w - radius
    r = c // w - radius
    return max(abs(q), abs(r), abs(q + r))


def _turned_edges() -> np.ndarray:
    out = np.zeros((TILE_EDGES.shape[0], NUM_ROT, NUM_ROT), np.int8)
    for rot in range(NUM_ROT):
        out[:, rot, :] = np.roll(TILE_EDGES, rot, axis=1)
    return out


TURNED_EDGES = _turned_edges()  # [tile, rot, d]: the terrain a turned tile shows in direction d
HAS_LINE = np.array([(TILE_EDGES[t] >= TRACK).any() for t in range(TILE_EDGES.shape[0])], np.bool_)
LINE_BITS = 2  # per direction: 0 no line, 1 track, 2 stream (``line_code``)


def _line_codes() -> np.ndarray:
    """[tile, rot]: the track and stream edges of a turned tile packed, LINE_BITS per direction."""
    lines = np.where(TURNED_EDGES >= TRACK, TURNED_EDGES - TRACK + 1, 0).astype(np.int64)
    return (lines << (LINE_BITS * np.arange(NUM_ROT))).sum(axis=2)


LINE_CODE = _line_codes()


@njit(cache=True)
def line_code(edge: int) -> int:
    """An edge's line: 0 none, 1 track, 2 stream."""
    return edge - TRACK + 1 if edge >= TRACK else 0


@njit(cache=True)
def tile_edge(tile: int, rot: int, d: int) -> int:
    """Terrain a tile turned ``rot`` steps clockwise shows in direction d."""
    return TURNED_EDGES[tile, rot, d]


@njit(cache=True)
def occupied_neighbours(s, p: int, c: int) -> int:
    n = 0
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
        if nb >= 0 and s.cell_tile[p, nb] != NO_TILE:
            n += 1
    return n


@njit(cache=True)
def mismatched_edges(s, p: int, c: int) -> int:
    """Edges of the tile at c that meet a different terrain on a neighbouring tile."""
    m = 0
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
        if nb >= 0 and s.cell_tile[p, nb] != NO_TILE and s.cell_edge[p, nb, (d + 3) % NUM_ROT] != s.cell_edge[p, c, d]:
            m += 1
    return m


@njit(cache=True)
def pass_action(s) -> int:
    """The ``pass`` action of this state's board; Module 2's decisions follow it (rules.EXTRA_NAMES)."""
    return (2 * s.radius + 1) ** 2 * NUM_ROT


@njit(cache=True)
def action_count(s) -> int:
    """Size of the action space of this state's config."""
    n = pass_action(s) + 1
    return n + NUM_EXTRA if s.module_poi else n
