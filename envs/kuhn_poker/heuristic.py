"""Kuhn poker heuristic: a fixed rule of thumb by card, no bluffs.

- **K** (the best card): always bet, and always call a bet.
- **Q**: never bet (check, or check back after a check), but call a bet: a call risks 1 chip to
  win 3 in the pot and needs to win more than a quarter of the time; a bettor who may hold J
  (or bluff) gives Q better than that.
- **J** (the worst card): check, and fold to a bet. Never a bluff.

The values are one per action, higher better: 1 for the chosen action, 0 for the other. Only the
seat's own card and the public betting are read (``state`` is determinized for ``seat`` anyway).
This is not the equilibrium (which bluffs with J and mixes with Q and K, seeds/kuhn_poker.md):
it is beatable. Against a random player it wins about 0.2 chip a hand, though only about half
the hands: folding J to a bet gives up hands, cheaply.
"""

import numpy as np
from numba import njit

from envs.kuhn_poker.core import chips_in
from envs.kuhn_poker.rules import BET_ACTION, PASS

JACK, QUEEN, KING = 0, 1, 2


@njit(cache=True)
def choice(card: int, facing_bet: bool) -> int:
    """The rule of thumb: the action for my card, facing a bet or not."""
    if card == KING:
        return BET_ACTION
    if card == QUEEN:
        return BET_ACTION if facing_bet else PASS
    return PASS


@njit(cache=True)
def action_values(state: np.ndarray, work: np.ndarray, seat: int, mask: np.ndarray, out: np.ndarray) -> None:
    """``out``: 1 for the rule's action, 0 for the other (the one implementation; ``work`` is unused)."""
    s = state[0]
    out[:] = 0.0
    out[choice(s.cards[seat], chips_in(s, 1 - seat) > chips_in(s, seat))] = 1.0
