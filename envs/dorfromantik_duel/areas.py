"""Territories: areas of one terrain joined edge to edge, kept per board and kind as a label
(the area's earliest tile), a size in tiles and a count of open edges.

A placement merges areas in place (``join_areas``); ``relabel_areas`` is the plain flood fill
that gives the same result (scenarios, state checks, and search agents taking a tile back)."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.grid import next_cell, tile_edge
from envs.dorfromantik_duel.rules import NUM_KINDS, NUM_ROT
from envs.dorfromantik_duel.state import NO_TILE
from envs.dorfromantik_duel.tiles import NUM_TILES


@njit(cache=True)
def has_kind(s, p: int, c: int, tk: int) -> bool:
    for d in range(NUM_ROT):
        if s.cell_edge[p, c, d] == tk:
            return True
    return False


@njit(cache=True)
def relabel_areas(s, p: int) -> None:
    """Flood fill every area of every kind on p's board: label, size in tiles, open edges.

    Two tiles are in one area of kind k when they touch through two edges of that terrain;
    all edges of one terrain on a tile belong to one area (our simplification). An edge is
    open when it faces an empty cell (or the board's rim)."""
    n = s.n_placed[p]
    stack = np.empty(NUM_TILES, np.int64)
    for k in range(NUM_KINDS):
        for i in range(n):
            s.label[p, k, s.order[p, i]] = -1
    for k in range(NUM_KINDS):
        tk = k + 1
        for i in range(n):
            start = s.order[p, i]
            if s.label[p, k, start] != -1 or not has_kind(s, p, start, tk):
                continue
            s.label[p, k, start] = start
            stack[0] = start
            top = 1
            size = 0
            n_open = 0
            while top > 0:
                top -= 1
                x = stack[top]
                size += 1
                for d in range(NUM_ROT):
                    if s.cell_edge[p, x, d] != tk:
                        continue
                    nb = next_cell(s, p, x, d)
                    if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
                        n_open += 1
                    elif s.cell_edge[p, nb, (d + 3) % NUM_ROT] == tk and s.label[p, k, nb] == -1:
                        s.label[p, k, nb] = start
                        stack[top] = nb
                        top += 1
            s.area_size[p, k, start] = size
            s.area_open[p, k, start] = n_open


@njit(cache=True)
def add_once(labels, n: int, lab: int) -> int:
    """Append ``lab`` to the first n ``labels`` unless it is there; returns the new count."""
    for j in range(n):
        if labels[j] == lab:
            return n
    labels[n] = lab
    return n + 1


@njit(cache=True)
def placed_before(s, p: int, a: int, b: int) -> bool:
    """Whether p placed the tile at cell a before the one at b."""
    for i in range(s.n_placed[p]):
        x = s.order[p, i]
        if x == a:
            return True
        if x == b:
            return False
    return False


@njit(cache=True)
def join_areas(s, p: int, c: int) -> None:
    """The areas after a tile went down at c, updated in place (``relabel_areas`` gives the same):
    edges facing c are no longer open; c joins the areas its own edges meet, which merge, and
    the merged area is labelled by its earliest tile, as a fresh flood fill would."""
    joined = np.empty(NUM_ROT, np.int64)
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
            lab = s.label[p, k, nb]
            s.area_open[p, k, lab] -= 1  # its edge faced an empty cell; now it meets c
            if mine:
                nj = add_once(joined, nj, lab)
        if not has_kind(s, p, c, tk):
            continue
        root = c
        size = 1
        n_open = own_open
        for j in range(nj):
            size += s.area_size[p, k, joined[j]]
            n_open += s.area_open[p, k, joined[j]]
            if root == c or placed_before(s, p, joined[j], root):
                root = joined[j]
        if nj > 1:
            for i in range(s.n_placed[p]):
                x = s.order[p, i]
                lab = s.label[p, k, x]
                for j in range(nj):
                    if lab == joined[j]:
                        s.label[p, k, x] = root
        s.label[p, k, c] = root
        s.area_size[p, k, root] = size
        s.area_open[p, k, root] = n_open


@njit(cache=True)
def territory(s, p: int, k: int, c: int):
    """(tiles, open edges) of the kind-k area through the tile at c; (1, 0) if it has no such edge."""
    lab = s.label[p, k, c]
    if lab < 0:
        return 1, 0
    return s.area_size[p, k, lab], s.area_open[p, k, lab]


@njit(cache=True)
def territory_if_placed(s, p: int, tile: int, c: int, rot: int, k: int):
    """(tiles, open edges) the kind-k area through ``tile`` would have if placed at c turned rot."""
    tk = k + 1
    joined = np.empty(NUM_ROT, np.int64)
    nj = 0
    own = False
    for d in range(NUM_ROT):
        if tile_edge(tile, rot, d) != tk:
            continue
        own = True
        nb = next_cell(s, p, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE or s.cell_edge[p, nb, (d + 3) % NUM_ROT] != tk:
            continue
        nj = add_once(joined, nj, s.label[p, k, nb])
    if not own:
        return 1, 0
    size = 1
    n_open = 0
    for j in range(nj):
        size += s.area_size[p, k, joined[j]]
        n_open += s.area_open[p, k, joined[j]]
    for d in range(NUM_ROT):
        nb = next_cell(s, p, c, d)
        if nb < 0 or s.cell_tile[p, nb] == NO_TILE:
            if tile_edge(tile, rot, d) == tk:
                n_open += 1
        elif s.cell_edge[p, nb, (d + 3) % NUM_ROT] == tk:
            lab = s.label[p, k, nb]
            for j in range(nj):
                if joined[j] == lab:
                    n_open -= 1  # this edge of a joined area faced c: now joined or closed
    return size, n_open


@njit(cache=True)
def closed_territories(s, p: int, k: int, min_size: int) -> int:
    """How many closed kind-k territories of at least ``min_size`` tiles p has."""
    n = 0
    for i in range(s.n_placed[p]):
        c = s.order[p, i]
        if s.label[p, k, c] == c and s.area_open[p, k, c] == 0 and s.area_size[p, k, c] >= min_size:
            n += 1
    return n
