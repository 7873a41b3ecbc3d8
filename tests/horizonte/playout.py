"""A compiled referee for property tests: plays random Horizonte games and recounts them.

The referee keeps its own model of the round (dealt hands, the turn order of a
cycle of tricks, trick winners, star doubling, scores), written from the manual
independently of envs/horizonte/core.py, and compares the core's state with it
after every step. It also checks that resampling what a seat cannot see never
changes that seat's observation. Everything runs in one compiled call per batch
of games, so tens of thousands of games are cheap.
"""

import numpy as np
from numba import njit

from envs.engine.rng import rng_below, rng_next
from envs.horizonte import core
from envs.horizonte.determinize import determinize
from envs.horizonte.rules import CARD_STAR, CARD_SUIT, CARD_VALUE, NUM_CARDS, PREDICT_BASE

# Error codes returned by run_games (0: all good).
OK = 0
E_DEAL = 1  # the dealt hands are not a partition of the deck into equal hands
E_TURN = 2  # the seat or trick to act differs from the turn order
E_MASK = 3  # the legal mask differs from follow-suit
E_HAND = 4  # a hand differs from dealt minus played
E_TRICKS = 5  # trick counts differ from the recount
E_POINTS = 6  # round points or totals differ from the recount
E_INITIATIVE = 7  # initiative holders differ from the recount
E_REWARD = 8  # rewards differ from the recount
E_LEAK = 9  # an observation changed when hidden information was resampled
E_STUCK = 10  # no legal action, or the game did not end
E_ROUND = 11  # a round ended at the wrong time (or did not end)
E_VOID = 12  # the known voids differ from the recount
E_DETERMINIZE = 13  # determinize changed what the seat sees, or broke hand sizes or known voids

ERROR_NAMES = {
    E_DEAL: "deal",
    E_TURN: "turn order",
    E_MASK: "follow-suit mask",
    E_HAND: "hand",
    E_TRICKS: "trick counts",
    E_POINTS: "points",
    E_INITIATIVE: "initiative",
    E_REWARD: "reward",
    E_LEAK: "hidden-information leak",
    E_STUCK: "stuck",
    E_ROUND: "round end",
    E_VOID: "known voids",
    E_DETERMINIZE: "determinize",
}

# stats slots
S_GAMES, S_STEPS, S_LEAK_CHECKS, S_HIDDEN_CHANGED, S_CONTROL_DIFFS, S_MERGED, S_STAR_WINS, S_LEFTOVER = range(8)
S_DETERMINIZED_CHANGED = 8
NUM_STATS = 9


@njit(cache=True)
def _cycle(n: int, dragon: int, dog: int, seats, tricks) -> int:
    """The referee's turn order for one cycle of tricks; returns its length."""
    m = 0
    if dragon == dog:
        for i in range(n):
            seats[m] = (dragon + i) % n
            tricks[m] = 0
            m += 1
        return m
    p = dragon
    while p != dog:  # Dragon trick until the turn reaches the Dog holder
        seats[m] = p
        tricks[m] = 0
        m += 1
        p = (p + 1) % n
    for i in range(n):  # the whole Dog trick
        seats[m] = (dog + i) % n
        tricks[m] = 1
        m += 1
    while p != dragon:  # the Dragon trick resumes with the Dog holder
        seats[m] = p
        tricks[m] = 0
        m += 1
        p = (p + 1) % n
    return m


@njit(cache=True)
def _dragon_winner(cards, seats, k: int) -> tuple:
    """(seat, card) winning a Dragon trick: highest Cloud, else highest of the led suit."""
    best_seat = -1
    best_card = -1
    for i in range(k):  # any Cloud
        c = cards[i]
        if CARD_SUIT[c] == 3 and (best_card < 0 or CARD_VALUE[c] > CARD_VALUE[best_card]):
            best_card = c
            best_seat = seats[i]
    if best_card >= 0:
        return best_seat, best_card
    for i in range(k):
        c = cards[i]
        if CARD_SUIT[c] == CARD_SUIT[cards[0]] and (best_card < 0 or CARD_VALUE[c] > CARD_VALUE[best_card]):
            best_card = c
            best_seat = seats[i]
    return best_seat, best_card


