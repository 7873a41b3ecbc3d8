"""PPO's default torch RLModule with illegal actions masked out: they get probability exactly zero.

Our own subclass of ``DefaultPPOTorchRLModule`` (RLlib's example masking module is not a stable API).
It consumes ``{"observations": float32[n], "action_mask": float32[k]}`` observations: the encoder and
value head see ``"observations"`` only; the mask pushes illegal logits to the lowest float, so
sampling (exploration), argmax (inference) and the PPO loss all give them zero probability.

Board games: when ``model_config["image_shape"]`` is ``(H, W, C)`` (the game's observation layout
starts with a spatial piece, channels last: ``image_shape_of``), the first H*W*C numbers of
``"observations"`` are read as an image by a conv stack (``model_config["conv_filters"]``: ``[out
channels, kernel, stride]`` per layer, "same" padding, ReLU), flattened and concatenated with the rest
of the vector; the catalog's MLP encoder and heads then work on that. With ``model_config["cell_head"]
= [channels, layers]`` the board is read at full resolution instead, one logit per (cell, choice)
(``training.cell_head``: for action spaces that start with ``cell * k + j``).

Heuristic prior: with ``model_config["action_prior"] = {"start", "length", "scale"}``, the ``length``
numbers of ``"observations"`` from ``start`` (a game's prior piece, e.g. the Duel's ``placement_prior``:
the heuristic's judgement of each placement in [0, 1]) are cut out of what the network reads and added,
times a learned scale (initially ``scale``), to the logits of the first ``length`` actions: the policy
is the network's correction on top of the heuristic (residual policy learning).

Candidate head: with ``model_config["candidate_head"] = {"start", "rows", "features", "actions", "hiddens"}``,
the ``rows * features`` numbers from ``start`` (the Duel's ``placement_candidates``: row k the rules'
features of the k-th legal placement among the first ``actions``) are cut out of what the encoder reads;
each legal placement's logit is its row's score by an MLP shared by the rows over the row and the actor
embedding, the other actions' a Linear over the embedding, and the critic reads the critic embedding plus
the features pooled over the valid rows (``training.candidate_head``; not with ``action_prior`` or
``cell_head``).

Privileged critic: with ``model_config["privileged_critic"] = {"size", "hiddens"}``, the value is an MLP over
the encoder's embedding and ``"critic_observations"`` (``size`` numbers of what the learner's seat does not see:
``training.vector_env``), asymmetric actor-critic as in PerfectDou: the policy still reads ``"observations"``
only, so it plays without them; the catalog's value head is left untrained (not with the other heads above).
"""

import math
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.models.base import ACTOR, CRITIC, ENCODER_OUT
from torch import nn

from agents.rllib_policy import CRITIC_KEY, MASK_KEY, OBS_KEY  # noqa: F401  (re-exported: the keys a module reads)
from training.candidate_head import build_candidate_nets, candidate_slice, critic_input
from training.cell_head import build_cell_nets

DEFAULT_CONV_FILTERS = [[16, 3, 1], [32, 3, 2]]  # [out channels, kernel, stride] per layer

# exp(MASKED_LOGIT - any logit) underflows to exactly 0, yet stays finite (no inf - inf = nan in the loss)
MASKED_LOGIT = torch.finfo(torch.float32).min


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every entry whose mask is 0 set to the lowest float32 (probability 0 after softmax)."""
    return logits.masked_fill(mask <= 0, MASKED_LOGIT)


def sample_actions(logits: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """One action per row drawn from softmax(``logits``) by inverse CDF, ``uniform`` holding one U[0, 1) number a row.

    Masked entries (``mask_logits``) have probability 0 and are never drawn. A float64 CDF rather than Gumbel-max,
    which draws noise and takes two logs for every entry; exact to ~1e-12.
    """
    cdf = torch.cumsum(torch.softmax(logits.double(), dim=1), dim=1)
    point = (1.0 - uniform.double())[:, None] * cdf[:, -1:]  # in (0, total]: the first cdf >= it rose there
    return torch.searchsorted(cdf, point)[:, 0].clamp_(max=logits.shape[1] - 1)


class _NormalizedCategorical(torch.distributions.Categorical):
    """torch's Categorical normalized by ``log_softmax``: its ``logsumexp`` is far slower on masked rows (every
    exp below float32's range takes a slow path)."""

    def __init__(self, logits: torch.Tensor) -> None:
        self.logits = torch.log_softmax(logits, dim=-1)
        self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else torch.Size()
        torch.distributions.Distribution.__init__(self, batch_shape, validate_args=False)


