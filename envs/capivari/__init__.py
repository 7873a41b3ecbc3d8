"""Capivari: the numba core (core.py), its rules constants (rules.py) and its engine binding (game.py)."""

from envs.capivari.game import Capivari
from envs.capivari.rules import CapivariConfig

__all__ = ["Capivari", "CapivariConfig"]
