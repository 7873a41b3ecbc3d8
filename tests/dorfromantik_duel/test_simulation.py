"""simulation.py's try-and-take-back: trying every legal placement and taking it back leaves the record byte for
byte as it was, and what the heuristic, the candidate rows and IS-MCTS's lookahead read off a tried placement
is exactly what the plain way gives (a fresh copy of the record per placement, ``place_tile``,
``score_board``, and ``board_prospects`` as it was before it learnt to read a trial), frozen below."""

import numpy as np
import pytest
from numba import njit

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel import search
from envs.dorfromantik_duel.areas import territory
from envs.dorfromantik_duel.candidates import CANDIDATE, MAX_CANDIDATES
from envs.dorfromantik_duel.grid import neighbour, occupied_neighbours
from envs.dorfromantik_duel.heuristic import (
    CANCEL_PENALTY,
    FLAG_PROMISE,
    MISMATCH_COST,
    TASK_PROMISE,
    action_values,
    placement_value,
    placement_values,
)
from envs.dorfromantik_duel.points_of_interest import matching_edges
from envs.dorfromantik_duel.rules import MK_CANCELLED, MK_OPEN, NUM_ROT, PH_PLACE
from envs.dorfromantik_duel.simulation import (
    begin_trials,
    new_trial,
    place_tile,
    score_board,
    take_back,
    try_placement,
)
from envs.dorfromantik_duel.state import NO_TILE
from envs.dorfromantik_duel.tiles import T_CONNECTION, T_DOUBLE, TILE_FLAG, TILE_PAIR

# --- the reference: one fresh copy per placement, and board_prospects as it was -----------------------


@njit
def _old_board_prospects(s, p, task_w, cancel_w, flag_w, mismatch_w):
    v = float(s.total[p])
    progress_sum = 0.0
    cancelled = 0.0
    open_flags = 0.0
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
        for d in range(NUM_ROT):
            nb = neighbour(s.radius, c, d)
            if (
                nb >= 0
                and s.cell_tile[p, nb] != NO_TILE
                and s.cell_edge[p, nb, (d + 3) % NUM_ROT] != s.cell_edge[p, c, d]
            ):
                mismatches += 1
    value = v - mismatch_w * mismatches / 2.0
    return value, float(s.total[p]), progress_sum, cancelled, open_flags, mismatches / 2.0


@njit
def _old_board_value(s, p):
    return _old_board_prospects(s, p, TASK_PROMISE, CANCEL_PENALTY, FLAG_PROMISE, MISMATCH_COST)[0]


