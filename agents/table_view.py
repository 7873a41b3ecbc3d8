"""The part of an AEC env an agent reads, over a bare state record: agents act on positions that live outside
an env (a row of the vector env's batch, a node of an OpenSpiel tree) without building an env for each."""

from typing import Any

import numpy as np


class TableView:
    """``game``, ``possible_agents``, ``agent_selection``, ``core_state`` and ``observe(agent)`` of the record
    ``core_state`` (set it before each ``act``); the seat to act is the record's ``current``."""

    def __init__(self, game: Any, possible_agents: list[str]) -> None:
        self.game = game
        self.possible_agents = list(possible_agents)
        self.core_state: Any = None

    @property
    def agent_selection(self) -> str:
        return self.possible_agents[int(self.core_state["current"])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The PettingZoo observation dict of ``agent`` at the record (fresh arrays)."""
        seat = self.possible_agents.index(agent)
        obs, mask = self.game.observe_fn(self.core_state, seat)
        return {"observation": np.asarray(obs, np.float32), "action_mask": np.asarray(mask, np.int8)}
