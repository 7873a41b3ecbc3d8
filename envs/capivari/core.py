"""Capivari's compiled core: the state record and the rules as numba functions.

Read top to bottom it follows the rules document (seeds/capivari.md): set up a
round, take a card, push chains, Capionça effects, refill, score, next round.
"""

import numpy as np
from numba import njit

from envs.capivari.rules import (
    AVAILABLE_TARGET,
    EFF_DOUBLE,
    EFF_ZERO,
    EFFECTS,
    K_FLIP,
    K_SWAP,
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
    ONCA_BASE,
    ONCA_EFFECTS,
    RIVER_SIDE,
    SEL_ALL,
    SEL_CRIAS,
    SEL_EVEN,
    SEL_HIGHEST,
    SEL_ODD,
    SEL_TCHES,
    SELECTORS,
)
from envs.engine.bits import lowest_bit_index, nth_set_bit, popcount
from envs.engine.layout import ObsLayout
from envs.engine.record import header_fields
from envs.engine.rng import rng_seed, rng_shuffle

STATE_DTYPE = np.dtype(
    header_fields(2)
    + [
        # config, written once by new_state
        ("first_player", np.int8),
        ("subtract_points", np.int8),
        ("wins_needed", np.int8),
        ("max_rounds", np.int16),
        ("observe_margins", np.uint8),  # the observation ends with the move_margins piece
        ("observe_unseen", np.uint8),  # then with the unseen_cards piece
        ("observe_afterstates", np.uint8),  # then with the afterstates piece
        ("observe_replies", np.uint8),  # its rows one number longer: the opponent's best reply
        # the table
        ("loc", np.int8, (NUM_CARDS,)),  # LOC_* of every card
        ("avail", np.uint32),  # bit c set: card c is available (mirrors loc, for speed)
        ("river_card", np.int8, (NUM_SEGMENTS,)),  # card whose river side forms each segment
        ("onca_in", np.uint8, (NUM_SEGMENTS,)),  # a Capionça is tucked under this segment
        ("seg_num", np.int8, (NUM_SEGMENTS, NUM_HERDS)),  # number 1..5 of that herd's capybara, 0: none
        ("seg_side", np.int8, (NUM_SEGMENTS, NUM_HERDS)),  # whose side of the river it is on
        ("deck", np.int8, (NUM_CARDS,)),  # deck order; deck[deck_pos] is the top card
        ("deck_pos", np.int8),
        ("deck_len", np.int8),
        # the match
        ("rounds_done", np.int16),  # rounds finished so far
        ("round_wins", np.int16, (2,)),
        ("round_scores", np.int16, (MAX_ROUNDS_CAP, 2)),
        ("round_starter", np.int8),
        ("turn", np.int16),  # turns taken in this round
        ("winner", np.int8),  # -1 while playing; 2 for a draw at max_rounds
    ]
)

NO_ONE = -1
DRAW = 2
HERD_BITS = np.uint64((1 << NUM_HERD_CARDS) - 1)
ONCA_BITS = np.uint64(((1 << NUM_CARDS) - 1) ^ ((1 << NUM_HERD_CARDS) - 1))
ONE = np.uint64(1)

# The observation of one seat ("me"), ego-centric; the table under "Observation" in seeds/capivari.md
# lists the pieces. A modifier (a card's river side) is a selector one-hot then an effect one-hot.
NUM_SELECTORS = len(SELECTORS)
MODIFIER = NUM_SELECTORS + len(EFFECTS)
PIECES = (
    ("river_capybaras", (NUM_SEGMENTS, NUM_HERDS, NUM_NUMBERS, 2)),  # segment x herd: number one-hot x (mine, theirs)
    ("segment_modifiers", (NUM_SEGMENTS, MODIFIER)),
    ("oncas_tucked", (NUM_SEGMENTS,)),
    ("available_herd_cards", (NUM_HERD_CARDS,)),  # by card id
    ("available_oncas", (1,)),  # / 3
    ("deck_top_modifier", (MODIFIER,)),  # the river side of the deck's top card
    ("deck_not_empty", (1,)),
    ("deck_left", (1,)),  # cards / 11
    ("out_of_play", (NUM_CARDS,)),  # by card id: discarded, or a Capionça tucked
    ("round_wins", (2,)),  # (mine, theirs) / wins_needed, capped
    ("play_on", (1,)),  # both have the wins needed: the next untied round decides
    ("my_turn", (1,)),
    ("round_score", (2,)),  # (mine, theirs) / 40, clipped to [-1, 1]
    ("i_started", (1,)),  # I started this round
    ("turns_taken", (1,)),  # this round / 14
)
LAYOUT = ObsLayout(*PIECES)  # without the options' pieces (envs/capivari/observation.py appends them)
O_RIVER = LAYOUT.offset("river_capybaras")
O_MODIFIERS = LAYOUT.offset("segment_modifiers")
O_TUCKED = LAYOUT.offset("oncas_tucked")
O_AVAILABLE = LAYOUT.offset("available_herd_cards")
O_AVAILABLE_ONCAS = LAYOUT.offset("available_oncas")
O_DECK_TOP = LAYOUT.offset("deck_top_modifier")
O_DECK_NOT_EMPTY = LAYOUT.offset("deck_not_empty")
O_DECK_LEFT = LAYOUT.offset("deck_left")
O_OUT = LAYOUT.offset("out_of_play")
O_WINS = LAYOUT.offset("round_wins")
O_PLAY_ON = LAYOUT.offset("play_on")
O_MY_TURN = LAYOUT.offset("my_turn")
O_SCORE = LAYOUT.offset("round_score")
O_STARTED = LAYOUT.offset("i_started")
O_TURNS = LAYOUT.offset("turns_taken")
OBS_SIZE = LAYOUT.size


