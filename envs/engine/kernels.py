"""Batch and rollout kernels, written once and compiled against each game's core.

numba caches neither closures nor functions that take other compiled functions
as arguments, so the kernels below are kept as source text and compiled inside
each game's ``kernels.py`` namespace (``compile_kernels(globals())``), where the
names ``reset``, ``step``, ``legal_into``, ``observe_into``, ``NUM_ACTIONS`` and
``OBS_SIZE`` are that game's. A game may also bring ``pick_random_action(s, mask, r)`` (a
uniformly random legal action from the random 64-bit ``r``) when it can do better than
filling the mask and scanning it; otherwise a default one is compiled. numba then caches
them next to that file, once per game (the cache folder is keyed by every source file:
see ``envs._numba_cache``).

For the AEC adapter, one state seen as bytes (numba dispatches a uint8 array about 3x
faster than a record, a large share of a turn's cost); compiled when the game's kernels
module has ``STATE_DTYPE`` and ``observe`` (a game whose layout depends on its config
has no single dtype, and the adapter then calls the record functions):

- ``buf_step(buf, action) -> int``: -1 if illegal (state untouched), 0 if the game is
  over, else the seat to act next + 1
- ``buf_observe(buf, seat) -> (obs, mask)``

Kernels (``states`` is an array of state records):

- ``batch_reset(states, seeds)``: start game i from ``seeds[i]``
- ``batch_step(states, actions, rewards, dones, episode_seeds) -> int``: step every game;
  a finished game is reset at once with a seed drawn from its own generator (written to
  ``episode_seeds[i]``), its final rewards in ``rewards`` and ``dones[i] = 1``; returns the
  index of the first illegal action (that game untouched), or -1
- ``batch_observe(states, obs, masks)``: each game's acting seat's observation and mask
- ``batch_legal_mask(states, masks)``: each game's acting seat's mask
- ``random_steps(states, seed, steps_per_game) -> int``: random legal play, auto-reset,
  every game ``steps_per_game`` steps; returns games finished (raw-speed measure)
- ``random_playout(s, seed, returns)``: play one game to its end at random and add each
  seat's rewards into ``returns`` (search rollouts)
- ``vector_advance(states, actions, learner_seat, rewards, dones, fresh, episode_seeds, opponent_rng,
  slot_cdf, opponent_slot, waiting, returns, scratch, played, played_count, resume) -> int``: one
  learner decision per game, then opponents until the learner's seat is to act again, the game is
  over, or an outside opponent is to act (the gymnasium vector env, ``training.vector_env``).
  ``actions[i] < 0`` starts game i from ``episode_seeds[i]``; a game with ``dones[i] == 1`` (finished
  by the previous call) ignores its action and starts again from ``rng_next`` of its finished state
  (the seed written to ``episode_seeds[i]``). Each start seeds ``opponent_rng[i] =
  splitmix64(seed ^ OPPONENT_SALT)`` and draws the game's opponent slot from the cumulative weights
  ``slot_cdf``: ``RANDOM_SLOT`` (uniformly random legal moves), ``HEURISTIC_SLOT`` (``heuristic_action``),
  ``OUTSIDE_SLOT`` and above (decided in Python: the kernel sets ``waiting[i] = 1`` and stops; a call
  with ``resume=True`` plays ``actions[i]`` for each waiting game and goes on). ``fresh[i]``: the
  learner has not acted yet in the game (one that ends before it does is dropped and the next one
  started). ``rewards[i]``: the learner's rewards over the call (summed over resumes); ``returns[i]``:
  every seat's rewards in the game so far; ``played[i]``: the opponents' actions of the call (up to
  its width; ``played_count[i]`` counts them all); returns the first game whose action was illegal
  (that game untouched), or -1
- ``heuristic_action(states, i, seat, mask, r, scratch, values)``: the game heuristic's move in game i:
  its compiled ``action_values(state, work, seat, mask, out)`` (``envs/<game>/heuristic.py``) on a copy
  of the state determinized for ``seat`` from ``r``, the best value's ties broken by ``splitmix64(r)``
  (a game without one gets ``NO_HEURISTIC``, and ``HAS_COMPILED_HEURISTIC`` is False)
- ``batch_observe_where(states, which, obs, masks)``: the acting seat's observation where ``which[i]``
"""

