"""Policy-guided IS-MCTS: a template compiled once per game (``agents.search.guided_kernel``).

The names imported from ``envs.engine.contract`` are the game's own functions in each compiled copy
(``envs.engine.templates``); the policy network is evaluated by ``envs.engine.policy_net``.

Single-observer IS-MCTS (Cowling, Powley and Whitehouse 2012) with the selection and evaluation of
AlphaZero (Silver et al. 2018): PUCT over the network's priors, and the network's value at the leaves,
mixed with random playouts (AlphaGo's lambda; Silver et al. 2016). One iteration:

1. copy the root record and ``determinize`` it for the searching seat (the search never reads hidden state);
2. descend: at each node, the children legal in this determinization compete by
   ``Q + c_puct * P * sqrt(availability) / (1 + visits)``, ``Q`` the child's mean utility for the seat that
   moves there (``FIRST_PLAY_VALUE`` while unvisited), ``P`` its prior (the network's softmax at
   ``prior_temperature``), ``availability`` how often it was
   legal when its parent was visited; a legal action with no child yet (one this determinization
   allows for the first time) gets one, its prior from the network at this node;
3. at the first unvisited node (the leaf) the network reads the acting seat's observation: its policy
   gives the leaf's children their priors, its value the leaf's utility; with ``value_weight < 1`` a
   random playout from the leaf adds ``(1 - value_weight)`` of the game's ``utility`` of its end;
   ``network_depth`` levels below the root and deeper, the network is not asked: children get uniform
   priors and the leaf's utility is the playout's alone (cheap iterations where the network adds least);
4. back up each seat's utility in [0, 1]; a node gets the value of the seat that made its move.

The game's IS-MCTS hooks (``ismcts_loop`` documents them) come as arguments, so one compiled loop serves both
the plain PUCT search and the game's own shape of search: ``rollout_steps`` (< 0: random playouts to the end;
k >= 0: k moves of the game's ``default_policy``, then its ``utility``), ``opponents_in_tree`` (False: the other
seats move by the default policy between the searching seat's nodes), ``max_tree_depth`` (no node deeper: below
it the leaf is evaluated afresh at each visit) and ``block`` (iterations sharing a determinization; 0: as many as
``root_mask`` keeps).

The value estimates the acting seat's return to come: its utility is ``(returns so far + value)`` scaled
from ``[value_lo, value_hi]`` to [0, 1]; the other seats share the opposite of the value equally (the
games searched this way are zero-sum). The descent stops ``path``'s length below the root.

The tree lives in preallocated arrays: ``tree_i[n] = (action, mover, first_child, next_sibling)`` and
``tree_f[n] = (visits, availability, value, prior)``; node 0 is the root. A call returns
``(nodes, iterations done)``: it stops early when the next iteration might not fit the arrays (each level
of a descent adds at most one child per action).
"""

import numpy as np
from numba import njit

from envs.engine.contract import (
    NUM_ACTIONS,
    default_move,
    determinize,
    heuristic_action,
    legal_into,
    observe_into,
    playout,
    step,
    utility,
)
from envs.engine.policy_net import game_logits
from envs.engine.rng import splitmix64
from envs.engine.search_tree import back_up, clear_children, copy_bytes, link_child, mark_children, restrict_mask

FIRST_PLAY_VALUE = 0.5  # Q of an unvisited child: neutral, so the priors alone order the first visits
PLAYOUT_GAME = 0  # a leaf's playout: random to the end, or the game's own (its rollout hooks)
PLAYOUT_HEURISTIC = 1  # every seat plays the game's heuristic
PLAYOUT_NETWORK = 2  # every seat plays the policy network's favourite legal move


