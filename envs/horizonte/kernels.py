"""Horizonte's batch and rollout kernels: the shared kernel source compiled against this core.

Mask buffers are sized for the largest config (``MAX_ACTIONS``); ``legal_into`` clears
the whole buffer and marks only this config's actions, so any config fits.
"""

from envs.engine.kernels import compile_kernels
from envs.horizonte.core import STATE_DTYPE, legal_into, observe, observe_into, reset, step  # noqa: F401
from envs.horizonte.rules import MAX_ACTIONS as NUM_ACTIONS  # noqa: F401

compile_kernels(globals())
