"""Horizonte with explicit chance: the initiative draw and each round's deal as chance events, for OpenSpiel.

The default path draws the initiative and deals inside ``core.reset`` and ``core.score_round`` from the
record's generator, and stays as it is. This mode is its alternative (``envs.openspiel`` with
``explicit_chance=True``): the core stops at every chance event and the caller picks the outcome.

- **The initiative** is one event: which seat takes the Dragon and which other seat the Dog. The rules'
  draw (each seat reveals a card, highest Dragon, lowest of the others Dog, ties redraw) treats the seats
  alike, so every ordered pair of two different seats is equally likely: n (n - 1) outcomes, uniform.
  The revealed cards are not kept (the default path keeps only the two holders either).
- **The deal** goes seat by seat from seat 0, each hand in card-id order: an event is "the next card of
  this seat's hand", among the undealt cards above its last one. The seat's hand is a uniformly random
  k-subset of the m cards it may still get, so its lowest card is c with probability C(g, k - 1) / C(m, k),
  g the candidates above c. That is exactly a uniformly random deal of equal hands, each deal reached once
  (not once per order of its cards), and the others see only that the seat being dealt gets a card, which
  they knew. An event with one outcome (the last seat's hand, a hand that must take the top candidates)
  is no choice: it is dealt at once.
- Later rounds: a move that ends a round (``chance_move``) scores it as the rules do, then takes the new
  deal back, so the next round's deal is explicit too; the initiative holders carry over, as in the rules.

An outcome id names its event: ``dragon * MAX_PLAYERS + dog`` for the initiative, ``DEAL_BASE + card *
MAX_PLAYERS + seat`` for a card dealt (so ``outcome_name`` needs no state). While an event is pending the
record is not a state of the default path (no holders yet, or short hands): it is observed through
``chance_observe`` and must not be stepped with ``core.step``.
"""

import numpy as np
from numba import njit

from envs.horizonte.core import (
    K_DOG_HOLDER,
    K_DRAGON_HOLDER,
    K_MERGED,
    K_TO_ACT,
    obs_offset,
    obs_size,
    observe_into,
    reset,
    step,
)
from envs.horizonte.rules import CARD_NAMES, MAX_PLAYERS, NUM_CARDS, PHASE_PREDICT, PREDICT_BASE

NO_HOLDER = -1  # the Dragon and Dog holders before the initiative event
DEAL_BASE = MAX_PLAYERS * MAX_PLAYERS  # first outcome id of a card dealt
MAX_CHANCE_OUTCOMES = DEAL_BASE + NUM_CARDS * MAX_PLAYERS  # outcome ids are below this


@njit(cache=True)
def undeal(s: np.void) -> None:
    """Take the round's deal back: every hand empty, every card of the deck still to be dealt."""
    s.hand[:, :] = 0
    s.dealt[:, :] = 0
    s.hand_count[:] = 0


@njit(cache=True)
def undealt(s: np.void, c: int) -> bool:
    """Whether card ``c`` is in this game's deck and nobody has been dealt it this round."""
    if not s.in_deck[c]:
        return False
    for p in range(s.num_players):
        if s.dealt[p, c]:
            return False
    return True


@njit(cache=True)
def choose(m: int, k: int) -> float:
    """The binomial coefficient C(m, k) as a float (0 when k > m)."""
    if k < 0 or k > m:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (m - i) / (i + 1)
    return out


@njit(cache=True)
def dealing_seat(s: np.void) -> int:
    """The seat whose hand the deal is filling (seats in order), or -1 when no deal is under way."""
    if s.done or s.phase != PHASE_PREDICT or s.predicted != 0:
        return -1
    for p in range(s.num_players):
        if s.hand_count[p] < s.hand_size:
            return p
    return -1


@njit(cache=True)
def pending(s: np.void) -> bool:
    """Whether a chance event (the initiative or a card of the deal) is to be resolved."""
    return not s.done and (s.dragon == NO_HOLDER or dealing_seat(s) >= 0)


