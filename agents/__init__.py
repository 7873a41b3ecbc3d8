"""Agents behind one protocol (agents.base.Agent): random, and per-game heuristics and search; how they meet
(``match``: one game, ``arena``: seat-rotated tournaments with intervals and ratings)."""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
