"""A trained RLlib policy as an arena agent: load its RLModule from a checkpoint (no Ray started) and act, masked.

``make_agent("rllib:<checkpoint>", game)`` lands here via ``load_agent``. A checkpoint is either a whole
training checkpoint (``tabuleiro train`` writes them under ``OUT/checkpoint``) or one RLModule's folder.
A module trained in the candidate action space (``model_config["candidate_actions"]``: its action k is the
k-th legal placement, ``envs.engine.candidate_actions``) is handed that space's mask and its choice mapped
back to the game's action; at a table whose observation options differ from the training's it observes as the
training did (``envs.engine.observer``). A checkpoint is pickles (code): its files are checked against the manifest
`tabuleiro train` wrote (``agents.manifest``) before any is unpickled, and one without it is loaded only
when trusted (``trust=true``).
"""

import contextlib
import json
import os
import pickle
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

import envs
from agents.manifest import MANIFEST, CheckpointError, verify_checkpoint
from envs.engine.candidate_actions import CandidateActions
from envs.engine.observer import Observer, with_observation

# where an Algorithm checkpoint keeps the trained module (RLlib's checkpoint layout, new API stack)
MODULE_SUBDIR = ("learner_group", "learner", "rl_module")
MAIN_MODULE = "default_policy"  # RLlib's single-agent module id (tabuleiro train's learner)
OLD_MAIN_MODULE = "main"  # the learner's id in checkpoints of the earlier multi-agent training
TRAIN_INFO = "tabuleiro_train.json"  # written by `tabuleiro train` beside each checkpoint
# the keys of a trained module's Dict observation (RLlib's masking example expects "observations")
OBS_KEY = "observations"
MASK_KEY = "action_mask"
CRITIC_KEY = "critic_observations"  # a privileged critic's input (training.vector_env); the policy never reads it


