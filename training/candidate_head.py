"""A policy over a game's legal placements as the rules describe them: one logit per candidate row's features.

For action spaces whose first ``actions`` actions are placements, with an observation piece of ``rows`` x
``features`` numbers (the Duel's ``placement_candidates``: row k describes the k-th legal placement in
action order, e.g. the points it scores now; rows past the legal ones are zero; Capivari's ``afterstates``, a row
per legal move of all 36, the river right after it), a small MLP shared by
all rows scores each row from its features and the actor embedding (the turn, the tile, the scores),
and each legal placement gets the score of its row: only the rows of legal placements are scored
(packed, ``packed_rows``), and boolean indexing of the mask hands the j-th score of an observation to its
j-th legal placement. A legal placement past the last row gets one learned logit; the
other actions (``pass``, module choices) a Linear over the embedding. The critic reads the embedding
plus each feature's max and mean over the valid rows: no per-row layer, so the learner's value pass
over a whole train batch costs no more than the encoder's.
"""

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from training.cell_head import value_head


@dataclass(frozen=True)
class CandidateSlice:
    """Where the candidate rows lie in ``"observations"`` and which actions they cover."""

    start: int
    rows: int
    features: int
    actions: int  # the first ``actions`` actions are the placements the rows describe
    hiddens: tuple[int, ...]

    @property
    def length(self) -> int:
        return self.rows * self.features


def candidate_slice(config: Any, obs_size: int, board: int, num_actions: int) -> CandidateSlice | None:
    """``model_config["candidate_head"]`` (``start``, ``rows``, ``features``, ``actions``, ``hiddens``), checked
    against an observation of ``obs_size`` numbers whose first ``board`` are an image; None without one."""
    given = config.get("candidate_head") if isinstance(config, dict) else None
    if given is None:
        return None
    spec = CandidateSlice(
        int(given["start"]),
        int(given["rows"]),
        int(given["features"]),
        int(given["actions"]),
        tuple(int(h) for h in given.get("hiddens", (64, 64))),
    )
    if spec.rows < 1 or spec.features < 1 or spec.start < board or spec.start + spec.length > obs_size:
        raise ValueError(
            f"candidate_head: {spec.rows} x {spec.features} numbers from {spec.start} must lie in the observation's "
            f"{obs_size} numbers after the board's {board}"
        )
    if not 1 <= spec.actions <= num_actions or not spec.hiddens or min(spec.hiddens) < 1:
        raise ValueError(
            f"candidate_head: needs 1 to {num_actions} placement actions and >= 1 positive hidden width, got "
            f"actions={spec.actions}, hiddens={list(spec.hiddens)}"
        )
    return spec


def candidate_rows(obs: torch.Tensor, spec: CandidateSlice, used: int | None = None) -> torch.Tensor:
    """The ``[n, used, features]`` leading candidate rows of a batch of ``"observations"`` (all rows by default).

    Cut before the reshape: the columns are a strided view, and reshaping all rows would copy them all."""
    used = spec.rows if used is None else used
    return obs[:, spec.start : spec.start + used * spec.features].reshape(-1, used, spec.features)


def legal_placements(mask: torch.Tensor, spec: CandidateSlice) -> tuple[torch.Tensor, torch.Tensor]:
    """``(legal [n, actions] booleans, their count per observation [n])``: what the rows describe."""
    legal = mask[:, : spec.actions] > 0
    return legal, legal.sum(dim=1)


