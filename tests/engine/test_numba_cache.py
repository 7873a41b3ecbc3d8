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


def test_the_remembered_digest_follows_every_edit(tmp_path):
    """A warm start reads the digest remembered for the files' stamps; an edited source gets a new one."""
    import os

    from envs._numba_cache import remembered_digest, source_digest

    root, base = tmp_path / "tree", str(tmp_path / "cache")
    (root / "envs").mkdir(parents=True)
    rules = root / "envs" / "rules.py"
    rules.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x\n")
    first = remembered_digest(root, base)
    assert first == source_digest(root) and remembered_digest(root, base) == first
    rules.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    os.utime(rules, ns=(1, 1))  # even with an old time stamp: the size changed
    second = remembered_digest(root, base)
    assert second == source_digest(root) != first
    assert len(os.listdir(os.path.join(base, "digests"))) == 2
