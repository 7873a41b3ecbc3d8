"""Horizonte as text: the scoreboard, both tricks and a hand, from one seat's view (or a spectator's)."""

import numpy as np

from envs.horizonte.rules import (
    CARD_NAMES,
    CARD_STAR,
    CARD_SUIT,
    PHASE_OVER,
    PHASE_PREDICT,
    SUIT_TITLES,
    TRICK_DOG,
    TRICK_DRAGON,
)


def card_label(card: int) -> str:
    """A card's name, with ``*`` on star cards (a trick won with one counts twice)."""
    return CARD_NAMES[card] + ("*" if CARD_STAR[card] else "")


def _hand(rec: np.void, p: int) -> str:
    cards = np.flatnonzero(rec["hand"][p])
    return " ".join(card_label(int(c)) for c in cards) or "(empty)"


def _trick(rec: np.void, t: int, who: list[str]) -> str:
    k = int(rec["trick_count"][t])
    if k == 0:
        return "(empty)"
    led = SUIT_TITLES[int(CARD_SUIT[rec["trick_card"][t, 0]])]
    plays = ", ".join(
        f"{who[int(rec['trick_seat'][t, i])]} {card_label(int(rec['trick_card'][t, i]))}" for i in range(k)
    )
    return f"led {led}: {plays}"


def _prediction(rec: np.void, p: int, seat: int | None) -> str:
    pred = int(rec["prediction"][p])
    if pred < 0:
        return "-"
    if rec["phase"] != PHASE_PREDICT or seat is None or seat == p:
        return str(pred)
    return "?"


def render_table(rec: np.void, seat: int | None) -> str:
    """The table as text; `seat` sees only what that player may see (None: a spectator sees everything)."""
    n = int(rec["num_players"])
    who = [f"player_{p}" for p in range(n)]
    rounds = int(rec["num_rounds"])
    merged = rec["dragon"] == rec["dog"]
    over = rec["phase"] == PHASE_OVER
    shown_round = min(int(rec["rounds_done"]) + 1, rounds)
    view = "spectator" if seat is None else f"you are {who[seat]}"
    lines = [f"Horizonte  round {shown_round}/{rounds}  ({view})"]
    if over:
        scores = rec["score"][:n]
        winners = [who[p] for p in range(n) if scores[p] == scores.min()]
        lines.append(f"game over: {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'} with {scores.min()}")
    elif rec["phase"] == PHASE_PREDICT:
        lines.append(f"to act: {who[int(rec['current'])]}, predicting (secret until everyone has chosen)")
    else:
        into = "the merged trick" if merged else ("the Dog trick" if rec["active"] == TRICK_DOG else "the Dragon trick")
        lines.append(f"to act: {who[int(rec['current'])]}, playing into {into}")
    lines.append("")
    lines.append(f"{'seat':<10}{'cards':>6}{'pred':>6}{'dragon':>8}{'dog':>5}{'score':>7}  initiative")
    for p in range(n):
        held = [name for name, holder in (("Dragon", rec["dragon"]), ("Dog", rec["dog"])) if holder == p]
        mark = "  <- you" if p == seat else ""
        lines.append(
            f"{who[p]:<10}{int(rec['hand_count'][p]):>6}{_prediction(rec, p, seat):>6}"
            f"{int(rec['dragon_tricks'][p]):>8}{int(rec['dog_tricks'][p]):>5}{int(rec['score'][p]):>7}"
            f"  {' + '.join(held) or '-':<14}{mark}".rstrip()
        )
    lines.append("")
    if not over:
        if merged:
            lines.append(f"merged trick   {_trick(rec, TRICK_DRAGON, who)}")
        else:
            lines.append(f"Dragon trick   {_trick(rec, TRICK_DRAGON, who)}")
            lines.append(f"Dog trick      {_trick(rec, TRICK_DOG, who)}")
    if rec["last_winner"][0] >= 0:
        d, g = (int(x) for x in rec["last_winner"])
        dc, gc = (card_label(int(x)) for x in rec["last_card"])
        lines.append(f"last resolved  Dragon: {who[d]} with {dc}   Dog: {who[g]} with {gc}")
    if seat is not None:
        lines.append(f"your hand      {_hand(rec, seat)}")
    else:
        for p in range(n):
            lines.append(f"{who[p] + ' hand':<15}{_hand(rec, p)}")
    lines.append("(* star card: a trick won with it counts as two)")
    return "\n".join(lines)
