"""The checkpoints of a training run folder, whatever wrote them (PPO's ``training.loop``, training from search's
``training.search_checkpoint``): the three names a save passes through, finding the newest complete one, settling
what an interrupted save left, and sealing a new one into place, so that a kill at any moment leaves the newest
complete checkpoint where a resume looks.

A save writes ``checkpoint.tmp/``, seals it with its manifest (``agents.manifest``, written last), renames
``checkpoint/`` to ``checkpoint.old/`` and ``checkpoint.tmp/`` to ``checkpoint/``, then removes the old one.
"""

import contextlib
import shutil
from collections.abc import Callable
from pathlib import Path

from agents.manifest import MANIFEST, checkpoint_iteration, write_manifest
from agents.rllib_policy import TRAIN_INFO
from envs.files import fsync_dir

CHECKPOINT = "checkpoint"
CHECKPOINT_NAMES = (CHECKPOINT, f"{CHECKPOINT}.tmp", f"{CHECKPOINT}.old")  # the latest, being written, previous
COMPLETE = MANIFEST  # written last into a checkpoint: its files, their sizes and sha256 (agents.manifest)
RLLIB_INFO = "rllib_checkpoint.json"  # RLlib's own info file in a PPO checkpoint


def remove_checkpoint(folder: Path) -> None:
    """Delete a checkpoint folder so that no moment of it looks complete: its marker first, then its info files."""
    for name in (COMPLETE, TRAIN_INFO, RLLIB_INFO):
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            (folder / name).unlink()
    if folder.is_dir():
        shutil.rmtree(folder)
    elif folder.exists():
        folder.unlink()


def newest_complete(run: Path, required: tuple[str, ...]) -> Path | None:
    """The newest complete checkpoint (manifest sealed, ``required`` files listed) among a run folder's three
    names, a tie going to ``checkpoint/``; None if there is none."""
    found = []
    for rank, name in enumerate(CHECKPOINT_NAMES):
        iteration = checkpoint_iteration(run / name, required)
        if iteration is not None:
            found.append((iteration, -rank, run / name))
    return max(found)[2] if found else None


def settle_checkpoints(out: Path, newest: Callable[[Path], Path | None]) -> Path | None:
    """Make ``out/checkpoint`` the newest complete checkpoint (as ``newest`` finds it) and remove the others (what
    an interrupted save left); returns it, or None. Every step keeps the newest complete checkpoint where
    ``newest`` finds it: a folder is removed only while a newer or equal complete one exists, and the newest is
    moved by one rename."""
    best = newest(out)
    final = out / CHECKPOINT
    if best is not None and best != final:
        if final.exists():
            remove_checkpoint(final)
        best.rename(final)
        fsync_dir(out)
        best = final
    for name in CHECKPOINT_NAMES[1:] + (() if best is not None else (CHECKPOINT,)):
        if (out / name).exists():
            remove_checkpoint(out / name)
    return best


def seal_checkpoint(out: Path, iteration: int) -> Path:
    """Seal the written ``out/checkpoint.tmp`` with its manifest (the checkpoint is complete once it exists), then
    put it in ``out/checkpoint``'s place (the previous one passing through ``checkpoint.old``); returns it."""
    final, tmp, old = (out / name for name in CHECKPOINT_NAMES)
    write_manifest(tmp, iteration)
    if final.exists():
        final.rename(old)
        fsync_dir(out)
    tmp.rename(final)
    fsync_dir(out)
    if old.exists():
        remove_checkpoint(old)
    return final
