"""No Ray helper process outlives `tabuleiro train`, even a killed one: a small watchdog process ends them.

Ray started by a driver stops with it when it exits, but a driver killed with SIGKILL leaves some helpers
behind (its dashboard and runtime-env agents wait on a GCS that is gone). ``start`` launches
``python -m training.ray_watchdog PID`` before Ray starts: it notes the driver's descendants (Ray's processes)
every ``POLL_S`` seconds, and at once when asked (``Watchdog.note``, after ``ray.init``), until the pipe from the
driver closes (the driver ended, however); then it sends each one still alive SIGTERM, and SIGKILL to any left
after ``GRACE_S``. Only the standard library: it starts fast.
"""

import os
import select
import signal
import subprocess
import sys
import time

POLL_S = 0.5  # between two notes of the driver's descendants
GRACE_S = 5.0  # after SIGTERM, before SIGKILL


class Watchdog:
    """The watchdog of this process: keep it as long as the process lives (its pipe closing is the signal)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "training.ray_watchdog", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # not stopped by the terminal's Ctrl-C before the driver has ended
            close_fds=True,
        )

    def note(self) -> None:
        """Have this process's descendants noted now (returns once they are), e.g. right after ``ray.init``."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(b"n")
            self.process.stdin.flush()
            self.process.stdout.readline()
        except OSError:  # the watchdog is gone (killed): training goes on without it
            pass


def start() -> Watchdog:
    """Start the watchdog of this process (before ``ray.init``); Ray's processes end once this process has."""
    return Watchdog()


def _start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot), which tells it from a later process with its id; None
    if it has ended (a zombie included)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return None if fields[0] in ("Z", "X") else int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    return children


def descendants(root: int) -> dict[int, int]:
    """``{pid: start time}`` of every process below ``root``."""
    children, found, todo = _children(), {}, [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            start = _start_time(pid)
            if start is not None and pid not in found:
                found[pid] = start
                todo.append(pid)
    return found


def end(processes: dict[int, int], grace_s: float = GRACE_S) -> list[int]:
    """SIGTERM to each of ``processes`` still alive (same id and start time), SIGKILL after ``grace_s`` to those
    left; returns the ids signalled."""
    alive = [pid for pid, start in processes.items() if pid != os.getpid() and _start_time(pid) == start]
    for pid in alive:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_start_time(p) == processes[p] for p in alive):
        time.sleep(0.1)
    for pid in alive:
        if _start_time(pid) == processes[pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    return alive


def watch(parent: int, pipe: int = 0, answer: int = 1) -> list[int]:
    """Note ``parent``'s descendants until ``pipe`` reaches its end (the parent closed it or died), then end them;
    a byte read from ``pipe`` asks for a note now, answered by a line on ``answer`` once it is taken."""
    noted: dict[int, int] = {}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asked = False
    while True:
        noted.update(descendants(parent))
        if asked:
            try:
                os.write(answer, b"noted\n")
            except OSError:
                pass
        ready, _, _ = select.select([pipe], [], [], POLL_S)
        asked = False
        if ready:
            if not os.read(pipe, 4096):
                break
            asked = True
    return end(noted)


if __name__ == "__main__":
    watch(int(sys.argv[1]))
