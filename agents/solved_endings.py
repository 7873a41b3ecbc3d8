"""Exact play where the game solves the position from what the seat sees: any agent's moves, except where
``Game.solved_values`` (and, when asked, ``Game.refill_values``) answers; there the first move of best exact worth.
In Capivari that is the last five turns of each round (the deck known), and with ``before_refill`` the three
before them (in expectation over the round's last refill). The arena's ``solve=true`` option on any agent."""

from typing import Any

import numpy as np

import envs
from agents.search.buffers import search_root
from envs.engine.game import Game


def check_solves(game: str, before_refill: bool = False) -> None:
    """ValueError unless ``game`` solves some positions (``Game.solved_values``; with ``before_refill``, also
    ``Game.refill_values``)."""
    game_type = type(envs.make(game).game)
    if game_type.solved_values is Game.solved_values:
        raise ValueError(f"{game} solves no position (no Game.solved_values; capivari does)")
    if before_refill and game_type.refill_values is Game.refill_values:
        raise ValueError(f"{game} solves nothing before a refill (no Game.refill_values)")


class SolvedEndings:
    """``agent``'s move, except in solved positions: the first move of best exact worth (with ``before_refill``, of
    best exact expected worth where ``Game.refill_values`` answers). ``turn_at``, ``(offset, scale)`` of the turn in
    the observation vector, with ``first``: solve only from that turn on (None: wherever the game answers). The
    solver reads the table through the game's determinization, as search does."""

    def __init__(
        self,
        agent: Any,
        first: int = 0,
        turn_at: tuple[int, float] | None = None,
        before_refill: bool = False,
        name: str | None = None,
    ) -> None:
        self.agent = agent
        self.first = first
        self.before_refill = before_refill
        self.turn_at = turn_at
        self.name = name or f"{getattr(agent, 'name', type(agent).__name__)} + solver"
        self.solved_moves = 0  # moves this agent took from the solver, over all its games

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def _in_solved_turns(self, observation: dict[str, np.ndarray]) -> bool:
        if self.turn_at is None:
            return True
        offset, scale = self.turn_at
        return int(round(float(observation["observation"][offset]) * scale)) >= self.first

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        if self._in_solved_turns(observation):
            root, seat = search_root(env)
            env.game.determinize_fn(root[0], seat, np.uint64(0))  # what the seat cannot see, resampled
            values = env.game.solved_values(root)
            if values is None and self.before_refill:
                values = env.game.refill_values(root)
            if values is not None:
                self.solved_moves += 1
                return int(np.argmax(values))
        return self.agent.act(observation, env)
