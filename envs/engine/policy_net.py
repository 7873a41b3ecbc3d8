"""A policy network's forward pass in numba: the masked logits and the value of one observation.

The weights come as flat arrays (``agents.compiled_policy`` packs them from a policy file): a layer is a row
of ``layers``: (weight offset, bias offset or -1, inputs, outputs, activation) into the flat float32 ``params``
(the weights transposed: ``params[w + k * outputs + j]`` is torch's ``weight[j, k]``); a network is a row of
``nets``: (first layer, layer count), count 0 when the policy has no such network; ``spec`` holds the integers
below (``S_*``), ``scalars`` the action prior's scale, the candidate head's overflow logit and whether a compiled
opponent plays the argmax (else a sample). It lives in the engine so that compiled templates (search, the vector
env's opponents) can call it.
"""

import math

import numpy as np
from numba import njit

MASKED_LOGIT = np.float32(np.finfo(np.float32).min)  # torch's masked logit (training.masking_module)
# the networks a policy may hold, in the ``nets`` rows' order
NETS = (
    "actor_encoder",
    "critic_encoder",
    "pi",
    "vf",
    "candidate_rows",
    "candidate_context",
    "candidate_score",
    "candidate_others",
)
ACTOR, CRITIC, PI, VF, ROWS, CONTEXT, SCORE, OTHERS = range(len(NETS))
(S_KIND, S_OBS, S_OUT, S_CUT_START, S_CUT_LEN, S_PRIOR_START, S_PRIOR_LEN) = range(7)
(S_CAND_START, S_CAND_ROWS, S_CAND_FEATURES, S_CAND_ACTIONS, S_SIZE) = range(7, 12)
SC_PRIOR_SCALE, SC_OVERFLOW, SC_GREEDY, SC_SIZE = 0, 1, 2, 3  # scalars
# ``game_view``: how the module's actions map to the game's (placements 0: one to one)
(G_PLACEMENTS, G_ROWS, G_ACTIONS, G_SIZE) = range(4)


@njit(cache=True)
def dense(params, layers, i, x):
    """Layer ``i`` of ``layers`` applied to the vector ``x``, in float32 like torch. The weights are packed
    transposed (input-major), so each input adds its column to all outputs in one contiguous, vectorized
    pass, and the inputs that are zero (one-hot observations, hidden units a ReLU cut) cost nothing."""
    w, b, n_in, n_out, act = layers[i, 0], layers[i, 1], layers[i, 2], layers[i, 3], layers[i, 4]
    out = np.zeros(n_out, np.float32)
    for k in range(n_in):
        xk = x[k]
        if xk != 0:
            column = params[w + k * n_out : w + (k + 1) * n_out]
            for j in range(n_out):
                out[j] += column[j] * xk
    if b >= 0:
        for j in range(n_out):
            out[j] += params[b + j]
    if act == 1:
        for j in range(n_out):
            out[j] = max(out[j], np.float32(0.0))
    elif act == 2:
        for j in range(n_out):
            out[j] = math.tanh(out[j])
    return out


@njit(cache=True)
def mlp(params, layers, nets, net, x):
    """Network ``net``'s layers applied in turn to ``x``."""
    h = x.copy()
    for i in range(nets[net, 0], nets[net, 0] + nets[net, 1]):
        h = dense(params, layers, i, h)
    return h