@njit
def _fresh_copy_placed(state, work, p, a):
    work.view(np.uint8)[:] = state.view(np.uint8)
    s = work[0]
    place_tile(s, p, a // NUM_ROT, a % NUM_ROT)
    score_board(s, p)
    return s


@njit
def _old_placement_values(state, work, seat, mask, out):
    work.view(np.uint8)[:] = state.view(np.uint8)
    s = work[0]
    score_board(s, seat)
    before = _old_board_value(s, seat)
    pass_a = (2 * s.radius + 1) ** 2 * NUM_ROT
    for a in range(mask.shape[0]):
        out[a] = -1e18
        if not mask[a]:
            continue
        if a >= pass_a:
            out[a] = 0.0
            continue
        out[a] = _old_board_value(_fresh_copy_placed(state, work, seat, a), seat) - before


@njit
def _clipped(x):
    return min(1.0, max(-1.0, x))


@njit
def _old_candidate_rows(state, work, seat, obs, mask, features):
    work.view(np.uint8)[:] = state.view(np.uint8)
    score_board(work[0], seat)
    _, total0, progress0, cancelled0, flags0, mismatches0 = _old_board_prospects(work[0], seat, 0.0, 0.0, 0.0, 0.0)
    k = 0
    for a in range((2 * state[0].radius + 1) ** 2 * NUM_ROT):
        if not mask[a]:
            continue
        w = _fresh_copy_placed(state, work, seat, a)
        c = a // NUM_ROT
        _, total, progress, cancelled, flags, mismatches = _old_board_prospects(w, seat, 0.0, 0.0, 0.0, 0.0)
        largest = 1
        for kind in range(3):
            largest = max(largest, territory(w, seat, kind, c)[0])
        row = k * features
        obs[row + 0] = _clipped((total - total0) / 10.0)
        obs[row + 1] = _clipped((progress - progress0) / 5.0)
        obs[row + 2] = _clipped((cancelled - cancelled0) / 6.0)
        obs[row + 3] = _clipped((flags - flags0) / 10.0)
        obs[row + 4] = _clipped((mismatches - mismatches0) / 3.0)
        obs[row + 5] = matching_edges(w, seat, c) / 6.0
        obs[row + 6] = occupied_neighbours(w, seat, c) / 6.0
        obs[row + 7] = min(1.0, largest / 10.0)
        k += 1


@njit
def _old_placement_value(state, work, seat, a):
    return _old_board_value(_fresh_copy_placed(state, work, seat, a), seat)


# --- compiled drivers of the new way -----------------------------------------------------------------


@njit
def _first_not_taken_back(state, seat, mask, trial):
    """Every legal placement tried and taken back on ``state[0]`` itself; the first one after which the record
    is not byte for byte what it was (-1: none)."""
    s = state[0]
    raw = state.view(np.uint8)
    before = raw.copy()
    begin_trials(s, seat, trial)
    for a in range((2 * s.radius + 1) ** 2 * NUM_ROT):
        if not mask[a]:
            continue
        try_placement(s, seat, a, trial)
        take_back(s, seat, trial)
        for i in range(raw.shape[0]):
            if raw[i] != before[i]:
                return a
    return -1


@njit
def _lookahead_values(state, seat, mask, out):
    """IS-MCTS's ``placement_value`` of every legal placement, on ``state[0]`` itself."""
    s = state[0]
    trial = new_trial()
    begin_trials(s, seat, trial)
    for a in range((2 * s.radius + 1) ** 2 * NUM_ROT):
        out[a] = placement_value(s, seat, a, trial) if mask[a] else 0.0


@njit
def _old_lookahead_values(state, work, seat, mask, out):
    for a in range((2 * state[0].radius + 1) ** 2 * NUM_ROT):
        out[a] = _old_placement_value(state, work, seat, a) if mask[a] else 0.0


# --- the states: seeded games, partly greedy (full boards, settled markers), partly random -----------------

FAMILIES = {  # config, share of placements the heuristic makes (the rest at random)
    "base": ({}, 0.5),
    "cards": ({"module_task_cards": True}, 0.5),
    "poi": ({"module_points_of_interest": True}, 0.5),
    "both": ({"module_task_cards": True, "module_points_of_interest": True}, 0.5),
    # random boards reach the rim of a small board, where next_cell takes its checked way
    "rim": ({"board_radius": 9, "module_task_cards": True, "module_points_of_interest": True}, 0.0),
}
GAMES = 3


def placement_states(config: dict, greedy: float, seed: int):
    """(state, seat, mask, candidate rows) at every placement decision of seeded games."""
    env = duel.raw_env(placement_candidates=True, observe_boards=False, **config)
    layout = env.game.observation_layout()
    rng = np.random.default_rng(seed)
    for game in range(GAMES):
        env.reset(seed=seed + game)
        while not env.core_state["done"]:
            seat = env.possible_agents.index(env.agent_selection)
            obs = env.observe(env.agent_selection)
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
            state = env.game.new_state()
            state[0] = env.core_state
            if int(state[0]["phase"]) == PH_PLACE:
                yield state, seat, mask, layout.split(obs["observation"])["placement_candidates"]
            a = int(rng.choice(legal))
            if rng.random() < greedy:
                values = np.empty(mask.shape[0])
                action_values(state, np.zeros_like(state), seat, mask, values)
                a = int(legal[np.argmax(values[legal])])
            env.step(a)


@pytest.fixture(scope="module", params=list(FAMILIES))
def states(request) -> list:
    found = list(placement_states(*FAMILIES[request.param], 0))
    assert len(found) > 60 * GAMES
    return found


def test_trying_and_taking_back_every_placement_leaves_the_record_as_it_was(states):
    trial = new_trial()
    tried = 0
    for state, seat, mask, _ in states:
        record = state.copy()
        failed = _first_not_taken_back(record, seat, mask, trial)
        assert failed == -1, f"placement {failed} was not taken back exactly (turn {int(state[0]['turn'])})"
        tried += int(mask.sum())
    assert tried > 10_000


def test_heuristic_values_are_the_fresh_copy_ones(states):
    for state, seat, mask, _ in states:
        new = np.empty(mask.shape[0])
        old = np.empty(mask.shape[0])
        placement_values(state, np.zeros_like(state), seat, mask, new)
        _old_placement_values(state, np.zeros_like(state), seat, mask, old)
        np.testing.assert_array_equal(new, old, err_msg=f"turn {int(state[0]['turn'])}, seat {seat}")


def test_candidate_rows_are_the_fresh_copy_ones(states):
    shown = 0
    for state, seat, mask, rows in states:
        old = np.zeros(MAX_CANDIDATES * CANDIDATE.size, np.float32)
        _old_candidate_rows(state, np.zeros_like(state), seat, old, mask, CANDIDATE.size)
        np.testing.assert_array_equal(rows.ravel(), old, err_msg=f"turn {int(state[0]['turn'])}, seat {seat}")
        shown += int(rows.any(axis=1).sum())
    assert shown > 1000


def test_lookahead_values_are_the_fresh_copy_ones_and_leave_the_record_alone(states):
    for state, seat, mask, _ in states:
        record = state.copy()
        new = np.zeros(mask.shape[0])
        old = np.zeros(mask.shape[0])
        _lookahead_values(record, seat, mask, new)
        assert record.tobytes() == state.tobytes()
        _old_lookahead_values(state, np.zeros_like(state), seat, mask, old)
        np.testing.assert_array_equal(new, old)


def test_greedy_lookahead_leaves_the_record_alone(states):
    for i, (state, _, mask, _) in enumerate(states[::5]):
        record = state.copy()
        search.greedy_action(record[0], np.zeros_like(mask), np.uint64(i), search.SHORTLIST)
        assert record.tobytes() == state.tobytes()