import importlib
import inspect
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit, prange

from envs.engine.bits import kth_legal
from envs.engine.record import copy_record
from envs.engine.rng import rng_next, splitmix64

BUF_SOURCE = """
@njit(cache=True)
def buf_step(buf, action):
    s = buf.view(STATE_DTYPE)[0]
    if step(s, action) != 0:
        return -1
    return 0 if s.done else s.current + 1


@njit(cache=True)
def buf_observe(buf, seat):
    return observe(buf.view(STATE_DTYPE)[0], seat)
"""

KERNEL_SOURCE = """
@njit(cache=True, parallel=True)
def batch_reset(states, seeds):
    for i in prange(states.shape[0]):
        reset(states[i], np.uint64(seeds[i]))


@njit(cache=True)
def _next_game_seed(s):
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
            episode_seeds[i] = _next_game_seed(s)
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
def batch_legal_mask(states, masks):
    for i in prange(states.shape[0]):
        legal_into(states[i], masks[i])


@njit(cache=True, parallel=True)
def random_steps(states, seed, steps_per_game):
    n = states.shape[0]
    finished = np.zeros(n, np.int64)
    for i in prange(n):
        s = states[i]
        mask = np.zeros(NUM_ACTIONS, np.int8)
        r = splitmix64(np.uint64(seed) + np.uint64(i))
        for _ in range(steps_per_game):
            r = splitmix64(r)
            step(s, pick_random_action(s, mask, r))
            if s.done:
                finished[i] += 1
                reset(s, _next_game_seed(s))
    return finished.sum()


@njit(cache=True)
def random_playout(s, seed, returns):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    r = splitmix64(np.uint64(seed))
    while not s.done:
        r = splitmix64(r)
        step(s, pick_random_action(s, mask, r))
        for p in range(returns.shape[0]):
            returns[p] += s.rewards[p]
"""

VECTOR_SOURCE = """
@njit(cache=True)
def _start_vector_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns):
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
def heuristic_action(states, i, seat, mask, r, scratch, values):
    n = legal_into(states[i], mask)
    if n == 1:
        return kth_legal(mask, np.uint64(0))
    base = scratch[i, 0:1]
    copy_record(states[i : i + 1], base)
    determinize(base[0], seat, np.uint64(r))
    action_values(base, scratch[i, 1:2], seat, mask, values)
    return best_of(values, mask, splitmix64(np.uint64(r)))


@njit(cache=True)
def _opponent_action(states, i, kind, mask, r, scratch, values):
    if kind == HEURISTIC_SLOT:
        return heuristic_action(states, i, states[i].current, mask, r, scratch, values)
    return pick_random_action(states[i], mask, r)


@njit(cache=True, parallel=True)
def vector_advance(states, actions, learner_seat, rewards, dones, fresh, episode_seeds, opponent_rng, slot_cdf,
                   opponent_slot, waiting, returns, scratch, played, played_count, resume):  # fmt: skip
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
                _start_vector_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns)
                fresh[i] = 1
            elif dones[i] != 0:
                episode_seeds[i] = _next_game_seed(s)
                _start_vector_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns)
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
                if kind >= OUTSIDE_SLOT:  # a snapshot or the learner's own copy: decided in Python
                    waiting[i] = 1
                    break
                r = splitmix64(opponent_rng[i])
                opponent_rng[i] = r
                a = _opponent_action(states, i, kind, mask, r, scratch, values)
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
                episode_seeds[i] = _next_game_seed(s)
                _start_vector_game(s, i, episode_seeds, opponent_rng, slot_cdf, opponent_slot, returns)
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
"""

OPPONENT_SALT = 0x0BB0_5EED_0BB0_5EED  # opponent generator of a vector-env game: splitmix64(seed ^ this)
RANDOM_SLOT, HEURISTIC_SLOT, OUTSIDE_SLOT = 0, 1, 2  # opponent slots; OUTSIDE_SLOT and above act from Python

DEFAULT_RANDOM_ACTION = """
@njit(cache=True)
def pick_random_action(s, mask, r):
    n = legal_into(s, mask)
    return kth_legal(mask, np.uint64(r) % np.uint64(n))
"""

# a game without a compiled heuristic: every legal action valued alike (a random pick); the vector env
# never draws the heuristic slot for it (HAS_COMPILED_HEURISTIC is False)
NO_HEURISTIC = """
@njit(cache=True)
def action_values(state, work, seat, mask, out):
    out[:] = 0.0


@njit(cache=True)
def determinize(s, seat, seed):
    pass
"""


@njit(cache=True)
def best_of(values: np.ndarray, mask: np.ndarray, r: np.uint64) -> int:
    """A legal action of highest value (within 1e-9), ties broken uniformly by the random 64-bit ``r``."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and values[a] > top:
            top = values[a]
    ties = 0
    for a in range(mask.shape[0]):
        if mask[a] and values[a] >= top - 1e-9:
            ties += 1
    k = np.uint64(r) % np.uint64(ties)
    for a in range(mask.shape[0]):
        if mask[a] and values[a] >= top - 1e-9:
            if k == 0:
                return a
            k -= 1
    return -1


KERNEL_NAMES = (
    "buf_step",
    "buf_observe",
    "batch_reset",
    "batch_step",
    "batch_observe",
    "batch_legal_mask",
    "random_steps",
    "random_playout",
    "vector_advance",
    "batch_observe_seats",
    "batch_observe_where",
    "heuristic_action",
)


def kernels_of(game: Any) -> ModuleType:
    """The compiled kernels module of a game (``envs.<game>.kernels``)."""
    package = type(game).__module__.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.kernels")


VALUES_PARAMETERS = ("state", "work", "seat", "mask", "out")  # a game heuristic's compiled action_values


def _compiled_heuristic(package: str) -> tuple[Any, Any] | None:
    """``(action_values, determinize)`` of a game whose heuristic module has a compiled ``action_values``."""
    try:
        heuristic = importlib.import_module(f"{package}.heuristic")
        determinize = importlib.import_module(f"{package}.determinize").determinize
    except ImportError:
        return None
    values = getattr(heuristic, "action_values", None)
    if not hasattr(values, "py_func") or tuple(inspect.signature(values.py_func).parameters) != VALUES_PARAMETERS:
        return None
    return values, determinize


def compile_kernels(namespace: dict) -> None:
    """Define the kernels inside a game's ``kernels.py`` module namespace (see the module docstring)."""
    needed = ("reset", "step", "legal_into", "observe_into", "NUM_ACTIONS")
    missing = [k for k in needed if k not in namespace]
    if missing:
        raise RuntimeError(f"{namespace.get('__name__')} must import {missing} from its core before compile_kernels")
    namespace.update(
        np=np,
        njit=njit,
        prange=prange,
        rng_next=rng_next,
        splitmix64=splitmix64,
        kth_legal=kth_legal,
        best_of=best_of,
        copy_record=copy_record,
        OPPONENT_SALT=OPPONENT_SALT,
        HEURISTIC_SLOT=HEURISTIC_SLOT,
        OUTSIDE_SLOT=OUTSIDE_SLOT,
    )
    heuristic = _compiled_heuristic(namespace["__name__"].rsplit(".", 1)[0])
    namespace["HAS_COMPILED_HEURISTIC"] = heuristic is not None
    if heuristic is None:
        exec(compile(NO_HEURISTIC, namespace["__file__"], "exec"), namespace)
    else:
        namespace["action_values"], namespace["determinize"] = heuristic
    if "pick_random_action" not in namespace:
        exec(compile(DEFAULT_RANDOM_ACTION, namespace["__file__"], "exec"), namespace)
    exec(compile(KERNEL_SOURCE, namespace["__file__"], "exec"), namespace)
    exec(compile(VECTOR_SOURCE, namespace["__file__"], "exec"), namespace)
    if "STATE_DTYPE" in namespace and "observe" in namespace:  # one fixed layout: the AEC fast path
        exec(compile(BUF_SOURCE, namespace["__file__"], "exec"), namespace)