class MaskedCategorical(TorchCategorical):
    """RLlib's categorical over masked logits, normalized the fast way (same probabilities)."""

    def _get_torch_distribution(self, logits: Any = None, probs: Any = None) -> Any:
        if logits is None:
            return super()._get_torch_distribution(probs=probs)
        return _NormalizedCategorical(logits)

    def kl(self, other: Any) -> torch.Tensor:
        """KL(self || other) as ``sum p (log p - log q)`` over the normalized logits: torch's own sets the term to
        inf wherever q's probability underflows to 0, which large logits (an action prior's) reach while log q
        is still finite; equal to torch's everywhere else."""
        p_logits, q_logits = self._dist.logits, other._dist.logits
        return (p_logits.exp() * (p_logits - q_logits)).sum(-1)


def image_shape_of(layout: Any) -> tuple[int, int, int] | None:
    """``(H, W, C)`` when an observation layout's first piece is 3-D (a board, channels last), else None."""
    if layout is None or not layout.names():
        return None
    shape = layout.shape(layout.names()[0])
    return tuple(shape) if len(shape) == 3 else None


def _prior_slice(config: Any, obs_size: int, image: tuple[int, int, int] | None) -> tuple[int, int, float] | None:
    """``(start, length, initial scale)`` of ``model_config["action_prior"]``, checked against the observation."""
    prior = config.get("action_prior") if isinstance(config, dict) else None
    if prior is None:
        return None
    start, length, scale = int(prior["start"]), int(prior["length"]), float(prior.get("scale", 0.0))
    board = math.prod(image) if image is not None else 0
    if length < 1 or start < board or start + length > obs_size:
        raise ValueError(
            f"action_prior [{start}, {start + length}) must lie in the observation's {obs_size} numbers after the "
            f"board's {board}"
        )
    return start, length, scale


