"""Capivari's state check: is a record (from bytes, a pickle or a scenario) a state the rules reach?

Compiled code does not check bounds, so everything it indexes with or loops over is range-checked
here first, for the record's phase (a live round or a finished match), then the cross-field
invariants of seeds/capivari.md: every card in exactly one place and the places agreeing with the
river, the deck and the available bits; whose turn it is; the match score. Only then, for a live
state, is the compiled legal-move function asked whether the seat to act can move.

Python only: compiled code never imports this module (editing it does not recompile the game).
"""

from typing import Any

import numpy as np

from envs.capivari import core
from envs.capivari.rules import (
    AVAILABLE_TARGET,
    LOC_AVAILABLE,
    LOC_DECK,
    LOC_DISCARD,
    LOC_IN_RIVER,
    LOC_RIVER_CARD,
    LOC_TUCKED,
    MAX_ROUNDS_CAP,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_HERD_CARDS,
    NUM_HERDS,
    NUM_NUMBERS,
    NUM_SEGMENTS,
)

# a round's score for one side: at most 9 capybaras (3 herds x 3 segments), each worth 2 x 5 at
# most and 1 - subtract_points (>= -9) at least
ROUND_SCORE_BOUND = NUM_SEGMENTS * NUM_HERDS * 2 * NUM_NUMBERS
# cards that can pass through one round's turns: all but the 3 river cards
ROUND_CARDS = NUM_CARDS - NUM_SEGMENTS


def bad(msg: str) -> None:
    raise ValueError(f"invalid Capivari state: {msg}")


def _in_range(rec: np.void, key: str, lo: int, hi: int) -> np.ndarray:
    arr = np.asarray(rec[key]).astype(np.int64)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        bad(f"field {key!r} {arr.tolist()} out of range [{lo}, {hi}]")
    return arr


