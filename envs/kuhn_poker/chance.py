"""Kuhn poker with explicit chance: the deal as two chance events, for OpenSpiel (``envs.openspiel``).

The default path deals both cards inside ``core.reset`` from the record's generator, and stays as
it is. This mode is its alternative: ``chance_reset`` starts a hand with no card dealt (both seats
ante, the first player will act), and the deal comes as two chance events the caller resolves,
as OpenSpiel's ``kuhn_poker`` does: first seat 0's card (3 outcomes, 1/3 each), then seat 1's (the
2 cards left, 1/2 each). An outcome is a card id (0 = J, 1 = Q, 2 = K). Once both are dealt the
record is an ordinary hand (``validate_state`` accepts it) and ``core.step`` plays the betting.

While the deal is under way a seat's undealt card is ``UNDEALT`` (-1); ``core.observe`` must not
see such a record (it indexes by the card), so this mode observes through ``chance_observe``.
"""

import numpy as np
from numba import njit

from envs.kuhn_poker.core import O_CARD, O_POT, OBS_SIZE, POT_SCALE, observe_into, reset
from envs.kuhn_poker.rules import ANTE, CARD_NAMES, NUM_ACTIONS, NUM_CARDS, NUM_PLAYERS

UNDEALT = -1  # a seat's card before its chance event
MAX_CHANCE_OUTCOMES = NUM_CARDS  # the first card: any of the three


@njit(cache=True)
def dealing(s: np.void) -> int:
    """The seat whose card the next chance event deals (seat 0 first), or -1 once both are dealt."""
    for p in range(NUM_PLAYERS):
        if s.cards[p] == UNDEALT:
            return p
    return -1


@njit(cache=True)
def chance_reset(s: np.void, seed: np.uint64) -> None:
    """A new hand stopped before the deal: both seats ante, no card dealt, the first player to act after it."""
    reset(s, seed)  # the rules' reset (antes, empty betting, the first player), then take the cards back
    s.cards[:] = UNDEALT


@njit(cache=True)
def chance_outcomes(s: np.void, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """The pending deal's outcomes (the cards nobody holds) and their probabilities (uniform); 0 if none is pending."""
    seat = dealing(s)
    if s.done or seat < 0:
        return 0
    n = 0
    for card in range(NUM_CARDS):
        held = False
        for p in range(NUM_PLAYERS):
            if s.cards[p] == card:
                held = True
        if not held:
            outcomes[n] = card
            n += 1
    for i in range(n):
        probs[i] = 1.0 / n
    return n


@njit(cache=True)
def chance_step(s: np.void, outcome: int) -> int:
    """Deal card ``outcome`` to the seat being dealt; 1 (and no change) if it is not an outcome now."""
    seat = dealing(s)
    if s.done or seat < 0 or outcome < 0 or outcome >= NUM_CARDS:
        return 1
    for p in range(NUM_PLAYERS):
        if s.cards[p] == outcome:
            return 1
    s.cards[seat] = outcome
    return 0


@njit(cache=True)
def chance_observe_into(s: np.void, seat: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """``core.observe_into`` for every state of this mode; during the deal: my card once dealt, the antes, no turn."""
    if dealing(s) < 0:
        observe_into(s, seat, obs, mask)
        return
    obs[:] = 0.0
    if s.cards[seat] != UNDEALT:
        obs[O_CARD + s.cards[seat]] = 1.0
    obs[O_POT] = ANTE * POT_SCALE
    obs[O_POT + 1] = ANTE * POT_SCALE
    mask[:] = 0


@njit(cache=True)
def chance_observe(s: np.void, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Fresh (observation, mask) arrays for ``seat``, the deal under way or not."""
    obs = np.zeros(OBS_SIZE, np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    chance_observe_into(s, seat, obs, mask)
    return obs, mask


def outcome_name(outcome: int) -> str:
    """A chance outcome as text: ``deal J``, ``deal Q``, ``deal K``."""
    if not 0 <= outcome < NUM_CARDS:
        raise ValueError(f"Kuhn poker chance outcome must be a card id 0..{NUM_CARDS - 1}, got {outcome}")
    return f"deal {CARD_NAMES[outcome]}"
