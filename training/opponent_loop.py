"""The vector env's step: the learner's move, then the opponent pool's, until the learner is to act again.

A template compiled once per game (``training.vector_env.opponent_kernel``, ``envs.engine.templates``): the
names imported from ``envs.engine.contract`` are the game's own functions in each compiled copy.

``vector_advance(states, actions, learner_seat, rewards, dones, fresh, episode_seeds, opponent_rng,
slot_cdf, opponent_slot, waiting, returns, scratch, played, played_count, resume, policy, bank, state_bytes,
observe_patch) -> int``: one learner
decision per game, then opponents until the learner's seat is to act again, the game is over, or an
outside opponent is to act. ``actions[i] < 0`` starts game i from ``episode_seeds[i]``; a game with
``dones[i] == 1`` (finished by the previous call) ignores its action and starts again from ``rng_next``
of its finished state (the seed written to ``episode_seeds[i]``). Each start seeds ``opponent_rng[i] =
splitmix64(seed ^ OPPONENT_SALT)`` and draws the game's opponent slot from the cumulative weights
``slot_cdf``: ``RANDOM_SLOT`` (uniformly random legal moves), ``HEURISTIC_SLOT`` (the game's
``heuristic_action``), ``POLICY_SLOT`` (a policy file's argmax or a sample of its masked softmax: ``policy`` is its
``CompiledPolicy.kernel_args``, evaluated by ``envs.engine.policy_net`` on the acting seat's observation, made
with the file's observation options: ``observe_patch`` rows ``(byte, value)`` set in ``state_bytes``, each game's
record as bytes, while it observes, then restored),
``OUTSIDE_SLOT`` and above: compiled snapshots where ``bank`` (``training.policy_bank``) holds the slot's policy
(a sample of its masked softmax), else decided in Python (the kernel sets ``waiting[i] = 1`` and stops; a call
with ``resume=True`` plays ``actions[i]`` for each waiting game and goes on).
``fresh[i]``: the learner has not acted yet in the game (one that ends before it does is dropped and the
next one started). ``rewards[i]``: the learner's rewards over the call (summed over resumes);
``returns[i]``: every seat's rewards in the game so far; ``played[i]``: the opponents' actions of the call
(up to its width; ``played_count[i]`` counts them all); returns the first game whose action was illegal
(that game untouched), or -1.
"""

import numpy as np
from numba import njit, prange

from envs.engine.contract import NUM_ACTIONS, heuristic_action, observe_into, pick_random_action, reset, step
from envs.engine.policy_net import S_OBS, S_OUT, SC_GREEDY, game_logits
from envs.engine.rng import rng_next, splitmix64

OPPONENT_SALT = 0x0BB0_5EED_0BB0_5EED  # opponent generator of a vector-env game: splitmix64(seed ^ this)
RANDOM_SLOT, HEURISTIC_SLOT, POLICY_SLOT, OUTSIDE_SLOT = 0, 1, 2, 3  # opponent slots; OUTSIDE_SLOT on: Python


