"""The network trained from search: the masked MLP of ``training.masking_module`` without RLlib, as a policy file.

Layers as the PPO module's (with ``vf_share_layers``): a ReLU encoder shared by a linear policy head and a linear
value head. ``net_arrays`` writes them in the policy file's layout (``agents.compiled_policy``), so the compiled
forward pass (``policy:FILE``, ``guided:FILE``, the search that makes the targets) evaluates exactly this network;
``load_net_arrays`` reads such a file back (a resume, or a warm start from a PPO run's ``policy.npz``).
"""

import json
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.compiled_policy import encoder_widths, header

MASKED_LOGIT = torch.finfo(torch.float32).min


class SearchNet(nn.Module):
    """``forward(obs, mask) -> (masked logits, value)``: illegal actions at the lowest float32, the value in the
    game's return units (the acting seat's return to come)."""

    def __init__(self, obs_size: int, num_actions: int, hiddens: tuple[int, ...]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = obs_size
        for h in hiddens:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.encoder = nn.Sequential(*layers)
        self.pi = nn.Linear(width, num_actions)
        self.vf = nn.Linear(width, 1)
        self.hiddens = tuple(int(h) for h in hiddens)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.encoder(obs)
        logits = self.pi(z).masked_fill(mask <= 0, MASKED_LOGIT)
        return logits, self.vf(z).squeeze(-1)

    def linears(self) -> dict[str, list[nn.Linear]]:
        """The dense layers per network of the policy file."""
        return {
            "actor_encoder": [m for m in self.encoder if isinstance(m, nn.Linear)],
            "pi": [self.pi],
            "vf": [self.vf],
        }


def net_arrays(net: SearchNet, game: Any) -> dict[str, np.ndarray]:
    """The policy file's arrays of ``net`` for an engine ``Game`` (header included)."""
    arrays: dict[str, np.ndarray] = {}
    nets: dict[str, list[dict[str, Any]]] = {}
    for name, linears in net.linears().items():
        described = []
        for i, linear in enumerate(linears):
            arrays[f"{name}.{i}.weight"] = linear.weight.detach().cpu().numpy().astype(np.float32).copy()
            arrays[f"{name}.{i}.bias"] = linear.bias.detach().cpu().numpy().astype(np.float32).copy()
            relu = name == "actor_encoder"
            described.append({"activation": "relu" if relu else "linear", "bias": True})
        nets[name] = described
    model = {
        "kind": "mlp",
        "outputs": int(net.pi.out_features),
        "cut": None,
        "action_prior": None,
        "candidate_head": None,
        "candidate_actions": None,
        "nets": nets,
    }
    return header(game, model) | arrays


def file_hiddens(arrays: dict[str, np.ndarray], source: str) -> tuple[int, ...]:
    """The encoder widths of a policy file this network can load; ValueError naming what differs otherwise (a
    candidate head, an action prior, a cut, a separate critic encoder, other activations)."""
    model = json.loads(str(arrays["model"][()]))
    nets = model.get("nets", {})
    plain = (
        model.get("kind") == "mlp"
        and model.get("cut") is None
        and model.get("action_prior") is None
        and set(nets) == {"actor_encoder", "pi", "vf"}
        and all(layer == {"activation": "relu", "bias": True} for layer in nets["actor_encoder"])
        and nets["pi"] == [{"activation": "linear", "bias": True}]
        and nets["vf"] == [{"activation": "linear", "bias": True}]
    )
    if not plain:
        raise ValueError(
            f"{source} is not a plain masked MLP (one ReLU encoder shared by a linear policy and value head): "
            "training from search starts only from such a policy file"
        )
    return encoder_widths(arrays)


def load_net_arrays(net: SearchNet, arrays: dict[str, np.ndarray], source: str) -> None:
    """Copy a checked policy file's weights into ``net``; ValueError if its layout or widths differ."""
    hiddens = file_hiddens(arrays, source)
    if hiddens != net.hiddens:
        raise ValueError(f"{source} has encoder widths {list(hiddens)}, the network {list(net.hiddens)}")
    with torch.no_grad():
        for name, linears in net.linears().items():
            for i, linear in enumerate(linears):
                w, b = arrays[f"{name}.{i}.weight"], arrays[f"{name}.{i}.bias"]
                if tuple(w.shape) != tuple(linear.weight.shape):
                    raise ValueError(
                        f"{source}: {name}.{i}.weight is {w.shape}, the network's {tuple(linear.weight.shape)}"
                    )
                linear.weight.copy_(torch.from_numpy(np.asarray(w, np.float32)))
                linear.bias.copy_(torch.from_numpy(np.asarray(b, np.float32)))
