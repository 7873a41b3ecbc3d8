"""Dorfromantik: The Duel: tiles (tiles.py), rules constants (rules.py), the numba core (core.py: its
public surface; the rules split by concern beside it, simulation.py for search agents), its engine
binding (game.py), the observation layout (observation.py), scenarios, state checks, the batch
kernels, the heuristic and search hooks, ansi text and pictures."""

from envs.dorfromantik_duel.game import DorfromantikDuel
from envs.dorfromantik_duel.rules import DorfromantikDuelConfig

__all__ = ["DorfromantikDuel", "DorfromantikDuelConfig"]
