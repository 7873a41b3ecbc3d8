"""Horizonte: the numba core (core.py), its rules constants (rules.py) and its engine binding (game.py)."""

from envs.horizonte.game import Horizonte
from envs.horizonte.rules import HorizonteConfig

__all__ = ["Horizonte", "HorizonteConfig"]
