"""The IS-MCTS iteration loop: a template compiled once per game (``agents.search.search_kernel``).

The names imported from ``envs.engine.contract`` are the game's own functions in each compiled copy
(``envs.engine.templates``): its rules, its determinization, its random playout (the batch kernels')
and its ``SearchHooks``; the module constants below are the hooks' defaults, replaced by the game's.

Single-observer IS-MCTS (Cowling, Powley and Whitehouse 2012) with UCT. One iteration:

1. copy the root record and ``determinize`` it for the searching seat: everything that
   seat cannot see (hidden cards, future chance) is resampled from the iteration's seed,
   so the search never reads hidden state;
2. descend the tree, keyed by action sequences from the root, choosing among the children
   legal in this determinization by UCB with availability counts (a child's exploration
   term uses how often it was legal, not the parent's visits);
3. expand one untried legal action (uniformly at random, or by the game's
   ``expand_action(s, untried, n_untried, r)``), play to the end with the compiled ``random_playout``
   (or, where the game's ``SearchHooks.rollout_steps >= 0``, that many steps of its
   ``default_policy`` only: its ``utility`` then evaluates unfinished positions);
4. back up ``utility(s, returns, u)`` (each seat's result in [0, 1]): each node gets the
   value of the seat that made its move.

``root_mask`` limits the actions searched at the root (all legal ones by default; a game's
``root_candidates`` hook may narrow a huge action set to the promising few).

A game may set ``opponents_in_tree=False``: the tree then holds only the searching
seat's own decisions (keyed by its own action sequence) and the other seats move by the
default policy in between, for games where they barely interact. Further optional hooks:

- ``default_policy(s, seat, mask, r)``: the move of the acting seat (``s.current``) outside the
  tree (rollouts, opponents kept out of the tree), ``seat`` being the searching one; uniformly
  random legal (``pick_random_action``) by default; ``envs.engine.search_moves`` makes these moves
  and the playouts, for this loop and the guided one;
- ``max_tree_depth``: the tree grows no deeper than this many levels (unlimited by
  default); below them the default policy plays;
- ``shared_determinizations = B``: iterations ``B k .. B k + B - 1`` share one determinization
  (and random stream): children compared within a block meet the same hidden cards and
  future chance (common random numbers); 1 by default (a fresh one each iteration); 0: B is
  the number of actions ``root_mask`` allows.

An exploration constant of ``inf`` allocates uniformly: each step takes the least visited
child (ties to the best mean). With one root action a block (``max_tree_depth=1``,
``shared_determinizations=0``) every root action is then tried once in every
determinization: a paired comparison.

The tree lives in preallocated arrays: ``tree_i[n] = (action, mover, first_child,
next_sibling)`` and ``tree_f[n] = (visits, availability, value)``; node 0 is the root.
"""

import numpy as np
from numba import njit

from envs.engine.contract import (
    default_move,
    determinize,
    legal_into,
    playout,
    step,
    utility,
)
from envs.engine.rng import splitmix64
from envs.engine.search_tree import back_up, clear_children, copy_bytes, link_child, mark_children, restrict_mask

ROLLOUT_STEPS = -1  # SearchHooks.rollout_steps
OPPONENTS_IN_TREE = True  # SearchHooks.opponents_in_tree
MAX_TREE_DEPTH = 1 << 30  # SearchHooks.max_tree_depth
SHARED_DETERMINIZATIONS = 1  # SearchHooks.shared_determinizations


@njit(cache=True)
def expand_action(s, untried, n_untried, r):
    """Uniformly at random among the untried actions (SearchHooks.expand_action replaces it)."""
    return untried[np.uint64(r) % np.uint64(n_untried)]


@njit(cache=True)
def _uct_child(node, mover, mask, child_of, tree_i, tree_f, c_explore):
    best = -1
    best_score = -1e300
    c = tree_i[node, 2]
    while c >= 0:
        if tree_i[c, 1] == mover and mask[tree_i[c, 0]]:
            visits = tree_f[c, 0]
            if np.isinf(c_explore):  # uniform: the least visited, ties to the best mean (in [0, 1])
                score = tree_f[c, 2] / visits - 2.0 * visits
            else:
                score = tree_f[c, 2] / visits + c_explore * np.sqrt(np.log(tree_f[c, 1]) / visits)
            if score > best_score:
                best_score = score
                best = c
        c = tree_i[c, 3]
    return best


@njit(cache=True, nogil=True)  # self-play searches several games at once in threads
def ismcts_iterate(
    root_bytes,
    work,
    work_bytes,
    seat,
    seed,
    first,
    count,
    c_explore,
    tree_i,
    tree_f,
    n_nodes,
    mask,
    root_mask,
    child_of,
    untried,
    path,
    returns,
    util,
):
    s = work[0]
    block = SHARED_DETERMINIZATIONS
    if block <= 0:  # one determinization a round of the root's candidates
        block = 0
        for a in range(root_mask.shape[0]):
            block += root_mask[a] != 0
        block = max(block, 1)
    for it in range(first, first + count):
        copy_bytes(root_bytes, work_bytes)
        r = splitmix64(np.uint64(seed) + np.uint64(it // block) * np.uint64(0x9E3779B97F4A7C15))
        determinize(s, seat, r)
        returns[:] = 0.0
        node = 0
        depth = 0
        expanded = False
        while not s.done and not expanded and depth < MAX_TREE_DEPTH:
            mover = s.current
            if not OPPONENTS_IN_TREE and mover != seat:  # the others play their default policy
                r = splitmix64(r)
                default_move(s, seat, mask, r, returns)
                continue
            legal_into(s, mask)
            if depth == 0:
                restrict_mask(mask, root_mask)
            mark_children(node, mover, child_of, tree_i)
            n_untried = 0
            for a in range(mask.shape[0]):
                if mask[a] and child_of[a] < 0:
                    untried[n_untried] = a
                    n_untried += 1
            clear_children(node, mover, mask, child_of, tree_i, tree_f, True)  # and counts the available ones
            if n_untried > 0:
                r = splitmix64(r)
                a = expand_action(s, untried, n_untried, r)
                child = n_nodes
                n_nodes += 1
                link_child(node, child, a, mover, 1.0, tree_i, tree_f)
                expanded = True
            else:
                child = _uct_child(node, mover, mask, child_of, tree_i, tree_f, c_explore)
                a = tree_i[child, 0]
            step(s, a)
            for p in range(returns.shape[0]):
                returns[p] += s.rewards[p]
            path[depth] = child
            depth += 1
            node = child
        if not s.done:
            r = splitmix64(r)
            playout(s, seat, mask, r, ROLLOUT_STEPS, returns)
        utility(s, returns, util)
        back_up(path, depth, util, tree_i, tree_f)
    return n_nodes
