"""What training from search learns from: the search's visit distribution and the game's outcome, kept in a buffer.

Expert iteration (Anthony et al. 2017) and AlphaZero (Silver et al. 2018): the policy's target at a position is
the root visit distribution of the search played there, the value's target the acting seat's return from that
decision to the end of the game (the game's own rewards, undiscounted: what guided search's value estimates).
``ReplayBuffer`` keeps the newest positions (a ring) and is saved as plain arrays (no pickle).
"""

from pathlib import Path

import numpy as np

from envs.engine.candidate_actions import CandidateActions
from envs.files import write_atomic

_KEYS = ("obs", "mask", "policy", "value")


def visit_target(visits: np.ndarray, mask: np.ndarray, move: int | None = None) -> np.ndarray:
    """The visit counts of the legal actions, normalized to sum to 1 (uniform over the legal ones if none was
    visited, as when only one action is legal and the search is skipped)."""
    legal = np.asarray(mask) > 0
    counts = np.where(legal, np.asarray(visits, np.float64), 0.0)
    total = counts.sum()
    if total <= 0:
        counts = legal.astype(np.float64)
        total = counts.sum()
    return (counts / total).astype(np.float32)


def best_target(visits: np.ndarray, mask: np.ndarray, move: int | None = None) -> np.ndarray:
    """All the probability on the expert's ``move`` (by default the most visited legal action), not on its spread
    of visits."""
    target = np.zeros(np.asarray(mask).shape[0], np.float32)
    if move is None:
        move = int(np.argmax(np.where(np.asarray(mask) > 0, np.asarray(visits, np.float64), -1.0)))
    target[move] = 1.0
    return target


# "q": the move played (one-hot, as "best"); the learner then fits that move's output to the return that followed.
# "values": each searched move's mean (NaN elsewhere), read by self-play from IS-MCTS itself, not from the visits
POLICY_TARGETS = {"visits": visit_target, "best": best_target, "q": best_target, "values": visit_target}


def candidate_targets(view: CandidateActions, mask: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(masks, policies)`` of game-space positions in ``view``'s candidate action space: row k's share is the
    k-th legal placement's, the other actions keep theirs; ValueError if a position has more legal placements
    than rows."""
    masks = view.masks(mask, np.int8)
    out = np.zeros((len(mask), view.size), np.float32)
    legal = np.asarray(mask)[:, : view.placements] != 0
    owner, placement = np.nonzero(legal)  # row-major: each position's legal placements in action order
    rank = np.arange(owner.size) - np.searchsorted(owner, owner)  # their index among the position's own
    out[owner, rank] = np.asarray(policy)[owner, placement]
    out[:, view.rows :] = np.asarray(policy)[:, view.placements :]
    return masks, out


def draw_move(visits: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A move drawn in proportion to the visits of the legal actions (exploration in a game's first moves)."""
    target = visit_target(visits, mask).astype(np.float64)
    return int(rng.choice(target.size, p=target / target.sum()))


class ReplayBuffer:
    """The newest ``capacity`` positions: observation, legal mask, policy target, value target."""

    def __init__(self, capacity: int, obs_size: int, num_actions: int) -> None:
        if capacity < 1:
            raise ValueError(f"the replay buffer holds at least 1 position, got {capacity}")
        self.capacity = int(capacity)
        self.obs = np.zeros((capacity, obs_size), np.float32)
        self.mask = np.zeros((capacity, num_actions), np.int8)
        self.policy = np.zeros((capacity, num_actions), np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.size = 0
        self.next = 0
        self.added = 0  # positions ever added (a resume carries it on)

    def add(self, obs: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        """Append rows (the oldest are overwritten once full)."""
        n = len(value)
        keep = min(n, self.capacity)  # more rows than the ring holds: only the newest stay
        rows = (self.next + np.arange(keep)) % self.capacity
        for name, part in zip(_KEYS, (obs, mask, policy, value), strict=True):
            getattr(self, name)[rows] = np.asarray(part)[n - keep :]
        self.next = (self.next + keep) % self.capacity
        self.size = min(self.size + keep, self.capacity)
        self.added += n

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """``n`` positions drawn uniformly with replacement: obs, mask, policy, value."""
        if self.size == 0:
            raise ValueError("the replay buffer is empty")
        rows = rng.integers(0, self.size, n)
        return self.obs[rows], self.mask[rows], self.policy[rows], self.value[rows]

    def save(self, path: Path) -> None:
        """The filled rows and the ring's position, as a compressed ``.npz`` written atomically."""
        import io

        buffer = io.BytesIO()
        order = np.arange(self.size)
        np.savez_compressed(
            buffer,
            **{k: getattr(self, k)[order] for k in _KEYS},
            state=np.array([self.capacity, self.size, self.next, self.added], np.int64),
        )
        write_atomic(path, buffer.getvalue())

    def load(self, path: Path) -> None:
        """Rows saved by ``save`` (parsed, never unpickled); ValueError if they do not fit this buffer."""
        with np.load(path, allow_pickle=False) as data:
            capacity, size, nxt, added = (int(x) for x in data["state"])
            arrays = {k: data[k] for k in _KEYS}
        shapes_ok = (
            capacity == self.capacity
            and 0 <= size <= capacity
            and 0 <= nxt < capacity
            and arrays["obs"].shape == (size, self.obs.shape[1])
            and arrays["mask"].shape == (size, self.mask.shape[1])
            and arrays["policy"].shape == (size, self.policy.shape[1])
            and arrays["value"].shape == (size,)
        )
        if not shapes_ok:
            raise ValueError(f"{path}: a replay buffer of another shape than this run's ({self.capacity} positions)")
        for k in _KEYS:
            getattr(self, k)[:size] = arrays[k]
        self.size, self.next, self.added = size, nxt, added
