"""The network trained from search: the masking module's layouts without RLlib, as a policy file.

Layers as the PPO module's (with ``vf_share_layers``): a ReLU encoder shared by the policy head and the value head.
Plain: linear heads over the encoder. With a candidate head (the Duel's ``placement_candidates``): the candidate
rows are cut out of what the encoder reads, each row scored by ``training.candidate_head.CandidatePolicyHead`` in
the candidate action space (action k: the k-th legal placement), the value a Linear over the embedding and the
rows' pooled features. ``net_arrays`` writes the network in the policy file's layout (``agents.compiled_policy``),
so the compiled forward pass (``policy:FILE``, ``guided:FILE``, the search that makes the targets) evaluates
exactly this network; ``load_net_arrays`` reads such a file back (a resume, or a warm start from a PPO run's
``policy.npz``).
"""

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.compiled_policy import candidate_widths, encoder_widths, header
from envs.engine.candidate_actions import CandidateActions, candidate_actions_of
from training.candidate_head import CandidatePolicyHead, CandidateSlice, critic_input
from training.export import arrays_and_model, load_parts

MASKED_LOGIT = torch.finfo(torch.float32).min


@dataclass(frozen=True)
class CandidateLayout:
    """Where a game's candidate rows lie (``slice``: in the candidate action space, ``actions`` = rows) and how
    the candidate actions map to the game's (``view``)."""

    piece: str
    slice: CandidateSlice
    view: CandidateActions


def candidate_layout(game: Any, piece: str, hiddens: tuple[int, ...]) -> CandidateLayout:
    """The candidate layout of ``game``'s observation piece ``piece`` (rows x features), its row MLP of widths
    ``hiddens``; ValueError if the game has no such piece or no candidate actions."""
    view = candidate_actions_of(game, piece)
    layout = game.observation_layout()
    rows, features = (int(x) for x in layout.shape(piece))
    spec = CandidateSlice(int(layout.offset(piece)), rows, features, rows, tuple(int(h) for h in hiddens))
    return CandidateLayout(piece, spec, view)


class SearchNet(nn.Module):
    """``forward(obs, mask) -> (masked logits, value)``: illegal actions at the lowest float32, the value in the
    game's return units (the acting seat's return to come). With ``candidates`` the actions (and ``mask``) are
    the candidate action space's, ``num_actions`` its size."""

    def __init__(
        self, obs_size: int, num_actions: int, hiddens: tuple[int, ...], candidates: CandidateLayout | None = None
    ) -> None:
        super().__init__()
        self.candidates = candidates
        spec = candidates.slice if candidates is not None else None
        layers: list[nn.Module] = []
        width = obs_size - (spec.length if spec is not None else 0)
        for h in hiddens:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.encoder = nn.Sequential(*layers)
        self.pi: nn.Module
        if spec is None:
            self.pi = nn.Linear(width, num_actions)
            self.vf = nn.Linear(width, 1)
        else:
            self.pi = CandidatePolicyHead(width, spec, num_actions)
            self.vf = nn.Linear(width + 2 * spec.features, 1)
        self.hiddens = tuple(int(h) for h in hiddens)
        self.num_actions = int(num_actions)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.candidates is None:
            z = self.encoder(obs)
            return self.pi(z).masked_fill(mask <= 0, MASKED_LOGIT), self.vf(z).squeeze(-1)
        spec = self.candidates.slice
        z = self.encoder(torch.cat([obs[:, : spec.start], obs[:, spec.start + spec.length :]], dim=1))
        logits = self.pi(z, obs, mask).masked_fill(mask <= 0, MASKED_LOGIT)
        return logits, self.vf(critic_input(z, obs, mask, spec)).squeeze(-1)

    def parts(self) -> tuple[dict[str, Any], dict[str, list[tuple[nn.Linear, str]]], dict[str, Any]]:
        """The network as the policy file sees it (``training.export.arrays_and_model``): the ``model`` entry
        without its nets, the dense stacks by file name and the scalar parameters by array key."""
        encoder = [(m, "relu") for m in self.encoder if isinstance(m, nn.Linear)]
        model: dict[str, Any] = {
            "kind": "mlp",
            "outputs": self.num_actions,
            "cut": None,
            "action_prior": None,
            "candidate_head": None,
            "candidate_actions": None,
        }
        if self.candidates is None:
            assert isinstance(self.pi, nn.Linear)
            return model, {"actor_encoder": encoder, "pi": [(self.pi, "linear")], "vf": [(self.vf, "linear")]}, {}
        spec, view, head = self.candidates.slice, self.candidates.view, self.pi
        assert isinstance(head, CandidatePolicyHead)
        model |= {
            "kind": "candidate",
            "cut": [spec.start, spec.length],
            "candidate_head": {"start": spec.start, "rows": spec.rows, "features": spec.features, "actions": spec.rows},
            "candidate_actions": {"placements": view.placements, "rows": view.rows},
        }
        score = [m for m in head.score if isinstance(m, nn.Linear)]
        stacks = {
            "actor_encoder": encoder,
            "candidate_rows": [(head.rows, "linear")],
            "candidate_context": [(head.context, "linear")],
            "candidate_score": [(m, "relu") for m in score[:-1]] + [(score[-1], "linear")],
        }
        if head.others is not None:
            stacks["candidate_others"] = [(head.others, "linear")]
        stacks["vf"] = [(self.vf, "linear")]
        return model, stacks, {"candidate_head.overflow": head.overflow}


