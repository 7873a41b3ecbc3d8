"""Compiled templates: code written once for every game, compiled and cached once per game.

numba caches neither closures nor functions that take other compiled functions as arguments, so
a loop written once for every game (the batch kernels, IS-MCTS, the vector env's opponents) is a
*template*: an ordinary module that calls a game's functions through the stand-ins it imports
from ``envs.engine.contract`` (``step``, ``legal_into``, ...). ``instantiate`` runs the template's
own code (its real file and line numbers: tracebacks and coverage point into it) in a fresh module
per game, binds the stand-ins to that game's functions, and gives each compiled function a name of
its own (``<tag>_<digest of the bindings>.<function>``) so that numba keeps every game's machine code,
and every set of bindings, in its own cache files.

numba invalidates a cached function when its own file changes, not when a function it calls does;
``envs._numba_cache`` keys the whole cache folder by every file under ``envs``. A template outside
``envs`` may therefore import compiled code only from ``envs`` (checked here): its own file is
covered by numba's per-file check, its callees by the folder's key.
"""

import ast
import hashlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from numba.core.caching import NullCache
from numba.core.dispatcher import Dispatcher

from envs.engine import batch_kernels, search_moves
from envs.engine.contract import template_bindings

_INSTANCES: dict[tuple[str, str], ModuleType] = {}


def _checked_imports(template: ModuleType, tree: ast.Module) -> None:
    own = template.__name__.split(".")[0]
    if own == "envs":
        return
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.split(".")[0] == own:
                raise RuntimeError(
                    f"template {template.__name__} imports {name}: a template outside envs imports compiled "
                    "code only from envs (envs._numba_cache keys the cache by envs' files)"
                )


def instantiate(template: ModuleType, bindings: dict[str, Any], tag: str) -> ModuleType:
    """``template`` compiled for one game: a module whose stand-ins are ``bindings`` (same module for a tag).

    ``tag`` names the game's copy (e.g. ``envs_capivari_game_Capivari``); the template's module-level
    names found in ``bindings`` are replaced, and every stand-in it imports must be among them.
    """
    key = (template.__name__, tag)
    if key in _INSTANCES:
        return _INSTANCES[key]
    path = Path(template.__file__)
    tree = ast.parse(path.read_bytes(), str(path))
    _checked_imports(template, tree)
    module = ModuleType(f"{template.__name__}.{tag}", template.__doc__)
    module.__file__ = str(path)
    namespace = module.__dict__
    exec(compile(tree, str(path), "exec"), namespace)
    bound = {k: v for k, v in bindings.items() if k in namespace}
    namespace.update(bound)
    unbound = sorted(k for k, v in namespace.items() if getattr(v, "stand_in", False))
    if unbound:
        raise RuntimeError(f"template {template.__name__} needs {unbound} bound for {tag}")
    name = f"{tag}_{binding_digest(bound)}"  # other bindings (an edited game.py): other cache entries
    for value in list(namespace.values()):
        if isinstance(value, Dispatcher) and value.py_func.__globals__ is namespace:
            value.py_func.__qualname__ = f"{name}.{value.py_func.__name__}"
            if not isinstance(value._cache, NullCache):
                value.enable_caching()  # the cache files, named after the new qualname
    sys.modules[module.__name__] = module
    _INSTANCES[key] = module
    return module


def binding_digest(bound: dict[str, Any]) -> str:
    """A short digest of what each name is bound to: a compiled function by its module and name, a constant by value.

    numba's cache key is the template's file and a function's types, not what its globals are bound to, and
    the files that choose the bindings (a game's ``game.py``) are not compiled code: the digest goes into
    the compiled functions' names, so binding another function never loads machine code built for the old one.
    """
    parts = []
    for key in sorted(bound):
        value = bound[key]
        func = getattr(value, "py_func", None)
        parts.append(f"{key}={func.__module__}.{func.__qualname__}" if func is not None else f"{key}={value!r}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]


def tag_of(cls: type) -> str:
    """A game class's tag for its templates' copies: its import path, as one identifier."""
    return f"{cls.__module__}.{cls.__qualname__}".replace(".", "_")


def kernels_of(game: Any) -> ModuleType:
    """The batch and rollout kernels (``envs.engine.batch_kernels``) compiled for a game (instance or class)."""
    cls = game if isinstance(game, type) else type(game)
    return instantiate(batch_kernels, template_bindings(cls), tag_of(cls))


def byte_kernels_of(game: Any) -> ModuleType | None:
    """The kernels whose ``buf_*`` functions read this game's record as bytes: only for a record of the game's
    ``state_dtype`` layout (None otherwise, e.g. a Duel board of another radius)."""
    if game.state_dtype is None or game.state_dtype != game.new_state().dtype:
        return None
    return kernels_of(game)


def compiled_for(template: ModuleType, cls: type) -> ModuleType:
    """A template that builds on the batch kernels (search, the vector env's opponents) compiled for a game class:
    its pieces, plus the batch kernels' random pick, random playout and heuristic move, and the search's moves
    outside its tree (``envs.engine.search_moves``)."""
    batch = kernels_of(cls)
    bindings = dict(
        template_bindings(cls),
        pick_random_action=batch.pick_random_action,
        random_playout=batch.random_playout,
        heuristic_action=batch.heuristic_action,
    )
    moves = instantiate(search_moves, bindings, tag_of(cls))
    bindings.update(default_move=moves.default_move, playout=moves.playout)
    return instantiate(template, bindings, tag_of(cls))