@njit(cache=True)
def start_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns):
    """Start game i from its episode seed and draw its opponent slot."""
    reset(s, np.uint64(episode_seeds[i]))
    r = splitmix64(np.uint64(episode_seeds[i]) ^ np.uint64(OPPONENT_SALT))
    opponent_rng[i] = r
    u = (r >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # uniform in [0, 1) from the top 53 bits
    k = 0
    while k < slot_cdf.shape[0] - 1 and u >= slot_cdf[k]:
        k += 1
    opponent_slot[i] = k
    returns[i, :] = 0.0


@njit(cache=True)
def observe_patched(s, record_bytes, patch, obs, mask):
    """The acting seat's observation of ``s`` with the bytes ``patch[j, 0]`` of its record (``record_bytes``) set
    to ``patch[j, 1]`` (another config's observation options), restored after."""
    if patch.shape[0] == 0:  # the table's own observation options
        observe_into(s, s.current, obs, mask)
        return
    saved = np.empty(patch.shape[0], np.uint8)
    for j in range(patch.shape[0]):
        saved[j] = record_bytes[patch[j, 0]]
        record_bytes[patch[j, 0]] = np.uint8(patch[j, 1])
    observe_into(s, s.current, obs, mask)
    for j in range(patch.shape[0]):
        record_bytes[patch[j, 0]] = saved[j]


@njit(cache=True)
def policy_action(s, policy, mask, r, values, record_bytes, patch):
    """The policy's move for the seat to act: its best legal logit (``scalars[SC_GREEDY]``, the lowest action
    on ties, as ``PolicyAgent``), else a sample of its softmax over the legal actions (``r``: the draw); it
    observes with ``patch`` applied (``observe_patched``; no rows: the table's own observation)."""
    params, layers, nets, spec, scalars, view = policy
    obs = np.zeros(spec[S_OBS], np.float32)
    module_mask = np.zeros(spec[S_OUT], np.float32)
    module_logits = np.zeros(spec[S_OUT], np.float32)
    logits = np.zeros(NUM_ACTIONS, np.float32)
    observe_patched(s, record_bytes, patch, obs, mask)
    game_logits(params, layers, nets, spec, scalars, view, obs, mask, module_mask, module_logits, logits)
    top = -np.inf
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > top:
            top = logits[a]
            best = a
    if scalars[SC_GREEDY] > 0.0:
        return best
    total = 0.0
    for a in range(mask.shape[0]):
        values[a] = np.exp(np.float64(logits[a]) - top) if mask[a] else 0.0
        total += values[a]
    u = (r >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    last = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            last = a
            u -= values[a]
            if u < 0.0:
                return a
    return last


@njit(cache=True)
def banked_policy(bank, slot):
    """The ``policy_action`` arguments of the bank's policy for opponent slot ``slot`` (one the bank holds)."""
    params, layers, nets, spec, scalars, views, slot_entry = bank
    b = slot_entry[slot]
    return params, layers, nets[b], spec[b], scalars[b], views[b]


@njit(cache=True)
def compiled_here(bank, slot):
    """Whether the opponent of slot ``slot`` moves inside the kernel."""
    if slot < OUTSIDE_SLOT:
        return True
    slot_entry = bank[6]
    return slot < slot_entry.shape[0] and slot_entry[slot] >= 0


@njit(cache=True)
def opponent_action(states, i, kind, mask, r, scratch, values, policy, bank, state_bytes, observe_patch):
    """The compiled opponent's move in game i: the heuristic's, the policy's (observing with ``observe_patch``), a
    banked snapshot's (the table's own observation), or a uniformly random legal one."""
    if kind == HEURISTIC_SLOT:
        return heuristic_action(states, i, states[i].current, mask, r, scratch, values)
    if kind == POLICY_SLOT:
        return policy_action(states[i], policy, mask, r, values, state_bytes[i], observe_patch)
    if kind >= OUTSIDE_SLOT:
        return policy_action(states[i], banked_policy(bank, kind), mask, r, values, state_bytes[i], observe_patch[:0])
    return pick_random_action(states[i], mask, r)


@njit(cache=True, parallel=True)
def vector_advance(states, actions, learner_seat, rewards, dones, fresh, episode_seeds, opponent_rng, slot_cdf,
                   opponent_slot, waiting, returns, scratch, played, played_count, resume, policy, bank, state_bytes,
                   observe_patch):  # fmt: skip
    n = states.shape[0]
    bad = np.full(n, -1, np.int64)
    for i in prange(n):
        s = states[i]
        seat = learner_seat[i]
        mask = np.zeros(NUM_ACTIONS, np.int8)
        values = np.zeros(NUM_ACTIONS, np.float64)
        played_count[i] = 0
        if resume:
            if waiting[i] == 0:
                continue
            if step(s, actions[i]) != 0:  # the outside opponent's move
                bad[i] = i
                continue
            if played_count[i] < played.shape[1]:
                played[i, played_count[i]] = actions[i]
            played_count[i] += 1
            waiting[i] = 0
            rewards[i] += s.rewards[seat]
            for p in range(returns.shape[1]):
                returns[i, p] += s.rewards[p]
        else:
            waiting[i] = 0
            if actions[i] < 0:
                start_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns)
                fresh[i] = 1
            elif dones[i] != 0:
                episode_seeds[i] = rng_next(s)
                start_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns)
                fresh[i] = 1
            else:
                if step(s, actions[i]) != 0:
                    bad[i] = i
                    continue
                fresh[i] = 0
                for p in range(returns.shape[1]):
                    returns[i, p] += s.rewards[p]
            rewards[i] = 0.0 if fresh[i] else s.rewards[seat]
            dones[i] = 0
        while True:
            while not s.done and s.current != seat:
                kind = opponent_slot[i]
                if not compiled_here(bank, kind):  # the learner's own copy or a snapshot: decided in Python
                    waiting[i] = 1
                    break
                r = splitmix64(opponent_rng[i])
                opponent_rng[i] = r
                a = opponent_action(states, i, kind, mask, r, scratch, values, policy, bank, state_bytes, observe_patch)
                if played_count[i] < played.shape[1]:
                    played[i, played_count[i]] = a
                played_count[i] += 1
                step(s, a)
                rewards[i] += s.rewards[seat]
                for p in range(returns.shape[1]):
                    returns[i, p] += s.rewards[p]
            if waiting[i] != 0:
                break
            if s.done and fresh[i]:
                episode_seeds[i] = rng_next(s)
                start_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns)
                rewards[i] = 0.0
                played_count[i] = 0
                continue
            break
        if s.done:
            dones[i] = 1
    for i in range(n):
        if bad[i] >= 0:
            return i
    return -1
