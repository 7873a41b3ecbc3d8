"""Every snapshot opponent of a vector step in one batched forward pass.

The pool's snapshots are frozen copies of one ``MaskedPPOTorchRLModule``: the same layers with other
weights. ``StackedActors`` stacks the weights of their actor paths (the actor encoder's MLP, then the pi
head's MLP, in order, with their activations: ``actor_layers``) into ``[S, in, out]`` tensors, so the rows
of all snapshots go through each Linear layer in one ``torch.baddbmm``: rows grouped by snapshot, padded
to the largest group, un-padded at the end (measured faster than one plain matmul per snapshot and layer
with two torch threads, and about even with one). ``SnapshotGroup`` samples from the masked logits
(inverse CDF, one seeded generator for the whole batch: ``sample_legal``) and is the group policy that
``GameVectorEnv.set_snapshot_group`` takes.

Not stacked (``actor_layers`` is None): a module with a conv stack (the Duel's board), an action prior or a
candidate head (their logits read the observation outside these layers), a stateful or non-MLP encoder, a
clipped head, or any layer other than Linear and an elementwise activation (LayerNorm, Softmax, ...).
``SnapshotGroup`` then runs each snapshot's own ``forward_inference`` on its rows: correct, just not faster
than one outside policy per snapshot.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.torch.encoder import TorchActorCriticEncoder, TorchMLPEncoder
from ray.rllib.core.models.torch.heads import TorchMLPHead
from torch import nn

from training.masking_module import MaskedPPOTorchRLModule, mask_logits, sample_actions
from training.vector_env import MASK_KEY, OBS_KEY

# parameterless and elementwise: applying one snapshot's copy to the stacked [S, rows, width] tensor is exact
ELEMENTWISE = (nn.ReLU, nn.Tanh, nn.SiLU, nn.ELU, nn.Sigmoid, nn.LeakyReLU, nn.GELU, nn.Identity)


def module_logits(module: Any, obs: np.ndarray, masks: np.ndarray) -> torch.Tensor:
    """A module's masked action logits (its ``forward_inference``) for float32 observations and masks."""
    batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(masks)}}
    with torch.no_grad():
        return module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]