# -- setting up ------------------------------------------------------------------


@njit(cache=True)
def deal_round(s) -> None:
    """Shuffle all 18 cards: 3 river segments, 4 available cards, the rest the deck."""
    for c in range(NUM_CARDS):
        s.deck[c] = c
    rng_shuffle(s, s.deck, NUM_CARDS)
    s.onca_in[:] = 0
    s.seg_num[:, :] = 0
    s.seg_side[:, :] = 0
    for i in range(NUM_SEGMENTS):
        s.river_card[i] = s.deck[i]
        s.loc[s.deck[i]] = LOC_RIVER_CARD
    s.avail = 0
    for i in range(NUM_SEGMENTS, NUM_SEGMENTS + AVAILABLE_TARGET):
        make_available(s, s.deck[i])
    for i in range(NUM_SEGMENTS + AVAILABLE_TARGET, NUM_CARDS):
        s.loc[s.deck[i]] = LOC_DECK
    s.deck_pos = NUM_SEGMENTS + AVAILABLE_TARGET
    s.deck_len = NUM_CARDS
    s.turn = 0
    s.current = s.round_starter


@njit(cache=True)
def make_available(s, card: int) -> None:
    s.loc[card] = LOC_AVAILABLE
    s.avail |= np.uint32(1) << np.uint32(card)


@njit(cache=True)
def take_from_available(s, card: int, where: int) -> None:
    s.loc[card] = where
    s.avail &= ~(np.uint32(1) << np.uint32(card))


@njit(cache=True)
def sync_available(s) -> None:
    """Recompute the available-card bits from ``loc`` (after a scenario writes ``loc``)."""
    s.avail = 0
    for c in range(NUM_CARDS):
        if s.loc[c] == LOC_AVAILABLE:
            s.avail |= np.uint32(1) << np.uint32(c)


@njit(cache=True)
def reset(s, seed: np.uint64) -> None:
    """A new match: seat `first_player` starts round 1."""
    rng_seed(s, seed)
    s.done = 0
    s.info_version = 0
    s.rewards[:] = 0.0
    s.rounds_done = 0
    s.round_wins[:] = 0
    s.round_scores[:, :] = 0
    s.winner = NO_ONE
    s.round_starter = s.first_player
    deal_round(s)


# -- the river ---------------------------------------------------------------------


@njit(cache=True)
def loser_of(a: int, b: int) -> int:
    """Of two numbers of one herd meeting in a segment, the one pushed on: the lower, but a 1 pushes a 5."""
    if (a == 1 and b == 5) or (a == 5 and b == 1):
        return 5
    return min(a, b)


@njit(cache=True)
def push_chain(s, seg: int, herd: int, number: int, side: int) -> None:
    """A capybara enters segment `seg`; a same-herd capybara there may be pushed on, and so on."""
    while True:
        if seg >= NUM_SEGMENTS:
            s.loc[herd * NUM_NUMBERS + number - 1] = LOC_DISCARD
            return
        there = s.seg_num[seg, herd]
        if there == 0:
            s.seg_num[seg, herd] = number
            s.seg_side[seg, herd] = side
            return
        pushed = loser_of(number, there)
        if pushed == there:
            pushed_side = s.seg_side[seg, herd]
            s.seg_num[seg, herd] = number
            s.seg_side[seg, herd] = side
            number = pushed
            side = pushed_side
        seg += 1


