"""Dorfromantik: The Duel: tiles (tiles.py), rules constants (rules.py), the numba core (core.py),
its engine binding (game.py), scenarios, state checks, random rollouts and ansi text."""

from envs.dorfromantik_duel.game import DorfromantikDuel
from envs.dorfromantik_duel.rules import DorfromantikDuelConfig

__all__ = ["DorfromantikDuel", "DorfromantikDuelConfig"]
