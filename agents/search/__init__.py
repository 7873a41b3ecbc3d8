"""Compiled IS-MCTS: the shared loop (``kernel.py``) compiled against each game's search hooks.

A game's hooks live in its own package (``GameSpec.search``, e.g. ``envs/capivari/search.py``);
the loop is compiled into that module's namespace on first use, so numba caches it beside it.
"""

from types import ModuleType

import envs
from agents.search.kernel import compile_search


def search_module(game: str) -> ModuleType:
    """The game's search module with ``ismcts_iterate`` compiled in; ValueError if it has no search."""
    module = envs.spec(game).search_module()
    if "ismcts_iterate" not in vars(module):
        compile_search(vars(module))
    return module