@njit(cache=True)
def take_herd_card(s, card: int) -> None:
    """Put a herd card on my side of the river at the starting segment."""
    take_from_available(s, card, LOC_IN_RIVER)
    push_chain(s, 0, card // NUM_NUMBERS, card % NUM_NUMBERS + 1, s.current)


@njit(cache=True)
def play_onca(s, seg: int, k: int) -> None:
    """Tuck a Capionça under segment `seg` and apply effect k (push / flip one herd, or swap all)."""
    take_from_available(s, lowest_bit_index(np.uint64(s.avail) & ONCA_BITS), LOC_TUCKED)
    s.onca_in[seg] = 1
    if k == K_SWAP:
        for h in range(NUM_HERDS):
            if s.seg_num[seg, h] > 0:
                s.seg_side[seg, h] ^= 1
    elif k >= K_FLIP:
        s.seg_side[seg, k - K_FLIP] ^= 1
    else:
        number = s.seg_num[seg, k]
        side = s.seg_side[seg, k]
        s.seg_num[seg, k] = 0
        push_chain(s, seg + 1, k, number, side)


# -- legality ------------------------------------------------------------------------


@njit(cache=True)
def legal_bits(s) -> np.uint64:
    """The acting seat's legal actions as bits of a uint64 (bit a set: action a is legal)."""
    if s.done:
        return np.uint64(0)
    avail = np.uint64(s.avail)
    bits = avail & HERD_BITS
    if avail & ONCA_BITS:
        for seg in range(NUM_SEGMENTS):
            if s.onca_in[seg] == 0:
                present = np.uint64(0)
                for h in range(NUM_HERDS):
                    if s.seg_num[seg, h] > 0:
                        present |= ONE << np.uint64(h)
                group = present | (present << np.uint64(K_FLIP)) | (ONE << np.uint64(K_SWAP))
                bits |= group << np.uint64(ONCA_BASE + ONCA_EFFECTS * seg)
    return bits


@njit(cache=True)
def is_legal(s, a: int) -> bool:
    """Whether action `a` is legal for the seat to act."""
    if a < 0 or a >= NUM_ACTIONS:
        return False
    return (legal_bits(s) >> np.uint64(a)) & ONE != 0


@njit(cache=True)
def legal_into(s, mask) -> int:
    """The acting seat's legal actions into `mask`; returns how many there are."""
    bits = legal_bits(s)
    for a in range(NUM_ACTIONS):
        mask[a] = (bits >> np.uint64(a)) & ONE
    return popcount(bits)


@njit(cache=True)
def pick_random_action(s, mask, r: np.uint64) -> int:
    """A uniformly random legal action from random bits `r` (rollouts; `mask` unused)."""
    bits = legal_bits(s)
    return nth_set_bit(bits, np.uint64(r) % np.uint64(popcount(bits)))


# -- scoring -----------------------------------------------------------------------------


@njit(cache=True)
def modified_value(s, seg: int, herd: int) -> int:
    """A capybara's points after its segment's modifier."""
    n = s.seg_num[seg, herd]
    sel = RIVER_SIDE[s.river_card[seg], 0]
    eff = RIVER_SIDE[s.river_card[seg], 1]
    hi = 0
    lo = 99
    for h in range(NUM_HERDS):
        m = s.seg_num[seg, h]
        if m > 0:
            hi = max(hi, m)
            lo = min(lo, m)
    if sel == SEL_ALL:
        hit = True
    elif sel == SEL_EVEN:
        hit = n % 2 == 0
    elif sel == SEL_ODD:
        hit = n % 2 == 1
    elif SEL_CRIAS <= sel <= SEL_TCHES:
        hit = herd == sel - SEL_CRIAS
    elif sel == SEL_HIGHEST:
        hit = n == hi
    else:
        hit = n == lo
    if not hit:
        return n
    if eff == EFF_ZERO:
        return 0
    if eff == EFF_DOUBLE:
        return 2 * n
    return n - s.subtract_points


@njit(cache=True)
def river_score(s, side: int) -> int:
    """Sum of the modified values of the capybaras on one side of the river."""
    total = 0
    for seg in range(NUM_SEGMENTS):
        for h in range(NUM_HERDS):
            if s.seg_num[seg, h] > 0 and s.seg_side[seg, h] == side:
                total += modified_value(s, seg, h)
    return total


@njit(cache=True)
def end_round(s) -> None:
    """Score the round, record wins (a tie is a win for both), end the match or deal the next round."""
    a = river_score(s, 0)
    b = river_score(s, 1)
    r = s.rounds_done
    s.round_scores[r, 0] = a
    s.round_scores[r, 1] = b
    s.rounds_done += 1
    s.info_version += 1
    if a >= b:
        s.round_wins[0] += 1
    if b >= a:
        s.round_wins[1] += 1
    w0 = s.round_wins[0]
    w1 = s.round_wins[1]
    if max(w0, w1) >= s.wins_needed and w0 != w1:  # after a shared win, the next untied round decides
        finish(s, 0 if w0 > w1 else 1)
    elif s.rounds_done >= s.max_rounds:
        finish(s, DRAW)
    else:
        s.round_starter = s.current  # who took the last card starts the next round
        deal_round(s)


@njit(cache=True)
def finish(s, winner: int) -> None:
    s.winner = winner
    s.done = 1
    s.current = -1
    if winner != DRAW:
        s.rewards[winner] = 1.0
        s.rewards[1 - winner] = -1.0


# -- the turn ----------------------------------------------------------------------------------


@njit(cache=True)
def refill_available(s) -> int:
    """With one available card left, reveal deck cards until 4 are available or the deck is empty."""
    n = popcount(np.uint64(s.avail))
    if n == 1:
        while n < AVAILABLE_TARGET and s.deck_pos < s.deck_len:
            make_available(s, s.deck[s.deck_pos])
            s.deck_pos += 1
            n += 1
    return n


@njit(cache=True)
def step(s, a: int) -> int:
    """Apply action `a` for the seat to act; 1 (and no change) if it is illegal."""
    if not is_legal(s, a):
        return 1
    s.rewards[:] = 0.0
    if a < ONCA_BASE:
        take_herd_card(s, a)
    else:
        play_onca(s, (a - ONCA_BASE) // ONCA_EFFECTS, (a - ONCA_BASE) % ONCA_EFFECTS)
    s.turn += 1
    if refill_available(s) == 1 and s.deck_pos >= s.deck_len:
        end_round(s)
    else:
        s.current = 1 - s.current
    return 0


# -- observations ---------------------------------------------------------------------------------


@njit(cache=True)
def observe_river(s, seat: int, obs, o: int) -> None:
    """The ``river_capybaras`` piece from ``obs[o]``: segment x herd, number one-hot x (mine, theirs)."""
    for seg in range(NUM_SEGMENTS):
        for h in range(NUM_HERDS):
            n = s.seg_num[seg, h]
            if n > 0:
                mine = 0 if s.seg_side[seg, h] == seat else 1
                obs[o + ((seg * NUM_HERDS + h) * NUM_NUMBERS + n - 1) * 2 + mine] = 1.0


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """What `seat` sees, ego-centric (seat = "me"): the pieces of LAYOUT (table in seeds/capivari.md)."""
    obs[:] = 0.0
    observe_river(s, seat, obs, O_RIVER)
    for seg in range(NUM_SEGMENTS):
        card = s.river_card[seg]
        obs[O_MODIFIERS + seg * MODIFIER + RIVER_SIDE[card, 0]] = 1.0
        obs[O_MODIFIERS + seg * MODIFIER + NUM_SELECTORS + RIVER_SIDE[card, 1]] = 1.0
        obs[O_TUCKED + seg] = s.onca_in[seg]
    onca = 0
    for c in range(NUM_CARDS):
        if s.loc[c] == LOC_AVAILABLE:
            if c < NUM_HERD_CARDS:
                obs[O_AVAILABLE + c] = 1.0
            else:
                onca += 1
        elif s.loc[c] == LOC_DISCARD or s.loc[c] == LOC_TUCKED:
            obs[O_OUT + c] = 1.0
    obs[O_AVAILABLE_ONCAS] = onca / 3.0
    if s.deck_pos < s.deck_len:  # the deck's top card: its river side only
        top = s.deck[s.deck_pos]
        obs[O_DECK_TOP + RIVER_SIDE[top, 0]] = 1.0
        obs[O_DECK_TOP + NUM_SELECTORS + RIVER_SIDE[top, 1]] = 1.0
        obs[O_DECK_NOT_EMPTY] = 1.0
    obs[O_DECK_LEFT] = (s.deck_len - s.deck_pos) / 11.0
    need = max(s.wins_needed, 1)
    obs[O_WINS] = min(s.round_wins[seat], need) / need
    obs[O_WINS + 1] = min(s.round_wins[1 - seat], need) / need
    obs[O_PLAY_ON] = 1.0 if s.round_wins[0] >= need and s.round_wins[1] >= need else 0.0
    obs[O_MY_TURN] = 1.0 if s.current == seat else 0.0
    obs[O_SCORE] = max(-1.0, min(1.0, river_score(s, seat) / 40.0))
    obs[O_SCORE + 1] = max(-1.0, min(1.0, river_score(s, 1 - seat) / 40.0))
    obs[O_STARTED] = 1.0 if s.round_starter == seat else 0.0
    obs[O_TURNS] = s.turn / 14.0
    mask[:] = 0
    if s.current == seat:
        legal_into(s, mask)
