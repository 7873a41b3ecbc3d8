"""A policy that names board cells at the board's own resolution: a conv trunk with one logit per (cell, choice).

For games whose first actions are ``cell * k + j`` over the observation's (H, W, C) board (row-major
cells, as the Duel's ``place`` actions: ``j`` a rotation), a dense head after a strided conv stack must
learn each cell's logits separately; here a stride-1 conv trunk computes features at every cell (the
rest of the observation, the tile to place and the pads, added to every cell after the first conv), a
1x1 conv turns each cell's features into its ``k`` logits, and the few remaining actions (``pass``,
module choices) and the value read the trunk pooled over the board plus the vector.
RLlib's PPO sees the usual pieces: ``encoder`` (outputs for ACTOR and CRITIC), ``pi`` and ``vf``.
"""

import math
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.base import ACTOR, CRITIC, ENCODER_OUT
from torch import nn


def cell_action_split(image: tuple[int, int, int], num_actions: int) -> tuple[int, int]:
    """``(k, extra)``: k actions per board cell first, then ``extra`` others; k = 0 means no cell layout."""
    cells = image[0] * image[1]
    k = num_actions // cells
    return k, num_actions - k * cells


class CellEncoder(nn.Module):
    """The board through stride-1 convs ("same" padding, ReLU), the vector added to every cell after the first.

    Outputs the feature map (actor) and ``[mean over cells, max over cells, vector]`` (critic and the
    non-cell actions), both computed once per forward pass.
    """

    def __init__(self, image: tuple[int, int, int], vector: int, channels: int, layers: int) -> None:
        super().__init__()
        self.image = image
        h, w, c = image
        self.first = nn.Conv2d(c, channels, 3, padding=1)
        self.vector = nn.Linear(vector, channels)
        rest: list[nn.Module] = []
        for _ in range(layers - 1):
            rest += [nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU()]
        self.rest = nn.Sequential(*rest)
        self.pooled_size = 2 * channels + vector

    def forward(self, batch: dict[str, Any]) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        h, w, c = self.image
        board = obs[:, : h * w * c].reshape(-1, h, w, c).permute(0, 3, 1, 2)  # channels last -> torch's first
        vec = obs[:, h * w * c :]
        x = torch.relu(self.first(board) + self.vector(vec)[:, :, None, None])
        x = self.rest(x)
        pooled = torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3)), vec], dim=1)
        return {ENCODER_OUT: {ACTOR: (x, pooled), CRITIC: pooled}}


class CellPolicyHead(nn.Module):
    """``k`` logits per cell from a 1x1 conv (flattened as ``cell * k + j``), then the other actions' logits."""

    def __init__(self, channels: int, pooled: int, per_cell: int, extra: int) -> None:
        super().__init__()
        self.cells = nn.Conv2d(channels, per_cell, 1)
        self.extra = nn.Linear(pooled, extra) if extra else None

    def forward(self, features: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        x, pooled = features
        logits = self.cells(x).permute(0, 2, 3, 1).reshape(x.shape[0], -1)  # (n, H, W, k): cell * k + j
        if self.extra is None:
            return logits
        return torch.cat([logits, self.extra(pooled)], dim=1)


def value_head(pooled: int, hiddens: list[int]) -> nn.Sequential:
    """The critic: an MLP (ReLU) over the pooled trunk and the vector, one output."""
    layers: list[nn.Module] = []
    size = pooled
    for width in hiddens:
        layers += [nn.Linear(size, width), nn.ReLU()]
        size = width
    return nn.Sequential(*layers, nn.Linear(size, 1))


def build_cell_nets(
    image: tuple[int, int, int], obs_size: int, num_actions: int, channels: int, layers: int, hiddens: list[int]
) -> tuple[CellEncoder, CellPolicyHead, nn.Sequential]:
    """Encoder, policy head and value head for a board (H, W, C) first in ``obs_size`` numbers."""
    per_cell, extra = cell_action_split(image, num_actions)
    if per_cell < 1 or channels < 1 or layers < 1:
        raise ValueError(
            f"cell_head needs >= 1 action per cell of the {image[0]}x{image[1]} board, >= 1 channel and layer; "
            f"got {num_actions} actions, channels={channels}, layers={layers}"
        )
    encoder = CellEncoder(image, obs_size - math.prod(image), channels, layers)
    return (
        encoder,
        CellPolicyHead(channels, encoder.pooled_size, per_cell, extra),
        value_head(encoder.pooled_size, hiddens),
    )
