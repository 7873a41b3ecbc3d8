"""Compiled IS-MCTS: the shared loops (``ismcts_loop.py``, and ``guided_loop.py`` with a policy network)
compiled for each game's search hooks, and the search agents' budget per move (``budget.py``).

A game's hooks are its ``Game.search`` (``envs.engine.contract.SearchHooks``, e.g. in
``envs/capivari/search.py``); the loop is compiled for the game on first use and cached by numba.
"""

from types import ModuleType

import envs
from agents.search import guided_loop, ismcts_loop
from envs.engine.templates import compiled_for


def search_kernel(game: str) -> ModuleType:
    """The IS-MCTS loop (``ismcts_iterate``) compiled for a game; ValueError if it has no search hooks."""
    spec = envs.spec(game)
    if spec.search is None:
        raise ValueError(f"{spec.name} has no IS-MCTS search")
    return compiled_for(ismcts_loop, spec.game)


def guided_kernel(game: str) -> ModuleType:
    """The policy-guided loop (``guided_iterate``) compiled for a game; ValueError if it has no search hooks."""
    spec = envs.spec(game)
    if spec.search is None:
        raise ValueError(f"{spec.name} has no IS-MCTS search")
    return compiled_for(guided_loop, spec.game)
