"""Capivari's observation for a config: the core's pieces, then with ``observe_margins`` the
``move_margins`` piece, each legal move's river margin right after it (the heuristic's one-ply judgement:
pushes, Capionças and modifiers counted by the core's own ``step``), then with ``observe_unseen`` the
``unseen_cards`` piece, the cards in the deck below its top (the set a determinization shuffles; public
through the card table, their order is not), then with ``observe_afterstates`` (or ``observe_replies``) the
``afterstates`` piece, a row per legal move (``envs.capivari.afterstates``). Only public cards decide a margin:
a move's refill reveals cards but scores nothing. The table is under "Observation" in seeds/capivari.md.
"""

import numpy as np
from numba import njit

from envs.capivari import core
from envs.capivari.afterstates import MAX_LEGAL, observe_afterstates, row_width
from envs.capivari.heuristic import action_values
from envs.capivari.rules import NUM_ACTIONS, NUM_CARDS
from envs.engine.layout import ObsLayout
from envs.engine.record import one_record_like

MARGIN_SCALE = 40.0  # a margin of this many points shows 1 (clipped to [-1, 1]; a match won or lost: +-1)
O_MARGINS = core.OBS_SIZE  # the margins piece comes right after the core's pieces


def layout(
    observe_margins: bool, observe_unseen: bool, observe_afterstates: bool = False, observe_replies: bool = False
) -> ObsLayout:
    """The observation's pieces for a config, in order."""
    margins = (("move_margins", (NUM_ACTIONS,)),) if observe_margins else ()
    unseen = (("unseen_cards", (NUM_CARDS,)),) if observe_unseen else ()
    after = (("afterstates", (MAX_LEGAL, row_width(observe_replies))),) if observe_afterstates else ()
    return ObsLayout(*core.PIECES, *margins, *unseen, *after)


@njit(cache=True)
def observes_rows(s) -> bool:
    """Whether the record's config observes the ``afterstates`` rows (``observe_replies`` brings them too)."""
    return s.observe_afterstates != 0 or s.observe_replies != 0


@njit(cache=True)
def obs_size(s) -> int:
    """The observation's length for the record's config."""
    return unseen_end(s) + (MAX_LEGAL * row_width(s.observe_replies) if observes_rows(s) else 0)


@njit(cache=True)
def unseen_end(s) -> int:
    """Where the pieces before ``afterstates`` end."""
    return core.OBS_SIZE + (NUM_ACTIONS if s.observe_margins else 0) + (NUM_CARDS if s.observe_unseen else 0)


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """What `seat` sees (``obs`` sized for the record's config): the core's pieces, then the options'."""
    core.observe_into(s, seat, obs, mask)
    if s.observe_margins and s.current == seat:
        observe_move_margins(s, seat, obs, mask)
    if s.observe_unseen:
        observe_unseen_cards(s, obs[unseen_end(s) - NUM_CARDS : unseen_end(s)])
    if observes_rows(s) and s.current == seat:
        observe_afterstates(s, seat, obs[unseen_end(s) :], mask)


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
def observe_unseen_cards(s, piece) -> None:
    """``unseen_cards``: 1 for each card in the deck below its top, by card id (every player's view alike)."""
    for i in range(s.deck_pos + 1, s.deck_len):
        piece[s.deck[i]] = 1.0


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for `seat`, sized for the record's config."""
    obs = np.zeros(obs_size(s), np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask
