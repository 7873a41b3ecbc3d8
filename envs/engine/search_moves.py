"""The moves both search loops make outside their tree: a template compiled once per game (``compiled_for``
in ``envs.engine.templates`` binds them into ``agents.search``'s loops as ``default_move`` and ``playout``).

The names imported from ``envs.engine.contract`` are the game's own functions in each compiled copy; a game
without its own ``SearchHooks.default_policy`` moves uniformly at random (the fallback below).
"""

from numba import njit

from envs.engine.contract import pick_random_action, random_playout, step
from envs.engine.rng import splitmix64


@njit(cache=True)
def default_policy(s, seat, mask, r):
    """Uniformly random legal moves (SearchHooks.default_policy replaces it)."""
    return pick_random_action(s, mask, r)


@njit(cache=True)
def default_move(s, seat, mask, r, returns):
    """The acting seat's default-policy move (``seat`` searching), its rewards added to ``returns``."""
    step(s, default_policy(s, seat, mask, r))
    for p in range(returns.shape[0]):
        returns[p] += s.rewards[p]


@njit(cache=True)
def playout(s, seat, mask, r, rollout_steps, returns):
    """From ``s``: a random playout to the end (``rollout_steps < 0``) or that many default-policy moves, their
    rewards added to ``returns``."""
    if rollout_steps < 0:
        random_playout(s, r, returns)
        return
    for _ in range(rollout_steps):
        if s.done:
            return
        r = splitmix64(r)
        default_move(s, seat, mask, r, returns)
