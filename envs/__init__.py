"""tabuleiro's games as PettingZoo environments backed by numba-compiled cores.

``envs.make("capivari_v0")`` or ``from envs import capivari_v0; capivari_v0.env()``.

``GAMES`` is the one registration point: each line gives a game's registered name and its package,
whose ``spec.py`` declares everything else about it (``envs.engine.spec.GameSpec``, checked against
``envs.engine.contract``). The PettingZoo-style entry
modules (``envs.capivari_v0`` with ``env()``, ``raw_env()``, and ``parallel_env()`` where moves
are simultaneous) are made from the specs; nothing else lists the games.
"""

import importlib
import sys
from functools import cache
from types import ModuleType
from typing import Any

from envs._numba_cache import NUMBA_CACHE_FOLDER  # first: before any compiled function is defined
from envs.engine import IllegalActionError, TabuleiroAECEnv  # noqa: I001
from envs.engine.contract import ContractError
from envs.engine.entry import aec_factories, parallel_factories
from envs.engine.spec import GameSpec

# registered name -> the game's package (its spec.py holds SPEC); one line a game
GAMES: dict[str, str] = {
    "capivari_v0": "envs.capivari",
    "horizonte_v0": "envs.horizonte",
    "dorfromantik_duel_v0": "envs.dorfromantik_duel",
    "kuhn_poker_v0": "envs.kuhn_poker",
}


def game_name(name: str) -> str:
    """The registered name for ``name`` (``"capivari"`` -> ``"capivari_v0"``); ValueError if unknown."""
    if isinstance(name, str):
        if name in GAMES:
            return name
        short = {k.rsplit("_v", 1)[0]: k for k in GAMES}
        if name in short:
            return short[name]
    raise ValueError(f"unknown game {name!r}; known games: {sorted(GAMES)}")


@cache
def _load_spec(name: str) -> GameSpec:
    spec = getattr(importlib.import_module(GAMES[name] + ".spec"), "SPEC", None)
    if not isinstance(spec, GameSpec):
        raise ContractError(f"{GAMES[name]}.spec must define SPEC = GameSpec(...), the registration of {name}")
    return spec.registered(name)


def spec(name: str) -> GameSpec:
    """The registration of a game, by registered or short name; ValueError naming the known games."""
    return _load_spec(game_name(name))


def specs() -> list[GameSpec]:
    """Every registered game's spec, in registration order."""
    return [_load_spec(name) for name in GAMES]


class _EntryModule(ModuleType):
    """``envs.<name>``: a game's PettingZoo entry points, made from its spec on first use."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        spec_ = _load_spec(self.__name__.split(".", 1)[1])
        names = {}
        names["env"], names["raw_env"] = aec_factories(spec_.game)
        if spec_.parallel:
            names["parallel_env"], names["raw_parallel_env"] = parallel_factories(spec_.game)
        self.__dict__.update(names, __all__=sorted(names), __doc__=spec_.doc)
        if attr not in names and attr != "__all__":
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        return self.__dict__[attr]


for _name in GAMES:  # so that ``import envs.capivari_v0`` works as for a file
    sys.modules.setdefault(f"envs.{_name}", _EntryModule(f"envs.{_name}"))


def game_module(name: str) -> ModuleType:
    """The entry module of a registered game (``env``, ``raw_env``, ...); ValueError if unknown."""
    return sys.modules[f"envs.{game_name(name)}"]


def make(name: str, render_mode: str | None = None, **config: Any) -> TabuleiroAECEnv:
    """The safe AEC env of a registered game, e.g. ``make("horizonte_v0", num_players=5)``."""
    return game_module(name).env(render_mode=render_mode, **config)


def __getattr__(attr: str) -> ModuleType:
    """``from envs import capivari_v0``: the entry module (numba cores load on first use)."""
    if attr in GAMES:
        return sys.modules[f"envs.{attr}"]
    raise AttributeError(f"module 'envs' has no attribute {attr!r}")


__all__ = [
    "GAMES",
    "NUMBA_CACHE_FOLDER",
    "GameSpec",
    "IllegalActionError",
    "TabuleiroAECEnv",
    "game_module",
    "game_name",
    "make",
    "spec",
    "specs",
]
