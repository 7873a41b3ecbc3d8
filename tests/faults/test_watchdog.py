"""No helper outlives a killed driver: the watchdog ends the processes a driver started (as Ray's are) once the
driver is gone, SIGKILL included, and only those."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from training.ray_watchdog import descendants, end

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

# a driver: its watchdog, then a helper in a session of its own (like Ray's agents), noted, then it waits
DRIVER = """
import subprocess, sys
from training import ray_watchdog
dog = ray_watchdog.start()
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], pass_fds=[int(sys.argv[1])],
                          start_new_session=True)
dog.note()
print(helper.pid, dog.process.pid, flush=True)
sys.stdin.read()
"""


def _driver(write_end: int) -> tuple[subprocess.Popen, int, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(write_end)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        pass_fds=[write_end],
        env=env,
        text=True,
    )
    os.close(write_end)
    helper, dog = (int(x) for x in proc.stdout.readline().split())
    return proc, helper, dog


@pytest.mark.parametrize("how", ["SIGKILL", "exit"])
def test_the_helpers_of_a_driver_end_when_it_ends(how):
    read_end, write_end = os.pipe()  # the helper holds the write end: EOF here once it has ended
    proc, helper, dog = _driver(write_end)
    try:
        if how == "SIGKILL":
            proc.kill()
        else:
            proc.stdin.close()
        proc.wait(timeout=60)
        with os.fdopen(read_end, "rb") as pipe:
            assert pipe.read() == b""  # returns once every holder of the write end (the helper) has ended
    finally:
        for pid in (helper, dog):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_end_signals_only_processes_it_noted_and_that_are_still_the_same():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        noted = descendants(os.getpid())
        assert sleeper.pid in noted
        stale = {sleeper.pid: noted[sleeper.pid] + 1}  # same id, another start time: a reused id
        assert end(stale, grace_s=0) == []
        assert sleeper.poll() is None
        assert end({sleeper.pid: noted[sleeper.pid]}) == [sleeper.pid]
        assert sleeper.wait(timeout=60) == -signal.SIGTERM
    finally:
        sleeper.kill()
