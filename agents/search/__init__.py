"""Compiled IS-MCTS search, one module per game (``agents/search/<game>.py``) over one shared loop."""

import importlib
from types import ModuleType

# game name -> module defining ``ismcts_iterate`` for that game
SEARCH_MODULES: dict[str, str] = {
    "capivari_v0": "agents.search.capivari",
    "horizonte_v0": "agents.search.horizonte",
    "dorfromantik_duel_v0": "agents.search.dorfromantik_duel",
}


def search_module(game: str) -> ModuleType:
    """The compiled search module of a game; ValueError naming the games that have one."""
    if game not in SEARCH_MODULES:
        raise ValueError(f"no IS-MCTS search for game {game!r}; games with one: {sorted(SEARCH_MODULES)}")
    return importlib.import_module(SEARCH_MODULES[game])