def packed_rows(
    obs: torch.Tensor, counts: torch.Tensor, spec: CandidateSlice
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(rows [m, features], owner [m], rows per observation [n])``: only the rows that describe a legal placement
    (``counts`` of them, at most ``spec.rows``), in order, and the observation each belongs to (~90 of up to 350
    per Duel observation: no work on the zero rows)."""
    kept = counts.clamp(max=spec.rows)
    used = max(1, int(kept.max()) if kept.numel() else 1)
    has_row = torch.arange(used, device=counts.device)[None, :] < kept[:, None]
    owner = has_row.nonzero()[:, 0]
    return candidate_rows(obs, spec, used)[has_row], owner, kept


def pooled_rows(rows: torch.Tensor, owner: torch.Tensor, kept: torch.Tensor) -> torch.Tensor:
    """``[n, 2 * features]``: each feature's max and mean over an observation's ``kept`` packed rows (0 where it
    has none)."""
    n, features = kept.shape[0], rows.shape[1]
    index = owner[:, None].expand(-1, features)
    best = torch.full((n, features), -torch.inf, dtype=rows.dtype, device=rows.device)
    best = best.scatter_reduce(0, index, rows, reduce="amax", include_self=True)
    best = torch.where(kept[:, None] > 0, best, 0.0)
    mean = torch.zeros(n, features, dtype=rows.dtype, device=rows.device).index_add(0, owner, rows)
    return torch.cat([best, mean / kept.clamp(min=1)[:, None].to(rows.dtype)], dim=1)


def covered_placements(legal: torch.Tensor, counts: torch.Tensor, rows: int) -> torch.Tensor:
    """``[n, actions]`` booleans: the legal placements that have a row (the first ``rows`` of each observation's)."""
    if int(counts.max()) <= rows:
        return legal
    rank = torch.cumsum(legal, dim=1) - legal.long()  # legal placements before each one
    return legal & (rank < rows)


class CandidatePolicyHead(nn.Module):
    """Logits of all actions from the actor embedding, the candidate rows and the mask (module docstring).

    The row MLP's first layer reads the row's features and the embedding; its embedding half (the
    projection of the embedding) is computed once per observation and added to each of its rows.
    """

    def __init__(self, embedding: int, spec: CandidateSlice, num_actions: int) -> None:
        super().__init__()
        self.spec = spec
        first = spec.hiddens[0]
        self.rows = nn.Linear(spec.features, first)
        self.context = nn.Linear(embedding, first, bias=False)
        layers: list[nn.Module] = []
        for width_in, width_out in zip(spec.hiddens, spec.hiddens[1:], strict=False):
            layers += [nn.ReLU(), nn.Linear(width_in, width_out)]
        self.score = nn.Sequential(*layers, nn.ReLU(), nn.Linear(spec.hiddens[-1], 1))
        self.overflow = nn.Parameter(torch.zeros(()))  # the logit of a legal placement past the last row
        extra = num_actions - spec.actions
        self.others = nn.Linear(embedding, extra) if extra else None

    def forward(self, embedding: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        legal, counts = legal_placements(mask, self.spec)
        rows, owner, _ = packed_rows(obs, counts, self.spec)
        scores = self.score(self.rows(rows) + self.context(embedding)[owner])[:, 0]
        # boolean indexing walks the covered placements in row-major order, as packed_rows the rows: the j-th
        # legal placement of an observation meets its j-th row
        placements = self.overflow.expand(mask.shape[0], self.spec.actions).to(scores.dtype).clone()
        placements[covered_placements(legal, counts, self.spec.rows)] = scores
        if self.others is None:
            return placements
        return torch.cat([placements, self.others(embedding)], dim=1)


def critic_input(embedding: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor, spec: CandidateSlice) -> torch.Tensor:
    """What the value head reads: the critic embedding, then the candidate features pooled over the valid rows."""
    rows, owner, kept = packed_rows(obs, legal_placements(mask, spec)[1], spec)
    return torch.cat([embedding, pooled_rows(rows, owner, kept)], dim=1)


def build_candidate_nets(
    embedding: int, spec: CandidateSlice, num_actions: int, vf_hiddens: list[int]
) -> tuple[CandidatePolicyHead, nn.Sequential]:
    """The policy head and the value head (``vf_hiddens`` then one output) over ``critic_input``."""
    return CandidatePolicyHead(embedding, spec, num_actions), value_head(embedding + 2 * spec.features, vf_hiddens)
