"""The record helpers shared by every game's compiled code."""

import numpy as np

from envs.dorfromantik_duel.state import STATE_DTYPE
from envs.engine.record import copy_record


def test_copy_record_copies_every_byte_between_scratch_slots() -> None:
    scratch = np.zeros((2, 2), STATE_DTYPE)  # the vector env's scratch: slot 1 starts at an odd byte offset
    src = np.random.default_rng(0).integers(0, 256, STATE_DTYPE.itemsize, np.uint8).view(STATE_DTYPE)
    copy_record(src, scratch[1, 1:2])
    assert scratch[1, 1:2].tobytes() == src.tobytes()
    assert not scratch[0].tobytes().strip(b"\0") and not scratch[1, 0:1].tobytes().strip(b"\0")  # nothing else
    copy_record(scratch[1, 1:2], scratch[0, 0:1])
    assert scratch[0, 0:1].tobytes() == src.tobytes()
