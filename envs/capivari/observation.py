"""Capivari's observation for a config: the core's pieces, then with ``observe_margins`` the
``move_margins`` piece, each legal move's river margin right after it (the heuristic's one-ply judgement:
pushes, Capionças and modifiers counted by the core's own ``step``). Only public cards decide a margin:
a move's refill reveals cards but scores nothing. The table is under "Observation" in seeds/capivari.md.
"""

import numpy as np
from numba import njit

from envs.capivari import core
from envs.capivari.heuristic import action_values
from envs.capivari.rules import NUM_ACTIONS
from envs.engine.layout import ObsLayout
from envs.engine.record import one_record_like

MARGIN_SCALE = 40.0  # a margin of this many points shows 1 (clipped to [-1, 1]; a match won or lost: +-1)
O_MARGINS = core.OBS_SIZE  # the piece comes last


def layout(observe_margins: bool) -> ObsLayout:
    """The observation's pieces for a config, in order."""
    margins = (("move_margins", (NUM_ACTIONS,)),) if observe_margins else ()
    return ObsLayout(*core.PIECES, *margins)


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """What `seat` sees (``obs`` sized for the record's config): the core's pieces, then the options'."""
    core.observe_into(s, seat, obs, mask)
    if s.observe_margins and s.current == seat:
        observe_move_margins(s, seat, obs, mask)


@njit(cache=True)
def observe_move_margins(s, seat: int, obs, mask) -> None:
    """``move_margins``: my river total minus the opponent's after each legal move, / MARGIN_SCALE; 0 if illegal."""
    state = one_record_like(s)
    work = np.empty_like(state)
    values = np.empty(NUM_ACTIONS, np.float64)
    action_values(state, work, seat, mask, values)
    for a in range(NUM_ACTIONS):
        if mask[a]:
            obs[O_MARGINS + a] = max(-1.0, min(1.0, values[a] / MARGIN_SCALE))


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for `seat`, sized for the record's config."""
    obs = np.zeros(core.OBS_SIZE + (NUM_ACTIONS if s.observe_margins else 0), np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask
