"""PPO's default torch RLModule with illegal actions masked out: they get probability exactly zero.

Our own subclass of ``DefaultPPOTorchRLModule`` (RLlib's example masking module is not a stable API).
It consumes ``{"observations": float32[n], "action_mask": float32[k]}`` observations: the encoder and
value head see ``"observations"`` only; the mask pushes illegal logits to the lowest float, so
sampling (exploration), argmax (inference) and the PPO loss all give them zero probability.
"""

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

from agents.rllib_policy import MASK_KEY, OBS_KEY  # noqa: F401  (re-exported: the keys a trained module reads)

# exp(MASKED_LOGIT - any logit) underflows to exactly 0, yet stays finite (no inf - inf = nan in the loss)
MASKED_LOGIT = torch.finfo(torch.float32).min


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every entry whose mask is 0 set to the lowest float32 (probability 0 after softmax)."""
    return logits.masked_fill(mask <= 0, MASKED_LOGIT)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO actor-critic over ``"observations"`` whose action distribution never puts mass on a masked action."""

    def __init__(self, *args: Any, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict) and {OBS_KEY, MASK_KEY} <= set(observation_space)):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and {MASK_KEY!r}, "
                f"got {observation_space}"
            )
        # the catalog builds encoder and heads for the inner observation vector only
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)
        # but the module consumes (and is saved with) the full dict space, so a checkpoint rebuilds it as is
        self.observation_space = observation_space

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        obs = batch[Columns.OBS]
        inner = dict(batch)
        inner[Columns.OBS] = obs[OBS_KEY]
        return inner, obs[MASK_KEY]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration: masked action logits."""
        inner, mask = self._split(batch)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training: masked action logits plus the critic embeddings PPO reuses for the value."""
        inner, mask = self._split(batch)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        """State values from ``"observations"`` (the mask says nothing the observation does not)."""
        if embeddings is None:
            batch, _ = self._split(batch)
        return super().compute_values(batch, embeddings)
