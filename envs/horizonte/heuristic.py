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
"""

import numpy as np

from envs.horizonte.rules import CARD_STAR, CARD_SUIT, CARD_VALUE, CLOUD, NUM_CARDS, PREDICT_BASE

_WORTH = np.where(CARD_STAR > 0, 2.0, 1.0)


def _unseen(rec: np.void, seat: int) -> np.ndarray:
    """Cards in play this round that ``seat`` has not seen: not in its hand and not played yet."""
    n = int(rec["num_players"])
    played = rec["played"][:n].any(axis=0)
    return (rec["in_deck"] > 0) & ~played & (rec["hand"][seat] == 0)


def _beats_dragon(card: int, lead_suit: int) -> np.ndarray:
    """Mask of cards that would beat ``card`` in a Dragon trick led in ``lead_suit``."""
    suit, value = CARD_SUIT[card], CARD_VALUE[card]
    if suit == CLOUD:
        return (CARD_SUIT == CLOUD) & (CARD_VALUE > value)
    if suit != lead_suit:
        return np.ones(NUM_CARDS, bool)  # off suit and not a Cloud: it cannot win
    return (CARD_SUIT == CLOUD) | ((CARD_SUIT == suit) & (CARD_VALUE > value))


def _none_of(beaters: int, unseen: int, hand_size: float, players: int) -> float:
    """Chance that none of ``players`` hands of ``hand_size`` unseen cards holds one of ``beaters`` cards."""
    if unseen <= 0 or players <= 0:
        return 1.0
    per_player = max(0.0, 1.0 - beaters / unseen) ** max(hand_size, 1.0)
    return per_player**players


def _win_chances(rec: np.void, seat: int, card: int, trick: int, unseen: np.ndarray) -> tuple[float, float]:
    """(Dragon, Dog) chance that ``card`` played now into ``trick`` ends up winning it."""
    n = int(rec["num_players"])
    count = int(rec["trick_count"][trick])
    cards = [int(c) for c in rec["trick_card"][trick][:count]]
    later = n - count - 1
    n_unseen = int(unseen.sum())
    hand = float(n_unseen) / max(1, n - 1)
    lead = CARD_SUIT[cards[0]] if cards else CARD_SUIT[card]
    beat = _beats_dragon(card, lead)
    dragon = 0.0
    if not any(beat[c] for c in cards) and not beat[card]:
        dragon = _none_of(int((beat & unseen).sum()), n_unseen, hand, later)
    value = CARD_VALUE[card]
    dog = 0.0
    if all(CARD_VALUE[c] >= value for c in cards):  # a tie goes to the card played last: mine, for now
        dog = _none_of(int(((CARD_VALUE <= value) & unseen).sum()), n_unseen, hand, later)
    return dragon, dog


def _expected_tricks(rec: np.void, seat: int) -> tuple[float, float]:
    """Expected (Dragon, Dog) tricks of the hand: each card led into a trick of each kind, half of each."""
    unseen = _unseen(rec, seat)
    n = int(rec["num_players"])
    n_unseen = int(unseen.sum())
    hand = float(n_unseen) / max(1, n - 1)
    dragon = dog = 0.0
    for card in np.flatnonzero(rec["hand"][seat]):
        beat = _beats_dragon(int(card), CARD_SUIT[card])
        dragon += _WORTH[card] * _none_of(int((beat & unseen).sum()), n_unseen, hand, n - 1)
        low = (CARD_VALUE <= CARD_VALUE[card]) & unseen
        dog += _WORTH[card] * _none_of(int(low.sum()), n_unseen, hand, n - 1)
    return dragon / 2.0, dog / 2.0


class Heuristic:
    """Predicts from hand strength, then wins or ducks Dragon and Dog tricks to meet it (module docstring)."""

    def __init__(self) -> None:
        self._sign = 1  # +1: aim for more Dragon than Dog tricks this round; -1: the reverse
        self._sign_round = -1  # the round that sign was chosen for

    def values(self, state: np.ndarray, seat: int, observation: dict[str, np.ndarray]) -> np.ndarray:
        rec = state[0]
        mask = observation["action_mask"]
        out = np.full(mask.shape[0], -1e9)
        dragon, dog = _expected_tricks(rec, seat)
        rnd = int(rec["rounds_done"])
        if mask[PREDICT_BASE:].any() or rnd != self._sign_round:
            self._sign = 1 if dragon >= dog else -1
            self._sign_round = rnd
        if mask[PREDICT_BASE:].any():
            k = int(min(int(rec["max_prediction"]), round(abs(dragon - dog))))
            out[PREDICT_BASE + k] = 1.0
            return out
        pred = int(rec["prediction"][seat])
        target = self._sign * pred
        diff = int(rec["dragon_tricks"][seat]) - int(rec["dog_tricks"][seat])
        want_dragon, want_dog = (1.0, -1.0) if diff < target else (-1.0, 1.0) if diff > target else (-1.0, -1.0)
        merged = rec["dragon"] == rec["dog"]
        trick = int(rec["active"])
        unseen = _unseen(rec, seat)
        for card in np.flatnonzero(mask[:PREDICT_BASE]):
            p_dragon, p_dog = _win_chances(rec, seat, int(card), trick, unseen)
            gain = 0.0
            if merged or trick == 0:
                gain += want_dragon * p_dragon
            if merged or trick == 1:
                gain += want_dog * p_dog
            gain *= _WORTH[card]
            # keep for later the strength the target needs: high cards for Dragon tricks, low for Dog tricks
            keep = CARD_VALUE[card] / 25.0 if self._sign > 0 else 1.0 - CARD_VALUE[card] / 25.0
            out[card] = gain - 0.01 * keep
        return out