class RLlibAgent:
    """Picks actions with an RLlib RLModule: argmax of the masked logits, or a sample of them if ``explore``."""

    def __init__(
        self,
        module: Any,
        name: str = "rllib",
        explore: bool = False,
        seed: int | None = None,
        trained_config: dict[str, Any] | None = None,
    ) -> None:
        self.module = module
        self.trained_config = trained_config  # the game config it was trained with, if known (for errors)
        self.name = name
        self.explore = explore
        self._keys = (OBS_KEY, MASK_KEY)
        self._rng = np.random.default_rng(seed)
        space = module.observation_space
        choices = int(module.action_space.n)
        config = getattr(module, "model_config", None)
        mapped = config.get("candidate_actions") if isinstance(config, dict) else None
        self.candidates: CandidateActions | None = None
        if mapped is not None:  # the game's actions: the placements, then those past the rows
            placements, rows = int(mapped["placements"]), int(mapped["rows"])
            self.candidates = CandidateActions(choices - rows + placements, placements, rows)
        num_actions = self.candidates.num_actions if self.candidates is not None else choices
        self.sizes = (int(space[OBS_KEY].shape[0]), num_actions)  # in the game's terms
        self._checked_game: Any = None
        self._observer: Observer | None = None
        module.eval()

    def _check_sizes(self, obs_size: int, num_actions: int) -> None:
        if (obs_size, num_actions) != self.sizes:
            raise ValueError(
                f"{self.name} was trained on observations of {self.sizes[0]} and {self.sizes[1]} actions; "
                f"this game gives {obs_size} and {num_actions} ({self._trained_with()})"
            )

    def _trained_with(self) -> str:
        if not self.trained_config:
            return "another game or player count?"
        knobs = " ".join(f"--config {k}={json.dumps(v)}" for k, v in self.trained_config.items())
        return f"it was trained with game config {self.trained_config}: play it in that game, e.g. arena {knobs}"

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The module's masked logits of the game's actions for one PettingZoo observation dict (a candidate
        module's logit of row k goes to the k-th legal placement)."""
        obs_key, mask_key = self._keys
        game_mask = np.asarray(observation["action_mask"], dtype=np.float32)[None]
        view = self.candidates
        obs = torch.as_tensor(np.asarray(observation["observation"], dtype=np.float32)[None])
        mask = torch.as_tensor(game_mask if view is None else view.masks(game_mask))
        with torch.no_grad():
            out = self.module.forward_inference({"obs": {obs_key: obs, mask_key: mask}})
        logits = out["action_dist_inputs"][0].numpy().astype(np.float64)
        if view is None:
            return logits
        full = np.full(view.num_actions, float(np.finfo(np.float32).min))
        legal = np.flatnonzero(game_mask[0, : view.placements])
        full[legal] = logits[: legal.size]
        full[view.placements :] = logits[view.rows :]
        return full

    def _observe_as_trained(self, observation: dict[str, np.ndarray], env: Any) -> dict[str, np.ndarray]:
        """The observation with the observation options the module was trained with (``trained_config``), where
        the table's differ: its state observed as a table with them would (``envs.engine.observer``)."""
        game = getattr(env, "game", None)
        if not self.trained_config or game is None or not hasattr(game, "config"):
            return observation
        if game is not self._checked_game:
            own = with_observation(game, self.trained_config)
            self._observer = None if own is game else Observer(own, game)
            self._checked_game = game
        if self._observer is None:
            return observation
        seat = env.possible_agents.index(env.agent_selection)
        return {**observation, "observation": self._observer.observe(env.core_state, seat)[0]}

    def act(self, observation: dict[str, np.ndarray], env: Any = None) -> int:
        observation = self._observe_as_trained(observation, env)
        mask = np.asarray(observation["action_mask"])
        self._check_sizes(np.asarray(observation["observation"]).shape[-1], mask.shape[-1])
        if not mask.any():
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        logits = self.logits(observation)
        if self.explore:
            p = np.exp(logits - logits.max())
            p[mask == 0] = 0.0
            a = int(self._rng.choice(p.size, p=p / p.sum()))
        else:
            a = int(np.argmax(np.where(mask > 0, logits, -np.inf)))
        return a


def module_path(path: str | os.PathLike, module_id: str = MAIN_MODULE) -> Path:
    """The RLModule folder inside ``path`` (a training checkpoint, an Algorithm checkpoint or a module folder)."""
    p = Path(path).expanduser()
    ids = [module_id] + ([OLD_MAIN_MODULE] if module_id == MAIN_MODULE else [])
    candidates = [q for m in ids for q in (p.joinpath(*MODULE_SUBDIR, m), p.joinpath("checkpoint", *MODULE_SUBDIR, m))]
    candidates.append(p)
    for c in candidates:
        # an RLModule folder (not an Algorithm's, which has class_and_ctor_args.pkl too)
        if (c / "class_and_ctor_args.pkl").is_file() and (c / "module_state.pkl").is_file():
            return c
    raise ValueError(f"no RLModule {module_id!r} found in {str(p)!r} (looked for {[str(c) for c in candidates]})")


@contextlib.contextmanager
def unreadable_checkpoint(path: str | os.PathLike) -> Iterator[None]:
    """Turn a file of a checkpoint that does not unpickle (cut short, garbled: possible only in a trusted one, since
    the manifest catches both) into a ``CheckpointError`` naming the checkpoint, not a traceback."""
    try:
        yield
    except (pickle.UnpicklingError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise CheckpointError(
            f"checkpoint {str(path)!r} cannot be read ({type(exc).__name__}: {exc}): a file is cut short or damaged"
        ) from None


def load_module(
    path: str | os.PathLike, module_id: str = MAIN_MODULE, trust: bool = False, trust_option: str = "trust=true"
) -> Any:
    """The trained RLModule from a checkpoint, on CPU, without starting Ray. The checkpoint's files are checked
    against its manifest first; one without a manifest is loaded only if ``trust`` (``CheckpointError`` naming
    ``trust_option`` if not)."""
    from ray.rllib.core.rl_module.rl_module import RLModule  # optional heavy: ray, only to load a checkpoint

    p = Path(path).expanduser()
    run_checkpoint = p / "checkpoint"  # a run folder stands for its checkpoint
    checked = run_checkpoint if run_checkpoint.is_dir() and not (p / MANIFEST).is_file() else p
    verify_checkpoint(checked, trust, trust_option)  # before anything in it is unpickled (a module: its checkpoint)
    folder = module_path(p, module_id)
    with unreadable_checkpoint(path):
        module = RLModule.from_checkpoint(str(folder.resolve()))
    module.eval()
    return module


def _flag(value: Any, key: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"rllib option {key}={value!r} must be true or false")


def trained_game(path: str | os.PathLike) -> dict[str, Any] | None:
    """What ``tabuleiro train`` recorded next to a checkpoint (game, game config), if anything."""
    for p in (Path(path), Path(path).parent):
        info = p / TRAIN_INFO
        if info.is_file():
            try:
                found = json.loads(info.read_text())
            except (ValueError, RecursionError) as exc:
                raise CheckpointError(f"{str(info)!r} is not valid JSON ({type(exc).__name__})") from None
            if not isinstance(found, dict) or not isinstance(found.get("game"), str):
                raise CheckpointError(f"{str(info)!r} does not name the game the checkpoint was trained on")
            return found
    return None


def load_agent(path: str | os.PathLike, game: str, **options: Any) -> RLlibAgent:
    """An Agent acting from the checkpoint's policy in ``game``.

    Options (Python values or the registry's strings): ``explore`` (sample instead of argmax;
    ``deterministic`` is its opposite), ``seed``, ``module_id`` (default ``main``), ``name``,
    ``torch_threads`` (default 1: one observation at a time is fastest on one thread, and torch's
    default of one thread per core is far slower on a busy machine; this sets it process-wide),
    ``trust`` (load a checkpoint that has no manifest to check it against: it is code, trust its source).
    """
    known = {"explore", "deterministic", "seed", "module_id", "name", "torch_threads", "trust"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown rllib option(s) {unknown}; known: {sorted(known)}")
    info = trained_game(path)
    if info is not None and envs.game_name(game) != info["game"]:
        raise ValueError(f"checkpoint {str(path)!r} was trained on {info['game']}, not {envs.game_name(game)}")
    explore = _flag(options["explore"], "explore") if "explore" in options else False
    if "deterministic" in options:
        explore = not _flag(options["deterministic"], "deterministic")
    seed = int(options["seed"]) if options.get("seed") is not None else None
    torch.set_num_threads(max(1, int(options.get("torch_threads", 1))))
    trust = _flag(options["trust"], "trust") if "trust" in options else False
    module = load_module(path, str(options.get("module_id", MAIN_MODULE)), trust=trust)
    name = str(options.get("name") or f"rllib:{Path(path).name}")
    trained_config = info.get("game_config") if info is not None else None
    return RLlibAgent(module, name=name, explore=explore, seed=seed, trained_config=trained_config)
