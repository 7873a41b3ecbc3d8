"""Horizonte's compiled core: the state record and the rules as numba functions.

Read top to bottom it follows the manual (seeds/horizonte.md): draw the initiative,
deal and predict, play into the Dragon and Dog tricks (or the merged trick),
resolve them, score the round, end the game. Seats are clockwise: seat p + 1
plays after seat p. Merged mode is exactly "one seat holds both initiatives".
"""

import numpy as np
from numba import njit

from envs.engine.record import header_fields
from envs.engine.rng import rng_below, rng_seed, rng_shuffle
from envs.horizonte.observation import END, OFFSET_BASE, OFFSET_PER_PREDICTION, OFFSET_PER_ROUND, PIECES
from envs.horizonte.rules import (
    CARD_STAR,
    CARD_SUIT,
    CARD_VALUE,
    CLOUD,
    MAX_PLAYERS,
    MAX_ROUNDS,
    NUM_CARDS,
    NUM_SUITS,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_PREDICT,
    PREDICT_BASE,
    TRICK_DOG,
    TRICK_DRAGON,
)

P = MAX_PLAYERS
STATE_DTYPE = np.dtype(
    header_fields(MAX_PLAYERS)
    + [
        # config, written once by Game.new_state
        ("max_prediction", np.int8),
        ("points_per_unit", np.int8),
        ("num_rounds", np.int8),
        ("reward_points", np.uint8),  # 0: rank reward at the end; 1: -points at each round end
        ("hand_size", np.int8),  # cards dealt to each seat
        ("in_deck", np.uint8, (NUM_CARDS,)),  # 0 for the cards removed for this player count
        # the game
        ("phase", np.int8),  # PHASE_*
        ("rounds_done", np.int8),  # rounds scored so far (the current round, 0-based); num_rounds at the end
        ("dragon", np.int8),  # seat holding the Dragon initiative
        ("dog", np.int8),  # seat holding the Dog initiative (== dragon: merged mode)
        ("active", np.int8),  # trick the seat to act plays into (TRICK_DRAGON also for the merged trick)
        ("hand", np.uint8, (P, NUM_CARDS)),
        ("hand_count", np.int8, (P,)),
        ("dealt", np.uint8, (P, NUM_CARDS)),  # this round's hands as dealt
        ("played", np.uint8, (P, NUM_CARDS)),  # cards each seat played this round
        ("void", np.uint8, (P, NUM_SUITS)),  # seat showed it holds no card of the suit (did not follow it)
        ("prediction", np.int8, (P,)),  # -1 until chosen; secret until everyone has chosen
        ("predicted", np.int8),  # predictions made this round
        ("trick_card", np.int8, (2, P)),  # [trick, k]: k-th card played into the trick
        ("trick_seat", np.int8, (2, P)),  # [trick, k]: who played it
        ("trick_count", np.int8, (2,)),
        ("dragon_tricks", np.int16, (P,)),  # this round, a star win counting two
        ("dog_tricks", np.int16, (P,)),
        ("resolutions", np.int16),  # resolutions this round
        ("last_winner", np.int8, (2,)),  # last resolution's Dragon and Dog winners (-1: none yet)
        ("last_card", np.int8, (2,)),  # and their winning cards
        ("score", np.int32, (P,)),  # total points (lowest wins)
        ("hist_prediction", np.int8, (MAX_ROUNDS, P)),
        ("hist_dragon", np.int16, (MAX_ROUNDS, P)),
        ("hist_dog", np.int16, (MAX_ROUNDS, P)),
        ("hist_points", np.int32, (MAX_ROUNDS, P)),
    ]
)


# -- cards -----------------------------------------------------------------------------------


@njit(cache=True)
def next_seat(s, p: int) -> int:
    """The seat clockwise after p."""
    return (p + 1) % s.num_players


@njit(cache=True)
def deck_cards(s, out) -> int:
    """This game's deck (the cards not removed) into `out`; returns its size."""
    m = 0
    for c in range(NUM_CARDS):
        if s.in_deck[c]:
            out[m] = c
            m += 1
    return m


# -- setting up ------------------------------------------------------------------------------


@njit(cache=True)
def _reveal(s, deck, pos: int, m: int) -> tuple:
    """Reveal the next card of a shuffled deck; reshuffle everything when it runs out."""
    if pos >= m:
        rng_shuffle(s, deck, m)
        pos = 0
    return CARD_VALUE[deck[pos]], pos + 1


