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


@njit(cache=True)
def obs_size(n: int, max_prediction: int, rounds: int) -> int:
    """Length of the observation vector (layout in seeds/horizonte.md)."""
    tricks = 2 * (n * (NUM_CARDS + n) + NUM_SUITS)
    return 5 + rounds + n + NUM_CARDS + n * NUM_CARDS + tricks + 6 * n + n * NUM_SUITS + n * (max_prediction + 1)


@njit(cache=True)
def score_scale(s) -> float:
    """An upper bound on a total score, so that scores / scale stay in [0, 1]."""
    h = s.hand_size
    return float(s.num_rounds * (2 * h + s.points_per_unit * (2 * h + s.max_prediction)))


@njit(cache=True)
def observe_into(s, seat: int, obs, mask) -> None:
    """What `seat` sees, ego-centric (relative seat 0 is `seat`, 1 the next clockwise, ...)."""
    n = s.num_players
    h = float(s.hand_size)
    obs[:] = 0.0
    i = 0
    # phase (4): predicting, playing the Dragon (or merged) trick, playing the Dog trick, game over; merged (1)
    if s.phase == PHASE_PREDICT:
        obs[0] = 1.0
    elif s.phase == PHASE_PLAY:
        obs[1 + s.active] = 1.0
    else:
        obs[3] = 1.0
    obs[4] = 1.0 if s.dragon == s.dog else 0.0
    i = 5
    if s.rounds_done < s.num_rounds:  # round (rounds), one-hot
        obs[i + s.rounds_done] = 1.0
    i += s.num_rounds
    if s.current >= 0:  # seat to act (n)
        obs[i + (s.current - seat) % n] = 1.0
    i += n
    for c in range(NUM_CARDS):  # my hand (50)
        obs[i + c] = s.hand[seat, c]
    i += NUM_CARDS
    for r in range(n):  # cards played this round, by relative seat (n x 50)
        p = (seat + r) % n
        for c in range(NUM_CARDS):
            obs[i + c] = s.played[p, c]
        i += NUM_CARDS
    for t in range(2):  # Dragon then Dog trick: n slots of (card one-hot 50, seat one-hot n), led suit (4)
        for k in range(s.trick_count[t]):
            obs[i + k * (NUM_CARDS + n) + s.trick_card[t, k]] = 1.0
            obs[i + k * (NUM_CARDS + n) + NUM_CARDS + (s.trick_seat[t, k] - seat) % n] = 1.0
        i += n * (NUM_CARDS + n)
        suit = led_suit(s, t)
        if suit >= 0:
            obs[i + suit] = 1.0
        i += NUM_SUITS
    obs[i + (s.dragon - seat) % n] = 1.0  # Dragon initiative holder (n), Dog initiative holder (n)
    i += n
    obs[i + (s.dog - seat) % n] = 1.0
    i += n
    for r in range(n):  # hand sizes / hand_size (n)
        obs[i + r] = min(1.0, s.hand_count[(seat + r) % n] / h)
    i += n
    for r in range(n):  # suits each seat is known to lack, having not followed them this round (n x 4)
        for u in range(NUM_SUITS):
            obs[i + r * NUM_SUITS + u] = s.void[(seat + r) % n, u]
    i += n * NUM_SUITS
    revealed = s.phase != PHASE_PREDICT
    k = s.max_prediction + 1
    for r in range(n):  # predictions (n x (max_prediction + 1)): mine once chosen, the others once revealed
        pred = s.prediction[(seat + r) % n]
        if pred >= 0 and (revealed or r == 0):
            obs[i + r * k + pred] = 1.0
    i += n * k
    for r in range(n):  # Dragon tricks, Dog tricks this round / (2 hand_size) (2n)
        obs[i + r] = min(1.0, s.dragon_tricks[(seat + r) % n] / (2.0 * h))
        obs[i + n + r] = min(1.0, s.dog_tricks[(seat + r) % n] / (2.0 * h))
    i += 2 * n
    scale = score_scale(s)
    for r in range(n):  # total scores / score_scale (n)
        obs[i + r] = min(1.0, s.score[(seat + r) % n] / scale)
    mask[:] = 0
    if s.current == seat:
        legal_into(s, mask)


@njit(cache=True)
def observe(s, seat: int):
    """Fresh (observation, mask) arrays for `seat`."""
    obs = np.zeros(obs_size(s.num_players, s.max_prediction, s.num_rounds), np.float32)
    mask = np.zeros(PREDICT_BASE + s.max_prediction + 1, np.int8)
    observe_into(s, seat, obs, mask)
    return obs, mask


# -- determinization (search agents) ---------------------------------------------------------


@njit(cache=True)
def _deal_feasible(s, seat: int, left, room) -> bool:
    """Hall's condition: every set of suits still to place fits in the seats not void in one of them."""
    n = s.num_players
    for subset in range(1, 1 << NUM_SUITS):
        need = 0
        for u in range(NUM_SUITS):
            if subset & (1 << u):
                need += left[u]
        cap = 0
        for p in range(n):
            if p != seat:
                for u in range(NUM_SUITS):
                    if subset & (1 << u) and not s.void[p, u]:
                        cap += room[p]
                        break
        if need > cap:
            return False
    return True


@njit(cache=True)
def determinize(s, seat: int, seed: np.uint64) -> None:
    """Resample what `seat` cannot see: the other hands (same sizes, respecting known voids),
    their secret predictions, and the generator (future deals). Draws from `seed` only."""
    n = s.num_players
    rng_seed(s, seed)
    pool = np.empty(NUM_CARDS, np.int8)
    left = np.zeros(NUM_SUITS, np.int64)
    room = np.zeros(n, np.int64)
    m = 0
    for p in range(n):
        if p != seat:
            room[p] = s.hand_count[p]
            for c in range(NUM_CARDS):
                if s.hand[p, c]:
                    pool[m] = c
                    m += 1
                    left[CARD_SUIT[c]] += 1
                    s.hand[p, c] = 0
    rng_shuffle(s, pool, m)
    for i in range(m):
        c = pool[i]
        u = CARD_SUIT[c]
        left[u] -= 1
        start = rng_below(s, n)
        chosen = -1
        for j in range(n):
            p = (start + j) % n
            if p != seat and room[p] > 0 and not s.void[p, u]:
                room[p] -= 1
                if _deal_feasible(s, seat, left, room):
                    chosen = p
                    break
                room[p] += 1
        if chosen < 0:  # unreachable from a valid state (the real deal satisfies the constraints)
            for p in range(n):
                if p != seat and room[p] > 0:
                    room[p] -= 1
                    chosen = p
                    break
        s.hand[chosen, c] = 1
    for p in range(n):
        if p != seat:
            for c in range(NUM_CARDS):
                s.dealt[p, c] = s.hand[p, c] | s.played[p, c]
            if s.phase == PHASE_PREDICT and s.prediction[p] >= 0:
                s.prediction[p] = rng_below(s, s.max_prediction + 1)


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
