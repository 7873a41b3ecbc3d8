"""Kuhn poker: the numba core (core.py), its rules constants (rules.py) and its engine binding (game.py)."""

from envs.kuhn_poker.game import KuhnPoker
from envs.kuhn_poker.rules import KuhnPokerConfig

__all__ = ["KuhnPoker", "KuhnPokerConfig"]
