"""Bit tricks for compiled cores: hands, card sets and legal-action sets as uint64 masks.

``popcount`` and ``lowest_bit_index`` compile to single CPU instructions (LLVM's ctpop
and cttz); ``nth_set_bit`` picks a uniformly chosen legal action without a mask array.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True)
def popcount(x: np.uint64) -> int:
    """Number of set bits."""
    return np.int64(_ctpop(np.uint64(x)))


@njit(cache=True)
def lowest_bit_index(x: np.uint64) -> int:
    """Index of the lowest set bit (64 for x == 0)."""
    return np.int64(_cttz(np.uint64(x)))


@njit(cache=True)
def nth_set_bit(x: np.uint64, n: int) -> int:
    """Index of the n-th (0-based) set bit of x, counting from the lowest; -1 if there is none."""
    x = np.uint64(x)
    for _ in range(n):
        x &= x - np.uint64(1)
    if x == np.uint64(0):
        return np.int64(-1)
    return np.int64(_cttz(x))


@njit(cache=True)
def kth_legal(mask: np.ndarray, k: np.uint64) -> int:
    """The k-th (from 0) action marked legal in ``mask``; -1 if there are fewer."""
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= np.uint64(1)
    return -1


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
