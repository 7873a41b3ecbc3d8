"""Batch and rollout kernels: a template compiled once per game (``kernels_of(game)``, ``envs.engine.templates``).

The names imported from ``envs.engine.contract`` are the game's own functions in each compiled copy.
A game without its own ``pick_random_action`` or heuristic (``action_values``) gets the defaults below.

For the AEC adapter, one state seen as bytes (numba dispatches a uint8 array faster than a record);
only for a record of the game's ``state_dtype``:

- ``buf_step(buf, action) -> int``: -1 if illegal (state untouched), 0 if the game is over, else the
  seat to act next + 1
- ``buf_observe(buf, seat) -> (obs, mask)``; ``buf_legal(buf, mask) -> int``: the acting seat's mask

Kernels (``states`` is an array of state records):

- ``batch_reset(states, seeds)``: start game i from ``seeds[i]``
- ``batch_step(states, actions, rewards, dones, episode_seeds) -> int``: step every game; a finished
  game is reset at once with a seed drawn from its own generator (written to ``episode_seeds[i]``),
  its final rewards in ``rewards`` and ``dones[i] = 1``; returns the index of the first illegal action
  (that game untouched), or -1
- ``batch_observe(states, obs, masks)``: each game's acting seat's observation and mask;
  ``batch_observe_seats`` for given seats, ``batch_observe_where`` only where ``which[i]``
- ``batch_legal_mask(states, masks)``: each game's acting seat's mask
- ``random_steps(states, seed, steps_per_game) -> int``: random legal play, auto-reset, every game
  ``steps_per_game`` steps; returns games finished (raw-speed measure). The same in pieces:
  ``draws = random_draws(n, seed)`` (each game's generator), then ``random_steps_from(states, draws, steps)``
  as often as wanted, which carries ``draws`` on (``BatchEnv.random_steps`` calls it in bounded chunks)
- ``random_playout(s, seed, returns)``: play one game to its end at random and add each seat's
  rewards into ``returns`` (search rollouts)
- ``heuristic_action(states, i, seat, mask, r, scratch, values)``: the game heuristic's move in game i:
  its ``action_values`` on a copy of the state determinized for ``seat`` from ``r``, the best value's
  ties broken by ``splitmix64(r)``
"""

import numpy as np
from numba import njit, prange

from envs.engine.bits import best_of, kth_legal
from envs.engine.contract import (
    NUM_ACTIONS,
    STATE_DTYPE,
    determinize,
    legal_into,
    observe,
    observe_into,
    reset,
    step,
)
from envs.engine.record import copy_record
from envs.engine.rng import rng_next, splitmix64


@njit(cache=True)
def pick_random_action(s, mask, r):
    """A uniformly random legal action from the random 64-bit ``r`` (a game may bring a faster one)."""
    n = legal_into(s, mask)
    return kth_legal(mask, np.uint64(r) % np.uint64(n))


@njit(cache=True)
def action_values(state, work, seat, mask, out):
    """No heuristic: every legal action valued alike (the vector env never draws this opponent)."""
    out[:] = 0.0


@njit(cache=True)
def buf_step(buf, action):
    s = buf.view(STATE_DTYPE)[0]
    if step(s, action) != 0:
        return -1
    return 0 if s.done else s.current + 1


@njit(cache=True)
def buf_observe(buf, seat):
    return observe(buf.view(STATE_DTYPE)[0], seat)


@njit(cache=True)
def buf_legal(buf, mask):
    return legal_into(buf.view(STATE_DTYPE)[0], mask)


@njit(cache=True, parallel=True)
def batch_reset(states, seeds):
    for i in prange(states.shape[0]):
        reset(states[i], np.uint64(seeds[i]))


@njit(cache=True)
def next_game_seed(s):
    """The seed of the game that follows ``s`` in its slot: drawn from the finished game's generator."""
    return rng_next(s)


@njit(cache=True, parallel=True)
def batch_step(states, actions, rewards, dones, episode_seeds):
    n = states.shape[0]
    bad = np.full(n, -1, np.int64)
    for i in prange(n):
        s = states[i]
        dones[i] = 0
        if step(s, actions[i]) != 0:
            bad[i] = i
            continue
        for p in range(rewards.shape[1]):
            rewards[i, p] = s.rewards[p]
        if s.done:
            dones[i] = 1
            episode_seeds[i] = next_game_seed(s)
            reset(s, episode_seeds[i])
    for i in range(n):
        if bad[i] >= 0:
            return i
    return -1


@njit(cache=True, parallel=True)
def batch_observe(states, obs, masks):
    for i in prange(states.shape[0]):
        s = states[i]
        observe_into(s, max(s.current, 0), obs[i], masks[i])


@njit(cache=True, parallel=True)
def batch_observe_seats(states, seats, obs, masks):
    for i in prange(states.shape[0]):
        observe_into(states[i], seats[i], obs[i], masks[i])


@njit(cache=True, parallel=True)
def batch_observe_where(states, which, obs, masks):
    for i in prange(states.shape[0]):
        if which[i]:
            s = states[i]
            observe_into(s, s.current, obs[i], masks[i])


@njit(cache=True, parallel=True)
def batch_legal_mask(states, masks):
    for i in prange(states.shape[0]):
        legal_into(states[i], masks[i])


@njit(cache=True)
def random_draws(n, seed):
    draws = np.empty(n, np.uint64)
    for i in range(n):
        draws[i] = splitmix64(np.uint64(seed) + np.uint64(i))
    return draws


@njit(cache=True, parallel=True)
def random_steps_from(states, draws, steps_per_game):
    n = states.shape[0]
    finished = np.zeros(n, np.int64)
    for i in prange(n):
        s = states[i]
        mask = np.zeros(NUM_ACTIONS, np.int8)
        r = draws[i]
        for _ in range(steps_per_game):
            r = splitmix64(r)
            step(s, pick_random_action(s, mask, r))
            if s.done:
                finished[i] += 1
                reset(s, next_game_seed(s))
        draws[i] = r
    return finished.sum()


@njit(cache=True)
def random_steps(states, seed, steps_per_game):
    return random_steps_from(states, random_draws(states.shape[0], seed), steps_per_game)


@njit(cache=True)
def random_playout(s, seed, returns):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    r = splitmix64(np.uint64(seed))
    while not s.done:
        r = splitmix64(r)
        step(s, pick_random_action(s, mask, r))
        for p in range(returns.shape[0]):
            returns[p] += s.rewards[p]


@njit(cache=True)
def heuristic_action(states, i, seat, mask, r, scratch, values):
    n = legal_into(states[i], mask)
    if n == 1:
        return kth_legal(mask, np.uint64(0))
    base = scratch[i, 0:1]
    copy_record(states[i : i + 1], base)
    determinize(base[0], seat, np.uint64(r))
    action_values(base, scratch[i, 1:2], seat, mask, values)
    return best_of(values, mask, splitmix64(np.uint64(r)))
