"""A trained masking module as the plain array file ``agents.compiled_policy`` evaluates without torch.

``module_arrays`` reads the weights of a ``training.masking_module.MaskedPPOTorchRLModule`` (the catalog's
MLP encoder and heads, the action prior, the Duel's candidate head) into the file's arrays, and
``load_module_arrays`` writes a file's back into a module of the same layout (a warm start);
``export_checkpoint`` does it for a checkpoint (``tabuleiro export CHECKPOINT FILE``, and ``tabuleiro train``
beside each checkpoint it saves). What the compiled forward pass does not evaluate yet (the conv stack of a
board, the cell head, LayerNorm, other activations) is refused with an ``UnsupportedPolicy`` naming it.
"""

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from agents.compiled_policy import POLICY_FILE, encoder_widths, header, save_policy
from agents.rllib_policy import load_module, trained_game
from training.candidate_head import CandidatePolicyHead

_ACTIVATIONS: dict[type, str] = {nn.ReLU: "relu", nn.Tanh: "tanh", nn.Identity: "linear"}


class UnsupportedPolicy(ValueError):
    """The module has a part the compiled forward pass does not evaluate (named in the message)."""


def _leaves(module: nn.Module) -> list[nn.Module]:
    """The module's parameterized and activation leaves in registration (= execution, for these nets) order."""
    return [m for m in module.modules() if not list(m.children())]


def _dense_layers(module: nn.Module, name: str, leading: str | None = None) -> list[tuple[nn.Linear, str]]:
    """``(Linear, activation after it)`` of a stack of Linear layers and activations; ``leading``: the
    activation the stack must start with (the candidate score's ReLU), dropped from the result."""
    layers: list[tuple[nn.Linear, str]] = []
    leaves = _leaves(module)
    if leading is not None:
        if not leaves or _ACTIVATIONS.get(type(leaves[0])) != leading:
            raise UnsupportedPolicy(f"{name} must start with {leading}, got {leaves[:1]}")
        leaves = leaves[1:]
    for leaf in leaves:
        if isinstance(leaf, nn.Linear):
            layers.append((leaf, "linear"))
        elif type(leaf) in _ACTIVATIONS and layers and layers[-1][1] == "linear":
            layers[-1] = (layers[-1][0], _ACTIVATIONS[type(leaf)])
        elif type(leaf) is nn.Identity:
            continue
        else:
            raise UnsupportedPolicy(
                f"{name} holds {type(leaf).__name__}, which the compiled forward pass does not evaluate (it takes "
                f"Linear layers with {sorted(set(_ACTIVATIONS.values()))} activations)"
            )
    if not layers:
        raise UnsupportedPolicy(f"{name} has no Linear layer")
    return layers


def _add_net(arrays: dict[str, np.ndarray], nets: dict[str, Any], name: str, layers: list) -> None:
    described = []
    for i, (linear, activation) in enumerate(layers):
        arrays[f"{name}.{i}.weight"] = linear.weight.detach().cpu().numpy().astype(np.float32).copy()
        if linear.bias is not None:
            arrays[f"{name}.{i}.bias"] = linear.bias.detach().cpu().numpy().astype(np.float32).copy()
        described.append({"activation": activation, "bias": linear.bias is not None})
    nets[name] = described


def _encoders(module: Any) -> tuple[nn.Module, nn.Module | None]:
    """The actor's encoder and the critic's (None: the actor's is shared), from RLlib's actor-critic encoder."""
    encoder = module.encoder
    if getattr(encoder, "encoder", None) is not None:  # vf_share_layers: one encoder for both
        return encoder.encoder, None
    actor, critic = getattr(encoder, "actor_encoder", None), getattr(encoder, "critic_encoder", None)
    if actor is None:
        raise UnsupportedPolicy(f"the module's encoder {type(encoder).__name__} has no actor encoder")
    if critic is None:
        raise UnsupportedPolicy("the module has no critic encoder (an inference-only module): export the learner's")
    return actor, critic


