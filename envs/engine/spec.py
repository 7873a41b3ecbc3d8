"""GameSpec: everything the rest of the project needs to know about one game, declared once.

Each game's package holds ``spec.py`` with ``SPEC = GameSpec(...)`` (its module docstring is the
game's PettingZoo-style documentation page); ``envs.GAMES`` lists the packages, one line a game.
Every registry elsewhere (heuristics, searches, final scores, public moves, training presets,
targets) is a view of the specs. A spec is checked when it is made: a missing or mistyped entry
fails at import, never later as a silently skipped feature.
"""

import dataclasses
import importlib
import re
from types import ModuleType
from typing import Any

from envs.engine.game import Game

_NAME = re.compile(r"^[a-z][a-z0-9_]*_v\d+$")


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """One game's registration (see the module docstring); every field but ``quick_config`` is required."""

    name: str  # the registered env name, e.g. "capivari_v0"
    title: str  # one line for tables: what the game is
    doc: str  # the documentation page (the spec module's docstring)
    game: type[Game]  # the rules bound to the engine
    rules: str  # the rules document, from the repository root ("seeds/capivari.md")
    seats: tuple[int, int]  # fewest and most players a config allows
    parallel: bool  # has parallel_env(): simultaneous decisions
    heuristic: str | None  # module with ``values(state, seat, observation)``; None: no heuristic
    search: str | None  # module with the IS-MCTS hooks (agents.search compiles the loop); None: no search
    training: dict[str, Any]  # the training preset: TrainSettings overrides ({} for the defaults)
    targets: dict[str, Any]  # measured targets: {"learning": {"players": k, "vs": {opponent: win rate}}}
    quick_config: dict[str, Any] = dataclasses.field(default_factory=dict)  # a small config for generic tests

    def __post_init__(self) -> None:
        def bad(msg: str) -> None:
            raise ValueError(f"GameSpec {self.name!r}: {msg}")

        if not isinstance(self.name, str) or not _NAME.match(self.name):
            bad("name must look like 'mygame_v0'")
        for key in ("title", "doc", "rules"):
            if not isinstance(getattr(self, key), str) or not getattr(self, key).strip():
                bad(f"{key} must be a non-empty string")
        if not (isinstance(self.game, type) and issubclass(self.game, Game)):
            bad("game must be a Game subclass")
        if not isinstance(getattr(self.game, "higher_score_wins", None), bool):
            bad("game must set higher_score_wins = True or False")
        if self.game.name != self.name:
            bad(f"game.name is {self.game.name!r}")
        lo, hi = self.seats if isinstance(self.seats, tuple) and len(self.seats) == 2 else (0, -1)
        if not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi):
            bad("seats must be (fewest, most) players")
        if not isinstance(self.parallel, bool):
            bad("parallel must be True or False")
        package = self.game.__module__.rsplit(".", 1)[0]
        for key in ("heuristic", "search"):
            value = getattr(self, key)
            if value is not None and (not isinstance(value, str) or not value.startswith(package + ".")):
                bad(f"{key} must be None or a module of the game's own package {package!r}, got {value!r}")
        if not all(isinstance(getattr(self, k), dict) for k in ("training", "targets", "quick_config")):
            bad("training, targets and quick_config must be dicts")
        learning = self.targets.get("learning", {})
        if not isinstance(learning, dict) or not all(isinstance(v, float) for v in learning.get("vs", {}).values()):
            bad("targets['learning'] must be {'players': k, 'vs': {opponent: win rate}}")

    @property
    def short_name(self) -> str:
        """The name without its version: ``capivari``."""
        return self.name.rsplit("_v", 1)[0]

    def heuristic_module(self) -> ModuleType:
        """The module with the heuristic's ``values``; ValueError if the game has none."""
        if self.heuristic is None:
            raise ValueError(f"{self.name} has no heuristic")
        return importlib.import_module(self.heuristic)

    def search_module(self) -> ModuleType:
        """The module with the IS-MCTS hooks; ValueError if the game has no search."""
        if self.search is None:
            raise ValueError(f"{self.name} has no IS-MCTS search")
        return importlib.import_module(self.search)