def net_arrays(net: SearchNet, game: Any) -> dict[str, np.ndarray]:
    """The policy file's arrays of ``net`` for an engine ``Game`` (header included)."""
    arrays, model = arrays_and_model(net.parts())
    return header(game, model) | arrays


def file_layout(
    arrays: dict[str, np.ndarray], game: Any, source: str
) -> tuple[tuple[int, ...], CandidateLayout | None]:
    """``(encoder widths, candidate layout or None)`` of a policy file this network can load: a plain masked MLP
    or a candidate head over one of ``game``'s observation pieces (in the candidate action space, or in the game's
    as PPO writes it: the same rows, the same function), one ReLU encoder shared by the policy and a linear value;
    ValueError naming what differs otherwise (an action prior, a separate critic encoder, ...)."""
    model = json.loads(str(arrays["model"][()]))
    nets = model.get("nets", {})
    relu_encoder = all(layer == {"activation": "relu", "bias": True} for layer in nets.get("actor_encoder", [None]))
    linear = [{"activation": "linear", "bias": True}]
    plain = (
        model.get("kind") == "mlp"
        and model.get("cut") is None
        and model.get("action_prior") is None
        and set(nets) == {"actor_encoder", "pi", "vf"}
        and nets["pi"] == linear
    )
    candidate = model.get("kind") == "candidate" and set(nets) - {"candidate_others"} == {
        "actor_encoder",
        "candidate_rows",
        "candidate_context",
        "candidate_score",
        "vf",
    }
    if not ((plain or candidate) and relu_encoder and nets["vf"] == linear):
        raise ValueError(
            f"{source} is neither a plain masked MLP nor a candidate head (in the candidate or the game's action "
            "space; one ReLU encoder shared by the policy and a linear value head): training from search starts only "
            "from such a policy file"
        )
    hiddens = encoder_widths(arrays)
    if plain:
        return hiddens, None
    start = int(model["candidate_head"]["start"])
    layout = game.observation_layout()
    piece = layout.piece_at(start) if layout is not None else None
    if piece is None:
        raise ValueError(f"{source}: its candidate rows start at {start}, where no piece of {game.name}'s starts")
    layout_of_file = candidate_layout(game, piece, candidate_widths(arrays))
    # a PPO file scores the same rows in the game's action space (row k: the k-th legal one of its leading actions)
    head, view = model["candidate_head"], layout_of_file.view
    if model.get("candidate_actions") is None and (head["actions"], head["rows"]) != (view.placements, view.rows):
        raise ValueError(
            f"{source}: its candidate head scores {head['rows']} rows for {head['actions']} actions, where "
            f"{game.name}'s {piece} has {view.rows} rows for {view.placements}"
        )
    return hiddens, layout_of_file


def load_net_arrays(net: SearchNet, arrays: dict[str, np.ndarray], source: str) -> None:
    """Copy a checked policy file's weights into ``net``; ValueError if its layout or widths differ. A candidate head
    written in the game's action space (PPO's) is read as the same head in the candidate action space."""
    model = json.loads(str(arrays["model"][()]))
    if net.candidates is not None and model.get("kind") == "candidate" and model.get("candidate_actions") is None:
        view = net.candidates.view
        if model["candidate_head"].get("actions") == view.placements:
            model.update(candidate_actions={"placements": view.placements, "rows": view.rows}, outputs=view.size)
            model["candidate_head"] = dict(model["candidate_head"], actions=view.rows)
            arrays = {**arrays, "model": np.array(json.dumps(model))}
    load_parts(net.parts(), arrays, source)