def _module_parts(module: Any) -> tuple[dict[str, Any], dict[str, list[tuple[nn.Linear, str]]], dict[str, Any]]:
    """A masking module as the policy file sees it: the ``model`` entry without its ``nets``, the dense stacks
    by file name (``actor_encoder``, ``pi``, ...) and the scalar parameters by array key."""
    if getattr(module, "_cell_head", None) is not None:
        raise UnsupportedPolicy(
            "the cell head (model_config['cell_head']) is not evaluated by the compiled forward pass"
        )
    if getattr(module, "conv", None) is not None:
        raise UnsupportedPolicy(
            "the conv stack over a board (model_config['image_shape'], conv_filters) is not evaluated by the compiled "
            "forward pass; train with the board left out of the observation (e.g. the Duel's observe_boards=false)"
        )
    if getattr(module, "vf", None) is None:
        raise UnsupportedPolicy("the module has no value head (an inference-only module): export the learner's")
    stacks: dict[str, list[tuple[nn.Linear, str]]] = {}
    scalars: dict[str, Any] = {}
    actor, critic = _encoders(module)
    stacks["actor_encoder"] = _dense_layers(actor, "the actor encoder")
    if critic is not None:
        stacks["critic_encoder"] = _dense_layers(critic, "the critic encoder")
    model: dict[str, Any] = {
        "kind": "mlp",
        "outputs": int(module.action_space.n),
        "cut": list(module._cut) if module._cut is not None else None,
        "action_prior": None,
        "candidate_head": None,
        "candidate_actions": None,
    }
    if module._prior is not None:
        start, length, _ = module._prior
        model["action_prior"] = {"start": int(start), "length": int(length)}
        scalars["action_prior.scale"] = module.prior_scale
    if module._candidates is not None:
        spec, head = module._candidates, module.pi
        if not isinstance(head, CandidatePolicyHead):
            raise UnsupportedPolicy(f"a candidate module's pi must be a CandidatePolicyHead, got {type(head).__name__}")
        model["kind"] = "candidate"
        model["candidate_head"] = {
            "start": spec.start,
            "rows": spec.rows,
            "features": spec.features,
            "actions": spec.actions,
        }
        mapped = module.model_config.get("candidate_actions") if isinstance(module.model_config, dict) else None
        if mapped is not None:
            model["candidate_actions"] = {"placements": int(mapped["placements"]), "rows": int(mapped["rows"])}
        stacks["candidate_rows"] = [(head.rows, "linear")]
        stacks["candidate_context"] = [(head.context, "linear")]
        stacks["candidate_score"] = _dense_layers(head.score, "the candidate score", leading="relu")
        if head.others is not None:
            stacks["candidate_others"] = [(head.others, "linear")]
        scalars["candidate_head.overflow"] = head.overflow
    else:
        stacks["pi"] = _dense_layers(module.pi, "the policy head")
    stacks["vf"] = _dense_layers(module.vf, "the value head")
    return model, stacks, scalars


def arrays_and_model(parts: tuple) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The weight arrays by file key and the full ``model`` entry (``nets`` included) of a network's parts:
    ``(model entry without nets, dense stacks by file name, scalar parameters by array key)``."""
    model, stacks, scalars = parts
    arrays: dict[str, np.ndarray] = {}
    nets: dict[str, Any] = {}
    for name, layers in stacks.items():
        _add_net(arrays, nets, name, layers)
    for key, value in scalars.items():
        arrays[key] = np.array(float(value.detach()), np.float32)
    return arrays, model | {"nets": nets}


def module_arrays(module: Any, game: str, game_config: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """The policy file's arrays (``agents.compiled_policy``) of a masking module trained on ``game`` with
    ``game_config`` (the config as given; the file records every field of it). A module with a privileged
    critic has no value of the observation alone: its file's value head is zeros (every value 0)."""
    arrays, model = arrays_and_model(_module_parts(module))
    if getattr(module, "_privileged", None) is not None:
        arrays = {k: np.zeros_like(v) if k.startswith("vf.") else v for k, v in arrays.items()}
    g = envs.make(envs.game_name(game), **dict(game_config or {})).game
    return header(g, model) | arrays


def load_module_arrays(module: Any, arrays: dict[str, np.ndarray], source: str) -> None:
    """Copy a checked policy file's weights into a masking module of the same layout (a warm start);
    ValueError naming what differs (the network's kind, heads, activations, or a layer's shape and the widths
    the file has)."""
    load_parts(_module_parts(module), arrays, source)


