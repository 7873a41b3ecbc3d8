"""The turn: reveal the tile both players place, take both choices of a phase at once (seat 0's
held back until seat 1 has chosen), Module 2's decision phases in order, the end of a turn and
of the game."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.placement import is_legal, play_action, play_special
from envs.dorfromantik_duel.points_of_interest import choose_points_of_interest, place_hearts, seat_needs, take_photos
from envs.dorfromantik_duel.rules import (
    FIRST_TASK_TURNS,
    MIN_OPEN_MARKERS,
    PH_HEART,
    PH_PHOTO,
    PH_PLACE,
    PH_POI,
    PH_SPECIAL,
)
from envs.dorfromantik_duel.scoring import score_board
from envs.dorfromantik_duel.state import NO_TILE
from envs.dorfromantik_duel.task_cards import claim_closed_cards
from envs.dorfromantik_duel.tiles import TILE_TASK


@njit(cache=True)
def reveal_next_tile(s) -> bool:
    """A task tile on the first 3 turns or while either area has < 3 open markers (if any are
    left), else a landscape tile. False when a landscape tile is due and none is left."""
    need_task = s.turn < FIRST_TASK_TURNS or min(s.open_markers[0], s.open_markers[1]) < MIN_OPEN_MARKERS
    if need_task and s.task_pos < s.task_n:
        tile = s.task[s.task_pos]
        s.task_pos += 1
        t = TILE_TASK[tile]
        s.mk_type = t
        s.mk_value = s.markers[t, s.markers_pos[t]]
        s.markers_pos[t] += 1
    elif s.land_pos < s.land_n:
        tile = s.land[s.land_pos]
        s.land_pos += 1
        s.mk_type = -1
        s.mk_value = 0
    else:
        s.tile = NO_TILE
        s.mk_type = -1
        s.mk_value = 0
        return False
    s.tile = tile
    s.unseen[tile] = 0
    return True


@njit(cache=True)
def begin_turn(s) -> None:
    """Reveal the tile both players place now, or end the game."""
    s.pending[:] = -1
    s.phase = PH_PLACE
    s.acts[:] = 1
    if reveal_next_tile(s):
        s.current = 0
    else:
        end_game(s)


@njit(cache=True)
def step(s, a: int) -> int:
    """A phase's choices are simultaneous: seat 0's is held back while seat 1 still chooses."""
    if s.done:
        return 1
    p = np.int64(s.current)  # one compiled specialization: seats are int64 everywhere (not int8, not literals)
    if not is_legal(s, p, a):
        return 1
    s.rewards[:] = 0.0
    if p == 0 and s.acts[1]:
        s.pending[0] = a
        s.current = 1
        return 0
    a0 = a if p == 0 else s.pending[0]
    a1 = a if p == 1 else -1
    s.pending[:] = -1
    if s.phase == PH_PLACE:
        for seat in range(2):
            play_action(s, seat, a0 if seat == 0 else a1)
    elif s.phase == PH_HEART:
        place_hearts(s, a0, a1)
    elif s.phase == PH_PHOTO:
        take_photos(s, a0, a1)
    elif s.phase == PH_POI:
        choose_points_of_interest(s, a0, a1)
    else:
        for seat in range(2):
            if (a0 if seat == 0 else a1) >= 0:
                play_special(s, seat, a0 if seat == 0 else a1)
    next_phase(s)
    return 0


@njit(cache=True)
def next_phase(s) -> None:
    """Module 2's decisions in order (hearts, photographer, points of interest, special tiles),
    each for the seats it concerns; when none is left the turn ends."""
    if s.module_poi:
        for phase in range(PH_HEART, PH_SPECIAL + 1):
            need0 = seat_needs(s, 0, phase)
            need1 = seat_needs(s, 1, phase)
            if need0 or need1:
                s.info_version += 1  # the infos name the phase
                s.phase = phase
                s.acts[0] = need0
                s.acts[1] = need1
                s.current = 0 if need0 else 1
                return
    end_turn(s)


@njit(cache=True)
def end_turn(s) -> None:
    s.turn += 1
    if s.module_task_cards:
        claim_closed_cards(s)
    for p in range(2):
        score_board(s, p)
    s.info_version += 1
    begin_turn(s)


@njit(cache=True)
def end_game(s) -> None:
    """Score both pads; higher total wins (+1 / -1), equal totals draw (0)."""
    for p in range(2):
        score_board(s, p)
    s.done = 1
    s.current = -1
    s.tile = NO_TILE
    s.pending[:] = -1
    s.info_version += 1
    if s.total[0] > s.total[1]:
        s.winner = 0
        s.rewards[0] = 1.0
        s.rewards[1] = -1.0
    elif s.total[1] > s.total[0]:
        s.winner = 1
        s.rewards[0] = -1.0
        s.rewards[1] = 1.0
    else:
        s.winner = 2
