"""The heuristic agent: a game's rule of thumb (``Game.action_values_fn``) behind the agent protocol.

What every game's heuristic shares lives here: a seeded, determinized look at the table and a
tie-break. The game's part is its compiled ``action_values(state, work, seat, mask, out)``, the one
the vector env's heuristic opponent plays too.
"""

from typing import Any

import numpy as np

import envs


class HeuristicAgent:
    """Scores each legal action with the game's rule of thumb and plays the best (ties: seeded random).

    ``values(state, seat, observation)`` calls the game's part. ``state`` is a one-record array that
    ``seat`` could be in: a copy of the env's record passed through the game's determinization,
    so a heuristic that looks one move ahead never reads hidden cards.
    """

    name = "heuristic"

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.game = envs.game_name(game)
        self._values = envs.spec(game).heuristic
        if self._values is None:
            raise ValueError(f"{self.game} has no heuristic")
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        seed = np.uint64(self._rng.integers(2**63))
        if legal.size == 1:
            return int(legal[0])
        seat = env.possible_agents.index(env.agent_selection)
        state = env.game.new_state()
        state[0] = env.core_state
        env.game.determinize_fn(state[0], seat, seed)
        values = np.asarray(self.values(state, seat, observation), dtype=np.float64)[legal]
        best = legal[np.flatnonzero(values >= values.max() - 1e-9)]
        return int(best[self._rng.integers(best.size)])

    def values(self, state: np.ndarray, seat: int, observation: dict[str, np.ndarray]) -> np.ndarray:
        """One value per action (illegal ones are ignored); higher is better."""
        mask = np.ascontiguousarray(observation["action_mask"], dtype=np.int8)
        out = np.empty(mask.shape[0])
        self._values(state, np.zeros_like(state), seat, mask, out)
        return out
