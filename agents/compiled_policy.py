"""A trained policy as data: one plain ``.npz`` array file, read without pickle and evaluated by numba.

``training.export`` writes the file from a trained masking module (``training.masking_module``: the masked
MLP, with the Duel's candidate head ``training.candidate_head`` and the action prior where a preset uses
them); this module reads it, checks it, and computes the masked logits and the value of one observation or
of a batch with the engine's ``@njit`` forward pass (``envs.engine.policy_net``), equal to torch's within 1e-4
(``CompiledPolicy.kernel_args`` hands the same arrays to compiled code: guided search, the vector env). It
imports neither torch nor Ray, so a policy plays wherever numpy and numba do: ``policy:FILE[,sample=true]``
in the arena (``PolicyAgent``); ``policy:reference`` plays the file shipped in ``agents/reference/``.

The file (format version 1), every entry a numpy array (``np.load(..., allow_pickle=False)``):

- ``format`` ``"tabuleiro-policy"``, ``format_version`` 1 (an int);
- ``game`` the registered name (``capivari_v0``); ``game_config`` (JSON text) every field of the game's
  config, observation switches included (the Duel's ``placement_candidates``, ``observe_boards``);
  ``observation`` (JSON text) the observation's size, its layout's pieces and the game's action count;
- ``model`` (JSON text) the layer layout: ``kind`` (``mlp``: encoder, then a policy head; ``candidate``:
  the candidate head), ``outputs`` (the module's actions), ``cut`` (the observation slice the encoder does
  not read), ``action_prior``, ``candidate_head``, ``candidate_actions``, and ``nets``: per network the
  list of its dense layers' activations (``linear``, ``relu``, ``tanh``) and whether each has a bias;
- the weights, float32: ``<net>.<i>.weight`` ``[out, in]`` (torch's layout) and ``<net>.<i>.bias``
  ``[out]``, plus ``action_prior.scale`` and ``candidate_head.overflow`` (0-d) where used;
- optional: ``averaged`` (an int >= 1) in a file whose weights are the mean of that many policies' of one
  layout (``agents.policy_average``).

Networks: ``actor_encoder`` (and ``critic_encoder`` when the value has its own) read the observation
without the cut slice; ``mlp`` kind: ``pi`` (logits) over the actor embedding, ``vf`` (value) over the
critic's; ``candidate`` kind: each legal placement's logit is
``candidate_score(relu(candidate_rows(row) + candidate_context(embedding)))`` (``candidate_context`` has
no bias) for its row (the k-th legal placement reads row k; one past the rows gets ``overflow``),
``candidate_others`` gives the actions after the placements, and ``vf`` reads the critic embedding, then
each candidate feature's max and mean over the valid rows.
"""

import io
import json
import os
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.engine.candidate_actions import CandidateActions
from envs.engine.config import config_json, observation_knobs
from envs.engine.layout import ObsLayout
from envs.engine.observer import Observer, with_observation
from envs.engine.policy_net import (
    G_ACTIONS,
    G_PLACEMENTS,
    G_ROWS,
    G_SIZE,
    MASKED_LOGIT,
    NETS,
    ROWS,
    S_CAND_ACTIONS,
    S_CAND_FEATURES,
    S_CAND_ROWS,
    S_CAND_START,
    S_CUT_LEN,
    S_CUT_START,
    S_KIND,
    S_OBS,
    S_OUT,
    S_PRIOR_LEN,
    S_PRIOR_START,
    S_SIZE,
    SC_GREEDY,
    SC_OVERFLOW,
    SC_PRIOR_SCALE,
    SC_SIZE,
    SCORE,
    forward_batch,
)
from envs.files import write_atomic

FORMAT = "tabuleiro-policy"
FORMAT_VERSION = 1
POLICY_FILE = "policy.npz"  # the name `tabuleiro train` gives the file beside each checkpoint
REFERENCE = "reference"  # policy:reference, guided:reference: the file shipped for the game
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"