def check_state(config: Any, rec: np.void) -> None:
    """Raise ValueError unless ``rec`` is a state of a game with this config (base header already checked)."""
    keys = (
        "first_player",
        "subtract_points",
        "wins_needed",
        "max_rounds",
        "observe_margins",
        "observe_unseen",
        "observe_afterstates",
        "observe_replies",
    )
    expected = tuple(int(getattr(config, k)) for k in keys)
    got = tuple(int(rec[k]) for k in keys)
    if got != expected:
        bad(f"config fields {got} differ from the env's config {expected}")
    done = bool(rec["done"])

    # -- ranges: every field compiled code reads ------------------------------------------------
    loc = _in_range(rec, "loc", 0, LOC_DISCARD)
    river = _in_range(rec, "river_card", 0, NUM_CARDS - 1)
    onca_in = _in_range(rec, "onca_in", 0, 1)
    seg_num = _in_range(rec, "seg_num", 0, NUM_NUMBERS)
    _in_range(rec, "seg_side", 0, 1)
    deck = _in_range(rec, "deck", 0, NUM_CARDS - 1)
    deck_len = int(_in_range(rec, "deck_len", 0, NUM_CARDS))
    deck_pos = int(_in_range(rec, "deck_pos", 0, deck_len))
    starter = int(_in_range(rec, "round_starter", 0, 1))
    turn = int(_in_range(rec, "turn", 0, ROUND_CARDS))
    rounds = int(rec["rounds_done"])
    if done and not 1 <= rounds <= config.max_rounds:
        bad(f"a finished match with rounds_done={rounds} (1..{config.max_rounds})")
    if not done and not 0 <= rounds < config.max_rounds:  # the round end writes round_scores[rounds_done]
        bad(f"a live match with rounds_done={rounds} (0..{config.max_rounds - 1})")
    wins = _in_range(rec, "round_wins", 0, MAX_ROUNDS_CAP - 1 + rounds)
    winner = int(_in_range(rec, "winner", core.NO_ONE, core.DRAW))
    if int(rec["info_version"]) != rounds:
        bad(f"info_version {int(rec['info_version'])} differs from rounds_done {rounds}")

    # -- the cards: each in one place, the places consistent with the table ---------------------
    if int(rec["avail"]) != sum(1 << c for c in range(NUM_CARDS) if loc[c] == LOC_AVAILABLE):
        bad("field 'avail' disagrees with 'loc'")
    if len(set(river.tolist())) != NUM_SEGMENTS or (loc[river] != LOC_RIVER_CARD).any():
        bad(f"river cards {river.tolist()} are not 3 distinct cards located in the river")
    if int((loc == LOC_RIVER_CARD).sum()) != NUM_SEGMENTS:
        bad("more cards are located in the river than it has segments")
    live_deck = deck[deck_pos:deck_len]
    if len(set(live_deck.tolist())) != live_deck.size or (loc[live_deck] != LOC_DECK).any():
        bad(f"deck {live_deck.tolist()} holds a card twice or a card located elsewhere")
    if int((loc == LOC_DECK).sum()) != live_deck.size:
        bad("cards located in the deck are missing from the deck order")
    in_river = sorted(h * NUM_NUMBERS + int(n) - 1 for (_, h), n in np.ndenumerate(seg_num) if n > 0)
    if len(set(in_river)) != len(in_river):
        bad("one capybara card is in two segments")
    if in_river != np.flatnonzero(loc == LOC_IN_RIVER).tolist():
        bad("the capybaras in the river disagree with the cards located there")
    tucked = np.flatnonzero(loc == LOC_TUCKED)
    if (tucked < NUM_HERD_CARDS).any() or tucked.size > int(onca_in.sum()):
        bad("a tucked card that is not a Capionça, or more tucked Capionças than segments holding one")
    available = int((loc == LOC_AVAILABLE).sum())
    left = deck_len - deck_pos

    # -- the phase: a live round, or the match over ----------------------------------------------
    scores = np.asarray(rec["round_scores"]).astype(np.int64)
    if np.abs(scores[:rounds]).max(initial=0) > ROUND_SCORE_BOUND or scores[rounds:].any():
        bad("round scores out of range, or written for rounds not played")
    w0, w1 = int(wins[0]), int(wins[1])
    decided = max(w0, w1) >= config.wins_needed and w0 != w1
    rewards = np.asarray(rec["rewards"], np.float64)
    if done:
        # the last turn left one card and an empty deck, and the round end finished the match
        if available != 1 or left or not 1 <= turn <= ROUND_CARDS - 1:
            bad(f"a finished match with {available} available cards, {left} in the deck, turn {turn}")
        if winner in (0, 1):
            ok = decided and (w0 > w1) == (winner == 0)
            want = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        else:
            ok = winner == core.DRAW and not decided and rounds == config.max_rounds
            want = [0.0, 0.0]
        if not ok:
            bad(f"winner {winner} with round wins {[w0, w1]} after {rounds} rounds")
        if rewards.tolist() != want:
            bad(f"rewards {rewards.tolist()} at the end, the result says {want}")
        return
    if winner != core.NO_ONE or decided:
        bad(f"a live match with winner {winner} and round wins {[w0, w1]} (decided at {config.wins_needed})")
    if rewards.any():
        bad(f"rewards {rewards.tolist()} in a live match (only the last step pays)")
    # a turn starts with 2..4 available cards: with 1 left, the last turn's end refilled from
    # the deck, or ended the round (seeds/capivari.md, "End of turn" and "End of round")
    if not 2 <= available <= AVAILABLE_TARGET:
        bad(f"{available} available cards at the start of a turn (2..{AVAILABLE_TARGET})")
    if left > ROUND_CARDS - AVAILABLE_TARGET:  # the deal leaves 11; the observation scales by that
        bad(f"{left} cards in the deck (at most {ROUND_CARDS - AVAILABLE_TARGET})")
    if turn + available + left > ROUND_CARDS:
        bad(f"turn {turn} with {available} available and {left} deck cards: more than a round holds")
    if int(rec["current"]) != starter ^ (turn & 1):
        bad(f"seat {int(rec['current'])} to act at turn {turn} of a round seat {starter} started")
    # a Capionça needs a segment without one; each played uses one up. With at most one more
    # Capionça still to play than free segments, two available cards are never both Capionças
    # with nowhere to go (in a dealt round there are never more: scenarios may mark segments
    # as holding a Capionça while naming all three cards elsewhere)
    to_play = int(((loc[NUM_HERD_CARDS:] == LOC_AVAILABLE) | (loc[NUM_HERD_CARDS:] == LOC_DECK)).sum())
    if to_play > int((onca_in == 0).sum()) + 1:
        bad(f"{to_play} Capionças still to play and {int((onca_in == 0).sum())} segments without one")
    mask = np.zeros(NUM_ACTIONS, np.int8)
    if core.legal_into(rec, mask) == 0:
        bad("the seat to act has no legal action")
