"""Games played by a pool of spawned worker processes, each game's result reported as soon as it ends.

Every worker has its own pipe to the parent and nothing else shared: a worker killed at any moment (SIGTERM to
the whole process group, SIGKILL, a crash) cannot leave a lock held that the parent then waits on, which a
``multiprocessing.Pool`` sharing one task queue and one result queue between all workers can.
"""

import ctypes
import multiprocessing as mp
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

STOP_SECONDS = 5.0  # a worker still running this long after its SIGTERM is killed


def _exit_at_once(signum: int, frame: Any) -> None:
    """A worker holds nothing the parent needs, so SIGTERM ends it without unwinding (and without a traceback)."""
    os._exit(128 + signum)


def _worker_start() -> None:
    """In each worker process: Ctrl-C (sent to the whole terminal group) is the parent's to handle (it stops
    the workers); SIGTERM ends the worker at once; on Linux the worker dies with its parent even if the parent
    is killed outright."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_at_once)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    parent = mp.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # the parent died before this worker started
        os._exit(1)


def serve(conn: Connection, play: Callable[[dict], dict]) -> None:
    """A worker's loop: receive a task, send back ``("ok", result)`` or ``("error", exception, traceback)``;
    None (or the parent's end closing) stops it."""
    _worker_start()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            message: tuple = ("ok", play(task))
        except Exception as exc:  # noqa: BLE001 - the parent raises it with this worker's traceback
            message = ("error", exc, traceback.format_exc())
        try:
            conn.send(message)
        except (TypeError, AttributeError, ValueError) as exc:  # the exception (or result) does not pickle
            conn.send(("error", RuntimeError(f"an arena worker's message does not pickle: {exc}"), ""))


class LocalGames:
    """Results of the tasks, played in this process (1 worker) or in spawned worker processes, each game
    reported as soon as it ends (``play``: the function playing one task; a module-level function, so the
    workers can import it). A game that raises in a worker raises here, with the worker's traceback as a note.

    Iterate over it for the results; after an interrupt, ``drain()`` returns the results that reached this
    process but were not iterated yet, and ``close()`` stops the workers (what a game in progress did is
    lost, what finished is kept)."""

    def __init__(self, tasks: list[dict[str, Any]], workers: int, play: Callable[[dict], dict]) -> None:
        self.tasks, self.workers, self.play = tasks, min(workers, len(tasks)), play
        self._procs: dict[Connection, Any] = {}  # the parent's end of each worker's pipe -> its process
        # worker -> the task it plays; a worker leaves it before its result is read, so a message an interrupt
        # cut short is never read again by ``drain``
        self._playing: dict[Connection, dict[str, Any]] = {}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self.workers <= 1:
            for t in self.tasks:
                yield self.play(t)
            return
        ctx = mp.get_context("spawn")
        todo = iter(self.tasks)
        try:
            for _ in range(self.workers):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=serve, args=(theirs, self.play), daemon=True)
                proc.start()
                theirs.close()
                self._procs[mine] = proc
                self._give(mine, todo)
            while self._playing:
                for conn in wait(list(self._playing)):
                    message = self._receive(conn)
                    self._give(conn, todo)
                    yield self._result(message)
        finally:
            self.close()

    def _give(self, conn: Connection, todo: Iterator[dict[str, Any]]) -> None:
        """The worker behind ``conn`` gets the next task, or is told to stop when none is left."""
        task = next(todo, None)
        if task is not None:
            self._playing[conn] = task
        try:
            conn.send(task)
        except OSError:  # the worker is gone: waiting on its pipe reports it
            pass

    def _receive(self, conn: Connection) -> tuple:
        task = self._playing.pop(conn)
        try:
            message = conn.recv()
        except (EOFError, OSError):
            proc = self._procs[conn]
            proc.join(1.0)
            raise RuntimeError(
                f"an arena worker (pid {proc.pid}) died playing game {task.get('index')} (exit code {proc.exitcode})"
            ) from None
        return message

    @staticmethod
    def _result(message: tuple) -> dict[str, Any]:
        if message[0] == "ok":
            return message[1]
        _, exc, trace = message
        if trace:
            exc.add_note(f"in the arena worker:\n{trace}")
        raise exc

    def drain(self) -> list[dict[str, Any]]:
        """Results received from the workers and not yet iterated (without waiting for more)."""
        out: list[dict[str, Any]] = []
        for conn in list(self._playing):
            try:
                if not conn.poll(0):
                    continue
                message = conn.recv()
            except (EOFError, OSError):
                continue
            self._playing.pop(conn)
            if message[0] == "ok":  # a game that failed is dropped: the others are still worth keeping
                out.append(message[1])
        return out

    def close(self) -> None:
        """Stop the worker processes: SIGTERM, then SIGKILL for one still running after ``STOP_SECONDS``
        (idempotent)."""
        procs, self._procs = self._procs, {}
        self._playing = {}
        for proc in procs.values():
            if proc.exitcode is None:
                proc.terminate()
        for conn, proc in procs.items():
            proc.join(STOP_SECONDS)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
            conn.close()
