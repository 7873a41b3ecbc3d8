"""Compiled kernels for random play: whole games with uniformly random legal actions (tests, measurements).

Actions are drawn from a local generator seeded separately, never from the state's own
``rng``, so the game's chance events are the same as in an env reset with the same seed.
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.core import legal_into, obs_size, observe_into, reset, step  # noqa: F401
from envs.dorfromantik_duel.rules import MAX_BOARD_RADIUS, num_actions
from envs.engine.kernels import compile_kernels
from envs.engine.rng import splitmix64

_STAR = np.uint64(0x2545F4914F6CDD1D)

# Columns of the per-game summary written by play_random_games.
G_STEPS, G_TURNS, G_EXTENT, G_TOTAL0, G_TOTAL1, G_WINNER, G_PASSES, G_PLACED0, G_PLACED1 = range(9)
NUM_SUMMARY = 9


@njit(cache=True)
def random_action(mask, n_legal: int, x: np.uint64):
    """The k-th legal action for a fresh k in [0, n_legal); returns (action, next generator state)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    hi = (x * _STAR) >> np.uint64(32)
    k = int((hi * np.uint64(n_legal)) >> np.uint64(32))
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a, x
            k -= 1
    return -1, x


@njit(cache=True)
def play_out(s, action_seed: np.uint64) -> int:
    """Play the game in record ``s`` to its end with random legal actions; returns the steps taken."""
    x = splitmix64(action_seed) | np.uint64(1)
    nc = (2 * s.radius + 1) ** 2
    mask = np.empty(nc * 6 + 1, np.int8)
    steps = 0
    while not s.done:
        n = legal_into(s, mask)
        a, x = random_action(mask, n, x)
        if step(s, a) != 0:
            return -1
        steps += 1
    return steps


@njit(cache=True)
def play_random_games(states, seeds, summary, board_tiles, board_rots) -> None:
    """Reset ``states[0]`` with each seed and play it out; one summary row per game, and the final
    boards (tile ids, rotations) into ``board_tiles``/``board_rots`` when they have a row for it."""
    s = states[0]
    for g in range(seeds.shape[0]):
        reset(s, seeds[g])
        steps = play_out(s, seeds[g] ^ np.uint64(0x5DEECE66D))
        summary[g, G_STEPS] = steps
        summary[g, G_TURNS] = s.turn
        summary[g, G_EXTENT] = max(s.extent[0], s.extent[1])
        summary[g, G_TOTAL0] = s.total[0]
        summary[g, G_TOTAL1] = s.total[1]
        summary[g, G_WINNER] = s.winner
        passes = 0
        for p in range(2):
            for t in range(s.used.shape[1]):
                if s.used[p, t] == 2:
                    passes += 1
        summary[g, G_PASSES] = passes
        summary[g, G_PLACED0] = s.n_placed[0]
        summary[g, G_PLACED1] = s.n_placed[1]
        if g < board_tiles.shape[0]:
            board_tiles[g] = s.cell_tile
            board_rots[g] = s.cell_rot


# The shared batch and rollout kernels (envs.engine.kernels), compiled against this core. Their
# masks are sized NUM_ACTIONS: the largest board the config allows, so any radius is in bounds.
NUM_ACTIONS = num_actions(MAX_BOARD_RADIUS)
OBS_SIZE = obs_size(MAX_BOARD_RADIUS)
compile_kernels(globals())


def extent_histogram(games: int, radius: int = 24, first_seed: int = 0) -> np.ndarray:
    """How far random games spread: counts of games by their farthest tile from the origin (steps),
    on a board of ``radius`` (pick it well above the answer, so the rim never steers a game)."""
    from envs.dorfromantik_duel.core import state_dtype
    from envs.dorfromantik_duel.rules import num_cells

    states = np.zeros(1, state_dtype(radius))
    states["num_players"] = 2
    states["radius"] = radius
    states["distinct_rotations"] = 1
    states["forbid_doomed_tasks"] = 1
    seeds = np.arange(first_seed, first_seed + games, dtype=np.uint64)
    summary = np.zeros((games, NUM_SUMMARY), np.int64)
    none_t = np.zeros((0, 2, num_cells(radius)), np.int16)
    none_r = np.zeros((0, 2, num_cells(radius)), np.int8)
    play_random_games(states, seeds, summary, none_t, none_r)
    return np.bincount(summary[:, G_EXTENT], minlength=radius + 1)


if __name__ == "__main__":  # python -m envs.dorfromantik_duel.kernels [games]: the measurement in the rules doc
    import sys

    hist = extent_histogram(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print({k: int(v) for k, v in enumerate(hist) if v}, "largest:", int(np.flatnonzero(hist)[-1]))