@njit(cache=True)
def deal_outcomes(s: np.void, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """The next card of the hand being dealt: the undealt cards above its last one, C(g, k - 1) / C(m, k) each."""
    seat = dealing_seat(s)
    if seat < 0:
        return 0
    low = -1
    for c in range(NUM_CARDS):
        if s.dealt[seat, c]:
            low = c
    m = 0
    for c in range(low + 1, NUM_CARDS):
        m += undealt(s, c)
    need = s.hand_size - s.hand_count[seat]
    total = choose(m, need)
    above = m
    n = 0
    for c in range(low + 1, NUM_CARDS):
        if undealt(s, c):
            above -= 1
            if above >= need - 1:
                outcomes[n] = DEAL_BASE + c * MAX_PLAYERS + seat
                probs[n] = choose(above, need - 1) / total
                n += 1
    return n


@njit(cache=True)
def chance_reset(s: np.void, seed: np.uint64) -> None:
    """A new game stopped at its first chance event, the initiative: the rules' reset, holders and deal taken back."""
    reset(s, seed)
    s.dragon = NO_HOLDER
    s.dog = NO_HOLDER
    undeal(s)


@njit(cache=True)
def chance_outcomes(s: np.void, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """The pending event's outcome ids and probabilities into the buffers; how many (0: none pending)."""
    if s.done:
        return 0
    n = s.num_players
    k = 0
    if s.dragon == NO_HOLDER:
        for dragon in range(n):
            for dog in range(n):
                if dog != dragon:
                    outcomes[k] = dragon * MAX_PLAYERS + dog
                    probs[k] = 1.0 / (n * (n - 1))
                    k += 1
        return k
    return deal_outcomes(s, outcomes, probs)


@njit(cache=True)
def give(s: np.void, seat: int, card: int) -> None:
    """Deal ``card`` to ``seat``."""
    s.hand[seat, card] = 1
    s.dealt[seat, card] = 1
    s.hand_count[seat] += 1


@njit(cache=True)
def deal_forced(s: np.void) -> None:
    """Deal every card that is no choice (an event with one outcome) at once."""
    outcomes = np.empty(NUM_CARDS, np.int64)
    probs = np.empty(NUM_CARDS, np.float64)
    while deal_outcomes(s, outcomes, probs) == 1:
        give(s, (outcomes[0] - DEAL_BASE) % MAX_PLAYERS, (outcomes[0] - DEAL_BASE) // MAX_PLAYERS)


@njit(cache=True)
def chance_step(s: np.void, outcome: int) -> int:
    """Resolve the pending event with ``outcome``; 1 (and no change) if it is not one of its outcomes."""
    if s.done:
        return 1
    n = s.num_players
    if s.dragon == NO_HOLDER:
        dragon, dog = outcome // MAX_PLAYERS, outcome % MAX_PLAYERS
        if outcome < 0 or outcome >= DEAL_BASE or dragon >= n or dog >= n or dragon == dog:
            return 1
        s.dragon = dragon
        s.dog = dog
        s.current = dragon  # the Dragon holder predicts first once the cards are dealt
        deal_forced(s)
        return 0
    outcomes = np.empty(NUM_CARDS, np.int64)
    probs = np.empty(NUM_CARDS, np.float64)
    for i in range(deal_outcomes(s, outcomes, probs)):
        if outcomes[i] == outcome:
            give(s, (outcome - DEAL_BASE) % MAX_PLAYERS, (outcome - DEAL_BASE) // MAX_PLAYERS)
            deal_forced(s)
            return 0
    return 1


@njit(cache=True)
def chance_move(s: np.void, a: int) -> int:
    """``core.step`` for this mode: a move that ends a round (not the game) leaves the next deal to chance."""
    rounds = s.rounds_done
    code = step(s, a)
    if code == 0 and not s.done and s.rounds_done != rounds:
        undeal(s)
    return code


@njit(cache=True)
def chance_observe_into(s: np.void, seat: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """``core.observe_into`` for every state of this mode; while an event is pending nobody is to act, and
    before the initiative nobody holds it."""
    observe_into(s, seat, obs, mask)
    if not pending(s):
        return
    mask[:] = 0
    n = s.num_players
    i = obs_offset(s, K_TO_ACT)
    obs[i : i + n] = 0.0
    if s.dragon == NO_HOLDER:
        obs[obs_offset(s, K_MERGED)] = 0.0
        for k in (K_DRAGON_HOLDER, K_DOG_HOLDER):
            i = obs_offset(s, k)
            obs[i : i + n] = 0.0


@njit(cache=True)
def chance_observe(s: np.void, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Fresh (observation, mask) arrays for ``seat``, a chance event pending or not."""
    obs = np.zeros(obs_size(s), np.float32)
    mask = np.zeros(PREDICT_BASE + s.max_prediction + 1, np.int8)
    chance_observe_into(s, seat, obs, mask)
    return obs, mask


def outcome_name(outcome: int) -> str:
    """An outcome as text: ``dragon 2 dog 0`` (the initiative), ``C14 to 1`` (a card dealt to seat 1)."""
    if 0 <= outcome < DEAL_BASE:
        return f"dragon {outcome // MAX_PLAYERS} dog {outcome % MAX_PLAYERS}"
    if DEAL_BASE <= outcome < MAX_CHANCE_OUTCOMES:
        card, seat = divmod(outcome - DEAL_BASE, MAX_PLAYERS)
        return f"{CARD_NAMES[card]} to {seat}"
    raise ValueError(f"Horizonte chance outcome must be in [0, {MAX_CHANCE_OUTCOMES}), got {outcome}")
