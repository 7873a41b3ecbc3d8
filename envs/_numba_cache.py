"""Where numba keeps compiled code: one folder per exact version of the game sources.

numba invalidates a cached function only when its own file changes, not when a
function it calls (in another file) does, so a stale cache could run old rules.
Keying the folder by a digest of every source file of the compiled packages rules that out.
"""

import hashlib
import os
import sys
import tempfile
from pathlib import Path

import numba

COMPILED_PACKAGES = ("envs", "agents")  # packages that hold @njit(cache=True) code
# Modules no compiled code reads (text and pictures): editing them needs no recompile. Every
# other file counts, since compiled code bakes in the constants it imports (e.g. card tables).
PRESENTATION_ONLY = frozenset({"render.py", "picture.py", "_picture.py"})


def source_digest(root: Path) -> str:
    """A short digest of the compiled packages' .py files under ``root``, numba's and Python's versions."""
    h = hashlib.sha256(f"{numba.__version__} {sys.version_info[:3]}".encode())
    for package in COMPILED_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if path.name in PRESENTATION_ONLY:
                continue
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure_numba_cache() -> str:
    """Point numba's cache at ``<cache>/tabuleiro-<digest>``; returns the folder."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tabuleiro", "numba"
    )
    folder = os.path.join(base, f"tabuleiro-{source_digest(Path(__file__).parent.parent)}")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        folder = os.path.join(tempfile.gettempdir(), "tabuleiro-numba", os.path.basename(folder))
        os.makedirs(folder, exist_ok=True)
    numba.config.CACHE_DIR = folder
    return folder


NUMBA_CACHE_FOLDER = configure_numba_cache()
