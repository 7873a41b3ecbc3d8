"""Horizonte heuristic: predict from hand strength, then steer the round towards the prediction.

**Prediction.** Each card in hand gets a chance of winning the trick it is played into,
from the cards still unseen: a Dragon chance (no later player holds a card that beats it:
a higher card of its suit or any Cloud, a higher Cloud for a Cloud) and a Dog chance (no
later player holds a card as low). Half of the hand goes into each trick, and a star card
counts twice, so the expected Dragon and Dog tricks are half the sums of those chances;
the prediction is the rounded difference, and its sign (more Dragon or more Dog tricks)
becomes the round's target Dragon-minus-Dog count.

**Play.** Before every card: if my Dragon-minus-Dog count is below the target I want
Dragon tricks and not Dog tricks; above it, the reverse; on it, neither. Each legal card is
scored by its chance of winning the trick being played into (the Dragon trick, the Dog
trick, or both in a merged trick) given the cards already in it and the players still to
play, times +1 for a trick I want and -1 for one I do not, the gain weighted by the star
value. Ties go to the card least useful later (the one whose strength the target does not
need). It reads the public table and its own hand only.

Compiled (``action_values``), so the vector env's opponents and ``HeuristicAgent`` run the same code.
It keeps no memory: the round's sign is recomputed from the hand the seat held when it predicted
(its hand plus the cards it played this round), which is what it saw then.
"""

import numpy as np
from numba import njit

from envs.horizonte.rules import CARD_STAR, CARD_SUIT, CARD_VALUE, CLOUD, NUM_CARDS, PREDICT_BASE

_WORTH = np.where(CARD_STAR > 0, 2.0, 1.0)


@njit(cache=True)
def _beats_dragon(c: int, card: int, lead_suit: int) -> bool:
    """Whether card ``c`` would beat ``card`` in a Dragon trick led in ``lead_suit``."""
    suit, value = CARD_SUIT[card], CARD_VALUE[card]
    if suit == CLOUD:
        return CARD_SUIT[c] == CLOUD and CARD_VALUE[c] > value
    if suit != lead_suit:
        return True  # off suit and not a Cloud: it cannot win
    return CARD_SUIT[c] == CLOUD or (CARD_SUIT[c] == suit and CARD_VALUE[c] > value)


@njit(cache=True)
def _none_of(beaters: int, unseen: int, hand_size: float, players: int) -> float:
    """Chance that none of ``players`` hands of ``hand_size`` unseen cards holds one of ``beaters`` cards."""
    if unseen <= 0 or players <= 0:
        return 1.0
    per_player = max(0.0, 1.0 - beaters / unseen) ** max(hand_size, 1.0)
    return per_player ** float(players)


@njit(cache=True)
def _win_chances(s: np.void, card: int, trick: int, unseen: np.ndarray) -> tuple[float, float]:
    """(Dragon, Dog) chance that ``card`` played now into ``trick`` ends up winning it."""
    n = s.num_players
    count = s.trick_count[trick]
    later = n - count - 1
    n_unseen = int(unseen.sum())
    hand = float(n_unseen) / max(1, n - 1)
    lead = CARD_SUIT[s.trick_card[trick, 0]] if count > 0 else CARD_SUIT[card]
    beaten = _beats_dragon(card, card, lead)
    for k in range(count):
        beaten = beaten or _beats_dragon(s.trick_card[trick, k], card, lead)
    dragon = 0.0
    if not beaten:
        beaters = 0
        for c in range(NUM_CARDS):
            if unseen[c] and _beats_dragon(c, card, lead):
                beaters += 1
        dragon = _none_of(beaters, n_unseen, hand, later)
    value = CARD_VALUE[card]
    lowest = True
    for k in range(count):
        lowest = lowest and CARD_VALUE[s.trick_card[trick, k]] >= value  # a tie goes to the card played last: mine
    dog = 0.0
    if lowest:
        low = 0
        for c in range(NUM_CARDS):
            if unseen[c] and CARD_VALUE[c] <= value:
                low += 1
        dog = _none_of(low, n_unseen, hand, later)
    return dragon, dog


@njit(cache=True)
def _expected_tricks(s: np.void, hand_cards: np.ndarray, unseen: np.ndarray) -> tuple[float, float]:
    """Expected (Dragon, Dog) tricks of a hand: each card led into a trick of each kind, half of each."""
    n = s.num_players
    n_unseen = int(unseen.sum())
    hand = float(n_unseen) / max(1, n - 1)
    dragon = dog = 0.0
    for card in range(NUM_CARDS):
        if not hand_cards[card]:
            continue
        beaters = low = 0
        for c in range(NUM_CARDS):
            if unseen[c]:
                beaters += _beats_dragon(c, card, CARD_SUIT[card])
                low += CARD_VALUE[c] <= CARD_VALUE[card]
        dragon += _WORTH[card] * _none_of(beaters, n_unseen, hand, n - 1)
        dog += _WORTH[card] * _none_of(low, n_unseen, hand, n - 1)
    return dragon / 2.0, dog / 2.0


@njit(cache=True)
def _round_sign(s: np.void, seat: int) -> tuple[int, float, float]:
    """+1 (aim for more Dragon than Dog tricks) or -1, from the hand ``seat`` predicted with; and that hand's
    expected (Dragon, Dog) tricks."""
    start_hand = np.zeros(NUM_CARDS, np.bool_)
    unseen = np.zeros(NUM_CARDS, np.bool_)
    for c in range(NUM_CARDS):
        start_hand[c] = s.hand[seat, c] > 0 or s.played[seat, c] > 0
        unseen[c] = s.in_deck[c] > 0 and not start_hand[c]
    dragon, dog = _expected_tricks(s, start_hand, unseen)
    return (1 if dragon >= dog else -1), dragon, dog


@njit(cache=True)
def action_values(state: np.ndarray, work: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """``out[a]``: the value of legal action ``a`` for ``seat`` (module docstring); ``work`` is unused."""
    s = state[0]
    out[:] = -1e9
    sign, dragon, dog = _round_sign(s, seat)
    if mask[PREDICT_BASE:].any():
        k = min(int(s.max_prediction), int(np.rint(abs(dragon - dog))))
        out[PREDICT_BASE + k] = 1.0
        return
    target = sign * int(s.prediction[seat])
    diff = int(s.dragon_tricks[seat]) - int(s.dog_tricks[seat])
    if diff < target:
        want_dragon, want_dog = 1.0, -1.0
    elif diff > target:
        want_dragon, want_dog = -1.0, 1.0
    else:
        want_dragon, want_dog = -1.0, -1.0
    merged = s.dragon == s.dog
    trick = int(s.active)
    unseen = np.zeros(NUM_CARDS, np.bool_)
    for c in range(NUM_CARDS):
        played = False
        for p in range(s.num_players):
            played = played or s.played[p, c] > 0
        unseen[c] = s.in_deck[c] > 0 and not played and s.hand[seat, c] == 0
    for card in range(PREDICT_BASE):
        if not mask[card]:
            continue
        p_dragon, p_dog = _win_chances(s, card, trick, unseen)
        gain = 0.0
        if merged or trick == 0:
            gain += want_dragon * p_dragon
        if merged or trick == 1:
            gain += want_dog * p_dog
        gain *= _WORTH[card]
        # keep for later the strength the target needs: high cards for Dragon tricks, low for Dog tricks
        keep = CARD_VALUE[card] / 25.0 if sign > 0 else 1.0 - CARD_VALUE[card] / 25.0
        out[card] = gain - 0.01 * keep
