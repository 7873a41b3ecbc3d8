"""The random generator every game keeps inside its state record.

xorshift64* seeded through splitmix64: four integer operations a draw, and its
whole state is one uint64 field (``s.rng``), so cloning or serializing a game
clones its future chance events too. Nothing in the project touches the global
``random``/``np.random``.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STAR = np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True)
def splitmix64(x: np.uint64) -> np.uint64:
    """One splitmix64 output for input ``x``: spreads any seed over all 64 bits."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_seed(s, seed: np.uint64) -> None:
    """Seed the record's generator; seed 0 and every other seed give a non-zero state."""
    z = splitmix64(seed)
    if z == np.uint64(0):
        z = _GOLDEN
    s.rng = z


@njit(cache=True)
def rng_next(s) -> np.uint64:
    """Next 64 random bits from the record's generator."""
    x = s.rng
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    s.rng = x
    return x * _STAR


@njit(cache=True)
def rng_below(s, n: int) -> int:
    """A uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift, bias < 2**-32)."""
    hi = rng_next(s) >> np.uint64(32)
    return int((hi * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def rng_shuffle(s, arr, n: int) -> None:
    """Fisher-Yates shuffle of the first ``n`` entries of ``arr`` in place."""
    for i in range(n - 1, 0, -1):
        j = rng_below(s, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
