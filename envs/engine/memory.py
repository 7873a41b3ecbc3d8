"""A bound from memory for batches of games: sizes whose buffers would not fit are refused before allocating.

numpy allocates lazily, so a batch far beyond memory can start and then fail deep inside a step (or get the
process killed). ``check_fits`` compares the bytes a batch will hold with a share (``MEMORY_SHARE``) of the
machine's memory: its physical memory, or the container's limit (cgroup) where that is lower.
"""

import os
from pathlib import Path

MEMORY_SHARE = 0.5  # of the machine's memory one batch of games may take
_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def machine_memory() -> int:
    """Bytes of memory this process can have: physical memory, or a lower container (cgroup) limit."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in _CGROUP_LIMITS:
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    return total


def check_fits(nbytes: int, what: str, share: float = MEMORY_SHARE) -> None:
    """ValueError naming ``what`` if ``nbytes`` exceed ``share`` of the machine's memory (``machine_memory``)."""
    limit = int(share * machine_memory())
    if nbytes > limit:
        raise ValueError(
            f"{what} would need {nbytes / 2**30:,.1f} GiB of buffers, more than {share:.0%} of this machine's "
            f"memory ({limit / 2**30:,.1f} GiB of {machine_memory() / 2**30:,.1f}): use fewer games"
        )


def batch_bytes(state_bytes: int, obs_size: int, num_actions: int, reward_width: int) -> int:
    """Bytes a ``BatchEnv`` holds per game: its state record, two observation arrays (``observe`` returns a fresh
    one while the last is still held), the mask and its copy, rewards, done flags and episode seeds."""
    return state_bytes + 2 * 4 * obs_size + 2 * num_actions + 8 * reward_width + 1 + 8
