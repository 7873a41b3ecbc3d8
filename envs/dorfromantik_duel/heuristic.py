"""Dorfromantik: The Duel heuristic: greedy placement on a board value.

Each legal placement (cell and rotation) of this turn's tile is tried on my board with the rules'
own ``place_tile`` and ``score_board`` and taken back (simulation.py: task markers complete or cancel
exactly as in the rules), and scored by how much it raises the board value:

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

Module 2: the special tile (School, Barn, Oak or photographer's tile) goes where it leaves the
highest board value; the other choices go by rule of thumb (``decision_values``).

One compiled implementation, ``action_values(state, work, seat, mask, out)``, for every phase: the
vector env plays it inside its kernel (``heuristic_action`` of ``envs.engine.batch_kernels``: the
``heuristic`` opponent of training's pool), ``HeuristicAgent`` calls it, and IS-MCTS narrows its root
with it. Only my board, the tile on the table and its marker are read (and with Module 1's "most closed
territories" card the opponent's board as it stood at the turn's start): all public. The observation's
optional ``placement_prior`` piece is these values, scaled (observation.py).
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.grid import pass_action
from envs.dorfromantik_duel.prospects import board_prospects
from envs.dorfromantik_duel.rules import (
    PH_PLACE,
    PH_SPECIAL,
    POI_BARN,
    POI_HEARTS,
    POI_NONE,
    POI_OAK,
    POI_PHOTOGRAPHER,
    POI_SCHOOL,
    X_HEART,
    X_MOVE,
    X_POI,
)
from envs.dorfromantik_duel.simulation import (
    begin_trials,
    matching_edges,
    new_trial,
    play_special,
    score_board,
    take_back,
    trial_prospects,
    try_placement,
)
from envs.engine.record import copy_record

TASK_PROMISE = 0.5  # share of an open marker's value counted, times its progress towards N
CANCEL_PENALTY = 0.5  # times a cancelled marker's value, on top of the lost promise
FLAG_PROMISE = 0.5  # share of an open flag territory's size counted
MISMATCH_COST = 0.4  # per pair of touching edges with different terrains


@njit(cache=True)
def board_value(s: np.void, p: int) -> float:
    """Seat p's pad total plus what its board promises (see the module docstring); call after score_board."""
    return board_prospects(s, p, TASK_PROMISE, CANCEL_PENALTY, FLAG_PROMISE, MISMATCH_COST)[0]


@njit(cache=True)
def placement_value(s: np.void, p: int, a: int, trial: np.ndarray) -> float:
    """``board_value(s, p)`` if placement ``a`` of this turn's tile were made, found by making it and taking it
    back (``try_placement``, ``take_back``; ``trial`` from ``begin_trials(s, p, trial)``): ``s`` is left as it was."""
    try_placement(s, p, a, trial)
    v = trial_prospects(s, p, trial, TASK_PROMISE, CANCEL_PENALTY, FLAG_PROMISE, MISMATCH_COST)[0]
    take_back(s, p, trial)
    return v


@njit(cache=True)
def placement_values(state: np.ndarray, work: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """``out[a]``: the rise of my board value if legal placement ``a`` of this turn's tile is made
    (0 for ``pass``); each placement is tried on ``work``, a copy of ``state``, and taken back (``placement_value``)."""
    copy_record(state, work)
    s = work[0]
    score_board(s, seat)
    before = board_value(s, seat)
    trial = new_trial()
    begin_trials(s, seat, trial)
    pass_a = pass_action(s)
    for a in range(mask.shape[0]):
        out[a] = -1e18
        if not mask[a]:
            continue
        if a >= pass_a:  # pass: only legal when nothing else is
            out[a] = 0.0
            continue
        out[a] = placement_value(s, seat, a, trial) - before


@njit(cache=True)
def special_values(state: np.ndarray, work: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """Module 2: ``out[a]``, my board value after placing my special tile by ``a`` (``pass``: it leaves the game)."""
    for a in range(mask.shape[0]):
        out[a] = -1e18
        if mask[a]:
            copy_record(state, work)
            s = work[0]
            play_special(s, seat, a)
            score_board(s, seat)
            out[a] = board_value(s, seat)


# Module 2's other decisions, by rule of thumb: hearts are worth most (up to 6 each), then a
# School/Barn/Oak, then the photographer; a heart goes on a tile already matching 3+ edges; the
# photographer moves onto the newest tile, which has the most empty cells round it.
POI_VALUE = np.zeros(POI_NONE + 1)  # by rules.POI_NAMES: choosing nothing is worth 0
POI_VALUE[POI_HEARTS] = 5.0
POI_VALUE[POI_SCHOOL] = POI_VALUE[POI_BARN] = POI_VALUE[POI_OAK] = 4.0
POI_VALUE[POI_PHOTOGRAPHER] = 3.0
HEART_MATCHES = 3  # a heart is worth placing on a tile matching at least this many edges


@njit(cache=True)
def decision_values(s: np.void, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """Module 2's choices after ``pass`` (rules.EXTRA_NAMES): a point of interest by ``POI_VALUE``;
    ``heart`` +1 on a tile matching ``HEART_MATCHES``+ edges, else -1; ``move photographer`` 1; the
    rest (``no heart``, ``keep photographer``, and any illegal action) 0."""
    first = pass_action(s) + 1
    for a in range(mask.shape[0]):
        out[a] = 0.0
        if not mask[a] or a < first:
            continue
        x = a - first
        if X_POI <= x <= X_POI + POI_NONE:
            out[a] = POI_VALUE[x - X_POI]
        elif x == X_HEART:
            out[a] = 1.0 if matching_edges(s, seat, s.last_cell[seat]) >= HEART_MATCHES else -1.0
        elif x == X_MOVE:
            out[a] = 1.0


@njit(cache=True)
def action_values(state: np.ndarray, work: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """``out[a]``: the heuristic's value of each action for ``seat`` (``state``: one record; illegal ones
    are ignored), by phase: ``placement_values``, ``special_values`` (Module 2's special tile) or
    ``decision_values`` (Module 2's other choices).

    The one implementation: the vector env's compiled opponents, ``Heuristic.values`` and IS-MCTS's
    root all call it; ``work`` is a one-record scratch array of the same dtype."""
    phase = state[0].phase
    if phase == PH_PLACE:
        placement_values(state, work, seat, mask, out)
    elif phase == PH_SPECIAL:
        special_values(state, work, seat, mask, out)
    else:
        decision_values(state[0], seat, mask, out)