ACTIVATIONS = {"linear": 0, "relu": 1, "tanh": 2}
KINDS = {"mlp": 0, "candidate": 1}
NEEDED = {"mlp": {"actor_encoder", "pi", "vf"}, "candidate": {"actor_encoder", "vf", *NETS[ROWS : SCORE + 1]}}
OPTIONAL = {"mlp": {"critic_encoder"}, "candidate": {"critic_encoder", "candidate_others"}}
AVERAGED = "averaged"  # optional: how many policies' weights a file's are the mean of (agents.policy_average)
HEADER = ("format", "format_version", "game", "game_config", "observation", "model")


# -- the file: checked arrays -> a compiled policy ------------------------------------------------------


def _bad(source: str, message: str) -> ValueError:
    return ValueError(f"policy file {source}: {message}")


def _text(arrays: dict[str, np.ndarray], key: str, source: str) -> str:
    value = arrays[key]
    if value.ndim != 0 or value.dtype.kind != "U":
        raise _bad(source, f"{key!r} must be a text scalar, got a {value.dtype} array of shape {value.shape}")
    return str(value[()])


def _json(arrays: dict[str, np.ndarray], key: str, source: str) -> Any:
    try:
        return json.loads(_text(arrays, key, source))
    except json.JSONDecodeError as exc:
        raise _bad(source, f"{key!r} is not valid JSON: {exc}") from None


