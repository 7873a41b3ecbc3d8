"""GameSpec: everything the rest of the project needs to know about one game, declared once.

Each game's package holds ``spec.py`` with ``SPEC = GameSpec(...)`` (its module docstring is the
game's PettingZoo-style documentation page); ``envs.GAMES`` maps each registered name to its package,
one line a game, and ``registered(name)`` binds that name to the spec and its Game class. Every
registry elsewhere (heuristics, searches, final scores, public moves, training presets, targets,
shaping potentials) is a view of the specs. A spec is checked when it is made, its Game class against
``envs.engine.contract``: a missing or mistyped piece fails at import, never later as a silently
skipped feature.
"""

import copy
import dataclasses
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.engine.contract import ContractError, SearchHooks, check_game
from envs.engine.game import Game, bind_name

_NAME = re.compile(r"^[a-z][a-z0-9_]*_v\d+$")

# a reward-shaping potential: (state records of every game, the seat it is judged for in each) -> float64[num_games]
Potential = Callable[[np.ndarray, np.ndarray], np.ndarray]
# what a seat's observation does not show, for a privileged critic: (state records, seats) -> float32[num_games, k]
Hidden = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """One game's registration (see the module docstring); ``name`` comes from ``envs.GAMES``."""

    title: str  # one line for tables: what the game is
    doc: str  # the documentation page (the spec module's docstring)
    game: type[Game]  # the rules bound to the engine (compiled pieces, heuristic, search hooks)
    rules: str  # the rules document, from the repository root ("seeds/capivari.md")
    seats: tuple[int, int]  # fewest and most players a config allows
    parallel: bool  # has parallel_env(): simultaneous decisions
    training: dict[str, Any]  # the training preset: TrainSettings overrides ({} for the defaults)
    targets: dict[str, Any]  # measured targets: {"learning": {"players": k, "vs": {opponent: win rate}}}
    quick_config: dict[str, Any] = dataclasses.field(default_factory=dict)  # a small config for generic tests
    shaping: dict[str, Potential] = dataclasses.field(default_factory=dict)  # reward-shaping potentials by name
    # the privileged critic's input (training.vector_env); None: the other seats' own observations
    hidden: Hidden | None = None
    name: str = ""  # the registered env name ("capivari_v0"), set by registered()

    def __post_init__(self) -> None:
        def bad(msg: str) -> None:
            raise ContractError(f"GameSpec of {getattr(self.game, '__module__', self.game)!r}: {msg}")

        if self.name and (not isinstance(self.name, str) or not _NAME.match(self.name)):
            bad(f"name must look like 'mygame_v0', got {self.name!r}")
        for key in ("title", "doc", "rules"):
            if not isinstance(getattr(self, key), str) or not getattr(self, key).strip():
                bad(f"{key} must be a non-empty string")
        if not (isinstance(self.game, type) and issubclass(self.game, Game)):
            bad("game must be a Game subclass")
        check_game(self.game)
        lo, hi = self.seats if isinstance(self.seats, tuple) and len(self.seats) == 2 else (0, -1)
        if not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi):
            bad("seats must be (fewest, most) players")
        if not isinstance(self.parallel, bool):
            bad("parallel must be True or False")
        if not all(isinstance(getattr(self, k), dict) for k in ("training", "targets", "quick_config", "shaping")):
            bad("training, targets, quick_config and shaping must be dicts")
        for key, phi in self.shaping.items():
            if not isinstance(key, str) or not callable(phi):
                bad(f"shaping must map names to potentials (functions), got {key!r}: {phi!r}")
        if self.hidden is not None and not callable(self.hidden):
            bad(f"hidden must be a function (state records, seats) -> float32[games, k], got {self.hidden!r}")
        shaping = self.training.get("shaping")
        if shaping is not None and shaping not in self.shaping:
            bad(f"the training preset's shaping {shaping!r} is not one of its potentials {sorted(self.shaping)}")
        learning = self.targets.get("learning", {})
        if not isinstance(learning, dict) or not all(isinstance(v, float) for v in learning.get("vs", {}).values()):
            bad("targets['learning'] must be {'players': k, 'vs': {opponent: win rate}}")

    def registered(self, name: str) -> "GameSpec":
        """This spec under its registered name, which its Game class takes too (once: one class, one name).
        The rest was checked when the spec was made: only the name is new."""
        if not isinstance(name, str) or not _NAME.match(name):
            raise ContractError(f"GameSpec of {self.game.__module__!r}: name must look like 'mygame_v0', got {name!r}")
        try:
            bind_name(self.game, name)
        except ValueError as exc:
            raise ContractError(str(exc)) from None
        spec = copy.copy(self)
        object.__setattr__(spec, "name", name)
        return spec

    @property
    def short_name(self) -> str:
        """The name without its version: ``capivari``."""
        return self.name.rsplit("_v", 1)[0]

    @property
    def heuristic(self) -> Any:
        """The heuristic's compiled ``action_values`` (``Game.action_values_fn``), or None."""
        return self.game.action_values_fn

    @property
    def search(self) -> SearchHooks | None:
        """The IS-MCTS hooks (``Game.search``), or None."""
        return self.game.search

    def potential(self, name: str) -> Potential:
        """The shaping potential called ``name``; ValueError naming the game's potentials."""
        if name not in self.shaping:
            raise ValueError(f"{self.name} has no reward shaping {name!r}; it has {sorted(self.shaping)}")
        return self.shaping[name]
