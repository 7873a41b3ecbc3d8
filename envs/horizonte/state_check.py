"""Horizonte's state check: is a record (from bytes, a pickle or a scenario) a state the rules reach?

Compiled code does not check bounds, so everything it indexes with or loops over is range-checked
here first, for every phase (predicting, playing, and the finished game too: observing a finished
game still reads the tricks), then the invariants of seeds/horizonte.md: hands, played cards and
tricks adding up to the deal, the turn order of the two tricks, tricks taken against resolutions,
the score history. Only then, for a live state, is the compiled legal-move function asked whether
the seat to act can move.

Python only: compiled code never imports this module (editing it does not recompile the game).
"""

from typing import Any

import numpy as np

from envs.horizonte import core
from envs.horizonte.rules import (
    CARD_SUIT,
    MAX_PLAYERS,
    NUM_CARDS,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_PREDICT,
    TRICK_DOG,
    TRICK_DRAGON,
    num_actions,
)

MAX_SCORE = 1_000_000  # largest total a scenario may set (option 'scores')


def turn_sequence(n: int, dragon: int, dog: int) -> list[tuple[int, int]]:
    """(seat, trick) of every play in one cycle of tricks, in order (the interruption order).

    Separate mode: the Dragon trick from its holder up to the Dog holder, the whole Dog
    trick, then the rest of the Dragon trick from the Dog holder. Merged: one trick.
    """
    if dragon == dog:
        return [((dragon + i) % n, TRICK_DRAGON) for i in range(n)]
    before = (dog - dragon) % n
    seq = [((dragon + i) % n, TRICK_DRAGON) for i in range(before)]
    seq += [((dog + i) % n, TRICK_DOG) for i in range(n)]
    seq += [((dog + i) % n, TRICK_DRAGON) for i in range(n - before)]
    return seq


def round_points(dragon: int, dog: int, prediction: int, per_unit: int) -> int:
    """A round's points (seeds/horizonte.md, "Scoring"): 1 a pair, per_unit a unit the rest misses by."""
    return min(dragon, dog) + per_unit * abs(abs(dragon - dog) - prediction)


def bad(msg: str) -> None:
    raise ValueError(f"invalid Horizonte state: {msg}")


def _field(rec: np.void, key: str, lo: int, hi: int) -> np.ndarray:
    arr = np.asarray(rec[key]).astype(np.int64)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        bad(f"field {key!r} out of range [{lo}, {hi}]")
    return arr


