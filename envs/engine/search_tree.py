"""The search tree's bookkeeping, shared by the compiled IS-MCTS loops (``agents.search``).

The tree lives in preallocated arrays: ``tree_i[n] = (action, mover, first_child, next_sibling)`` and
``tree_f[n] = (visits, availability, value, ...)``; node 0 is the root, and a node's children form a linked
list through ``next_sibling``. ``child_of`` maps an action to the child taking it while a node's children are
marked, -1 otherwise. It lives in the engine so that compiled templates can call it.
"""

from numba import njit


@njit(cache=True)
def copy_bytes(source, target):
    """``target[k] = source[k]`` for every byte of ``source`` (the root record into the work record): an explicit
    loop, as numba's slice copy is ~15x slower here."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@njit(cache=True)
def restrict_mask(mask, allowed):
    """``mask &= allowed``, action by action (the actions searched at the root)."""
    for a in range(mask.shape[0]):
        mask[a] &= allowed[a]


@njit(cache=True)
def mark_children(node, mover, child_of, tree_i):
    """``child_of[a]``: the child of ``node`` where ``mover`` takes action ``a``."""
    c = tree_i[node, 2]
    while c >= 0:
        if tree_i[c, 1] == mover:
            child_of[tree_i[c, 0]] = c
        c = tree_i[c, 3]


@njit(cache=True)
def clear_children(node, mover, mask, child_of, tree_i, tree_f, count_available):
    """``child_of`` back to -1 for every child of ``node``; with ``count_available``, in the same pass, each child
    ``mover`` may take under ``mask`` counts one more availability."""
    c = tree_i[node, 2]
    while c >= 0:
        child_of[tree_i[c, 0]] = -1
        if count_available and tree_i[c, 1] == mover and mask[tree_i[c, 0]]:
            tree_f[c, 1] += 1.0
        c = tree_i[c, 3]


@njit(cache=True)
def link_child(node, child, action, mover, availability, tree_i, tree_f):
    """Row ``child`` becomes ``node``'s first child: ``mover`` taking ``action``, unvisited, value 0."""
    tree_i[child, 0] = action
    tree_i[child, 1] = mover
    tree_i[child, 2] = -1
    tree_i[child, 3] = tree_i[node, 2]
    tree_i[node, 2] = child
    tree_f[child, 0] = 0.0
    tree_f[child, 1] = availability
    tree_f[child, 2] = 0.0


@njit(cache=True)
def back_up(path, depth, util, tree_i, tree_f):
    """One more visit for the root and each node of ``path[:depth]``, which gains the utility of its mover."""
    tree_f[0, 0] += 1.0
    for d in range(depth):
        n = path[d]
        tree_f[n, 0] += 1.0
        tree_f[n, 2] += util[tree_i[n, 1]]
