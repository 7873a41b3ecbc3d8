"""Processes sharing one numba cache folder name their compiled functions apart (envs._numba_cache)."""

import subprocess
import sys

FIRST_ID = "import envs; from numba.core.bytecode import FunctionIdentity; print(next(FunctionIdentity._unique_ids))"


def test_each_process_numbers_its_compiled_functions_from_its_own_random_offset():
    """numba's default counter starts at 1 in every process: two processes writing one cache folder then give
    two specializations one symbol name (numba issue #10486)."""
    ids = {int(subprocess.run([sys.executable, "-c", FIRST_ID], capture_output=True, text=True, check=True).stdout)}
    ids.add(int(subprocess.run([sys.executable, "-c", FIRST_ID], capture_output=True, text=True, check=True).stdout))
    assert len(ids) == 2 and min(ids) > 1_000_000
