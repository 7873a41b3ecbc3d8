"""The observation's optional ``placement_candidates`` piece: what each legal placement of this turn's tile
would do to my board, one row per placement, computed by the rules themselves on a copy of the record (each
placement tried and taken back: simulation.py).

Row k describes the k-th legal placement in action order (the k-th 1 of the mask among the ``place``
actions), so a network scores each row and the scores go to those actions; rows past the legal
placements are 0. ``MAX_CANDIDATES`` rows always suffice: every rotation in every empty cell touching the
board (``placement.MAX_LISTED``). The readings are the rules' quantities, not a judgement: how many points
the pad gains, how the task markers' progress and cancellations move, what happens to open flag
territories, edges matched and mismatched, the neighbourhood (seeds/dorfromantik_duel.md, "Observation").
"""

# numba functions take state records and arrays, typed by numba rather than by hints

from numba import njit

from envs.dorfromantik_duel.areas import territory
from envs.dorfromantik_duel.grid import pass_action
from envs.dorfromantik_duel.placement import MAX_LISTED
from envs.dorfromantik_duel.points_of_interest import matching_edges
from envs.dorfromantik_duel.prospects import board_prospects
from envs.dorfromantik_duel.rules import NUM_ROT, PH_PLACE
from envs.dorfromantik_duel.simulation import (
    begin_trials,
    new_trial,
    occupied_neighbours,
    score_board,
    take_back,
    trial_prospects,
    try_placement,
)
from envs.engine.layout import ObsLayout
from envs.engine.record import one_record_like

MAX_CANDIDATES = MAX_LISTED  # legal placements never exceed every rotation of every frontier cell
LANDSCAPE_KINDS = 3  # area kinds 0..2: forest, grain, village (rules.NUM_KINDS)

# One row's columns: the change each placement makes (after minus before, on my board), scaled so that a
# usual placement reads 0.1 to 1 (a network's weights then move its logit at the learning rate's pace) and
# clipped to [-1, 1]; then readings of the placed tile in its cell.
CANDIDATE = ObsLayout(
    ("points", (1,)),  # the pad's total / 10 (tasks completed, flags closed, longest lines)
    ("task_progress", (1,)),  # sum over open markers of value x progress towards N (capped at 1) / 5
    ("cancelled", (1,)),  # value of markers cancelled / 6
    ("open_flags", (1,)),  # tiles of open flagged territories / 10 (closing one moves them to points)
    ("mismatches", (1,)),  # touching edge pairs with different terrains / 3
    ("matching_edges", (1,)),  # edges of the placed tile meeting the same terrain / 6
    ("neighbours", (1,)),  # tiles touching the cell / 6
    ("territory", (1,)),  # the largest forest, grain or village territory through the tile / 10
)
F_POINTS = CANDIDATE.offset("points")
F_PROGRESS = CANDIDATE.offset("task_progress")
F_CANCELLED = CANDIDATE.offset("cancelled")
F_FLAGS = CANDIDATE.offset("open_flags")
F_MISMATCHES = CANDIDATE.offset("mismatches")
F_MATCHES = CANDIDATE.offset("matching_edges")
F_NEIGHBOURS = CANDIDATE.offset("neighbours")
F_TERRITORY = CANDIDATE.offset("territory")
FEATURES = CANDIDATE.size


@njit(cache=True, inline="always")
def clipped(x: float) -> float:
    return min(1.0, max(-1.0, x))


@njit(cache=True)
def observe_placement_candidates(s, seat: int, obs, o: int, mask) -> None:
    """The piece (already zeroed) at ``obs[o:]``: a row per legal placement of ``seat`` in action order
    (``CANDIDATE``'s columns); nothing outside the placement phase or when only ``pass`` is legal. Reads
    my board and the tile on the table only (public), draws nothing."""
    if s.done or s.phase != PH_PLACE:
        return
    candidate_rows(one_record_like(s), seat, obs, o, mask)


@njit(cache=True)
def candidate_rows(work, seat: int, obs, o: int, mask) -> None:
    """``observe_placement_candidates`` on ``work``, a one-record copy of the state (left rescored): each
    placement tried on it and taken back."""
    w = work[0]  # a view: ``work`` (an argument) keeps its record alive
    n = pass_action(w)
    score_board(w, seat)
    _, total0, progress0, cancelled0, flags0, mismatches0 = board_prospects(w, seat, 0.0, 0.0, 0.0, 0.0)
    trial = new_trial()
    begin_trials(w, seat, trial)
    k = 0
    for a in range(n):
        if not mask[a]:
            continue
        try_placement(w, seat, a, trial)
        c = a // NUM_ROT
        _, total, progress, cancelled, flags, mismatches = trial_prospects(w, seat, trial, 0.0, 0.0, 0.0, 0.0)
        largest = 1
        for kind in range(LANDSCAPE_KINDS):
            largest = max(largest, territory(w, seat, kind, c)[0])
        row = o + k * FEATURES
        obs[row + F_POINTS] = clipped((total - total0) / 10.0)
        obs[row + F_PROGRESS] = clipped((progress - progress0) / 5.0)
        obs[row + F_CANCELLED] = clipped((cancelled - cancelled0) / 6.0)
        obs[row + F_FLAGS] = clipped((flags - flags0) / 10.0)
        obs[row + F_MISMATCHES] = clipped((mismatches - mismatches0) / 3.0)
        obs[row + F_MATCHES] = matching_edges(w, seat, c) / 6.0
        obs[row + F_NEIGHBOURS] = occupied_neighbours(w, seat, c) / 6.0
        obs[row + F_TERRITORY] = min(1.0, largest / 10.0)
        take_back(w, seat, trial)
        k += 1