@njit(cache=True)
def draw_initiative(s) -> None:
    """Each seat reveals a card: highest takes the Dragon, lowest (of the others) the Dog; ties redraw."""
    n = s.num_players
    deck = np.empty(NUM_CARDS, np.int8)
    m = deck_cards(s, deck)
    rng_shuffle(s, deck, m)
    pos = 0
    first = np.empty(n, np.int8)
    for p in range(n):
        first[p], pos = _reveal(s, deck, pos, m)
    for want_high in (True, False):
        value = first.copy()
        tied = np.ones(n, np.bool_)
        if not want_high:
            tied[s.dragon] = False
        while True:
            best = -1
            count = 0
            for p in range(n):
                if tied[p]:
                    v = value[p]
                    better = best < 0 or (v > value[best] if want_high else v < value[best])
                    if better:
                        best = p
                        count = 1
                    elif v == value[best]:
                        count += 1
            if count == 1:
                break
            target = value[best]
            for p in range(n):
                if tied[p]:
                    if value[p] == target:
                        value[p], pos = _reveal(s, deck, pos, m)
                    else:
                        tied[p] = False
        if want_high:
            s.dragon = best
        else:
            s.dog = best


@njit(cache=True)
def clear_tricks(s) -> None:
    """Empty both tricks; the next card goes into the Dragon (or merged) trick."""
    s.trick_count[:] = 0
    s.trick_card[:, :] = -1
    s.trick_seat[:, :] = -1
    s.active = TRICK_DRAGON


@njit(cache=True)
def deal_round(s) -> None:
    """Shuffle the deck and deal all of it; everyone then predicts, from the Dragon holder clockwise."""
    n = s.num_players
    deck = np.empty(NUM_CARDS, np.int8)
    m = deck_cards(s, deck)
    rng_shuffle(s, deck, m)
    s.hand[:, :] = 0
    s.played[:, :] = 0
    h = m // n
    for p in range(n):
        for k in range(h):
            s.hand[p, deck[p * h + k]] = 1
        s.hand_count[p] = h
    s.dealt[:, :] = s.hand
    s.void[:, :] = 0
    s.prediction[:] = -1
    s.predicted = 0
    s.dragon_tricks[:] = 0
    s.dog_tricks[:] = 0
    s.resolutions = 0
    s.last_winner[:] = -1
    s.last_card[:] = -1
    clear_tricks(s)
    s.phase = PHASE_PREDICT
    s.current = s.dragon


@njit(cache=True)
def reset(s, seed: np.uint64) -> None:
    """A new game: draw the initiative, deal round 1 (config fields are already in `s`)."""
    rng_seed(s, seed)
    s.done = 0
    s.info_version = 0
    s.rewards[:] = 0.0
    s.rounds_done = 0
    s.score[:] = 0
    s.hist_prediction[:, :] = -1
    s.hist_dragon[:, :] = 0
    s.hist_dog[:, :] = 0
    s.hist_points[:, :] = 0
    draw_initiative(s)
    deal_round(s)


# -- predictions -----------------------------------------------------------------------------


@njit(cache=True)
def choose_prediction(s, k: int) -> None:
    """The seat to act secretly predicts k; after the last prediction all are revealed and play starts."""
    s.prediction[s.current] = k
    s.predicted += 1
    if s.predicted == s.num_players:
        s.phase = PHASE_PLAY
        s.current = s.dragon
        s.active = TRICK_DRAGON
    else:
        s.current = next_seat(s, s.current)


# -- legality ------------------------------------------------------------------------------


@njit(cache=True)
def led_suit(s, t: int) -> int:
    """Suit of the first card in trick t, or -1 while it is empty."""
    if s.trick_count[t] == 0:
        return -1
    return CARD_SUIT[s.trick_card[t, 0]]


@njit(cache=True)
def legal_into(s, mask) -> int:
    """The acting seat's legal actions into `mask`; returns how many there are.

    Predicting: any of 0..max_prediction. Playing: a card of the led suit of the
    trick being played into if the hand has one, otherwise any card in hand.
    """
    mask[:] = 0
    if s.done:
        return 0
    p = s.current
    if s.phase == PHASE_PREDICT:
        for k in range(s.max_prediction + 1):
            mask[PREDICT_BASE + k] = 1
        return s.max_prediction + 1
    suit = led_suit(s, s.active)
    count = 0
    if suit >= 0:
        for c in range(NUM_CARDS):
            if s.hand[p, c] and CARD_SUIT[c] == suit:
                mask[c] = 1
                count += 1
    if count == 0:
        for c in range(NUM_CARDS):
            if s.hand[p, c]:
                mask[c] = 1
                count += 1
    return count


