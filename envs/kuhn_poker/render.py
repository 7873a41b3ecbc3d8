"""Kuhn poker as text: the cards (the other seat's hidden until a showdown), the betting, the pot."""

import numpy as np

from envs.kuhn_poker import core
from envs.kuhn_poker.rules import ACTION_NAMES, CARD_NAMES, NUM_PLAYERS


def render_table(rec: np.void, seat: int | None) -> str:
    """The table as text; ``seat`` sees its own card only until a showdown (None: a spectator sees both)."""
    who = ["you" if p == seat else f"player_{p}" for p in range(NUM_PLAYERS)]
    first = int(rec["first_player"])
    if min(int(c) for c in rec["cards"]) < 0:  # explicit chance (chance.py): the deal is under way
        return _render_deal(rec, seat, who, first)
    done = bool(rec["done"])
    showdown = done and not core.folded(rec)
    cards = [
        CARD_NAMES[int(rec["cards"][p])] if seat is None or p == seat or showdown else "?" for p in range(NUM_PLAYERS)
    ]
    moves = int(rec["moves"])
    betting = [f"{who[int(core.mover(rec, i))]} {ACTION_NAMES[int(rec['history'][i])]}" for i in range(moves)]
    lines = [
        f"Kuhn poker  ({who[first]} " + ("act" if first == seat else "acts") + " first)",
        "cards: " + ", ".join(f"{who[p]} {cards[p]}" for p in range(NUM_PLAYERS)),
        "betting: " + (", ".join(betting) if betting else "-"),
        "pot: " + ", ".join(f"{who[p]} {int(core.chips_in(rec, p))}" for p in range(NUM_PLAYERS)),
    ]
    if not done:
        lines.append(f"to act: {who[int(rec['current'])]}  (pass / bet)")
    else:
        winner = 0 if rec["rewards"][0] > 0 else 1
        won = int(rec["rewards"][winner])
        loser = 1 - winner
        how = "showdown" if showdown else f"{who[loser]} " + ("fold" if loser == seat else "folds")
        lines.append(f"hand over ({how}): {who[winner]} " + ("win" if winner == seat else "wins") + f" {won}")
    return "\n".join(lines)


def _render_deal(rec: np.void, seat: int | None, who: list[str], first: int) -> str:
    """The table while the cards are being dealt (explicit chance): "-" for a card not dealt yet."""
    cards = [int(c) for c in rec["cards"]]
    shown = ["-" if c < 0 else (CARD_NAMES[c] if seat is None or p == seat else "?") for p, c in enumerate(cards)]
    dealing = cards.index(min(cards))
    return "\n".join(
        [
            f"Kuhn poker  ({who[first]} " + ("act" if first == seat else "acts") + " first)",
            "cards: " + ", ".join(f"{who[p]} {shown[p]}" for p in range(NUM_PLAYERS)),
            "betting: -",
            "pot: " + ", ".join(f"{who[p]} {int(core.chips_in(rec, p))}" for p in range(NUM_PLAYERS)),
            f"dealing: a card to {who[dealing]}",
        ]
    )
