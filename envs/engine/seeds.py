"""Seeds as users pass them: Python or NumPy ints in [0, 2**64), checked before any compiled code."""

import numpy as np

_SEED_MASK = (1 << 64) - 1


def checked_seed(seed: object, what: str = "seed", span: int = 1) -> int:
    """``seed`` as an int such that seed .. seed + span - 1 all lie in [0, 2**64); ValueError otherwise."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
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