@njit(cache=True)
def add_children(node, mover, mask, logits, temperature, child_of, tree_i, tree_f, n_nodes):
    """A child of ``node`` for each legal action that has none, its prior the policy's softmax over the legal
    actions at ``temperature`` (above 1: flatter than the network's); returns the node count."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > top:
            top = logits[a]
    total = 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            total += np.exp((np.float64(logits[a]) - top) / temperature)
    for a in range(mask.shape[0]):
        if mask[a] and child_of[a] < 0:
            child = n_nodes
            n_nodes += 1
            link_child(node, child, a, mover, 0.0, tree_i, tree_f)
            tree_f[child, 3] = np.exp((np.float64(logits[a]) - top) / temperature) / total
            child_of[a] = child
    return n_nodes


@njit(cache=True)
def puct_child(node, mover, mask, tree_i, tree_f, c_puct):
    """The legal child of ``node`` (moved by ``mover``) of best PUCT score, its availability counted."""
    best = -1
    best_score = -1e300
    c = tree_i[node, 2]
    while c >= 0:
        if tree_i[c, 1] == mover and mask[tree_i[c, 0]]:
            tree_f[c, 1] += 1.0
            visits = tree_f[c, 0]
            q = tree_f[c, 2] / visits if visits > 0 else FIRST_PLAY_VALUE
            score = q + c_puct * tree_f[c, 3] * np.sqrt(tree_f[c, 1]) / (1.0 + visits)
            if score > best_score:
                best_score = score
                best = c
        c = tree_i[c, 3]
    return best


@njit(cache=True)
def uniform_logits(logits):
    """Equal logits: ``add_children`` then gives every legal action the same prior."""
    for a in range(logits.shape[0]):
        logits[a] = 0.0


@njit(cache=True)
def value_utility(s, returns, value, value_lo, value_hi, util):
    """Each seat's utility from the acting seat's value (module docstring)."""
    n = util.shape[0]
    mover = s.current
    total = returns[mover] + value
    span = value_hi - value_lo
    util[mover] = min(1.0, max(0.0, (total - value_lo) / span))
    for p in range(n):
        if p != mover:
            other = returns[p] - value / (n - 1)
            util[p] = min(1.0, max(0.0, (other - value_lo) / span))


@njit(cache=True)
def network_move(s, policy, obs, obs_mask, module_mask, module_logits, logits):
    """The acting seat's legal move of highest logit, and the network's value of ``s`` for that seat."""
    params, layers, nets, spec, scalars, view = policy
    observe_into(s, s.current, obs, obs_mask)
    v = game_logits(params, layers, nets, spec, scalars, view, obs, obs_mask, module_mask, module_logits, logits)
    best = -1
    for a in range(obs_mask.shape[0]):
        if obs_mask[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    return best, v


@njit(cache=True)
def leaf_playout(s, work, seat, mask, r, kind, steps, rollout_steps, value_lo, value_hi, returns, util, scratch,
                 values, policy, obs, obs_mask, module_mask, module_logits, logits):  # fmt: skip
    """Each seat's utility of a playout from the leaf ``s`` (``work[0]``) into ``util``. ``PLAYOUT_GAME``: the game's
    playout (``rollout_steps``) and ``utility``; otherwise every seat plays the heuristic's or the network's move,
    to the end or for ``steps`` moves (``steps >= 0``), an unfinished position then judged by the network's value."""
    if kind == PLAYOUT_GAME:
        playout(s, seat, mask, r, rollout_steps, returns)
        utility(s, returns, util)
        return
    moves = 0
    while not s.done and (steps < 0 or moves < steps):
        r = splitmix64(r)
        if kind == PLAYOUT_HEURISTIC:
            a = heuristic_action(work, 0, s.current, mask, r, scratch, values)
        else:
            a, _ = network_move(s, policy, obs, obs_mask, module_mask, module_logits, logits)
        step(s, a)
        for p in range(returns.shape[0]):
            returns[p] += s.rewards[p]
        moves += 1
    if s.done:
        utility(s, returns, util)
        return
    _, v = network_move(s, policy, obs, obs_mask, module_mask, module_logits, logits)
    value_utility(s, returns, np.float64(v), value_lo, value_hi, util)


