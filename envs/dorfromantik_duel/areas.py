"""Territories: areas of one terrain joined edge to edge, kept per board and kind by tile (its
place in ``order``): the area's root (its earliest tile), and at the root a size in tiles and a
count of open edges. Indexing by tile, not by cell, keeps the record small whatever the board.

A placement merges areas in place (``join_areas``); ``relabel_areas`` is the plain flood fill
that gives the same result (scenarios and state checks)."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.grid import next_cell, tile_edge
from envs.dorfromantik_duel.rules import NUM_KINDS, NUM_ROT
from envs.dorfromantik_duel.state import MAX_PLACED, NO_TILE


@njit(cache=True)
def has_kind(s, p: int, c: int, tk: int) -> bool:
    for d in range(NUM_ROT):
        if s.cell_edge[p, c, d] == tk:
            return True
    return False


@njit(cache=True)
def relabel_areas(s, p: int) -> None:
    """Flood fill every area of every kind on p's board: root, size in tiles, open edges.

    Two tiles are in one area of kind k when they touch through two edges of that terrain;
    all edges of one terrain on a tile belong to one area (our simplification). An edge is
    open when it faces an empty cell (or the board's rim)."""
    n = s.n_placed[p]
    stack = np.empty(MAX_PLACED, np.int64)
    s.area_root[p, :, :] = -1
    for k in range(NUM_KINDS):
        tk = k + 1
        for start in range(n):
            if s.area_root[p, k, start] != -1 or not has_kind(s, p, s.order[p, start], tk):
                continue
            s.area_root[p, k, start] = start
            stack[0] = start
            top = 1
            size = 0
            n_open = 0
            while top > 0:
                top -= 1
                x = np.int64(s.order[p, stack[top]])
                size += 1
                for d in range(NUM_ROT):
                    if s.cell_edge[p, x, d] != tk:
                        continue
                    nb = next_cell(s, p, x, d)
                    if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
                        n_open += 1
                    elif s.cell_edge[p, nb, (d + 3) % NUM_ROT] == tk:
                        i = s.cell_index[p, nb]
                        if s.area_root[p, k, i] == -1:
                            s.area_root[p, k, i] = start
                            stack[top] = i
                            top += 1
            s.area_size[p, k, start] = size
            s.area_open[p, k, start] = n_open


@njit(cache=True)
def add_once(roots, n: int, root: int) -> int:
    """Append ``root`` to the first n ``roots`` unless it is there; returns the new count."""
    for j in range(n):
        if roots[j] == root:
            return n
    roots[n] = root
    return n + 1


@njit(cache=True)
def join_areas(s, p: int, c: int) -> None:
    """The areas after a tile went down at c, updated in place (``relabel_areas`` gives the same):
    edges facing c are no longer open; c joins the areas its own edges meet, which merge, and
    the merged area's root is its earliest tile, as a fresh flood fill would give."""
    joined = np.empty(NUM_ROT, np.int64)
    me = s.cell_index[p, c]
    for k in range(NUM_KINDS):
        tk = k + 1
        nj = 0
        own_open = 0
        for d in range(NUM_ROT):
            nb = next_cell(s, p, c, d)
            mine = s.cell_edge[p, c, d] == tk
            if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
                own_open += mine
                continue
            if s.cell_edge[p, nb, (d + 3) % NUM_ROT] != tk:
                continue
            root = s.area_root[p, k, s.cell_index[p, nb]]
            s.area_open[p, k, root] -= 1  # its edge faced an empty cell; now it meets c
            if mine:
                nj = add_once(joined, nj, root)
        if not has_kind(s, p, c, tk):
            continue
        root = me
        size = 1
        n_open = own_open
        for j in range(nj):
            size += s.area_size[p, k, joined[j]]
            n_open += s.area_open[p, k, joined[j]]
            root = min(root, joined[j])
        if nj > 1:
            for i in range(me):
                r = s.area_root[p, k, i]
                for j in range(nj):
                    if r == joined[j]:
                        s.area_root[p, k, i] = root
        s.area_root[p, k, me] = root
        s.area_size[p, k, root] = size
        s.area_open[p, k, root] = n_open


@njit(cache=True)
def territory(s, p: int, k: int, c: int):
    """(tiles, open edges) of the kind-k area through the tile at c; (1, 0) if it has no such edge."""
    root = s.area_root[p, k, s.cell_index[p, c]]
    if root < 0:
        return 1, 0
    return s.area_size[p, k, root], s.area_open[p, k, root]


@njit(cache=True)
def facing_roots(s, p: int, c: int, facing, roots) -> None:
    """The root of the area each edge ``facing`` c belongs to (-1: no tile there, or meadow)."""
    for d in range(NUM_ROT):
        f = facing[d]
        roots[d] = -1
        if f > 0:
            roots[d] = s.area_root[p, f - 1, s.cell_index[p, next_cell(s, p, c, d)]]


@njit(cache=True)
def territory_if_placed(s, p: int, tile: int, rot: int, k: int, facing, roots):
    """(tiles, open edges) the kind-k area through ``tile`` would have if placed turned rot at the
    cell whose neighbours show it ``facing`` (-1: no tile), of areas ``roots`` (``facing_roots``)."""
    tk = k + 1
    size = 1
    n_open = 0
    own = False
    for d in range(NUM_ROT):
        mine = tile_edge(tile, rot, d) == tk
        own = own or mine
        if facing[d] < 0:
            n_open += mine
        elif mine and facing[d] == tk:
            first = True  # count each joined area once
            for d2 in range(d):
                if tile_edge(tile, rot, d2) == tk and facing[d2] == tk and roots[d2] == roots[d]:
                    first = False
            if first:
                size += s.area_size[p, k, roots[d]]
                n_open += s.area_open[p, k, roots[d]]
    if not own:
        return 1, 0
    for d in range(NUM_ROT):
        if facing[d] != tk:
            continue
        for d2 in range(NUM_ROT):
            if tile_edge(tile, rot, d2) == tk and facing[d2] == tk and roots[d2] == roots[d]:
                n_open -= 1  # this edge of a joined area faced c: now joined or closed
                break
    return size, n_open


@njit(cache=True)
def closed_territories(s, p: int, k: int, min_size: int) -> int:
    """How many closed kind-k territories of at least ``min_size`` tiles p has."""
    n = 0
    for i in range(s.n_placed[p]):
        if s.area_root[p, k, i] == i and s.area_open[p, k, i] == 0 and s.area_size[p, k, i] >= min_size:
            n += 1
    return n
