"""A game's actions as a policy indexes them by candidate rows: action k is the k-th legal placement.

A game whose observation lists one row per legal placement (the Duel's ``placement_candidates``: row k the
k-th legal action among the first ``placements`` actions, in action order) can be played through a
smaller action space of ``rows + num_actions - placements`` actions: ``k < rows`` is the k-th legal
placement (the one row k describes), ``rows + j`` is the game's action ``placements + j`` (``pass``, module
choices). Its mask is the first ``count`` of the rows (count = legal placements), then the game's mask of
the other actions. A policy then scores rows directly, and its distribution is over ~900 entries instead
of the Duel's 6,535 (training's candidate head). ``GameVectorEnv(candidate_actions=True)`` steps games in
this space; ``agents.rllib_policy`` plays a policy trained in it in any env.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

# numba functions take arrays, typed by numba rather than by hints


@njit(cache=True)
def _candidate_masks(full, placements: int, rows: int, out) -> int:
    """``out[i]``: row i's candidate mask from its game mask ``full[i]``; the first row with more legal
    placements than ``rows`` (then ``out`` is incomplete), or -1."""
    for i in range(full.shape[0]):
        count = 0
        for a in range(placements):
            if full[i, a] != 0:
                count += 1
        if count > rows:
            return i
        for k in range(rows):
            out[i, k] = 1 if k < count else 0
        for j in range(full.shape[1] - placements):
            out[i, rows + j] = 1 if full[i, placements + j] != 0 else 0
    return -1


@njit(cache=True)
def _game_actions(full, chosen, placements: int, rows: int, out) -> int:
    """``out[i]``: the game action of candidate action ``chosen[i]`` under game mask ``full[i]``; the first row
    whose choice is not legal there, or -1."""
    for i in range(full.shape[0]):
        k = chosen[i]
        out[i] = -1
        if k >= rows:
            a = placements + k - rows
            if a < full.shape[1] and full[i, a] != 0:
                out[i] = a
        elif k >= 0:
            seen = 0
            for a in range(placements):
                if full[i, a] != 0:
                    if seen == k:
                        out[i] = a
                        break
                    seen += 1
        if out[i] < 0:
            return i
    return -1


@dataclass(frozen=True)
class CandidateActions:
    """The candidate action space of a game with ``num_actions`` actions whose first ``placements`` are
    described by up to ``rows`` observation rows (module docstring)."""

    num_actions: int
    placements: int
    rows: int

    def __post_init__(self) -> None:
        if not 1 <= self.placements <= self.num_actions or self.rows < 1:
            raise ValueError(
                f"candidate actions need 1 <= placements <= num_actions and rows >= 1, got placements="
                f"{self.placements}, num_actions={self.num_actions}, rows={self.rows}"
            )

    @property
    def size(self) -> int:
        """Actions in the candidate space: one per row, then the game's actions past the placements."""
        return self.rows + self.num_actions - self.placements

    def _checked(self, full: np.ndarray) -> np.ndarray:
        full = np.asarray(full)
        if full.ndim != 2 or full.shape[1] != self.num_actions:
            raise ValueError(f"game masks must be (n, {self.num_actions}), got {full.shape}")
        return full

    def masks_into(self, full: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out`` (n, size): the candidate masks of game masks ``full`` (n, num_actions); ValueError if a mask
        has more legal placements than rows (they could not all be chosen)."""
        full = self._checked(full)
        if out.shape != (full.shape[0], self.size):
            raise ValueError(f"candidate masks must be ({full.shape[0]}, {self.size}), got {out.shape}")
        bad = _candidate_masks(full, self.placements, self.rows, out)
        if bad >= 0:
            legal = int(np.count_nonzero(full[bad, : self.placements]))
            raise ValueError(f"row {bad}: {legal} legal placements, more than the {self.rows} candidate rows")
        return out

    def masks(self, full: np.ndarray, dtype: type = np.float32) -> np.ndarray:
        """The candidate masks of game masks ``full`` (n, num_actions), as new (n, size) arrays."""
        full = self._checked(full)
        return self.masks_into(full, np.empty((full.shape[0], self.size), dtype))

    def game_actions(self, full: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """The game's actions (int64) for candidate actions ``chosen`` under game masks ``full``; ValueError if
        one is not legal (past the legal placements' rows, or a masked other action)."""
        full = self._checked(full)
        chosen = np.asarray(chosen, np.int64)
        if chosen.shape != (full.shape[0],):
            raise ValueError(f"one candidate action per mask row: {chosen.shape} for {full.shape[0]} rows")
        out = np.empty(full.shape[0], np.int64)
        bad = _game_actions(full, chosen, self.placements, self.rows, out)
        if bad >= 0:
            raise ValueError(f"row {bad}: candidate action {int(chosen[bad])} is not legal under its mask")
        return out

    def choices(self, full: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The candidate actions (int64) of the game's ``actions`` under game masks ``full``, the inverse of
        ``game_actions``; ValueError if one is not legal or its placement has no row."""
        full = self._checked(full)
        actions = np.asarray(actions, np.int64)
        if actions.shape != (full.shape[0],) or ((actions < 0) | (actions >= self.num_actions)).any():
            raise ValueError(f"one game action in 0..{self.num_actions - 1} per mask row, got {actions}")
        rows = np.arange(full.shape[0])
        if (full[rows, actions] == 0).any():
            raise ValueError(f"row {int(np.argmax(full[rows, actions] == 0))}: a game action its mask forbids")
        legal = full[:, : self.placements] != 0
        before = (legal & (np.arange(self.placements) < actions[:, None])).sum(axis=1)
        out = np.where(actions < self.placements, before, self.rows + actions - self.placements)
        if (out[actions < self.placements] >= self.rows).any():
            raise ValueError(f"a legal placement past the {self.rows} candidate rows")
        return out.astype(np.int64)


def candidate_actions_of(game: object, piece: str) -> CandidateActions:
    """The candidate action space of ``game`` (an engine ``Game``) whose observation piece ``piece`` holds the
    rows (``(rows, features)``) of its ``candidate_actions`` leading actions; ValueError if it has none."""
    layout = game.observation_layout()
    names = list(layout.names()) if layout is not None else []
    placements = game.candidate_actions
    shape = tuple(layout.shape(piece)) if piece in names else ()
    if len(shape) != 2 or not isinstance(placements, (int, np.integer)) or isinstance(placements, bool):
        raise ValueError(
            f"candidate actions need an observation piece {piece!r} of (rows, features) and the game's int "
            f"candidate_actions; {game.name} has pieces {names} (shape {shape}) and candidate_actions {placements!r}"
        )
    return CandidateActions(int(game.num_actions), int(placements), int(shape[0]))
