"""A checkpoint folder's manifest: every file with its size and sha256, written last by `tabuleiro train`.

The manifest (``tabuleiro_complete.json``) says a checkpoint is complete (``checkpoint_iteration``: a cheap check
of sizes, to pick the newest complete one after a kill) and that its files are the ones written
(``verify_checkpoint``: every byte, checked before anything in the folder is unpickled). It checks integrity,
not trust: a checkpoint is pickles, code that runs when loaded, so load only checkpoints you trust. A folder
without checksums (written before them, or by RLlib itself) is refused unless the caller trusts it explicitly.
"""

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from envs.files import fsync_dir, write_atomic

MANIFEST = "tabuleiro_complete.json"
FORMAT = "tabuleiro-checkpoint/2"  # files: {name: {"size", "sha256"}}
SIZES_ONLY = "tabuleiro-checkpoint/1"  # earlier runs: files: {name: size}, no checksums
SEARCH_UP = 6  # folders above a module folder searched for the checkpoint's manifest (RLlib nests modules 4 deep)
_CHUNK = 1 << 20


class CheckpointError(ValueError):
    """A checkpoint that fails its manifest (a file changed, cut short, missing or added), has none and is not
    trusted, or cannot be read; the message names the file and what to do."""


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def write_manifest(folder: str | os.PathLike, iteration: int) -> Path:
    """Make every file of a written checkpoint durable, then write the manifest (sizes and sha256) last."""
    folder = Path(folder)
    files = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != MANIFEST:
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            files[p.relative_to(folder).as_posix()] = {"size": p.stat().st_size, "sha256": file_sha256(p)}
    for d in sorted({p.parent for p in folder.rglob("*")} | {folder}):
        fsync_dir(d)
    manifest = {"format": FORMAT, "iteration": int(iteration), "files": files}
    return write_atomic(folder / MANIFEST, json.dumps(manifest, indent=1))


def read_manifest(folder: str | os.PathLike) -> dict[str, Any] | None:
    """The manifest of a checkpoint folder, its shape checked (sizes normalized to ``{"size", "sha256"}``, the
    checksum None in a sizes-only manifest); None if there is none or it does not parse."""
    try:
        raw = json.loads((Path(folder) / MANIFEST).read_text())
    except (OSError, ValueError, RecursionError):
        return None
    if (
        not isinstance(raw, dict)
        or raw.get("format") not in (FORMAT, SIZES_ONLY)
        or not isinstance(raw.get("files"), dict)
    ):
        return None
    iteration = raw.get("iteration")
    if not isinstance(iteration, int) or isinstance(iteration, bool):
        return None
    files = {}
    for name, entry in raw["files"].items():
        if raw["format"] == SIZES_ONLY:
            entry = {"size": entry, "sha256": None}
        size, digest = (entry.get("size"), entry.get("sha256")) if isinstance(entry, dict) else (None, None)
        if not isinstance(size, int) or isinstance(size, bool) or size < 0 or not _safe_name(name):
            return None
        if raw["format"] == FORMAT and not (isinstance(digest, str) and len(digest) == 64):
            return None
        files[name] = {"size": size, "sha256": digest}
    return {"format": raw["format"], "iteration": iteration, "files": files}


def _safe_name(name: Any) -> bool:
    """A relative path inside the folder (no absolute path, no ``..``)."""
    return isinstance(name, str) and bool(name) and not name.startswith("/") and ".." not in name.split("/")


def checkpoint_iteration(folder: str | os.PathLike, required: tuple[str, ...] = ()) -> int | None:
    """The iteration of a complete checkpoint: its manifest parses, lists ``required`` and every file it lists has
    the size it records; None for anything else (being written, partly deleted, cut short). Sizes only: cheap."""
    manifest = read_manifest(folder)
    if manifest is None or not set(required) <= set(manifest["files"]):
        return None
    try:
        for name, entry in manifest["files"].items():
            if (Path(folder) / name).stat().st_size != entry["size"]:
                return None
    except OSError:
        return None
    return manifest["iteration"]


def manifest_folder(path: str | os.PathLike) -> Path | None:
    """The checkpoint folder whose manifest covers ``path`` (``path`` itself or a folder above it), or None."""
    p = Path(path).resolve()
    for folder in [p, *p.parents][: SEARCH_UP + 1]:
        if (folder / MANIFEST).is_file():
            return folder
    return None


def verify_checkpoint(path: str | os.PathLike, trust: bool = False, option: str = "trust=true") -> Path | None:
    """Check the checkpoint holding ``path`` against its manifest before anything in it is unpickled: every listed
    file present, a regular file, of its size and sha256, and no file unlisted. Returns the checkpoint folder
    checked (None: none, and ``trust``). ``CheckpointError`` (a ValueError) naming the file otherwise, or when
    there is no manifest with checksums and ``trust`` is false (``option`` names how the user says they trust it)."""
    folder = manifest_folder(path)
    manifest = None if folder is None else read_manifest(folder)
    if manifest is None or manifest["format"] != FORMAT:
        if trust:
            return None
        why = "no manifest" if folder is None else f"no valid manifest with checksums ({folder / MANIFEST})"
        raise CheckpointError(
            f"{str(path)!r} has {why}: a checkpoint is pickles, code that runs when loaded, and this one cannot be "
            f"checked (written by an earlier tabuleiro, or not by tabuleiro train). Load it only if you trust where "
            f"it came from, with {option}"
        )
    listed = manifest["files"]
    for name, entry in sorted(listed.items()):
        p = folder / name
        try:
            st = os.lstat(p)
        except OSError:
            raise CheckpointError(f"checkpoint {str(folder)!r}: {name} is missing (its manifest lists it)") from None
        if not stat.S_ISREG(st.st_mode):
            raise CheckpointError(f"checkpoint {str(folder)!r}: {name} is not a regular file")
        if st.st_size != entry["size"]:
            raise CheckpointError(
                f"checkpoint {str(folder)!r}: {name} has {st.st_size:,} bytes, its manifest says {entry['size']:,} "
                "(cut short or changed): the checkpoint is damaged; resume from another one or train again"
            )
        if file_sha256(p) != entry["sha256"]:
            raise CheckpointError(
                f"checkpoint {str(folder)!r}: {name} differs from what was written (sha256 mismatch): the checkpoint "
                "is damaged or was changed; it is not loaded"
            )
    for p in sorted(folder.rglob("*")):
        name = p.relative_to(folder).as_posix()
        if name != MANIFEST and name not in listed and (p.is_symlink() or not p.is_dir()):
            raise CheckpointError(
                f"checkpoint {str(folder)!r}: {name} is not in its manifest (added after it was written): not loaded"
            )
    return folder
