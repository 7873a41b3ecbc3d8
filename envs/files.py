"""Result files written so that a kill, a crash or a full disk leaves the old complete file or the new one.

``write_atomic`` writes a whole file into a temporary file in the same folder (so the rename stays on one
file system), flushes and fsyncs it, renames it over the target and fsyncs the folder: a reader sees the
old file or the new one, never half of one, and a write that fails (``ENOSPC``, an interrupt) removes its
temporary file and leaves the old file as it was. ``append_line`` adds one whole line to a log (a
``.jsonl``) and fsyncs it; a write that fails is cut back to where the line began, so the log holds only
complete lines (a power cut can still tear the last one: readers skip a torn last line). ``save_figure`` and
``save_image`` do what matplotlib's ``savefig`` and ``imsave`` do, through ``write_atomic``.
"""

import contextlib
import io
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["append_line", "fsync_dir", "save_figure", "save_image", "write_atomic"]

TMP_SUFFIX = ".tmp"


def fsync_dir(folder: str | os.PathLike) -> None:
    """Make a rename or creation inside ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temporary(path: Path) -> tuple[int, Path]:
    """A new file beside ``path``, created exclusively with the usual permissions (umask applied)."""
    for attempt in range(100):
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{attempt}{TMP_SUFFIX}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {str(path)!r}")


def write_atomic(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, flushed, fsynced and renamed
    into place. On any failure the temporary file is removed and an existing ``path`` is left untouched.
    The folder must exist. An existing file's permission bits are kept."""
    path = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    fd, tmp = _temporary(path)
    try:
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view) :]
            with contextlib.suppress(FileNotFoundError):
                os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:  # a full disk, an interrupt: the old file stays, no temporary file is left
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)
    return path


def append_line(fd: int, line: str) -> None:
    """Append ``line`` (a newline added) to the file open for appending as ``fd`` and fsync it. If the write
    fails (a full disk) or is interrupted halfway, the file is cut back to its length before, so it ends with
    a whole line; an interrupt after the whole line was written keeps it."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    start = os.lseek(fd, 0, os.SEEK_END)
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except BaseException as exc:
        if written < len(data) or isinstance(exc, OSError):
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
        raise


def _image_format(path: Path) -> str:
    return path.suffix[1:].lower() or "png"


def save_figure(fig: Any, path: str | os.PathLike, **savefig: Any) -> Path:
    """A matplotlib figure written like ``fig.savefig(path, **savefig)``, whole or not at all (``write_atomic``);
    the format follows the file's suffix (png without one)."""
    path = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=savefig.pop("format", _image_format(path)), **savefig)
    return write_atomic(path, buffer.getvalue())


def save_image(path: str | os.PathLike, pixels: Any) -> Path:
    """An RGB array written as a picture like ``matplotlib.image.imsave``, whole or not at all (``write_atomic``)."""
    import matplotlib.image  # optional heavy: only where pictures are written

    path = Path(path)
    buffer = io.BytesIO()
    matplotlib.image.imsave(buffer, pixels, format=_image_format(path))
    return write_atomic(path, buffer.getvalue())
