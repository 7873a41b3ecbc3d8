"""Where numba keeps compiled code: one folder per exact version of the game sources.

numba invalidates a cached function only when its own file changes, not when a
function it calls (in another file) does, so a stale cache could run old rules.
Keying the folder by a digest of every compiled source under ``envs`` (and what it imports) rules
that out. Compiled code elsewhere calls into ``envs`` only (``envs.engine.templates`` checks its
templates; a self-contained module is covered by numba's own check of its file).

numba names each compiled function by a per-process counter (``FunctionIdentity``'s ``qualname$uid``,
numba issue #10486): two processes writing one cache folder (``pytest -n 2``, Ray workers) can give two
specializations (a Duel record of radius 16 and one of 9) the same symbol, and a process loading both
links the wrong one (seen here: wrong values, ``free(): invalid next size``). ``distinct_function_ids``
starts each process's counter at a random 62-bit offset, so names from different processes do not meet.
"""

import ast
import hashlib
import itertools
import os
import re
import sys
import tempfile
from pathlib import Path

import numba

COMPILED_PACKAGES = ("envs",)  # the package whose compiled code others build on
# A file is compiled source when it defines compiled code, or when compiled code imports it
# (directly or not): numba bakes imported constants (card tables, sizes) into the machine code.
# Python-only modules (env adapters, scenarios, state checks, agents' Python side) are left out,
# so editing them keeps the cache warm.
_COMPILES = re.compile(rf"\b{numba.njit.__name__}\b")  # a file that uses numba's decorator


def _module_path(root: Path, module: str) -> Path | None:
    """The file of a project module name (``envs.capivari.core``), or None if not ours."""
    if module.split(".")[0] not in COMPILED_PACKAGES:
        return None
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _project_imports(root: Path, path: Path) -> set[Path]:
    """Project files ``path`` imports by name (``import x.y``; ``from x.y import z``: x/y.py, or x/y/z.py)."""
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            hits = [_module_path(root, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            base = node.module
            hits = [_module_path(root, f"{base}.{a.name}") or _module_path(root, base) for a in node.names]
        else:
            continue
        found.update(h for h in hits if h is not None)
    return found


def compiled_sources(root: Path) -> list[Path]:
    """Files that define compiled code, every project file they import (transitively) and data beside them."""
    todo = [
        path
        for package in COMPILED_PACKAGES
        for path in (root / package).rglob("*.py")
        if path.name != "_numba_cache.py" and _COMPILES.search(path.read_text())
    ]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_project_imports(root, path) - seen)
    data = {p for path in seen for p in path.parent.glob("*.json")}  # tables read at import (tiles.json)
    return sorted(seen | data)


def source_digest(root: Path) -> str:
    """A short digest of the compiled sources under ``root``, numba's and Python's versions."""
    h = hashlib.sha256(f"{numba.__version__} {sys.version_info[:3]}".encode())
    for path in compiled_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _file_stamp(root: Path) -> str:
    """Every file under the compiled packages by name, size and modification time (numba's own test of a file)."""
    h = hashlib.sha256(f"{numba.__version__} {sys.version_info[:3]}".encode())
    for package in COMPILED_PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".json"):
                st = path.stat()
                h.update(f"{path.relative_to(root)} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


def remembered_digest(root: Path, base: str) -> str:
    """``source_digest(root)``, remembered under ``base`` by the files' stamp: a warm start reads the sources'
    stamps instead of parsing them; any edit changes a stamp, and the digest is computed afresh."""
    memo = os.path.join(base, "digests", _file_stamp(root))
    try:
        with open(memo) as f:
            digest = f.read().strip()
        if re.fullmatch(r"[0-9a-f]{16}", digest):
            return digest
    except OSError:
        pass
    digest = source_digest(root)
    try:
        os.makedirs(os.path.dirname(memo), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(memo))
        with os.fdopen(fd, "w") as f:
            f.write(digest)
        os.replace(tmp, memo)
    except OSError:
        pass  # a read-only cache folder: computed again next time
    return digest


def configure_numba_cache() -> str:
    """Point numba's cache at ``<cache>/tabuleiro-<digest>``; returns the folder."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tabuleiro", "numba"
    )
    folder = os.path.join(base, f"tabuleiro-{remembered_digest(Path(__file__).parent.parent, base)}")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        folder = os.path.join(tempfile.gettempdir(), "tabuleiro-numba", os.path.basename(folder))
        os.makedirs(folder, exist_ok=True)
    numba.config.CACHE_DIR = folder
    return folder


def distinct_function_ids() -> None:
    """Start numba's function counter of this process at a random offset (module docstring); again in a fork."""
    from numba.core.bytecode import FunctionIdentity

    FunctionIdentity._unique_ids = itertools.count(int.from_bytes(os.urandom(8), "little") >> 2)


distinct_function_ids()
os.register_at_fork(after_in_child=distinct_function_ids)
NUMBA_CACHE_FOLDER = configure_numba_cache()