def _int(value: Any, what: str, source: str, lo: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise _bad(source, f"{what} must be an int >= {lo}, got {value!r}")
    return value


def _weights(arrays: dict[str, np.ndarray], key: str, shape: tuple[int, ...] | None, source: str) -> np.ndarray:
    """The float32 array ``key``, of ``shape`` where given (None: any 2-D), every number finite."""
    if key not in arrays:
        raise _bad(source, f"missing key {key!r} (the model's layout lists it)")
    value = arrays[key]
    if value.dtype != np.float32:
        raise _bad(source, f"{key!r} must be float32, got {value.dtype}")
    if (shape is None and value.ndim != 2) or (shape is not None and value.shape != shape):
        want = "2-D" if shape is None else str(shape)
        raise _bad(source, f"{key!r} has shape {value.shape}, expected {want} (wrong shapes)")
    if not np.isfinite(value).all():
        raise _bad(source, f"{key!r} holds non-finite weights (nan or inf): the training diverged?")
    return value


@dataclass(frozen=True)
class PolicyInfo:
    """What a policy file says about itself, besides the weights."""

    game: str
    game_config: dict[str, Any]
    obs_size: int
    num_actions: int  # the game's
    pieces: tuple[tuple[str, tuple[int, ...]], ...]  # the observation layout's (name, shape) pieces
    model: dict[str, Any]


class CompiledPolicy:
    """A checked policy file, packed for the compiled forward pass (``logits``, ``forward``, ``game_logits``)."""

    def __init__(self, arrays: dict[str, np.ndarray], source: str = "<arrays>") -> None:
        self.source = source
        self.info = check_arrays(arrays, source)
        model = self.info.model
        self.outputs = int(model["outputs"])
        mapped = model.get("candidate_actions")
        self.candidates: CandidateActions | None = None
        if mapped is not None:
            self.candidates = CandidateActions(self.info.num_actions, mapped["placements"], mapped["rows"])
        self._pack(arrays, model)

    def _pack(self, arrays: dict[str, np.ndarray], model: dict[str, Any]) -> None:
        chunks: list[np.ndarray] = []
        layers: list[list[int]] = []
        nets = np.zeros((len(NETS), 2), np.int64)
        offset = 0
        for n, name in enumerate(NETS):
            described = model["nets"].get(name)
            if described is None:
                continue
            nets[n] = (len(layers), len(described))
            for i, layer in enumerate(described):
                w = arrays[f"{name}.{i}.weight"]
                chunks.append(np.ascontiguousarray(w.T).ravel())  # input-major: _dense's column per input
                w_at, offset = offset, offset + w.size
                b_at = -1
                if layer["bias"]:
                    chunks.append(arrays[f"{name}.{i}.bias"])
                    b_at, offset = offset, offset + w.shape[0]
                layers.append([w_at, b_at, w.shape[1], w.shape[0], ACTIVATIONS[layer["activation"]]])
        self.params = np.ascontiguousarray(np.concatenate(chunks), dtype=np.float32)
        self.layers = np.array(layers, np.int64)
        self.nets = nets
        spec = np.zeros(S_SIZE, np.int64)
        spec[S_KIND], spec[S_OBS], spec[S_OUT] = KINDS[model["kind"]], self.info.obs_size, self.outputs
        if model.get("cut") is not None:
            spec[S_CUT_START], spec[S_CUT_LEN] = model["cut"]
        scalars = np.zeros(SC_SIZE, np.float32)
        if model.get("action_prior") is not None:
            spec[S_PRIOR_START], spec[S_PRIOR_LEN] = model["action_prior"]["start"], model["action_prior"]["length"]
            scalars[SC_PRIOR_SCALE] = arrays["action_prior.scale"]
        if model.get("candidate_head") is not None:
            head = model["candidate_head"]
            spec[S_CAND_START], spec[S_CAND_ROWS] = head["start"], head["rows"]
            spec[S_CAND_FEATURES], spec[S_CAND_ACTIONS] = head["features"], head["actions"]
            scalars[SC_OVERFLOW] = arrays["candidate_head.overflow"]
        self.spec, self.scalars = spec, scalars
        view = self.candidates
        self.game_view = np.zeros(G_SIZE, np.int64)
        self.game_view[G_ACTIONS] = self.info.num_actions
        if view is not None:
            self.game_view[G_PLACEMENTS], self.game_view[G_ROWS] = view.placements, view.rows

    @property
    def kernel_args(self) -> tuple[np.ndarray, ...]:
        """``(params, layers, nets, spec, scalars, game_view)``: the arrays ``envs.engine.policy_net`` reads."""
        return self.params, self.layers, self.nets, self.spec, self.scalars, self.game_view

    def opponent_args(self, greedy: bool) -> tuple[np.ndarray, ...]:
        """``kernel_args`` for the vector env's compiled opponent: it plays the argmax (``greedy``) or a sample."""
        scalars = self.scalars.copy()
        scalars[SC_GREEDY] = 1.0 if greedy else 0.0
        return self.params, self.layers, self.nets, self.spec, scalars, self.game_view

    @property
    def game(self) -> str:
        return self.info.game

    def forward(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits [n, outputs] float32, values [n] float32)`` of a batch, as the module computes them: in
        the module's action space (``mask`` too: with candidate actions, the candidate masks), masked
        entries at the lowest float32."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        mask = np.ascontiguousarray(mask, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.info.obs_size or mask.shape != (obs.shape[0], self.outputs):
            raise ValueError(
                f"{self.source}: expected observations (n, {self.info.obs_size}) and masks (n, {self.outputs}), got "
                f"{obs.shape} and {mask.shape}"
            )
        logits = np.empty((obs.shape[0], self.outputs), np.float32)
        values = np.empty(obs.shape[0], np.float32)
        forward_batch(self.params, self.layers, self.nets, self.spec, self.scalars, obs, mask, logits, values)
        return logits, values

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, float]:
        """``(logits [outputs], value)`` of one observation (module's action space, like ``forward``)."""
        logits, values = self.forward(np.asarray(obs)[None], np.asarray(mask)[None])
        return logits[0], float(values[0])

    def module_mask(self, game_mask: np.ndarray) -> np.ndarray:
        """The module's mask (float32) of one game mask: the candidate mask where the policy uses candidate
        actions, else the game's."""
        game_mask = np.asarray(game_mask)[None]
        return (game_mask if self.candidates is None else self.candidates.masks(game_mask))[0].astype(np.float32)

    def game_action(self, game_mask: np.ndarray, choice: int) -> int:
        """The game's action for the module's action ``choice`` under ``game_mask``."""
        if self.candidates is None:
            return int(choice)
        return int(self.candidates.game_actions(np.asarray(game_mask)[None], np.array([choice]))[0])

    def game_logits(self, obs: np.ndarray, game_mask: np.ndarray) -> tuple[np.ndarray, float]:
        """``(logits over the game's actions, value)`` of one observation: a candidate policy's logit of row k
        goes to the k-th legal placement; illegal actions at the lowest float32."""
        logits, value = self.logits(obs, self.module_mask(game_mask))
        view = self.candidates
        if view is None:
            return logits, value
        full = np.full(view.num_actions, MASKED_LOGIT, np.float32)
        legal = np.flatnonzero(np.asarray(game_mask)[: view.placements])
        covered = legal[: view.rows]
        full[covered] = logits[: covered.size]
        full[view.placements :] = logits[view.rows :]
        return full, value