@njit(cache=True)
def is_legal(s, a: int) -> bool:
    """Whether action `a` is legal for the seat to act (any int is safe to ask about)."""
    if s.done or a < 0 or a > PREDICT_BASE + s.max_prediction:
        return False
    if s.phase == PHASE_PREDICT:
        return a >= PREDICT_BASE
    if a >= PREDICT_BASE or not s.hand[s.current, a]:
        return False
    suit = led_suit(s, s.active)
    if suit < 0 or CARD_SUIT[a] == suit:
        return True
    for c in range(NUM_CARDS):
        if s.hand[s.current, c] and CARD_SUIT[c] == suit:
            return False
    return True


# -- resolving tricks ------------------------------------------------------------------------


@njit(cache=True)
def resolve_dragon_trick(s, t: int) -> int:
    """Position in trick t of its Dragon winner: the highest Cloud, else the highest card of the led suit."""
    suit = CARD_SUIT[s.trick_card[t, 0]]
    for k in range(s.trick_count[t]):
        c = s.trick_card[t, k]
        if CARD_SUIT[c] == CLOUD:
            suit = CLOUD
            break
    best = -1
    for k in range(s.trick_count[t]):
        c = s.trick_card[t, k]
        if CARD_SUIT[c] == suit and (best < 0 or CARD_VALUE[c] > CARD_VALUE[s.trick_card[t, best]]):
            best = k
    return best


@njit(cache=True)
def resolve_dog_trick(s, t: int) -> int:
    """Position in trick t of its Dog winner: the lowest card of any suit; a tie goes to the last played."""
    best = 0
    for k in range(1, s.trick_count[t]):
        if CARD_VALUE[s.trick_card[t, k]] <= CARD_VALUE[s.trick_card[t, best]]:
            best = k
    return best


@njit(cache=True)
def tricks_worth(card: int) -> int:
    """A trick won with a star card (3, 7, 13, 17) counts as two."""
    return 2 if CARD_STAR[card] else 1


@njit(cache=True)
def resolve(s) -> None:
    """Both tricks are complete: award them, pass the initiatives, end the round or lead the next ones."""
    dog_t = TRICK_DRAGON if s.dragon == s.dog else TRICK_DOG  # merged: one trick, resolved twice
    kd = resolve_dragon_trick(s, TRICK_DRAGON)
    kg = resolve_dog_trick(s, dog_t)
    dragon_card = s.trick_card[TRICK_DRAGON, kd]
    dog_card = s.trick_card[dog_t, kg]
    s.dragon = s.trick_seat[TRICK_DRAGON, kd]
    s.dog = s.trick_seat[dog_t, kg]
    s.dragon_tricks[s.dragon] += tricks_worth(dragon_card)
    s.dog_tricks[s.dog] += tricks_worth(dog_card)
    s.last_winner[0] = s.dragon
    s.last_winner[1] = s.dog
    s.last_card[0] = dragon_card
    s.last_card[1] = dog_card
    s.resolutions += 1
    clear_tricks(s)
    if round_over(s):
        score_round(s)
    else:
        s.current = s.dragon


@njit(cache=True)
def round_over(s) -> bool:
    """The round ends right after a resolution when every seat holds at most one card."""
    for p in range(s.num_players):
        if s.hand_count[p] > 1:
            return False
    return True


# -- playing a card ----------------------------------------------------------------------------


@njit(cache=True)
def add_to_trick(s, t: int, card: int) -> None:
    """The seat to act puts `card` into trick t; not following its led suit shows a void in that suit."""
    p = s.current
    k = s.trick_count[t]
    if k > 0 and CARD_SUIT[card] != CARD_SUIT[s.trick_card[t, 0]]:
        s.void[p, CARD_SUIT[s.trick_card[t, 0]]] = 1
    s.trick_card[t, k] = card
    s.trick_seat[t, k] = p
    s.trick_count[t] = k + 1
    s.hand[p, card] = 0
    s.hand_count[p] -= 1
    s.played[p, card] = 1


@njit(cache=True)
def play_card(s, card: int) -> None:
    """The seat to act plays `card` into the active trick; the turn then moves on.

    Separate mode: the Dragon trick goes clockwise from its leader until the turn
    reaches the Dog holder, who interrupts and leads the Dog trick; once everyone
    has played into it, the Dragon trick resumes with the Dog holder. Merged mode:
    one trick, clockwise from the holder of both initiatives.
    """
    n = s.num_players
    t = s.active
    add_to_trick(s, t, card)
    nxt = next_seat(s, s.current)
    if s.dragon == s.dog:
        if s.trick_count[TRICK_DRAGON] == n:
            resolve(s)
        else:
            s.current = nxt
    elif t == TRICK_DRAGON:
        if s.trick_count[TRICK_DRAGON] == n:
            resolve(s)  # the Dog trick was complete before the Dragon trick resumed
        elif nxt == s.dog and s.trick_count[TRICK_DOG] == 0:
            s.active = TRICK_DOG
            s.current = nxt
        else:
            s.current = nxt
    else:
        if s.trick_count[TRICK_DOG] == n:
            s.active = TRICK_DRAGON  # resumes with the Dog holder, who is next anyway
        s.current = nxt


