"""Agents behind one protocol (agents.base.Agent): random, and per-game heuristics and search."""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
