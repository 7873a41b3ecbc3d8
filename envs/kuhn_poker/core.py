"""Kuhn poker's compiled core: the state record and the rules as numba functions.

Read top to bottom it follows seeds/kuhn_poker.md: ante and deal, a move, the end of the hand
(a fold or a showdown), the observation. The betting sequence is kept as the moves made so far
(``history[:moves]``, 0 = pass, 1 = bet); who made a move follows from its index (the first
mover makes moves 0 and 2, the other seat move 1), and each seat's chips in the pot from that.
"""

import numpy as np
from numba import njit

from envs.engine.layout import ObsLayout
from envs.engine.record import header_fields
from envs.engine.rng import rng_below, rng_seed
from envs.kuhn_poker.rules import ANTE, BET, BET_ACTION, MAX_MOVES, NUM_ACTIONS, NUM_CARDS, NUM_PLAYERS, PASS

STATE_DTYPE = np.dtype(
    header_fields(NUM_PLAYERS)
    + [
        ("first_player", np.int8),  # config: the seat that acts first
        ("cards", np.int8, (NUM_PLAYERS,)),  # each seat's card: 0 = J, 1 = Q, 2 = K
        ("moves", np.int8),  # moves made so far (0..3)
        ("history", np.int8, (MAX_MOVES,)),  # the moves in order (0 pass, 1 bet); 0 beyond `moves`
    ]
)

# The observation of one seat ("me"), ego-centric: a table in seeds/kuhn_poker.md lists the pieces.
LAYOUT = ObsLayout(
    ("my_card", (NUM_CARDS,)),  # one-hot J, Q, K
    ("history", (MAX_MOVES, NUM_ACTIONS)),  # move i: one-hot pass, bet (all zeros: not made yet)
    ("turn", (NUM_PLAYERS,)),  # whose turn: (me, the opponent); all zeros once the hand is over
    ("pot", (NUM_PLAYERS,)),  # chips each seat has put in / 2, me first
)
O_CARD = LAYOUT.offset("my_card")
O_HISTORY = LAYOUT.offset("history")
O_TURN = LAYOUT.offset("turn")
O_POT = LAYOUT.offset("pot")
OBS_SIZE = LAYOUT.size
POT_SCALE = 1.0 / (ANTE + BET)  # the most a seat ever puts in is ante + one bet


# -- ante and deal --------------------------------------------------------------------------


@njit(cache=True)
def reset(s, seed: np.uint64) -> None:
    """A new hand: both seats ante, each is dealt one of the three cards, the first player acts."""
    rng_seed(s, seed)
    s.done = 0
    s.info_version = 0
    s.rewards[:] = 0.0
    s.moves = 0
    s.history[:] = 0
    mine = rng_below(s, NUM_CARDS)
    s.cards[0] = mine
    s.cards[1] = (mine + 1 + rng_below(s, NUM_CARDS - 1)) % NUM_CARDS  # one of the other two
    s.current = s.first_player


# -- the betting -------------------------------------------------------------------------------


@njit(cache=True)
def mover(s, i: int) -> int:
    """The seat that makes move ``i`` of the hand: the first player moves 0 and 2, the other move 1."""
    return s.first_player ^ (i & 1)


@njit(cache=True)
def chips_in(s, seat: int) -> int:
    """Chips ``seat`` has put in the pot: the ante, plus one for each bet or call it made."""
    total = ANTE
    for i in range(s.moves):
        if s.history[i] == BET_ACTION and mover(s, i) == seat:
            total += BET
    return total


@njit(cache=True)
def hand_over(s) -> bool:
    """Whether the betting is over: after pass-pass, bet-pass, bet-bet, pass-bet-pass or pass-bet-bet."""
    if s.moves < 2:
        return False
    return not (s.moves == 2 and s.history[0] == PASS and s.history[1] == BET_ACTION)


@njit(cache=True)
def folded(s) -> bool:
    """Whether the hand ended with a fold: a pass answering a bet (bet-pass, pass-bet-pass)."""
    n = s.moves
    return n >= 2 and s.history[n - 1] == PASS and s.history[n - 2] == BET_ACTION


@njit(cache=True)
def settle(s) -> None:
    """End the hand: a fold gives the pot to the bettor, else the higher card wins it (showdown)."""
    if folded(s):
        winner = 1 - mover(s, s.moves - 1)
    else:
        winner = 0 if s.cards[0] > s.cards[1] else 1
    won = float(chips_in(s, 1 - winner))  # the loser's chips: what the winner gains
    s.rewards[winner] = won
    s.rewards[1 - winner] = -won
    s.done = 1
    s.current = -1
    s.info_version += 1


@njit(cache=True)
def step(s, a: int) -> int:
    """Apply action ``a`` (0 pass, 1 bet) for the seat to act; 1 (and no change) if it is illegal."""
    if s.done or a < 0 or a >= NUM_ACTIONS:
        return 1
    s.rewards[:] = 0.0
    s.history[s.moves] = a
    s.moves += 1
    if hand_over(s):
        settle(s)
    else:
        s.current = 1 - s.current
    return 0


@njit(cache=True)
def legal_into(s, mask) -> int:
    """The acting seat's legal actions into ``mask`` (both, while the hand is on); how many."""
    if s.done:
        mask[:] = 0
        return 0
    mask[:] = 1
    return NUM_ACTIONS


@njit(cache=True)
def pick_random_action(s, mask, r: np.uint64) -> int:
    """A uniformly random legal action from random bits ``r`` (both are legal; ``mask`` unused)."""
    return int(np.uint64(r) >> np.uint64(63))


# -- observations ------------------------------------------------------------------------------


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """What ``seat`` sees (``LAYOUT``): its own card, the moves, whose turn, the pot. Never the other card."""
    obs[:] = 0.0
    obs[O_CARD + s.cards[seat]] = 1.0
    for i in range(s.moves):
        obs[O_HISTORY + NUM_ACTIONS * i + s.history[i]] = 1.0
    if not s.done:
        obs[O_TURN + (0 if s.current == seat else 1)] = 1.0
    obs[O_POT] = chips_in(s, seat) * POT_SCALE
    obs[O_POT + 1] = chips_in(s, 1 - seat) * POT_SCALE
    mask[:] = 0
    if s.current == seat:
        legal_into(s, mask)


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for ``seat``."""
    obs = np.zeros(OBS_SIZE, np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask
