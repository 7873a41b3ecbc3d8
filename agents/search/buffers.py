"""What a search agent hands its compiled loop: the root record and the arrays the loop reads and writes, kept from
move to move so that a move allocates nothing while the tree fits."""

from typing import Any

import numpy as np


def search_root(env: Any) -> tuple[np.ndarray, int]:
    """A copy of the env's state record (an array of one) and the acting seat: where a search starts."""
    root = env.game.new_state()
    root[0] = env.core_state
    return root, env.possible_agents.index(env.agent_selection)


class SearchBuffers:
    """The arrays every compiled search loop takes, for one state layout: the root record and its working copy (each
    also as bytes), the legal and root masks, the child index (``child_of``), each seat's returns and utility, and
    the tree (``tree_i`` rows of 4 ints, ``tree_f`` rows of ``tree_columns`` floats; none until grown)."""

    def __init__(self, root: np.ndarray, num_actions: int, tree_columns: int) -> None:
        self.root = np.zeros(1, root.dtype)
        self.root_bytes = self.root.view(np.uint8)
        self.work = np.zeros(1, root.dtype)
        self.work_bytes = self.work.view(np.uint8)
        self.mask = np.zeros(num_actions, np.int8)
        self.root_mask = np.ones(num_actions, np.int8)
        self.child_of = np.full(num_actions, -1, np.int32)
        seats = len(root[0]["rewards"])
        self.returns = np.zeros(seats, np.float64)
        self.util = np.zeros(seats, np.float64)
        self.tree_i = np.zeros((0, 4), np.int32)
        self.tree_f = np.zeros((0, tree_columns), np.float64)

    def grow(self, cap: int) -> None:
        """Tree arrays of ``cap`` rows, the nodes so far copied into them (the new rows zero)."""
        tree_i = np.zeros((cap, 4), np.int32)
        tree_f = np.zeros((cap, self.tree_f.shape[1]), np.float64)
        tree_i[: len(self.tree_i)] = self.tree_i
        tree_f[: len(self.tree_f)] = self.tree_f
        self.tree_i, self.tree_f = tree_i, tree_f