def check_arrays(arrays: dict[str, np.ndarray], source: str = "<arrays>") -> PolicyInfo:
    """The file's header and layout, every weight checked (key present, float32, shape, finite); ValueError
    naming what is wrong: missing keys, an unknown format version, wrong shapes, non-finite weights, a game,
    config or observation this tabuleiro does not have."""
    missing = [k for k in HEADER if k not in arrays]
    if missing:
        raise _bad(source, f"missing key(s) {missing}: not a tabuleiro policy file?")
    if _text(arrays, "format", source) != FORMAT:
        raise _bad(source, f"format is {_text(arrays, 'format', source)!r}, not {FORMAT!r}")
    version = arrays["format_version"]
    if version.ndim != 0 or version.dtype.kind not in "iu":
        raise _bad(source, f"format_version must be an int scalar, got {version.dtype} of shape {version.shape}")
    if int(version) != FORMAT_VERSION:
        raise _bad(source, f"unknown format version {int(version)} (this tabuleiro reads version {FORMAT_VERSION})")
    game = _text(arrays, "game", source)
    config = _json(arrays, "game_config", source)
    observation = _json(arrays, "observation", source)
    model = _json(arrays, "model", source)
    if not isinstance(config, dict) or not isinstance(observation, dict) or not isinstance(model, dict):
        raise _bad(source, "game_config, observation and model must be JSON objects")
    info = PolicyInfo(
        game=game,
        game_config=config,
        obs_size=_int(observation.get("size"), "observation size", source, 1),
        num_actions=_int(observation.get("num_actions"), "observation num_actions", source, 1),
        pieces=_pieces(observation.get("pieces"), source),
        model=model,
    )
    info = replace(info, game_config=_check_game(info, source))
    _check_model(arrays, info, source)
    if AVERAGED in arrays:
        averaged = arrays[AVERAGED]
        if averaged.ndim != 0 or averaged.dtype.kind not in "iu" or int(averaged) < 1:
            raise _bad(source, f"{AVERAGED!r} must be an int scalar >= 1, got {averaged.dtype} {averaged!r}")
    return info


