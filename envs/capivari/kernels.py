"""Capivari's batch and rollout kernels: the shared kernel source compiled against this core."""

from envs.capivari.core import NUM_ACTIONS, OBS_SIZE, legal_into, observe_into, reset, step  # noqa: F401
from envs.engine.kernels import compile_kernels

compile_kernels(globals())