@njit(cache=True)
def forward(params, layers, nets, spec, scalars, obs, mask, logits):
    """The masked logits of one observation into ``logits`` (the module's actions); returns the value."""
    n_obs, cut_start, cut_len = spec[S_OBS], spec[S_CUT_START], spec[S_CUT_LEN]
    features = np.empty(n_obs - cut_len, np.float32)
    j = 0
    for i in range(n_obs):
        if i < cut_start or i >= cut_start + cut_len:
            features[j] = obs[i]
            j += 1
    embedding = mlp(params, layers, nets, ACTOR, features)
    critic = mlp(params, layers, nets, CRITIC, features) if nets[CRITIC, 1] > 0 else embedding
    n_out = spec[S_OUT]
    if spec[S_KIND] == 0:
        out = mlp(params, layers, nets, PI, embedding)
        for a in range(n_out):
            logits[a] = out[a]
        start = spec[S_PRIOR_START]
        for a in range(spec[S_PRIOR_LEN]):
            logits[a] = np.float32(out[a] + np.float32(scalars[SC_PRIOR_SCALE] * obs[start + a]))
        value_in = critic
    else:
        start, rows, width, actions = spec[S_CAND_START], spec[S_CAND_ROWS], spec[S_CAND_FEATURES], spec[S_CAND_ACTIONS]
        context = dense(params, layers, nets[CONTEXT, 0], embedding)
        hidden = np.empty(context.size, np.float32)
        seen = 0
        for a in range(actions):
            logits[a] = scalars[SC_OVERFLOW]
            if mask[a] > 0:
                if seen < rows:
                    r = dense(params, layers, nets[ROWS, 0], obs[start + seen * width : start + (seen + 1) * width])
                    for q in range(hidden.size):
                        hidden[q] = max(r[q] + context[q], np.float32(0.0))
                    logits[a] = mlp(params, layers, nets, SCORE, hidden)[0]
                seen += 1
        if nets[OTHERS, 1] > 0:
            others = mlp(params, layers, nets, OTHERS, embedding)
            for a in range(others.size):
                logits[actions + a] = others[a]
        kept = min(seen, rows)
        value_in = np.zeros(critic.size + 2 * width, np.float32)
        value_in[: critic.size] = critic
        for f in range(width):
            best, total = -np.inf, 0.0
            for k in range(kept):
                x = obs[start + k * width + f]
                best = max(best, x)
                total += x
            if kept > 0:
                value_in[critic.size + f] = best
                value_in[critic.size + width + f] = total / kept
    for a in range(n_out):
        if mask[a] <= 0:
            logits[a] = MASKED_LOGIT
    return mlp(params, layers, nets, VF, value_in)[0]


@njit(cache=True)
def forward_batch(params, layers, nets, spec, scalars, obs, mask, logits, values):
    """``forward`` of each row of ``obs`` and ``mask`` into the rows of ``logits`` and ``values``."""
    for i in range(obs.shape[0]):
        values[i] = forward(params, layers, nets, spec, scalars, obs[i], mask[i], logits[i])


@njit(cache=True)
def game_logits(params, layers, nets, spec, scalars, game_view, obs, game_mask, module_mask, module_logits, out):
    """The masked logits over the game's actions of one observation into ``out`` (illegal ones at MASKED_LOGIT);
    returns the value. With candidate actions (``game_view[G_PLACEMENTS] > 0``) the k-th legal placement gets
    the logit of row k (``envs.engine.candidate_actions``); ``module_mask`` and ``module_logits`` are scratch
    of the module's size."""
    placements, rows, n = game_view[G_PLACEMENTS], game_view[G_ROWS], game_view[G_ACTIONS]
    if placements == 0:
        for a in range(n):
            module_mask[a] = game_mask[a]
        return forward(params, layers, nets, spec, scalars, obs, module_mask, out)
    count = 0
    for a in range(placements):
        count += game_mask[a] != 0
    for k in range(rows):
        module_mask[k] = 1 if k < count else 0
    for j in range(n - placements):
        module_mask[rows + j] = 1 if game_mask[placements + j] != 0 else 0
    value = forward(params, layers, nets, spec, scalars, obs, module_mask, module_logits)
    k = 0
    for a in range(placements):
        out[a] = MASKED_LOGIT
        if game_mask[a] != 0:
            if k < rows:
                out[a] = module_logits[k]
            k += 1
    for j in range(n - placements):
        out[placements + j] = module_logits[rows + j] if game_mask[placements + j] != 0 else MASKED_LOGIT
    return value