def load_parts(parts: tuple, arrays: dict[str, np.ndarray], source: str) -> None:
    """Copy a checked policy file's weights into a network's parts (``arrays_and_model``); ValueError naming
    what differs from the file (the ``model`` entry, or a layer's shape and the widths the file has)."""
    own, model = arrays_and_model(parts)
    theirs = json.loads(str(arrays["model"][()]))
    differs = sorted(k for k in set(model) | set(theirs) if model.get(k) != theirs.get(k))
    if differs:
        raise ValueError(
            f"{source} holds another network than this one: "
            + "; ".join(f"{k}: file {theirs.get(k)!r}, here {model.get(k)!r}" for k in differs)
        )
    for key, mine in own.items():
        if key not in arrays or tuple(arrays[key].shape) != mine.shape:
            widths = list(encoder_widths(arrays))
            found = tuple(arrays[key].shape) if key in arrays else "missing"
            raise ValueError(
                f"{source}: {key} is {found}, this network's {mine.shape} (the file's encoder "
                f"widths are {widths}: give the same, e.g. --set hiddens={json.dumps(widths)})"
            )
    _, stacks, scalars = parts
    with torch.no_grad():
        for name, layers in stacks.items():
            for i, (linear, _) in enumerate(layers):
                linear.weight.copy_(torch.from_numpy(np.asarray(arrays[f"{name}.{i}.weight"], np.float32)))
                if linear.bias is not None:
                    linear.bias.copy_(torch.from_numpy(np.asarray(arrays[f"{name}.{i}.bias"], np.float32)))
        for key, value in scalars.items():
            value.copy_(torch.as_tensor(float(arrays[key]), dtype=value.dtype))


def export_module(module: Any, game: str, game_config: dict[str, Any] | None, path: str | os.PathLike) -> Path:
    """Write ``module``'s policy file to ``path`` (checked, then a temporary file renamed into place)."""
    return save_policy(module_arrays(module, game, game_config), path)


def export_checkpoint(
    checkpoint: str | os.PathLike,
    path: str | os.PathLike,
    game: str | None = None,
    game_config: dict[str, Any] | None = None,
    trust: bool = False,
) -> Path:
    """Write the policy file of a checkpoint's trained module (a ``tabuleiro train`` run folder, its checkpoint,
    or an RLModule folder with ``game`` given). The game and its config come from what ``tabuleiro train``
    recorded beside the checkpoint; a ``game`` given must agree with it. The checkpoint is checked against its
    manifest before it is unpickled; one without a manifest only with ``trust`` (``agents.rllib_policy``)."""
    info = trained_game(checkpoint) or trained_game(Path(checkpoint) / "checkpoint")
    if info is None and game is None:
        raise ValueError(
            f"{str(checkpoint)!r} has no tabuleiro_train.json saying which game it plays: give the game (--game)"
        )
    if info is not None:
        if game is not None and envs.game_name(game) != info["game"]:
            raise ValueError(f"checkpoint {str(checkpoint)!r} was trained on {info['game']}, not {game}")
        if game_config and game_config != info.get("game_config", {}):
            raise ValueError(
                f"checkpoint {str(checkpoint)!r} was trained with game config {info.get('game_config')}, not "
                f"{game_config}"
            )
        game, game_config = info["game"], info.get("game_config") or {}
    assert game is not None
    module = load_module(checkpoint, trust=trust, trust_option="--trust-checkpoint")
    return export_module(module, game, game_config, path)


def export_beside(checkpoint: str | os.PathLike, echo: Callable[[str], None] = print) -> Path | None:
    """``tabuleiro train``'s policy file beside the checkpoint it just saved (``OUT/policy.npz`` for
    ``OUT/checkpoint``). The checkpoint is saved whatever happens here: a model the compiled forward pass cannot
    evaluate, weights that are not finite or a full disk are said (``echo``), not raised, and the previous
    checkpoint's file is removed rather than left beside a checkpoint it does not match."""
    target = Path(checkpoint).parent / POLICY_FILE
    try:
        return export_checkpoint(checkpoint, target)
    except (ValueError, OSError) as exc:
        target.unlink(missing_ok=True)
        echo(f"no {POLICY_FILE} beside this checkpoint: {exc} (the checkpoint is saved; see `tabuleiro export`)")
        return None
