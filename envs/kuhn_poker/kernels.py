"""Kuhn poker's batch and rollout kernels: the shared kernel source compiled against this core."""

from envs.engine.kernels import compile_kernels
from envs.kuhn_poker.core import (  # noqa: F401
    NUM_ACTIONS,
    OBS_SIZE,
    STATE_DTYPE,
    legal_into,
    observe,
    observe_into,
    pick_random_action,
    reset,
    step,
)

compile_kernels(globals())
