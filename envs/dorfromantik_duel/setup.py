"""How a game starts: ``reset`` shuffles the stacks and markers and reveals the first tile;
``setup_scenario`` rebuilds what follows from a position a scenario wrote."""

# numba functions take state records and arrays, typed by numba rather than by hints

import numpy as np
from numba import njit

from envs.dorfromantik_duel.areas import relabel_areas
from envs.dorfromantik_duel.markers import MARKERS_PER_TYPE, check_task_markers
from envs.dorfromantik_duel.placement import index_board
from envs.dorfromantik_duel.rules import (
    BOXED_LANDSCAPE,
    CAMERA_MARKERS,
    DOUBLE_VALUE,
    MK_CANCELLED,
    MK_DONE,
    MK_NONE,
    MK_OPEN,
    NUM_MARKER_TYPES,
)
from envs.dorfromantik_duel.scoring import score_board
from envs.dorfromantik_duel.state import NO_TILE
from envs.dorfromantik_duel.task_cards import draw_task_cards
from envs.dorfromantik_duel.tiles import NUM_LANDSCAPE, NUM_TASK, T_DOUBLE
from envs.dorfromantik_duel.turn import begin_turn
from envs.engine.rng import rng_seed, rng_shuffle


@njit(cache=True)
def clear_boards(s) -> None:
    s.cell_tile[:, :] = NO_TILE
    s.cell_rot[:, :] = 0
    s.cell_edge[:, :, :] = 0
    s.cell_mk_type[:, :] = -1
    s.cell_mk_value[:, :] = 0
    s.cell_mk_state[:, :] = MK_NONE
    s.order[:, :] = -1
    s.n_placed[:] = 0
    s.cell_index[:, :] = -1
    s.extent[:] = 0
    s.frontier[:, :] = -1
    s.n_frontier[:] = 0
    s.frontier_code[:, :] = 0
    s.frontier_mask[:, :] = 0
    s.area_root[:, :, :] = -1
    s.area_size[:, :, :] = 0
    s.area_open[:, :, :] = 0
    s.used[:, :] = 0
    s.open_markers[:] = 0
    s.task_points[:, :] = 0
    s.tasks_done[:, :] = 0
    s.tasks_cancelled[:, :] = 0
    s.flag_points[:, :] = 0
    s.longest[:, :] = 0
    s.total[:] = 0
    clear_expansions(s)


@njit(cache=True)
def clear_expansions(s) -> None:
    """The expansions' bookkeeping (Modules 1 and 2) at start-of-game values (the cards are drawn by ``reset``)."""
    s.closed2[:, :] = 0
    s.card_points[:, :] = 0
    s.milestones[:] = 0
    s.poi_due[:] = 0
    s.poi_taken[:, :] = 0
    s.special_gone[:, :] = 0
    s.to_place[:] = -1
    s.last_cell[:] = -1
    s.ask_heart[:] = 0
    s.ask_photo[:] = 0
    s.hearts_left[:] = 0
    s.hearts_from[:] = 0
    s.hearts_claimed = 0
    s.photo_cell[:] = -1
    s.special_cell[:] = -1
    s.cameras_left = CAMERA_MARKERS
    s.cameras[:] = 0
    s.cell_heart[:, :] = 0
    s.cell_camera[:, :] = 0
    s.poi_points[:, :] = 0


@njit(cache=True)
def reset(s, seed: np.uint64) -> None:
    """Setup: shuffle the landscape stack (3 go to the box unseen), the task stack and the markers by type."""
    rng_seed(s, seed)
    s.done = 0
    s.current = 0
    s.info_version = 0
    s.rewards[:] = 0.0
    s.winner = -1
    s.turn = 0
    s.pending[:] = -1
    clear_boards(s)
    for i in range(NUM_LANDSCAPE):
        s.land[i] = i
    rng_shuffle(s, s.land, NUM_LANDSCAPE)
    s.land_n = NUM_LANDSCAPE - BOXED_LANDSCAPE
    s.land_len = NUM_LANDSCAPE
    s.land_pos = 0
    for i in range(NUM_TASK):
        s.task[i] = NUM_LANDSCAPE + i
    rng_shuffle(s, s.task, NUM_TASK)
    s.task_n = NUM_TASK
    s.task_pos = 0
    for t in range(NUM_MARKER_TYPES):
        s.markers[t, :] = 0
        if t == T_DOUBLE:
            for i in range(MARKERS_PER_TYPE[t]):
                s.markers[t, i] = DOUBLE_VALUE
        else:
            for i in range(4):
                s.markers[t, i] = 3 + i
            rng_shuffle(s, s.markers[t], 4)
        s.markers_n[t] = MARKERS_PER_TYPE[t]
        s.markers_pos[t] = 0
    s.unseen[:] = 1
    s.cards[:] = -1
    if s.module_task_cards:
        draw_task_cards(s)
    begin_turn(s)


@njit(cache=True)
def setup_scenario(s) -> int:
    """After a scenario wrote boards and stacks: rebuild areas and counts, then reveal the first
    tile. Returns p * cells + cell of an open marker the board already settles, else -1."""
    nc = (2 * s.radius + 1) ** 2
    s.done = 0
    s.winner = -1
    s.rewards[:] = 0.0
    for p in range(2):
        index_board(s, p)
        relabel_areas(s, p)
        n_open = 0
        for i in range(s.n_placed[p]):
            c = s.order[p, i]
            if s.cell_mk_state[p, c] == MK_OPEN:
                n_open += 1
        s.open_markers[p] = n_open
    for p in range(2):
        before = s.open_markers[p]
        check_task_markers(s, p)
        if s.open_markers[p] != before:
            for i in range(s.n_placed[p]):
                c = s.order[p, i]
                if s.cell_mk_state[p, c] == MK_DONE or s.cell_mk_state[p, c] == MK_CANCELLED:
                    return p * nc + c
        score_board(s, p)
    begin_turn(s)
    return -1
