"""tabuleiro's games as PettingZoo environments backed by numba-compiled cores.

``envs.make("capivari_v0")`` or ``from envs import capivari_v0; capivari_v0.env()``.
"""

import importlib
from types import ModuleType
from typing import Any

from envs._numba_cache import NUMBA_CACHE_FOLDER  # first: before any compiled function is defined
from envs.engine import IllegalActionError, TabuleiroAECEnv  # noqa: I001

# name -> module with env(), raw_env() (and parallel_env() where moves are simultaneous)
GAMES: dict[str, str] = {
    "capivari_v0": "envs.capivari_v0",
    "horizonte_v0": "envs.horizonte_v0",
    "dorfromantik_duel_v0": "envs.dorfromantik_duel_v0",
}


def game_name(name: str) -> str:
    """The registered name for ``name`` (``"capivari"`` -> ``"capivari_v0"``); ValueError if unknown."""
    if name in GAMES:
        return name
    short = {k.rsplit("_v", 1)[0]: k for k in GAMES}
    if name in short:
        return short[name]
    raise ValueError(f"unknown game {name!r}; known games: {sorted(GAMES)}")


def game_module(name: str) -> ModuleType:
    """The entry module of a registered game; ValueError naming the known games otherwise."""
    return importlib.import_module(GAMES[game_name(name)])


def make(name: str, render_mode: str | None = None, **config: Any) -> TabuleiroAECEnv:
    """The safe AEC env of a registered game, e.g. ``make("horizonte_v0", num_players=5)``."""
    return game_module(name).env(render_mode=render_mode, **config)


def __getattr__(attr: str) -> ModuleType:
    """``from envs import capivari_v0`` imports the game lazily (numba cores load on demand)."""
    if attr in GAMES:
        return importlib.import_module(GAMES[attr])
    raise AttributeError(f"module 'envs' has no attribute {attr!r}")


__all__ = ["NUMBA_CACHE_FOLDER", "GAMES", "IllegalActionError", "TabuleiroAECEnv", "game_module", "game_name", "make"]
