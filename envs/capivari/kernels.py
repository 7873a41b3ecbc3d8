"""Capivari's batch and rollout kernels: the shared kernel source compiled against this core."""

from envs.capivari.core import (  # noqa: F401
    NUM_ACTIONS,
    OBS_SIZE,
    legal_into,
    observe_into,
    random_action,
    reset,
    step,
)
from envs.engine.kernels import compile_kernels

compile_kernels(globals())
