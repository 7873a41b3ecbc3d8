"""Frozen policies the vector env's kernel plays itself: several compiled policies packed into one set of arrays.

A bank is ``(params, layers, nets, spec, scalars, views, slot_entry)``: the policies' ``CompiledPolicy.kernel_args``
concatenated (each policy's weight offsets and first-layer indices shifted past the ones before it; ``nets``,
``spec``, ``scalars`` and ``views`` get one row per policy) and ``slot_entry``, the bank row of each opponent slot
(-1: not compiled, the slot is played in Python). ``training.opponent_loop.banked_policy`` reads it.
"""

from collections.abc import Mapping

import numpy as np

from agents.compiled_policy import CompiledPolicy
from envs.engine.policy_net import G_SIZE, NETS, S_SIZE, SC_GREEDY, SC_SIZE


def pack_bank(by_slot: Mapping[int, CompiledPolicy], slots: int) -> tuple[np.ndarray, ...]:
    """The bank playing ``by_slot[k]`` (a sample of its masked softmax) in opponent slot k, for ``slots`` slots."""
    if any(not 0 <= k < slots for k in by_slot):
        raise ValueError(f"bank slots must be in [0, {slots}), got {sorted(by_slot)}")
    order = sorted(by_slot)
    n = len(order)
    params: list[np.ndarray] = []
    layers: list[np.ndarray] = []
    nets = np.zeros((n, len(NETS), 2), np.int64)
    spec = np.zeros((n, S_SIZE), np.int64)
    scalars = np.zeros((n, SC_SIZE), np.float32)
    views = np.zeros((n, G_SIZE), np.int64)
    slot_entry = np.full(slots, -1, np.int64)
    param_at = layer_at = 0
    for b, k in enumerate(order):
        p = by_slot[k]
        shifted = p.layers.copy()
        shifted[:, 0] += param_at
        shifted[:, 1] = np.where(shifted[:, 1] >= 0, shifted[:, 1] + param_at, -1)
        params.append(p.params)
        layers.append(shifted)
        nets[b] = p.nets
        nets[b, :, 0] += np.where(p.nets[:, 1] > 0, layer_at, 0)
        spec[b], scalars[b], views[b] = p.spec, p.scalars, p.game_view
        scalars[b, SC_GREEDY] = 0.0
        slot_entry[k] = b
        param_at += p.params.size
        layer_at += p.layers.shape[0]
    return (
        np.ascontiguousarray(np.concatenate(params) if params else np.zeros(0), np.float32),
        np.ascontiguousarray(np.concatenate(layers) if layers else np.zeros((0, 5)), np.int64),
        nets,
        spec,
        scalars,
        views,
        slot_entry,
    )