@njit(cache=True)
def _dog_winner(cards, seats, k: int) -> tuple:
    """(seat, card) winning a Dog trick: lowest value of any suit, the last played among equals."""
    best = k - 1
    for i in range(k - 2, -1, -1):
        if CARD_VALUE[cards[i]] < CARD_VALUE[cards[best]]:
            best = i
    return seats[best], cards[best]


@njit(cache=True)
def _same_cards(s, hand, played) -> bool:
    """The core's hands and played cards equal the referee's."""
    for q in range(hand.shape[0]):
        for c in range(NUM_CARDS):
            if s.hand[q, c] != hand[q, c] or s.played[q, c] != played[q, c]:
                return False
    return True


@njit(cache=True)
def _resample_hidden(t, me: int, policy) -> None:
    """Shuffle every other seat's cards among the other hands (same sizes), redraw their secret
    predictions and the generator: everything `me` cannot see."""
    n = t.num_players
    pool = np.empty(NUM_CARDS, np.int64)
    m = 0
    for p in range(n):
        if p != me:
            for c in range(NUM_CARDS):
                if t.hand[p, c]:
                    pool[m] = c
                    m += 1
                    t.hand[p, c] = 0
    for i in range(m - 1, 0, -1):
        j = rng_below(policy, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    k = 0
    for p in range(n):
        if p != me:
            for _ in range(t.hand_count[p]):
                t.hand[p, pool[k]] = 1
                k += 1
            for c in range(NUM_CARDS):
                t.dealt[p, c] = t.hand[p, c] | t.played[p, c]
    if t.phase == 0:
        for p in range(n):
            if p != me and t.prediction[p] >= 0:
                t.prediction[p] = rng_below(policy, t.max_prediction + 1)
    t.rng = rng_next(policy)


@njit(cache=True)
def _same_obs(a, b, ma, mb) -> bool:
    """Equal observations and masks."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    for i in range(ma.shape[0]):
        if ma[i] != mb[i]:
            return False
    return True


@njit(cache=True)
def _leak_check(states, raw, scratch, scratch_raw, policy, stats, bufs, void) -> int:
    """Resample what a random seat cannot see; its observation and mask must not change.

    Twice: with the referee's own resampling (any cards, ignoring voids), then with the
    game's determinize, which must also keep hand sizes and the referee's known voids.
    """
    s = states[0]
    t = scratch[0]
    n = s.num_players
    me = rng_below(policy, n)
    obs_a, obs_b, mask_a, mask_b = bufs
    core.observe_into(s, me, obs_a, mask_a)
    scratch_raw[:] = raw
    _resample_hidden(t, me, policy)
    stats[S_LEAK_CHECKS] += 1
    changed = False
    for p in range(n):
        for c in range(NUM_CARDS):
            if p != me and t.hand[p, c] != s.hand[p, c]:
                changed = True
    if changed:
        stats[S_HIDDEN_CHANGED] += 1
    core.observe_into(t, me, obs_b, mask_b)
    if not _same_obs(obs_a, obs_b, mask_a, mask_b):
        return E_LEAK
    other = (me + 1 + rng_below(policy, n - 1)) % n  # control: the check can see a difference
    core.observe_into(s, other, obs_a, mask_a)
    core.observe_into(t, other, obs_b, mask_b)
    if not _same_obs(obs_a, obs_b, mask_a, mask_b):
        stats[S_CONTROL_DIFFS] += 1

    scratch_raw[:] = raw
    determinize(t, me, rng_next(policy))
    core.observe_into(s, me, obs_a, mask_a)
    core.observe_into(t, me, obs_b, mask_b)
    if not _same_obs(obs_a, obs_b, mask_a, mask_b):
        return E_DETERMINIZE
    changed = False
    for p in range(n):
        held = 0
        for c in range(NUM_CARDS):
            held += t.hand[p, c]
            if t.hand[p, c] and void[p, CARD_SUIT[c]]:
                return E_DETERMINIZE
            if t.hand[p, c] and t.played[p, c]:
                return E_DETERMINIZE
            if t.hand[p, c] != s.hand[p, c]:
                changed = True
        if held != s.hand_count[p]:
            return E_DETERMINIZE
    for c in range(NUM_CARDS):  # the same cards stay hidden, only their owners change
        a = 0
        b = 0
        for p in range(n):
            a += s.hand[p, c]
            b += t.hand[p, c]
        if a != b:
            return E_DETERMINIZE
    if changed:
        stats[S_DETERMINIZED_CHANGED] += 1
    return OK


@njit(cache=True)
def play_and_check(states, raw, scratch, scratch_raw, policy, stats, leak_every: int) -> int:
    """Play one random game from the reset state in states[0]; 0 if every check holds, else an E_* code."""
    s = states[0]
    n = s.num_players
    size = core.obs_size(s)
    na = PREDICT_BASE + s.max_prediction + 1
    bufs = (np.zeros(size, np.float32), np.zeros(size, np.float32), np.zeros(na, np.int8), np.zeros(na, np.int8))
    mask = np.zeros(na, np.int8)
    dealt = np.zeros((n, NUM_CARDS), np.uint8)
    hand = np.zeros((n, NUM_CARDS), np.uint8)
    played = np.zeros((n, NUM_CARDS), np.uint8)
    void = np.zeros((n, 4), np.uint8)
    pred = np.zeros(n, np.int64)
    won_dragon = np.zeros(n, np.int64)
    won_dog = np.zeros(n, np.int64)
    total = np.zeros(n, np.int64)
    seq_seat = np.zeros(2 * n, np.int64)
    seq_trick = np.zeros(2 * n, np.int64)
    cards = np.zeros((2, n), np.int64)
    seats = np.zeros((2, n), np.int64)
    count = np.zeros(2, np.int64)
    dragon = np.int64(s.dragon)
    dog = np.int64(s.dog)
    deck_size = 0
    for c in range(NUM_CARDS):
        deck_size += s.in_deck[c]
    if dragon == dog:
        return E_INITIATIVE  # the initiative draw gives the two cards to different seats
    rnd = 0
    new_round = True
    predicted = 0
    pos = 0
    cycle = 0
    steps = 0
    while True:
        if new_round:  # the deal: a partition of the deck into equal hands
            size_ok = True
            for c in range(NUM_CARDS):
                owners = 0
                for p in range(n):
                    owners += s.hand[p, c]
                if owners != s.in_deck[c]:
                    size_ok = False
            for p in range(n):
                if s.hand_count[p] != s.hand_size:
                    size_ok = False
                for c in range(NUM_CARDS):
                    dealt[p, c] = s.hand[p, c]
                    hand[p, c] = s.hand[p, c]
                    played[p, c] = 0
                for u in range(4):
                    void[p, u] = 0
                won_dragon[p] = 0
                won_dog[p] = 0
            if not size_ok:
                return E_DEAL
            new_round = False
            predicted = 0
            pos = 0
            cycle = 0
        if s.done:
            return E_STUCK
        if leak_every > 0 and rng_below(policy, leak_every) == 0:
            err = _leak_check(states, raw, scratch, scratch_raw, policy, stats, bufs, void)
            if err != OK:
                return err
        steps += 1
        if steps > 10_000:
            return E_STUCK
        stats[S_STEPS] += 1
        if predicted < n:  # secret predictions, from the Dragon holder clockwise
            if s.phase != 0 or s.current != (dragon + predicted) % n:
                return E_TURN
            k = rng_below(policy, s.max_prediction + 1)
            pred[s.current] = k
            predicted += 1
            if core.step(s, PREDICT_BASE + k) != 0:
                return E_STUCK
            continue
        if pos == 0:
            cycle = _cycle(n, dragon, dog, seq_seat, seq_trick)
            count[:] = 0
            if dragon == dog:
                stats[S_MERGED] += 1
        p = seq_seat[pos]
        t = seq_trick[pos]
        if s.phase != 1 or s.current != p or s.active != t:
            return E_TURN
        legal = core.legal_into(s, mask)  # follow the led suit of this trick if possible
        has_suit = False
        if count[t] > 0:
            for c in range(NUM_CARDS):
                if hand[p, c] and CARD_SUIT[c] == CARD_SUIT[cards[t, 0]]:
                    has_suit = True
        expected = 0
        for c in range(NUM_CARDS):
            ok = hand[p, c] == 1 and (not has_suit or CARD_SUIT[c] == CARD_SUIT[cards[t, 0]])
            expected += ok
            if mask[c] != ok:
                return E_MASK
        if expected != legal or expected == 0:
            return E_MASK
        j = rng_below(policy, legal)
        card = -1
        for c in range(NUM_CARDS):
            if mask[c]:
                if j == 0:
                    card = c
                    break
                j -= 1
        if core.step(s, card) != 0:
            return E_STUCK
        hand[p, card] = 0
        played[p, card] = 1
        if count[t] > 0 and CARD_SUIT[card] != CARD_SUIT[cards[t, 0]]:
            void[p, CARD_SUIT[cards[t, 0]]] = 1
        cards[t, count[t]] = card
        seats[t, count[t]] = p
        count[t] += 1
        pos += 1
        if pos < cycle:
            if not _same_cards(s, hand, played):
                return E_HAND
            for q in range(n):
                for u in range(4):
                    if s.void[q, u] != void[q, u]:
                        return E_VOID
            for q in range(n):
                if s.rewards[q] != 0.0:
                    return E_REWARD
            continue
        # both tricks complete (or the merged one): resolve them by the manual
        dog_t = 0 if dragon == dog else 1
        dragon, dragon_card = _dragon_winner(cards[0], seats[0], count[0])
        dog, dog_card = _dog_winner(cards[dog_t], seats[dog_t], count[dog_t])
        won_dragon[dragon] += 1 + CARD_STAR[dragon_card]
        won_dog[dog] += 1 + CARD_STAR[dog_card]
        stats[S_STAR_WINS] += CARD_STAR[dragon_card] + CARD_STAR[dog_card]
        pos = 0
        left = 0
        for c in range(NUM_CARDS):
            left += hand[0, c]
        for q in range(n):
            held = 0
            for c in range(NUM_CARDS):
                held += hand[q, c]
            if held != left:
                return E_HAND
        if left > 1:  # the round goes on
            if s.rounds_done != rnd:
                return E_ROUND
            if s.dragon != dragon or s.dog != dog or s.current != dragon:
                return E_INITIATIVE
            if not _same_cards(s, hand, played):
                return E_HAND
            for q in range(n):
                if s.dragon_tricks[q] != won_dragon[q] or s.dog_tricks[q] != won_dog[q]:
                    return E_TRICKS
                if s.rewards[q] != 0.0:
                    return E_REWARD
            continue
        # the round is over: every card dealt was played or is the one left in hand
        stats[S_LEFTOVER] += left
        if s.rounds_done != rnd + 1:
            return E_ROUND
        accounted = 0
        for q in range(n):
            for c in range(NUM_CARDS):
                if (hand[q, c] & played[q, c]) or (hand[q, c] | played[q, c]) != dealt[q, c]:
                    return E_HAND
                accounted += hand[q, c] + played[q, c]
        if accounted != deck_size or (s.done and not _same_cards(s, hand, played)):
            return E_HAND
        points = np.zeros(n, np.int64)
        for q in range(n):
            if s.hist_dragon[rnd, q] != won_dragon[q] or s.hist_dog[rnd, q] != won_dog[q]:
                return E_TRICKS
            pairs = min(won_dragon[q], won_dog[q])
            rest = abs(won_dragon[q] - won_dog[q])
            points[q] = pairs + s.points_per_unit * abs(rest - pred[q])
            total[q] += points[q]
            if s.hist_points[rnd, q] != points[q] or s.score[q] != total[q] or s.hist_prediction[rnd, q] != pred[q]:
                return E_POINTS
        low = total.min()
        winners = 0
        for q in range(n):
            winners += total[q] == low
        for q in range(n):  # points: minus the round's points; rank: +1 / -1 split at the end (0 if all tie)
            want = 0.0
            if s.reward_points:
                want = -float(points[q])
            elif s.done and winners < n:
                want = 1.0 / winners if total[q] == low else -1.0 / (n - winners)
            if abs(s.rewards[q] - want) > 1e-12:
                return E_REWARD
        if s.dragon != dragon or s.dog != dog:
            return E_INITIATIVE
        rnd += 1
        if rnd == s.num_rounds:
            if not s.done or s.current != -1:
                return E_STUCK
            stats[S_GAMES] += 1
            return OK
        if s.done or s.current != dragon:
            return E_INITIATIVE
        new_round = True


@njit(cache=True)
def run_games(states, raw, scratch, scratch_raw, policy, first_seed: int, games: int, leak_every: int, stats, where):
    """Reset and referee `games` games (seeds first_seed, first_seed + 1, ...); the first error code or 0."""
    s = states[0]
    for g in range(games):
        core.reset(s, np.uint64(first_seed + g))
        err = play_and_check(states, raw, scratch, scratch_raw, policy, stats, leak_every)
        if err != OK:
            where[0] = first_seed + g
            where[1] = s.rounds_done
            return err
    return OK


def referee(game, games: int, first_seed: int = 0, leak_every: int = 20, policy_seed: int = 1) -> tuple[int, dict]:
    """Run `games` refereed random games of a Game; returns (error code, stats by name + where)."""
    states = game.new_state()
    scratch = game.new_state()
    policy = np.zeros(1, [("rng", np.uint64)])
    policy["rng"] = np.uint64(0x9E3779B97F4A7C15 ^ policy_seed)
    stats = np.zeros(NUM_STATS, np.int64)
    where = np.full(2, -1, np.int64)
    err = run_games(
        states,
        states.view(np.uint8),
        scratch,
        scratch.view(np.uint8),
        policy[0],
        first_seed,
        games,
        leak_every,
        stats,
        where,
    )
    names = (
        "games",
        "steps",
        "leak_checks",
        "hidden_changed",
        "control_diffs",
        "merged_tricks",
        "star_wins",
        "leftover",
        "determinized_changed",
    )
    out = dict(zip(names, stats.tolist(), strict=True))
    out["where"] = where.tolist()
    return int(err), out


@njit(cache=True)
def fingerprints(states, policy, first_seed: int, games: int, noise_seed: int, out) -> None:
    """Play `games` random games; out[g] digests game g (steps, scores, generator state).

    Before every step numba's own np.random generator is drawn from, seeded with
    `noise_seed`: if the core used any generator but the state's, digests would differ.
    """
    s = states[0]
    mask = np.zeros(PREDICT_BASE + s.max_prediction + 1, np.int8)
    np.random.seed(noise_seed)
    for g in range(games):
        core.reset(s, np.uint64(first_seed + g))
        h = np.uint64(0xCBF29CE484222325)
        steps = 0
        while not s.done:
            np.random.random()
            core.step(s, core.random_action(s, policy, mask))
            steps += 1
        h = (h ^ np.uint64(steps)) * np.uint64(0x100000001B3)
        for p in range(s.num_players):
            h = (h ^ np.uint64(s.score[p])) * np.uint64(0x100000001B3)
            h = (h ^ np.uint64(s.dragon * 8 + s.dog)) * np.uint64(0x100000001B3)
        out[g] = h ^ s.rng


def game_fingerprints(game, games: int, noise_seed: int, first_seed: int = 0) -> np.ndarray:
    """Digests of `games` random games (see fingerprints); the policy's generator is fixed."""
    states = game.new_state()
    policy = np.zeros(1, [("rng", np.uint64)])
    policy["rng"] = np.uint64(0x5DEECE66D)
    out = np.zeros(games, np.uint64)
    fingerprints(states, policy[0], first_seed, games, noise_seed, out)
    return out