def check_state(config: Any, rec: np.void) -> None:
    """Raise ValueError unless ``rec`` is a state of a game with this config (base header already checked)."""
    c = config
    n = c.num_players
    h = c.hand_size
    want = (c.max_prediction, c.points_per_unit, c.rounds, int(c.reward == "points"), h)
    got = tuple(int(rec[k]) for k in ("max_prediction", "points_per_unit", "num_rounds", "reward_points", "hand_size"))
    in_deck = np.ones(NUM_CARDS, np.int64)
    in_deck[list(c.removed_cards)] = 0
    if got != want or not np.array_equal(rec["in_deck"], in_deck):
        bad(f"config fields {got} or the deck differ from this env's config")

    # -- phase and round ---------------------------------------------------------------------------
    phase = int(rec["phase"])
    rnd = int(rec["rounds_done"])
    if phase not in (PHASE_PREDICT, PHASE_PLAY, PHASE_OVER) or (phase == PHASE_OVER) != bool(rec["done"]):
        bad(f"phase {phase} with done={int(rec['done'])}")
    # the round end writes the history row rounds_done: a live game is in a round < rounds
    if (phase == PHASE_OVER and rnd != c.rounds) or (phase != PHASE_OVER and not 0 <= rnd < c.rounds):
        bad(f"round {rnd} with phase {phase}")
    dragon, dog = int(rec["dragon"]), int(rec["dog"])
    if not (0 <= dragon < n and 0 <= dog < n):
        bad(f"initiative holders {dragon}, {dog}")
    active = int(_field(rec, "active", TRICK_DRAGON, TRICK_DOG))

    # -- cards: dealt = hand + played, each card dealt once, from this game's deck ----------------
    hand, dealt, played, void = (_field(rec, k, 0, 1) for k in ("hand", "dealt", "played", "void"))
    for key, arr in (("hand", hand), ("dealt", dealt), ("played", played), ("void", void)):
        if arr[n:].any():
            bad(f"field {key!r} has entries for seats beyond the {n} at the table")
    hand, dealt, played, void = hand[:n], dealt[:n], played[:n], void[:n]
    if (hand & played).any() or not np.array_equal(hand | played, dealt):
        bad("hands and played cards do not add up to the dealt hands")
    if (dealt.sum(axis=0) > in_deck).any():
        bad("a card is dealt twice or is not in the deck")
    sizes = dealt.sum(axis=1)
    if len(set(sizes.tolist())) != 1 or not 2 <= sizes[0] <= h:
        bad(f"dealt hand sizes {sizes.tolist()} (all equal, 2..{h})")
    held = hand.sum(axis=1)
    counts_held = np.asarray(rec["hand_count"]).astype(np.int64)
    if not np.array_equal(counts_held[:n], held) or counts_held[n:].any():
        bad("hand_count does not match the hands")
    if any(void[p, CARD_SUIT[card]] for p in range(n) for card in np.flatnonzero(hand[p])):
        bad("a seat marked void in a suit holds a card of it")

    # -- the tricks (every phase: observing reads them) -------------------------------------------
    counts = _field(rec, "trick_count", 0, n)
    cards = np.asarray(rec["trick_card"]).astype(np.int64)
    seats = np.asarray(rec["trick_seat"]).astype(np.int64)
    for t in (TRICK_DRAGON, TRICK_DOG):
        k = int(counts[t])
        if (cards[t, k:] != -1).any() or (seats[t, k:] != -1).any():
            bad(f"trick {t} has cards beyond its count {k}")
        if k and (cards[t, :k].min() < 0 or cards[t, :k].max() >= NUM_CARDS or seats[t, :k].min() < 0):
            bad(f"trick {t} holds cards or seats out of range")
    in_tricks = np.concatenate([cards[t, : counts[t]] for t in (TRICK_DRAGON, TRICK_DOG)])
    if len(set(in_tricks.tolist())) != in_tricks.size:
        bad("a card is in the tricks twice")
    if phase == PHASE_PLAY:
        _check_turn_order(rec, counts, dragon, dog, n)
    elif counts.any() or active != TRICK_DRAGON:
        bad(f"cards in the tricks (or the Dog trick active) in phase {phase}")
    mine = np.zeros(n, np.int64)  # cards each seat has in the open tricks
    for t in (TRICK_DRAGON, TRICK_DOG):
        for k in range(int(counts[t])):
            mine[seats[t, k]] += 1
            if not played[seats[t, k], cards[t, k]]:
                bad("a trick holds a card its seat has not played")

    # -- resolutions and tricks taken --------------------------------------------------------------
    # after each resolution every seat holds the same number of cards; a cycle takes 2 cards from
    # each (separate tricks) or 1 (merged); the round ends once every seat holds at most one
    left = held + mine
    if len(set(left.tolist())) != 1:
        bad(f"hands {held.tolist()} with {mine.tolist()} cards in the tricks are not equal after a resolution")
    spent = int(sizes[0] - left[0])  # cards each seat has put into resolved tricks
    resolutions = int(_field(rec, "resolutions", 0, h))
    if phase == PHASE_OVER and (left[0] > 1 or resolutions < 1):
        bad(f"a finished game with {left[0]} cards in each hand after {resolutions} resolutions")
    if phase != PHASE_OVER and left[0] < 2:
        bad(f"a live round with {left[0]} cards in each hand: the round would be over")
    if not resolutions <= spent <= 2 * resolutions:
        bad(f"{resolutions} resolutions with {spent} cards played into resolved tricks by each seat")
    if phase == PHASE_PREDICT and (spent or void.any()):
        bad("cards played (or voids shown) before the predictions")
    for key in ("dragon_tricks", "dog_tricks"):
        taken = _field(rec, key, 0, 2 * h)
        if taken[n:].any() or not resolutions <= taken.sum() <= 2 * resolutions:
            bad(f"{key} {taken.tolist()} after {resolutions} resolutions")
    winners, won_with = _field(rec, "last_winner", -1, n - 1), _field(rec, "last_card", -1, NUM_CARDS - 1)
    if resolutions == 0:
        if (winners != -1).any() or (won_with != -1).any():
            bad("a last resolution recorded before any resolution")
    elif winners.tolist() != [dragon, dog] or won_with.min() < 0 or not all(played[winners, won_with]):
        bad("the last resolution disagrees with the initiative holders or the played cards")

    # -- predictions -------------------------------------------------------------------------------
    pred = _field(rec, "prediction", -1, c.max_prediction)
    predicted = int(rec["predicted"])
    if pred[n:].tolist() != [-1] * (MAX_PLAYERS - n):
        bad("predictions for seats beyond the table")
    chosen = [(dragon + i) % n for i in range(predicted)] if 0 <= predicted <= n else None
    if (
        chosen is None
        or sorted(chosen) != np.flatnonzero(pred[:n] >= 0).tolist()
        or (phase == PHASE_PREDICT) != (predicted < n)
    ):
        bad(f"predictions {pred[:n].tolist()} / predicted {predicted} in phase {phase}")

    # -- the score and its history -----------------------------------------------------------------
    _check_history(c, rec, rnd)

    # -- rewards: only a round end (points) or the game end (rank) pays ----------------------------
    rewards = np.asarray(rec["rewards"], np.float64)[:n]
    allowed = [np.zeros(n)]
    if c.reward == "points" and rnd > 0 and (phase == PHASE_OVER or (phase == PHASE_PREDICT and predicted == 0)):
        last = -np.asarray(rec["hist_points"][rnd - 1, :n], np.float64)
        allowed = [last] if phase == PHASE_OVER else [*allowed, last]
    elif c.reward == "rank" and phase == PHASE_OVER:
        allowed = [_rank_rewards(np.asarray(rec["score"][:n], np.int64))]
    if not any(np.allclose(rewards, a, rtol=0, atol=1e-12) for a in allowed):
        bad(f"rewards {rewards.tolist()} (expected {[a.tolist() for a in allowed]})")

    # -- the seat to act can move ------------------------------------------------------------------
    if phase == PHASE_PREDICT and int(rec["current"]) != (dragon + predicted) % n:
        bad("a prediction out of turn")
    if phase != PHASE_OVER:
        mask = np.zeros(num_actions(c.max_prediction), np.int8)
        if core.legal_into(rec, mask) == 0:
            bad("the seat to act has no legal action")