def _pieces(value: Any, source: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    try:
        return tuple((str(name), tuple(int(d) for d in shape)) for name, shape in value)
    except (TypeError, ValueError):
        raise _bad(source, f"observation pieces must be [name, shape] pairs, got {value!r}") from None


def game_config_of(game: Any) -> dict[str, Any]:
    """Every field of an engine ``Game``'s config, as JSON values (tuples as lists)."""
    return config_json(game.config)


def plays_game(info: PolicyInfo, game: Any) -> bool:
    """Whether a file's policy was exported for the engine ``Game`` ``game``: same game, same config."""
    return envs.game_name(game.name) == envs.game_name(info.game) and game_config_of(game) == info.game_config


def observer_for(policy: CompiledPolicy, game: Any, name: str) -> Observer | None:
    """How a policy observes a table of the engine ``Game`` ``game``: None if the table's config is the file's,
    an ``Observer`` with the file's observation options if only those differ; ValueError if the rules differ."""
    info = policy.info
    if envs.game_name(game.name) == envs.game_name(info.game):
        own = with_observation(game, info.game_config)  # the table's rules, the file's observation options
        if game_config_of(own) == info.game_config:
            return None if own is game else Observer(own, game)
    raise ValueError(
        f"{name} was exported for {info.game} with config {info.game_config}; this game is {game.name} with config "
        f"{game_config_of(game)} (it plays any config that differs from its own only in observation options: "
        f"{list(observation_knobs(game.config))})"
    )


def observation_of(game: Any) -> dict[str, Any]:
    """The ``observation`` entry of a file for an engine ``Game``: size, layout pieces, action count."""
    layout = game.observation_layout()
    pieces = [[name, list(layout.shape(name))] for name in layout.names()] if layout is not None else []
    return {"size": int(game.obs_size), "num_actions": int(game.num_actions), "pieces": pieces}


def _check_game(info: PolicyInfo, source: str) -> dict[str, Any]:
    """The file's game exists here with its config, and that config observes as the file says; the config
    completed with the defaults of knobs added since the file was written (a new knob's default plays as
    before)."""
    try:
        name = envs.game_name(info.game)
        game = envs.make(name, **info.game_config).game
    except ValueError as exc:
        raise _bad(source, f"game {info.game!r} with config {info.game_config} cannot be made here: {exc}") from None
    here = observation_of(game)
    recorded = {
        "size": info.obs_size,
        "num_actions": info.num_actions,
        "pieces": [[n, list(s)] for n, s in info.pieces],
    }
    if here != recorded:
        raise _bad(
            source,
            f"{name} with config {info.game_config} observes {here['size']} numbers with {here['num_actions']} "
            f"actions (pieces {[p[0] for p in here['pieces']]}); the file was exported for {info.obs_size} and "
            f"{info.num_actions} (pieces {[p[0] for p in info.pieces]}): another version of the game's observation",
        )
    return game_config_of(game)


def _layout_nets(model: dict[str, Any], source: str) -> dict[str, list[dict[str, Any]]]:
    kind = model.get("kind")
    if kind not in KINDS:
        raise _bad(source, f"model kind {kind!r} is not one of {sorted(KINDS)}")
    nets = model.get("nets")
    if not isinstance(nets, dict):
        raise _bad(source, "model nets must be a JSON object")
    unknown = sorted(set(nets) - NEEDED[kind] - OPTIONAL[kind])
    missing = sorted(NEEDED[kind] - set(nets))
    if unknown or missing:
        raise _bad(source, f"a {kind} model needs nets {sorted(NEEDED[kind])} (may have {sorted(OPTIONAL[kind])}); "
                   f"missing {missing}, unknown {unknown}")  # fmt: skip
    for name, layers in nets.items():
        if not isinstance(layers, list) or not layers:
            raise _bad(source, f"net {name!r} must list at least one layer")
        for layer in layers:
            if (
                not isinstance(layer, dict)
                or layer.get("activation") not in ACTIVATIONS
                or not isinstance(layer.get("bias"), bool)
            ):
                raise _bad(source, f"net {name!r}: each layer needs activation in {sorted(ACTIVATIONS)} and a bool "
                           f"bias, got {layer!r}")  # fmt: skip
    return nets


def _chain(arrays: dict[str, np.ndarray], nets: dict[str, Any], name: str, n_in: int, source: str) -> int:
    """Check net ``name``'s weights, its first layer reading ``n_in`` numbers; its output size."""
    size = n_in
    for i, layer in enumerate(nets[name]):
        w = _weights(arrays, f"{name}.{i}.weight", None, source)
        if w.shape[1] != size:
            raise _bad(source, f"{name}.{i}.weight reads {w.shape[1]} numbers, but {size} reach it (wrong shapes)")
        if layer["bias"]:
            _weights(arrays, f"{name}.{i}.bias", (w.shape[0],), source)
        size = w.shape[0]
    return size


def _check_model(arrays: dict[str, np.ndarray], info: PolicyInfo, source: str) -> None:
    model = info.model
    nets = _layout_nets(model, source)
    outputs = _int(model.get("outputs"), "model outputs", source, 1)
    obs_size = info.obs_size
    mapped = model.get("candidate_actions")
    if mapped is not None:
        placements = _int(mapped.get("placements"), "candidate_actions placements", source, 1)
        rows = _int(mapped.get("rows"), "candidate_actions rows", source, 1)
        expected = rows + info.num_actions - placements
    else:
        expected = info.num_actions
    if outputs != expected:
        raise _bad(source, f"the model has {outputs} outputs, the game's actions need {expected} (wrong shapes)")
    cut = model.get("cut")
    cut_len = 0
    if cut is not None:
        start, cut_len = (_int(x, "model cut", source) for x in cut)
        if start + cut_len > obs_size:
            raise _bad(source, f"cut [{start}, {start + cut_len}) past the observation's {obs_size} numbers")
    embedding = _chain(arrays, nets, "actor_encoder", obs_size - cut_len, source)
    critic = (
        _chain(arrays, nets, "critic_encoder", obs_size - cut_len, source) if "critic_encoder" in nets else embedding
    )
    prior = model.get("action_prior")
    if prior is not None:
        start, length = (
            _int(prior.get("start"), "action_prior start", source),
            _int(prior.get("length"), "action_prior length", source, 1),
        )
        if start + length > obs_size or length > outputs or cut != [start, length]:
            raise _bad(source, f"action_prior [{start}, {start + length}) does not fit (wrong shapes)")
        _weights(arrays, "action_prior.scale", (), source)
    head = model.get("candidate_head")
    if model["kind"] == "mlp":
        if head is not None:
            raise _bad(source, "an mlp model has no candidate_head")
        logits = _chain(arrays, nets, "pi", embedding, source)
        if logits != outputs:
            raise _bad(source, f"pi gives {logits} logits for {outputs} actions (wrong shapes)")
        value_in = critic
    else:
        if not isinstance(head, dict) or prior is not None:
            raise _bad(source, "a candidate model needs candidate_head (and no action_prior)")
        start, rows, features, actions = (
            _int(head.get(k), f"candidate_head {k}", source, 0 if k == "start" else 1)
            for k in ("start", "rows", "features", "actions")
        )
        if start + rows * features > obs_size or actions > outputs or cut != [start, rows * features]:
            raise _bad(source, f"candidate_head {head} does not fit the observation of {obs_size} (wrong shapes)")
        if mapped is not None and (actions != mapped["rows"] or rows != mapped["rows"]):
            raise _bad(source, f"candidate_head {head} and candidate_actions {mapped} disagree")
        hidden = _chain(arrays, nets, "candidate_rows", features, source)
        if (
            len(nets["candidate_rows"]) != 1
            or len(nets["candidate_context"]) != 1
            or _chain(arrays, nets, "candidate_context", embedding, source) != hidden
        ):
            raise _bad(source, "candidate_rows and candidate_context must be one layer each, of one width")
        if _chain(arrays, nets, "candidate_score", hidden, source) != 1:
            raise _bad(source, "candidate_score must end in one number (wrong shapes)")
        extra = outputs - actions
        if ("candidate_others" in nets) != (extra > 0) or (
            extra and _chain(arrays, nets, "candidate_others", embedding, source) != extra
        ):
            raise _bad(source, f"candidate_others must give the {extra} actions after the placements (wrong shapes)")
        _weights(arrays, "candidate_head.overflow", (), source)
        value_in = critic + 2 * features
    if _chain(arrays, nets, "vf", value_in, source) != 1:
        raise _bad(source, "vf must end in one number (wrong shapes)")
    listed = {
        f"{name}.{i}.{part}" for name, layers in nets.items() for i in range(len(layers)) for part in ("weight", "bias")
    }
    extra_keys = sorted(
        set(arrays) - set(HEADER) - listed - {"action_prior.scale", "candidate_head.overflow", AVERAGED}
    )
    if extra_keys:
        raise _bad(source, f"unexpected key(s) {extra_keys} (not in the model's layout)")


# -- reading and writing files ---------------------------------------------------------------------------


def read_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file, parsed (``allow_pickle=False``: never unpickled); ValueError if it is
    not one."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"policy file {str(path)!r} does not exist (or is not a file)")
    try:
        data = np.load(p, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("a single .npy array, not an .npz archive")
        with data:
            return {k: data[k] for k in data.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"policy file {str(path)!r} is not a readable .npz array file: {exc}") from None


def reference_file(game: str) -> Path:
    """The reference policy shipped for ``game`` (``agents/reference/<game>.npz``); ValueError if there is none."""
    name = envs.game_name(game)
    p = REFERENCE_DIR / f"{name}.npz"
    if not p.is_file():
        shipped = sorted(f.stem for f in REFERENCE_DIR.glob("*.npz"))
        raise ValueError(f"no reference policy is shipped for {name}; shipped: {shipped or 'none'}")
    return p


def encoder_widths(arrays: dict[str, np.ndarray]) -> tuple[int, ...]:
    """The widths of a policy file's actor encoder (``hiddens`` of the module it was exported from)."""
    widths: list[int] = []
    while f"actor_encoder.{len(widths)}.weight" in arrays:
        widths.append(int(arrays[f"actor_encoder.{len(widths)}.weight"].shape[0]))
    return tuple(widths)


def candidate_widths(arrays: dict[str, np.ndarray]) -> tuple[int, ...]:
    """The hidden widths of a policy file's candidate row network (``candidate_hiddens`` of its module): the rows'
    layer, then each scoring layer but the last."""
    widths = [int(arrays["candidate_rows.0.weight"].shape[0])]
    while f"candidate_score.{len(widths)}.weight" in arrays:
        widths.append(int(arrays[f"candidate_score.{len(widths) - 1}.weight"].shape[0]))
    return tuple(widths)


def network_settings(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The ``tabuleiro train`` settings that build a policy file's network: ``hiddens`` (its actor encoder) and,
    with a candidate head, the observation piece its rows come from and the row network's widths."""
    out: dict[str, Any] = {"hiddens": encoder_widths(arrays)}
    info = check_arrays(arrays)
    head = info.model.get("candidate_head")
    if head is not None:
        piece = ObsLayout(*info.pieces).piece_at(int(head["start"]))
        if piece is None:
            raise ValueError(f"a policy file's candidate rows start at {head['start']}, where none of its pieces does")
        out["candidate_head"] = piece
        out["candidate_hiddens"] = candidate_widths(arrays)
    return out


def policy_path(path: str | os.PathLike, game: str | None = None) -> Path:
    """The file a policy argument names: a run folder's ``policy.npz``, ``reference``: the one shipped for
    ``game``, else the path itself."""
    if str(path) == REFERENCE:
        if game is None:
            raise ValueError("the reference policy needs a game")
        return reference_file(game)
    p = Path(path).expanduser()
    return p / POLICY_FILE if p.is_dir() else p


def load_policy(path: str | os.PathLike, game: str | None = None) -> CompiledPolicy:
    """The checked policy of a file (a run folder: its ``policy.npz``; ``reference``: the one shipped for
    ``game``); ValueError if it is bad, or was exported for another game than ``game``."""
    p = policy_path(path, game)
    policy = CompiledPolicy(read_arrays(p), source=repr(str(p)))
    if game is not None and envs.game_name(game) != envs.game_name(policy.game):
        raise ValueError(f"policy file {str(p)!r} was exported for {policy.game}, not {envs.game_name(game)}")
    return policy


def save_policy(arrays: dict[str, np.ndarray], path: str | os.PathLike) -> Path:
    """Check ``arrays`` (``check_arrays``) and write them to ``path`` as a compressed ``.npz`` through
    ``envs.files.write_atomic`` (a temporary file renamed into place: a kill or a full disk leaves the old file
    or the new one)."""
    p = Path(path)
    check_arrays(arrays, repr(str(p)))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    p.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(p, buffer.getvalue())


def header(game: Any, model: dict[str, Any]) -> dict[str, np.ndarray]:
    """The header entries of a file for an engine ``Game`` and a model layout (``training.export`` adds the
    weights)."""
    return {
        "format": np.array(FORMAT),
        "format_version": np.array(FORMAT_VERSION, np.int64),
        "game": np.array(game.name if hasattr(game, "name") else str(game)),
        "game_config": np.array(json.dumps(game_config_of(game), sort_keys=True)),
        "observation": np.array(json.dumps(observation_of(game))),
        "model": np.array(json.dumps(model, sort_keys=True)),
    }


# -- the arena agent ---------------------------------------------------------------------------------------


class PolicyAgent:
    """Plays a policy file: argmax of the masked logits, or a sample of them (``sample``, seeded); only legal
    actions, mapped back to the game's where the policy chooses among candidate rows. At a table whose config
    differs from the file's only in observation options it observes each state as the file's config would."""

    def __init__(self, policy: CompiledPolicy, name: str = "policy", sample: bool = False, seed: int | None = None):
        self.policy = policy
        self.name = name
        self.sample = sample
        self._rng = np.random.default_rng(seed)
        self._checked_game: Any = None
        self._observer: Observer | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def _check(self, observation: dict[str, np.ndarray], env: Any) -> None:
        info = self.policy.info
        game = getattr(env, "game", None)
        if game is not None and game is not self._checked_game and hasattr(game, "config"):
            self._observer = observer_for(self.policy, game, self.name)
            self._checked_game = game
        if self._observer is not None:
            return
        sizes = (np.asarray(observation["observation"]).shape[-1], np.asarray(observation["action_mask"]).shape[-1])
        if sizes != (info.obs_size, info.num_actions):
            raise ValueError(
                f"{self.name} was exported for observations of {info.obs_size} and {info.num_actions} actions "
                f"({info.game}, config {info.game_config}); this game gives {sizes[0]} and {sizes[1]}"
            )

    def _observation(self, observation: dict[str, np.ndarray], env: Any) -> np.ndarray:
        """The observation the policy reads: the table's, or its own config's view of the table's state."""
        if self._observer is None:
            return np.asarray(observation["observation"], np.float32)
        seat = env.possible_agents.index(env.agent_selection)
        return np.asarray(self._observer.observe(env.core_state, seat)[0], np.float32)

    def act(self, observation: dict[str, np.ndarray], env: Any = None) -> int:
        self._check(observation, env)
        game_mask = np.asarray(observation["action_mask"])
        if not game_mask.any():
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        mask = self.policy.module_mask(game_mask)
        logits, _ = self.policy.logits(self._observation(observation, env), mask)
        legal = mask > 0
        if self.sample:
            z = np.where(legal, logits.astype(np.float64), -np.inf)
            p = np.exp(z - z.max())
            choice = int(self._rng.choice(p.size, p=p / p.sum()))
        else:
            choice = int(np.argmax(np.where(legal, logits, -np.inf)))
        action = self.policy.game_action(game_mask, choice)
        if not game_mask[action]:  # cannot happen with a checked mask; never hand the env an illegal move
            raise ValueError(f"{self.name} chose action {action}, which the mask forbids")
        return action


def load_agent(path: str | os.PathLike, game: str, sample: bool = False, seed: int | None = None) -> PolicyAgent:
    """The arena agent of ``policy:FILE[,sample=true]`` for ``game``."""
    policy = load_policy(path, game)
    return PolicyAgent(policy, name=f"policy:{Path(path).name}", sample=sample, seed=seed)