# -- scoring -----------------------------------------------------------------------------------


@njit(cache=True)
def round_points(dragon: int, dog: int, prediction: int, per_unit: int) -> int:
    """1 point per Dragon/Dog pair, plus per_unit for each unit the unpaired rest misses the prediction."""
    pairs = min(dragon, dog)
    rest = abs(dragon - dog)
    return pairs + per_unit * abs(rest - prediction)


@njit(cache=True)
def score_round(s) -> None:
    """Score the round into the totals and history; then deal the next round or end the game."""
    r = s.rounds_done
    for p in range(s.num_players):
        pts = round_points(s.dragon_tricks[p], s.dog_tricks[p], s.prediction[p], s.points_per_unit)
        s.hist_prediction[r, p] = s.prediction[p]
        s.hist_dragon[r, p] = s.dragon_tricks[p]
        s.hist_dog[r, p] = s.dog_tricks[p]
        s.hist_points[r, p] = pts
        s.score[p] += pts
        if s.reward_points:
            s.rewards[p] = -float(pts)
    s.rounds_done += 1
    s.info_version += 1
    if s.rounds_done >= s.num_rounds:
        end_game(s)
    else:
        deal_round(s)  # the initiative holders keep their cards; the Dragon holder leads


@njit(cache=True)
def end_game(s) -> None:
    """Lowest total wins, ties share; rank reward: winners split +1, the others split -1."""
    n = s.num_players
    s.phase = PHASE_OVER
    s.done = 1
    s.current = -1
    if s.reward_points:
        return
    low = s.score[0]
    for p in range(n):
        low = min(low, s.score[p])
    winners = 0
    for p in range(n):
        winners += s.score[p] == low
    if winners == n:
        return
    for p in range(n):
        s.rewards[p] = 1.0 / winners if s.score[p] == low else -1.0 / (n - winners)


# -- the step ----------------------------------------------------------------------------------


@njit(cache=True)
def step(s, a: int) -> int:
    """Apply action `a` for the seat to act; 1 (and no change) if it is illegal."""
    if not is_legal(s, a):
        return 1
    s.rewards[:] = 0.0
    if s.phase == PHASE_PREDICT:
        choose_prediction(s, a - PREDICT_BASE)
    else:
        play_card(s, a)
    return 0


# -- observations ------------------------------------------------------------------------------
# The layout is declared once, per config, in envs/horizonte/observation.py (``layout``); the
# compiled code reads each piece's offset from the tables derived there (see its docstring).

K_PHASE = PIECES.index("phase")
K_MERGED = PIECES.index("merged")
K_ROUND = PIECES.index("round")
K_TO_ACT = PIECES.index("to_act")
K_MY_HAND = PIECES.index("my_hand")
K_PLAYED = PIECES.index("played")
K_TRICK = (PIECES.index("dragon_trick"), PIECES.index("dog_trick"))  # by TRICK_DRAGON, TRICK_DOG
K_LED = (PIECES.index("dragon_led"), PIECES.index("dog_led"))
K_DRAGON_HOLDER = PIECES.index("dragon_holder")
K_DOG_HOLDER = PIECES.index("dog_holder")
K_HAND_SIZES = PIECES.index("hand_sizes")
K_VOIDS = PIECES.index("voids")
K_PREDICTIONS = PIECES.index("predictions")
K_DRAGON_TRICKS = PIECES.index("dragon_tricks")
K_DOG_TRICKS = PIECES.index("dog_tricks")
K_SCORES = PIECES.index("scores")


@njit(cache=True)
def obs_offset(s, k: int) -> int:
    """Where piece `k` (its index in observation.PIECES) starts for this record's config; `END`: the size."""
    n = s.num_players
    return OFFSET_BASE[n, k] + OFFSET_PER_ROUND[n, k] * s.num_rounds + OFFSET_PER_PREDICTION[n, k] * s.max_prediction


@njit(cache=True)
def obs_size(s) -> int:
    """Length of the observation vector for this record's config (``observation.layout(...).size``)."""
    return obs_offset(s, END)


