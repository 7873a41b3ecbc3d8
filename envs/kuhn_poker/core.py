"""Kuhn poker's compiled core: the state record and the rules as numba functions.

Read top to bottom it follows seeds/kuhn_poker.md: ante and deal, the betting, the end of the hand
(a fold or a showdown), the observation; then what agents use (the determinization, the heuristic,
the search utility) and the deal as explicit chance events for OpenSpiel. The betting is kept as the
moves made so far (``history[:moves]``, 0 = pass, 1 = bet); who made a move follows from its index
(the first mover makes moves 0 and 2, the other seat move 1), and each seat's chips in the pot from that.
"""

import numpy as np
from numba import njit

from envs.engine.layout import ObsLayout
from envs.engine.record import header_fields
from envs.engine.rng import rng_below, rng_next, rng_seed
from envs.kuhn_poker.rules import (
    ANTE,
    BET,
    BET_ACTION,
    KING,
    MAX_MOVES,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    PASS,
    QUEEN,
)

STATE_DTYPE = np.dtype(
    header_fields(NUM_PLAYERS)
    + [
        ("first_player", np.int8),  # config: the seat that acts first
        ("cards", np.int8, (NUM_PLAYERS,)),  # each seat's card: 0 = J, 1 = Q, 2 = K (UNDEALT during a chance deal)
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
def reset(s, seed):
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
def mover(s, i):
    """The seat that makes move ``i`` of the hand: the first player moves 0 and 2, the other move 1."""
    return s.first_player ^ (i & 1)


@njit(cache=True)
def chips_in(s, seat):
    """Chips ``seat`` has put in the pot: the ante, plus one for each bet or call it made."""
    total = ANTE
    for i in range(s.moves):
        if s.history[i] == BET_ACTION and mover(s, i) == seat:
            total += BET
    return total


@njit(cache=True)
def hand_over(s):
    """Whether the betting is over: after pass-pass, bet-pass, bet-bet, pass-bet-pass or pass-bet-bet."""
    if s.moves < 2:
        return False
    return not (s.moves == 2 and s.history[0] == PASS and s.history[1] == BET_ACTION)


@njit(cache=True)
def folded(s):
    """Whether the hand ended with a fold: a pass answering a bet (bet-pass, pass-bet-pass)."""
    n = s.moves
    return n >= 2 and s.history[n - 1] == PASS and s.history[n - 2] == BET_ACTION


@njit(cache=True)
def settle(s):
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
def step(s, a):
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
def legal_into(s, mask):
    """The acting seat's legal actions into ``mask`` (both, while the hand is on); how many."""
    if s.done:
        mask[:] = 0
        return 0
    mask[:] = 1
    return NUM_ACTIONS


@njit(cache=True)
def pick_random_action(s, mask, r):
    """A uniformly random legal action from random bits ``r`` (both are legal; ``mask`` unused)."""
    return int(np.uint64(r) >> np.uint64(63))


# -- the observation ---------------------------------------------------------------------------


@njit(cache=True)
def observe_into(s, seat, obs, mask):
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
def observe(s, seat):
    """Fresh (observation, mask) arrays for ``seat``."""
    obs = np.zeros(OBS_SIZE, np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask


# -- for agents: the determinization, the heuristic, the search utility ----------------------------


@njit(cache=True)
def determinize(s, seat, seed):
    """Resample what ``seat`` cannot see: the other card (unless a showdown showed it), and future chance.

    The other seat gets one of the two cards ``seat`` does not hold, uniformly, drawn from ``seed``
    only: the result never depends on the card it replaces.
    """
    rng_seed(s, seed)
    if not (s.done and not folded(s)):
        s.cards[1 - seat] = (s.cards[seat] + 1 + rng_below(s, NUM_CARDS - 1)) % NUM_CARDS
    rng_seed(s, rng_next(s))


@njit(cache=True)
def action_values(state, work, seat, mask, out):
    """The heuristic, a fixed rule of thumb by card: 1 for the action it picks, 0 for the other.

    K: bet, and call a bet. Q: check, but call a bet (a call risks 1 chip to win 3, and a bettor who
    may hold J, or bluff, gives Q better than the quarter of wins it needs). J: check, and fold to a bet.
    No bluffs, so it is not the equilibrium (seeds/kuhn_poker.md) and can be exploited; against a
    random player it wins about 0.2 chip a hand. Reads only my card and the betting (``work`` unused).
    """
    s = state[0]
    card = s.cards[seat]
    facing_bet = chips_in(s, 1 - seat) > chips_in(s, seat)
    out[:] = 0.0
    out[BET_ACTION if card == KING or (card == QUEEN and facing_bet) else PASS] = 1.0


@njit(cache=True)
def utility(s, returns, util):
    """IS-MCTS backs up chips won, -2..+2, mapped linearly to [0, 1]: it maximizes chips, not wins."""
    for p in range(util.shape[0]):
        util[p] = 0.5 + 0.5 * min(1.0, max(-1.0, returns[p] / (ANTE + BET)))


# -- explicit chance, for OpenSpiel: the deal as two chance events -----------------------------------
# chance_reset stops a new hand before the deal; seat 0's card (3 outcomes, 1/3 each), then seat 1's
# (the 2 left, 1/2 each) are dealt by chance_step, an outcome being a card id. Once both are dealt the
# record is an ordinary hand that step plays on. observe must not see an UNDEALT card: chance_observe.

UNDEALT = -1  # a seat's card before its chance event


@njit(cache=True)
def dealing(s):
    """The seat whose card the next chance event deals (seat 0 first), or -1 once both are dealt."""
    for p in range(NUM_PLAYERS):
        if s.cards[p] == UNDEALT:
            return p
    return -1


@njit(cache=True)
def chance_reset(s, seed):
    """A new hand stopped before the deal: both seats ante, no card dealt, the first player to act after it."""
    reset(s, seed)
    s.cards[:] = UNDEALT


@njit(cache=True)
def chance_outcomes(s, outcomes, probs):
    """The pending deal's outcomes (the cards nobody holds), equally likely; 0 if no deal is pending."""
    if s.done or dealing(s) < 0:
        return 0
    n = 0
    for card in range(NUM_CARDS):
        if card != s.cards[0] and card != s.cards[1]:
            outcomes[n] = card
            n += 1
    probs[:n] = 1.0 / n
    return n


@njit(cache=True)
def chance_step(s, outcome):
    """Deal card ``outcome`` to the seat being dealt; 1 (and no change) if it is not an outcome now."""
    seat = dealing(s)
    held = outcome == s.cards[0] or outcome == s.cards[1]
    if s.done or seat < 0 or outcome < 0 or outcome >= NUM_CARDS or held:
        return 1
    s.cards[seat] = outcome
    return 0


@njit(cache=True)
def chance_observe(s, seat):
    """``observe`` for every state of this mode; during the deal: my card once dealt, the antes, no turn."""
    if dealing(s) < 0:
        return observe(s, seat)
    obs = np.zeros(OBS_SIZE, np.float32)
    if s.cards[seat] != UNDEALT:
        obs[O_CARD + s.cards[seat]] = 1.0
    obs[O_POT : O_POT + NUM_PLAYERS] = ANTE * POT_SCALE
    return obs, np.zeros(NUM_ACTIONS, np.int8)
