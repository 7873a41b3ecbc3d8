"""Module 2 (the manual's name for this expansion), points of interest: the milestones a placement
reaches, the choices (School, Barn, Oak, photographer, hearts), the photographer's moves and
cameras, hearts, each seat's decisions in a phase, and the expansion's points. Placing a special
tile is in placement.py."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.grid import neighbour, pass_action
from envs.dorfromantik_duel.rules import (
    HEARTS_FIRST,
    HEARTS_LATER,
    MAX_HEART_POINTS,
    NUM_MARKER_TYPES,
    NUM_ROT,
    PH_HEART,
    PH_PHOTO,
    PH_POI,
    POI_MILESTONES,
    POI_NONE,
    POI_PHOTOGRAPHER,
    SPECIAL_REACH,
    X_HEART,
    X_MOVE,
    X_POI,
)
from envs.dorfromantik_duel.state import NO_TILE
from envs.dorfromantik_duel.tiles import PHOTOGRAPHER_TILE, SPECIAL_FIRST, SPECIAL_TERRAIN

MILESTONES = np.array(POI_MILESTONES, np.int64)
SPECIAL_KIND = np.array(SPECIAL_TERRAIN, np.int64)


@njit(cache=True)
def touches(radius: int, a: int, b: int) -> bool:
    for d in range(NUM_ROT):
        if neighbour(radius, a, d) == b:
            return True
    return False


@njit(cache=True)
def after_placement(s, p: int, c: int, landscape: bool) -> None:
    """What a placement sets off: a heart may go on a landscape tile, the photographer may move
    onto a tile touching his (while cameras last), and each 4th/7th/10th task earns a choice."""
    s.last_cell[p] = c
    s.ask_heart[p] = landscape and s.hearts_left[p] > 0 and s.turn >= s.hearts_from[p]
    s.ask_photo[p] = s.photo_cell[p] >= 0 and s.cameras_left > 0 and touches(s.radius, c, s.photo_cell[p])
    done = 0
    for t in range(NUM_MARKER_TYPES):
        done += s.tasks_done[p, t]
    reached = 0
    for m in range(MILESTONES.shape[0]):
        if done >= MILESTONES[m]:
            reached += 1
    if reached > s.milestones[p]:
        s.poi_due[p] += reached - s.milestones[p]
        s.milestones[p] = reached


@njit(cache=True)
def poi_open(s, p: int, i: int) -> bool:
    """Whether seat p may choose point of interest i now."""
    if i == POI_NONE:
        return True
    if s.poi_taken[p, i]:
        return False
    if i < POI_PHOTOGRAPHER:
        for j in range(3):
            if s.poi_taken[p, j]:
                return False  # one of School, Barn, Oak per player
        return not s.special_gone[p, i]
    return True


@njit(cache=True)
def choose_points_of_interest(s, a0: int, a1: int) -> None:
    """Both choices at once: a School/Barn/Oak taken by one seat only leaves the other's game;
    the first to take the hearts gets 3 (both at once: 3 each), a later taker 2."""
    base = pass_action(s) + 1 + X_POI
    pick = np.full(2, -1, np.int64)
    if a0 >= 0:
        pick[0] = a0 - base
    if a1 >= 0:
        pick[1] = a1 - base
    claimed = s.hearts_claimed
    for p in range(2):
        i = pick[p]
        if i < 0:
            continue
        s.poi_due[p] -= 1
        if i == POI_NONE:
            continue
        s.poi_taken[p, i] = 1
        if i < POI_PHOTOGRAPHER:
            s.to_place[p] = SPECIAL_FIRST + i
            if pick[1 - p] != i:
                s.special_gone[1 - p, i] = 1
        elif i == POI_PHOTOGRAPHER:
            s.to_place[p] = PHOTOGRAPHER_TILE
        else:
            s.hearts_left[p] = HEARTS_LATER if claimed else HEARTS_FIRST
            s.hearts_from[p] = s.turn + 1
            s.hearts_claimed = 1


@njit(cache=True)
def take_photos(s, a0: int, a1: int) -> None:
    """Each activated photographer may move onto the new tile, then takes a camera marker.
    One marker left for two at once: the seat with fewer cameras gets it; equal, nobody."""
    base = pass_action(s) + 1
    n = 0
    for p in range(2):
        a = a0 if p == 0 else a1
        if a < 0:
            continue
        s.ask_photo[p] = 0
        if a == base + X_MOVE:
            s.photo_cell[p] = s.last_cell[p]
        n += 1
    for p in range(2):
        a = a0 if p == 0 else a1
        if a < 0 or s.cameras_left == 0:
            continue
        if n == 2 and s.cameras_left == 1 and s.cameras[p] >= s.cameras[1 - p]:
            continue
        s.cameras_left -= 1
        s.cameras[p] += 1
        s.cell_camera[p, s.photo_cell[p]] += 1


@njit(cache=True)
def place_hearts(s, a0: int, a1: int) -> None:
    base = pass_action(s) + 1
    for p in range(2):
        a = a0 if p == 0 else a1
        if a < 0:
            continue
        s.ask_heart[p] = 0
        if a == base + X_HEART:
            s.cell_heart[p, s.last_cell[p]] = 1
            s.hearts_left[p] -= 1


@njit(cache=True)
def seat_needs(s, p: int, phase: int) -> bool:
    if phase == PH_HEART:
        return s.ask_heart[p] == 1
    if phase == PH_PHOTO:
        return s.ask_photo[p] == 1
    if phase == PH_POI:
        return s.poi_due[p] > 0
    return s.to_place[p] >= 0


@njit(cache=True)
def special_tile_points(s, p: int) -> int:
    """1 per other tile showing the special tile's terrain within 2 steps (empty cells count as steps)."""
    c = s.special_cell[p]
    if c < 0:
        return 0
    tk = SPECIAL_KIND[s.cell_tile[p, c] - SPECIAL_FIRST]
    w = 2 * s.radius + 1
    q0 = c % w
    r0 = c // w
    n = 0
    for i in range(s.n_placed[p]):
        x = s.order[p, i]
        dq = x % w - q0
        dr = x // w - r0
        if x == c or max(abs(dq), abs(dr), abs(dq + dr)) > SPECIAL_REACH:
            continue
        for d in range(NUM_ROT):
            if s.cell_edge[p, x, d] == tk:
                n += 1
                break
    return n


@njit(cache=True)
def heart_points(s, p: int) -> int:
    """1 per edge of a heart tile meeting the same terrain on a neighbour, at most 6 a heart."""
    n = 0
    for i in range(s.n_placed[p]):
        c = np.int64(s.order[p, i])
        if not s.cell_heart[p, c]:
            continue
        n += min(matching_edges(s, p, c), MAX_HEART_POINTS)
    return n


@njit(cache=True)
def matching_edges(s, p: int, c: int) -> int:
    """Edges of the tile at c that meet the same terrain on a neighbouring tile."""
    m = 0
    for d in range(NUM_ROT):
        nb = neighbour(s.radius, c, d)
        if nb >= 0 and s.cell_tile[p, nb] != NO_TILE:
            m += s.cell_edge[p, nb, (d + 3) % NUM_ROT] == s.cell_edge[p, c, d]
    return m


@njit(cache=True)
def score_points_of_interest(s, p: int) -> int:
    s.poi_points[p, 0] = special_tile_points(s, p)
    s.poi_points[p, 1] = s.cameras[p]
    s.poi_points[p, 2] = heart_points(s, p)
    return s.poi_points[p, 0] + s.poi_points[p, 1] + s.poi_points[p, 2]
