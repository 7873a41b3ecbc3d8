"""Checks every user-given number gets before compiled code sees it: ints (not bools), seeds, seats."""

import numpy as np

_SEED_MASK = (1 << 64) - 1


def is_int(value: object) -> bool:
    """A Python or NumPy integer, not a bool (``True`` is an int to Python, never a seat or a count here)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def checked_seat(seat: object, num_players: int, what: str) -> int | None:
    """``seat`` as an int in [0, num_players), or None; ValueError naming ``what`` otherwise."""
    if seat is None:
        return None
    if is_int(seat) and 0 <= seat < num_players:
        return int(seat)
    raise ValueError(f"{what} must be None or a seat 0..{num_players - 1}, got {seat!r}")


def checked_seed(seed: object, what: str = "seed", span: int = 1) -> int:
    """``seed`` as an int such that seed .. seed + span - 1 all lie in [0, 2**64); ValueError otherwise."""
    if not is_int(seed):
        raise ValueError(f"{what} must be an int in [0, 2**64), got {seed!r}")
    value = int(seed)
    if not 0 <= value <= _SEED_MASK + 1 - span:
        top = "2**64" if span == 1 else f"2**64 - {span - 1}"
        raise ValueError(f"{what} must be in [0, {top}), got {value}")
    return value


def seed_to_uint64(seed: object, fallback_entropy: int) -> np.uint64:
    """A seed (see ``checked_seed``), or None for fresh entropy, as the uint64 the core takes."""
    if seed is None:
        return np.uint64(fallback_entropy & _SEED_MASK)
    return np.uint64(checked_seed(seed))