def _conv_output(image: tuple[int, int, int], filters: Any) -> tuple[nn.Sequential, int]:
    """The conv stack for an (H, W, C) image and the length of its flattened output."""
    h, w, c = image
    layers: list[nn.Module] = []
    for out, kernel, stride in filters:
        layers += [nn.Conv2d(c, out, kernel, stride, padding=kernel // 2), nn.ReLU()]
        h, w, c = (h + 2 * (kernel // 2) - kernel) // stride + 1, (w + 2 * (kernel // 2) - kernel) // stride + 1, out
    return nn.Sequential(*layers, nn.Flatten()), h * w * c


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO actor-critic over ``"observations"`` whose action distribution never puts mass on a masked action."""

    def __init__(self, *args: Any, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict) and {OBS_KEY, MASK_KEY} <= set(observation_space)):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and {MASK_KEY!r}, "
                f"got {observation_space}"
            )
        inner = observation_space[OBS_KEY]
        config = kwargs.get("model_config")
        image = config.get("image_shape") if isinstance(config, dict) else None
        self._cell_head = config.get("cell_head") if isinstance(config, dict) else None
        if self._cell_head is not None and image is None:
            raise ValueError("cell_head needs model_config['image_shape'] (a board first in the observation)")
        if image is not None:
            image = tuple(int(d) for d in image)
            if len(image) != 3 or math.prod(image) > inner.shape[0]:
                raise ValueError(f"image_shape {image} does not fit observations of {inner.shape[0]}")
        self._prior = _prior_slice(config, inner.shape[0], image)
        board = math.prod(image) if image is not None else 0
        num_actions = int(getattr(kwargs.get("action_space"), "n", 0))  # 0: not a Discrete space, no candidates
        self._candidates = candidate_slice(config, inner.shape[0], board, num_actions)
        if self._candidates is not None and (self._prior is not None or self._cell_head is not None):
            raise ValueError("candidate_head cannot be combined with action_prior or cell_head: give one of them")
        # numbers the encoder does not read: the prior goes to the logits, the candidate rows to the heads
        self._cut = self._prior[:2] if self._prior is not None else None
        if self._candidates is not None:
            self._cut = (self._candidates.start, self._candidates.length)
        if self._cut is not None:
            inner = gym.spaces.Box(-np.inf, np.inf, (inner.shape[0] - self._cut[1],), np.float32)
        if image is not None and self._cell_head is None:  # the conv stack's features replace the board
            _, features = _conv_output(image, config.get("conv_filters") or DEFAULT_CONV_FILTERS)
            size = features + inner.shape[0] - math.prod(image)
            inner = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self._image = image
        self._privileged = config.get("privileged_critic") if isinstance(config, dict) else None
        if self._privileged is not None:
            if self._candidates is not None or self._cell_head is not None:
                raise ValueError("privileged_critic cannot be combined with candidate_head or cell_head")
            if CRITIC_KEY not in observation_space.spaces:
                raise ValueError(f"privileged_critic needs {CRITIC_KEY!r} in the observations (privileged_critic=True)")
            if int(observation_space[CRITIC_KEY].shape[0]) != int(self._privileged["size"]):
                raise ValueError(
                    f"privileged_critic size {self._privileged['size']} != the env's "
                    f"{observation_space[CRITIC_KEY].shape[0]} critic observations"
                )
        # the catalog builds encoder and heads for the inner observation vector only
        super().__init__(*args, observation_space=inner, **kwargs)
        # but the module consumes (and is saved with) the full dict space, so a checkpoint rebuilds it as is
        self.observation_space = observation_space

    def get_exploration_action_dist_cls(self) -> type:
        return MaskedCategorical

    def get_inference_action_dist_cls(self) -> type:
        return MaskedCategorical

    def get_train_action_dist_cls(self) -> type:
        return MaskedCategorical

    def setup(self) -> None:
        self.conv = None
        if self._prior is not None:
            self.prior_scale = nn.Parameter(torch.tensor(self._prior[2], dtype=torch.float32))
        if self._cell_head is not None:
            self._setup_cell_head()
            return
        super().setup()
        if self._image is not None:
            self.conv, _ = _conv_output(self._image, self.model_config.get("conv_filters") or DEFAULT_CONV_FILTERS)
        if self._privileged is not None and not self.inference_only:
            width = int(self.catalog.latent_dims[0]) + int(self._privileged["size"])
            layers: list[nn.Module] = []
            for h in self._privileged.get("hiddens") or [256]:
                layers += [nn.Linear(width, int(h)), nn.ReLU()]
                width = int(h)
            self.privileged_vf = nn.Sequential(*layers, nn.Linear(width, 1))
        if self._candidates is not None:  # the catalog's encoder, our heads (the vf is dropped when inference only)
            self.pi, self.vf = build_candidate_nets(
                int(self.catalog.latent_dims[0]),
                self._candidates,
                int(self.action_space.n),
                list(self.model_config.get("head_fcnet_hiddens") or []),
            )

    def _setup_cell_head(self) -> None:
        """Encoder, pi and vf of ``training.cell_head`` in place of the catalog's (no vf when inference only)."""
        channels, layers = (int(x) for x in self._cell_head)
        hiddens = list(self.model_config.get("fcnet_hiddens") or [256])
        obs_size = int(self.observation_space.shape[0])  # still the inner vector during __init__
        self.encoder, self.pi, vf = build_cell_nets(
            self._image, obs_size, int(self.action_space.n), channels, layers, hiddens
        )
        self.vf = None if self.inference_only else vf

    def get_non_inference_attributes(self) -> list[str]:
        if self._cell_head is not None:
            return ["vf"]  # one trunk for policy and value
        extra = ["privileged_vf"] if self._privileged is not None else []
        return super().get_non_inference_attributes() + extra

    def _features(self, obs: torch.Tensor) -> torch.Tensor:
        """The vector the MLP reads: the image part through the conv stack, then the rest as is (no prior, no
        candidate rows)."""
        if self._cut is not None:
            start, length = self._cut
            obs = torch.cat([obs[:, :start], obs[:, start + length :]], dim=1)
        if self.conv is None:  # no board, or the cell head's encoder reads it
            return obs
        h, w, c = self._image
        image = obs[:, : h * w * c].reshape(-1, h, w, c).permute(0, 3, 1, 2)  # channels last -> torch's first
        return torch.cat([self.conv(image), obs[:, h * w * c :]], dim=1)

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        obs = batch[Columns.OBS]
        inner = dict(batch)
        inner[Columns.OBS] = obs[OBS_KEY]
        return inner, obs[MASK_KEY]

    def _inner(self, batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        inner, mask = self._split(batch)
        inner[Columns.OBS] = self._features(inner[Columns.OBS])
        return inner, mask

    def _logits(self, logits: torch.Tensor, batch: dict[str, Any], mask: torch.Tensor) -> torch.Tensor:
        """The network's logits plus the scaled prior (if any) on its actions, then masked."""
        if self._prior is not None:
            start, length, _ = self._prior
            prior = batch[Columns.OBS][OBS_KEY][:, start : start + length]
            logits = torch.cat([logits[:, :length] + self.prior_scale * prior, logits[:, length:]], dim=1)
        return mask_logits(logits, mask)

    def _candidate_forward(self, inner: dict[str, Any], obs: torch.Tensor, mask: torch.Tensor, train: bool) -> dict:
        """The candidate head's masked logits (and, for training, the critic's input as the embeddings)."""
        encoded = self.encoder(inner)[ENCODER_OUT]
        out = {Columns.ACTION_DIST_INPUTS: mask_logits(self.pi(encoded[ACTOR], obs, mask), mask)}
        if train:
            out[Columns.EMBEDDINGS] = critic_input(encoded[CRITIC], obs, mask, self._candidates)
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration: masked action logits."""
        inner, mask = self._inner(batch)
        if self._candidates is not None:
            return self._candidate_forward(inner, batch[Columns.OBS][OBS_KEY], mask, train=False)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = self._logits(out[Columns.ACTION_DIST_INPUTS], batch, mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training: masked action logits plus the critic embeddings PPO reuses for the value."""
        inner, mask = self._inner(batch)
        if self._candidates is not None:
            return self._candidate_forward(inner, batch[Columns.OBS][OBS_KEY], mask, train=True)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = self._logits(out[Columns.ACTION_DIST_INPUTS], batch, mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        """State values from ``"observations"`` (the mask says nothing the observation does not; the candidate
        head reads it only to know which candidate rows are valid)."""
        if self._privileged is not None:
            if embeddings is None:
                inner, _ = self._inner(batch)
                embeddings = self.encoder(inner)[ENCODER_OUT][CRITIC]
            return self.privileged_vf(torch.cat([embeddings, batch[Columns.OBS][CRITIC_KEY]], dim=1)).squeeze(-1)
        if embeddings is None and self._candidates is not None:
            inner, mask = self._inner(batch)
            critic = getattr(self.encoder, "critic_encoder", None)  # a separate critic encoder, or the shared one's
            encoded = critic(inner)[ENCODER_OUT] if critic is not None else self.encoder(inner)[ENCODER_OUT][CRITIC]
            embeddings = critic_input(encoded, batch[Columns.OBS][OBS_KEY], mask, self._candidates)
        elif embeddings is None:
            batch, _ = self._inner(batch)
        return super().compute_values(batch, embeddings)
