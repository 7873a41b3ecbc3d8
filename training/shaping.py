"""Optional potential-based reward shaping on the vector env, for games whose end reward is too sparse.

The learner's reward at each of its decisions gets ``gamma * phi(now) - phi(at its previous decision)``,
and ``-phi(previous)`` when the game ends (``phi`` of a finished game is 0); a game starts from
``phi = 0``, so with ``gamma = 1`` the shaping of a game sums to exactly 0. Shaping of this form
leaves the optimal policy unchanged (Ng, Harada, Russell 1999); it only tells the learner sooner
which moves helped. A potential is game knowledge: a game's spec names its potentials
(``GameSpec.shaping``, e.g. the Duel's ``duel_score``); each reads the state records of all games at
once (numpy, no loop) and only what the learner's seat may see. The training metrics always use the
game's own rewards.
"""

import numpy as np

from envs.engine.spec import Potential


class Shaper:
    """Keeps ``phi`` at each game's previous learner decision and turns game rewards into shaped ones."""

    def __init__(self, phi: Potential, gamma: float, num_games: int) -> None:
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0.0 < gamma <= 1.0:
            raise ValueError(f"shaping gamma must be in (0, 1], got {gamma!r}")
        self.phi = phi
        self.gamma = float(gamma)
        self.previous = np.zeros(num_games, np.float64)

    def start(self) -> None:
        """Every game starts again (phi = 0 before its first decision)."""
        self.previous[:] = 0.0

    def shape(
        self, rewards: np.ndarray, states: np.ndarray, seats: np.ndarray, started: np.ndarray, ended: np.ndarray
    ) -> np.ndarray:
        """Shaped rewards of one step: ``started`` games just began (reward as is), ``ended`` games just finished."""
        now = self.phi(states, seats)
        now[ended] = 0.0
        now[started] = 0.0  # a game starts from phi = 0: still a potential (no later state is a first one)
        shaped = rewards + self.gamma * now - self.previous
        shaped[started] = rewards[started]  # the autoreset step: not part of any game's returns
        self.previous = now
        return shaped