def sample_legal(logits: torch.Tensor, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row from softmax(logits) over the legal actions (``masks`` > 0), one ``rng`` draw a row."""
    masked = mask_logits(logits, torch.from_numpy(masks))
    return sample_actions(masked, torch.from_numpy(rng.random(masks.shape[0]))).numpy()


def actor_layers(module: Any) -> list[nn.Module] | None:
    """The layers from observation to action logits, in order, if all are Linear or ``ELEMENTWISE``; else None.

    ``MaskedPPOTorchRLModule._forward``: ``mask_logits(pi(actor encoder(observations)))``, where the
    actor encoder is the shared ``encoder.encoder`` or ``encoder.actor_encoder`` (a ``TorchMLPEncoder``:
    ``net.mlp``) and ``pi`` a ``TorchMLPHead`` (``net.mlp``, no log-std clipping for a categorical).
    """
    if not isinstance(module, MaskedPPOTorchRLModule) or module.conv is not None or module.is_stateful():
        return None
    if module._prior is not None or module._candidates is not None:  # both read the observation beside the layers
        return None
    encoder = module.encoder
    if not isinstance(encoder, TorchActorCriticEncoder):
        return None
    actor = encoder.encoder if encoder.config.shared else encoder.actor_encoder
    head = module.pi
    if not isinstance(actor, TorchMLPEncoder) or not isinstance(head, TorchMLPHead) or head.clip_log_std:
        return None
    layers = [*actor.net.mlp, *head.net.mlp]
    return layers if all(isinstance(layer, (nn.Linear, *ELEMENTWISE)) for layer in layers) else None


def _same_shape(paths: list[list[nn.Module]]) -> bool:
    """Whether every actor path has the first one's layer types and Linear sizes (copies of one module do)."""
    first = paths[0]
    return all(
        len(p) == len(first)
        and all(
            type(a) is type(b) and (not isinstance(a, nn.Linear) or a.weight.shape == b.weight.shape)
            for a, b in zip(p, first, strict=True)
        )
        for p in paths
    )


def _stack_linear(layers: Sequence[nn.Linear]) -> tuple[torch.Tensor, torch.Tensor]:
    """One Linear layer of S snapshots as ``x @ weight + bias`` operands: ``[S, in, out]``, ``[S, 1, out]``."""
    weight = torch.stack([layer.weight.detach().t() for layer in layers]).contiguous()
    bias = torch.stack(
        [
            layer.bias.detach() if layer.bias is not None else torch.zeros(layer.out_features, dtype=weight.dtype)
            for layer in layers
        ]
    )
    return weight, bias[:, None, :].contiguous()


def _pad_positions(which: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray]:
    """The range ``lo:hi`` of modules the rows use, and per row its group (``which - lo``) and place in it."""
    lo, hi = int(which.min()), int(which.max()) + 1
    group = which - lo
    counts = np.bincount(group, minlength=hi - lo)
    place = np.empty(which.size, np.int64)
    place[np.argsort(group, kind="stable")] = np.arange(which.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return lo, hi, group, place


class StackedActors:
    """The actor paths of S same-shaped modules as stacked weights: logits of any rows in one pass per layer."""

    def __init__(self, paths: list[list[nn.Module]]) -> None:
        self.layers: list[tuple[torch.Tensor, torch.Tensor] | nn.Module] = [
            _stack_linear(column) if isinstance(column[0], nn.Linear) else column[0]
            for column in zip(*paths, strict=True)
        ]

    @classmethod
    def of(cls, modules: Sequence[Any]) -> "StackedActors | None":
        """The stack of these modules' actor paths, or None if one cannot be stacked (module docstring)."""
        paths = [actor_layers(m) for m in modules]
        if not paths or any(p is None for p in paths) or not _same_shape(paths):
            return None
        return cls(paths)

    def logits(self, which: np.ndarray, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked action logits of each row by module ``which[row]``: rows padded per module, baddbmm per layer.

        The weights are views of modules ``min(which)..max(which)`` (a module in between with no rows gets
        padding only): copying a subset of the weights would cost more than a few padded rows.
        """
        lo, hi, group, place = _pad_positions(np.asarray(which, np.int64))
        g, p = torch.from_numpy(group), torch.from_numpy(place)
        x = obs.new_zeros((hi - lo, int(place.max()) + 1, obs.shape[1]))
        x[g, p] = obs
        with torch.no_grad():
            for layer in self.layers:
                x = torch.baddbmm(layer[1][lo:hi], x, layer[0][lo:hi]) if isinstance(layer, tuple) else layer(x)
        return x[g, p]


class SnapshotGroup:
    """Frozen modules playing as snapshots: ``group(which, obs, masks)`` samples an action per row from module
    ``which[row]``, every row in one batched pass when the modules stack (else one pass per module)."""

    def __init__(self, modules: Sequence[Any], rng: np.random.Generator) -> None:
        self.modules = list(modules)
        self.stacked = StackedActors.of(self.modules)
        self.rng = rng

    def logits(self, which: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        """Each row's masked logits by its module, as that module's ``forward_inference`` gives them."""
        which = np.asarray(which, np.int64)
        if self.stacked is not None:
            return mask_logits(self.stacked.logits(which, torch.from_numpy(obs)), torch.from_numpy(masks))
        out = torch.empty(masks.shape, dtype=torch.float32)
        for s in np.unique(which):
            sel = which == s
            out[torch.from_numpy(sel)] = module_logits(self.modules[s], obs[sel], masks[sel])
        return out

    def __call__(self, which: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return sample_legal(self.logits(which, obs, masks), masks, self.rng)