def _check_turn_order(rec: np.void, counts: np.ndarray, dragon: int, dog: int, n: int) -> None:
    """The tricks hold exactly the plays the turn order made so far, and the seat to act is next."""
    seq = turn_sequence(n, dragon, dog)
    pos = int(counts.sum())
    if pos >= len(seq):
        bad(f"trick counts {counts.tolist()}")
    done = seq[:pos]
    for t in (TRICK_DRAGON, TRICK_DOG):
        order = [p for p, tt in done if tt == t]
        if len(order) != counts[t] or rec["trick_seat"][t, : len(order)].tolist() != order:
            bad("the tricks do not follow the turn order")
    seat, trick = seq[pos]
    if int(rec["current"]) != seat or int(rec["active"]) != trick:
        bad(f"seat {int(rec['current'])} to act into trick {int(rec['active'])}, the turn order says {seat}, {trick}")


def _check_history(c: Any, rec: np.void, rnd: int) -> None:
    """Rounds before ``rnd``: scored (prediction, tricks, points that add up) or, from a scenario's
    ``round``, skipped without detail; later rows empty; totals = scenario start + the rows' points."""
    n = c.num_players
    hp = _field(rec, "hist_prediction", -1, c.max_prediction)
    hd, hg = _field(rec, "hist_dragon", 0, 2 * c.hand_size), _field(rec, "hist_dog", 0, 2 * c.hand_size)
    pts = np.asarray(rec["hist_points"]).astype(np.int64)
    empty = (hp == -1).all(axis=1) & ~hd.any(axis=1) & ~hg.any(axis=1) & ~pts.any(axis=1)
    if not empty[rnd:].all():
        bad("score history written for rounds not played")
    detailed = 0
    for r in range(rnd):
        if empty[r]:
            continue
        detailed += 1
        if (hp[r, :n] < 0).any() or (hp[r, n:] != -1).any() or hd[r, n:].any() or hg[r, n:].any():
            bad(f"round {r + 1}'s history is incomplete")
        want = [round_points(hd[r, p], hg[r, p], hp[r, p], c.points_per_unit) for p in range(n)]
        if pts[r, :n].tolist() != want or pts[r, n:].any():
            bad(f"round {r + 1}'s points {pts[r, :n].tolist()} do not follow from its tricks ({want})")
    if int(rec["info_version"]) != detailed:  # the round end bumps it; a scenario's skipped rounds do not
        bad(f"info_version {int(rec['info_version'])} for {detailed} scored rounds")
    score = np.asarray(rec["score"]).astype(np.int64)
    start = score[:n] - pts[:rnd, :n].sum(axis=0)
    if score[n:].any() or start.min() < 0 or start.max() > MAX_SCORE:
        bad(f"scores {score[:n].tolist()} do not add up with the rounds' points")


def _rank_rewards(score: np.ndarray) -> np.ndarray:
    """Rank reward at the end (seeds/horizonte.md): the lowest totals share +1, the others share -1."""
    n = score.size
    low = score == score.min()
    winners = int(low.sum())
    if winners == n:
        return np.zeros(n)
    return np.where(low, 1.0 / winners, -1.0 / (n - winners))


__all__ = ["MAX_SCORE", "check_state", "round_points", "turn_sequence"]