@njit(cache=True)
def score_scale(s) -> float:
    """An upper bound on a total score, so that scores / scale stay in [0, 1]."""
    h = s.hand_size
    return float(s.num_rounds * (2 * h + s.points_per_unit * (2 * h + s.max_prediction)))


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """What `seat` sees, ego-centric (relative seat 0 is `seat`, 1 the next clockwise, ...): the
    pieces of ``observation.layout`` (table in seeds/horizonte.md)."""
    n = s.num_players
    h = float(s.hand_size)
    obs[:] = 0.0
    i = obs_offset(s, K_PHASE)
    if s.phase == PHASE_PREDICT:
        obs[i] = 1.0
    elif s.phase == PHASE_PLAY:
        obs[i + 1 + s.active] = 1.0
    else:
        obs[i + 3] = 1.0
    obs[obs_offset(s, K_MERGED)] = 1.0 if s.dragon == s.dog else 0.0
    if s.rounds_done < s.num_rounds:
        obs[obs_offset(s, K_ROUND) + s.rounds_done] = 1.0
    if s.current >= 0:
        obs[obs_offset(s, K_TO_ACT) + (s.current - seat) % n] = 1.0
    i = obs_offset(s, K_MY_HAND)
    for c in range(NUM_CARDS):
        obs[i + c] = s.hand[seat, c]
    i = obs_offset(s, K_PLAYED)
    for r in range(n):
        p = (seat + r) % n
        for c in range(NUM_CARDS):
            obs[i + r * NUM_CARDS + c] = s.played[p, c]
    for t in range(2):
        i = obs_offset(s, K_TRICK[t])
        for k in range(s.trick_count[t]):
            obs[i + k * (NUM_CARDS + n) + s.trick_card[t, k]] = 1.0
            obs[i + k * (NUM_CARDS + n) + NUM_CARDS + (s.trick_seat[t, k] - seat) % n] = 1.0
        suit = led_suit(s, t)
        if suit >= 0:
            obs[obs_offset(s, K_LED[t]) + suit] = 1.0
    obs[obs_offset(s, K_DRAGON_HOLDER) + (s.dragon - seat) % n] = 1.0
    obs[obs_offset(s, K_DOG_HOLDER) + (s.dog - seat) % n] = 1.0
    i = obs_offset(s, K_HAND_SIZES)
    for r in range(n):
        obs[i + r] = min(1.0, s.hand_count[(seat + r) % n] / h)
    i = obs_offset(s, K_VOIDS)
    for r in range(n):
        for u in range(NUM_SUITS):
            obs[i + r * NUM_SUITS + u] = s.void[(seat + r) % n, u]
    i = obs_offset(s, K_PREDICTIONS)
    revealed = s.phase != PHASE_PREDICT
    k = s.max_prediction + 1
    for r in range(n):  # mine once chosen, the others once revealed
        pred = s.prediction[(seat + r) % n]
        if pred >= 0 and (revealed or r == 0):
            obs[i + r * k + pred] = 1.0
    i = obs_offset(s, K_DRAGON_TRICKS)
    j = obs_offset(s, K_DOG_TRICKS)
    for r in range(n):
        obs[i + r] = min(1.0, s.dragon_tricks[(seat + r) % n] / (2.0 * h))
        obs[j + r] = min(1.0, s.dog_tricks[(seat + r) % n] / (2.0 * h))
    i = obs_offset(s, K_SCORES)
    scale = score_scale(s)
    for r in range(n):
        obs[i + r] = min(1.0, s.score[(seat + r) % n] / scale)
    mask[:] = 0
    if s.current == seat:
        legal_into(s, mask)


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for `seat`."""
    obs = np.zeros(obs_size(s), np.float32)
    mask = np.zeros(PREDICT_BASE + s.max_prediction + 1, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask


# -- random play -------------------------------------------------------------------------------


@njit(cache=True)
def random_action(s, policy, mask) -> int:
    """A uniformly random legal action, drawn from the generator in record `policy` (not the game's)."""
    count = legal_into(s, mask)
    j = rng_below(policy, count)
    for a in range(mask.shape[0]):
        if mask[a]:
            if j == 0:
                return a
            j -= 1
    return -1


@njit(cache=True)
def random_playout(s, policy) -> int:
    """Play uniformly random legal actions until the game ends; returns the number of steps."""
    mask = np.zeros(PREDICT_BASE + s.max_prediction + 1, np.int8)
    steps = 0
    while not s.done:
        step(s, random_action(s, policy, mask))
        steps += 1
    return steps