@njit(cache=True, nogil=True)  # self-play searches several games at once in threads
def guided_iterate(
    root_bytes,
    work,
    work_bytes,
    seat,
    seed,
    first,
    count,
    c_puct,
    value_weight,
    prior_temperature,
    network_depth,
    value_lo,
    value_hi,
    rollout_steps,
    opponents_in_tree,
    max_tree_depth,
    block,
    playout_kind,
    playout_steps,
    tree_i,
    tree_f,
    n_nodes,
    mask,
    root_mask,
    child_of,
    path,
    returns,
    util,
    rollout_util,
    policy,
    obs,
    obs_mask,
    module_mask,
    module_logits,
    logits,
    scratch,
    values,
):
    params, layers, nets, spec, scalars, view = policy
    s = work[0]
    capacity = tree_i.shape[0]
    levels = min(path.shape[0], max_tree_depth)
    if block <= 0:  # one determinization a round of the root's candidates
        for a in range(root_mask.shape[0]):
            block += root_mask[a] != 0
        block = max(block, 1)
    done = 0
    for it in range(first, first + count):
        if n_nodes + NUM_ACTIONS * (path.shape[0] + 1) > capacity:  # each level may add a child per action
            break
        copy_bytes(root_bytes, work_bytes)
        r = splitmix64(np.uint64(seed) + np.uint64(it // block) * np.uint64(0x9E3779B97F4A7C15))
        determinize(s, seat, r)
        returns[:] = 0.0
        node = 0
        depth = 0
        leaf = tree_f[0, 0] == 0.0
        while not s.done and not leaf and depth < levels:
            mover = s.current
            if not opponents_in_tree and mover != seat:  # the others play the default policy
                r = splitmix64(r)
                default_move(s, seat, mask, r, returns)
                continue
            legal_into(s, mask)
            if depth == 0:
                restrict_mask(mask, root_mask)
            mark_children(node, mover, child_of, tree_i)
            missing = False
            for a in range(mask.shape[0]):
                if mask[a] and child_of[a] < 0:
                    missing = True
                    break
            if missing and depth >= network_depth:  # legal here for the first time: uniform priors this deep
                uniform_logits(logits)
                n_nodes = add_children(node, mover, mask, logits, prior_temperature, child_of, tree_i, tree_f, n_nodes)
            elif missing:  # legal here for the first time: priors from the network at this node
                observe_into(s, mover, obs, obs_mask)
                game_logits(
                    params, layers, nets, spec, scalars, view, obs, obs_mask, module_mask, module_logits, logits
                )
                n_nodes = add_children(node, mover, mask, logits, prior_temperature, child_of, tree_i, tree_f, n_nodes)
            clear_children(node, mover, mask, child_of, tree_i, tree_f, False)
            child = puct_child(node, mover, mask, tree_i, tree_f, c_puct)
            step(s, tree_i[child, 0])
            for p in range(returns.shape[0]):
                returns[p] += s.rewards[p]
            path[depth] = child
            depth += 1
            node = child
            leaf = tree_f[child, 0] == 0.0
        grows = depth < levels  # a node at the deepest level gets no children: its leaf is evaluated afresh
        if s.done:
            utility(s, returns, util)
        elif depth >= network_depth:  # a leaf below the network's levels: uniform priors, a playout's value
            mover = s.current
            if grows and tree_i[node, 2] < 0:
                legal_into(s, mask)
                if depth == 0:
                    restrict_mask(mask, root_mask)
                uniform_logits(logits)
                n_nodes = add_children(node, mover, mask, logits, prior_temperature, child_of, tree_i, tree_f, n_nodes)
                clear_children(node, mover, mask, child_of, tree_i, tree_f, False)
            r = splitmix64(r)
            leaf_playout(s, work, seat, mask, r, playout_kind, playout_steps, rollout_steps, value_lo, value_hi,
                         returns, util, scratch, values, policy, obs, obs_mask, module_mask, module_logits,
                         logits)  # fmt: skip
        else:  # the leaf: the network's priors for its children and its value
            mover = s.current
            legal_into(s, mask)
            if depth == 0:
                restrict_mask(mask, root_mask)
            observe_into(s, mover, obs, obs_mask)  # the network reads the whole legal set, not the root's kept part
            v = game_logits(
                params, layers, nets, spec, scalars, view, obs, obs_mask, module_mask, module_logits, logits
            )
            if grows and tree_i[node, 2] < 0:
                n_nodes = add_children(node, mover, mask, logits, prior_temperature, child_of, tree_i, tree_f, n_nodes)
                clear_children(node, mover, mask, child_of, tree_i, tree_f, False)
            value_utility(s, returns, np.float64(v), value_lo, value_hi, util)
            if value_weight < 1.0:
                r = splitmix64(r)
                leaf_playout(s, work, seat, mask, r, playout_kind, playout_steps, rollout_steps, value_lo, value_hi,
                             returns, rollout_util, scratch, values, policy, obs, obs_mask, module_mask, module_logits,
                             logits)  # fmt: skip
                for p in range(util.shape[0]):
                    util[p] = value_weight * util[p] + (1.0 - value_weight) * rollout_util[p]
        back_up(path, depth, util, tree_i, tree_f)
        done += 1
    return n_nodes, done
