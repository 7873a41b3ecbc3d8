"""A game in progress in the browser: a person at one seat against agents, or agents alone (watched).

Agents move one at a time when the page asks (``advance``), so the page shows each move; a move names the
ply it was made at, so a stale or repeated click changes nothing.
"""

import os
import threading
from pathlib import Path
from typing import Any

import envs
from agents.match import GameResult
from agents.registry import make_agent
from envs.replay import record, save
from tabuleiro.web.views import legal_names, log_line, seat_of_turn, table_view


class Conflict(ValueError):
    """A request that does not fit the table's moment (stale ply, not this seat's turn, game over): HTTP 409."""


class Table:
    """One game; ``human`` is the person's seat (None: every seat is an agent and the viewer a spectator)."""

    def __init__(
        self, game: str, config: dict[str, Any], specs: list[str], human: int | None, seed: int | None
    ) -> None:
        self.env = envs.make(game, **config)
        n = len(self.env.possible_agents)
        if len(specs) != n:
            raise ValueError(f"{game} seats {n} players: got {len(specs)} seat(s)")
        self.seed = int.from_bytes(os.urandom(4), "little") if seed is None else seed
        self.specs, self.human = specs, human
        self.agents = [None if s == "human" else make_agent(s, game, self.seed + p) for p, s in enumerate(specs)]
        self.env.reset(seed=self.seed)
        for agent in self.agents:
            if agent is not None:
                agent.reset(self.seed)
        self.actions: list[int] = []
        self.movers: list[int] = []
        self.returns = [0.0] * n
        self.saved: str | None = None
        self.lock = threading.Lock()

    @property
    def ply(self) -> int:
        """Moves made so far."""
        return len(self.actions)

    def view(self) -> dict[str, Any]:
        """Everything the page is sent, from the viewer's seat."""
        env, seat = self.env, self.human
        to_act = seat_of_turn(env)
        out = table_view(env.game, env.core_state, seat, legal_names(env, seat))
        out.update(
            game=env.game.name,
            seat=seat,
            players=len(env.possible_agents),
            agents=self.specs,
            ply=self.ply,
            to_act=to_act,
            your_turn=to_act is not None and to_act == seat,
            done=to_act is None,
            log=[log_line(env.game, m, a, seat) for m, a in zip(self.movers, self.actions, strict=True)],
        )
        if to_act is None:
            out.update(returns=self.returns, replay=self.saved)
        return out

    def _check_ply(self, ply: int) -> None:
        if ply != self.ply:
            raise Conflict(f"stale move: the table is at ply {self.ply}, the request was made at ply {ply}")
        if seat_of_turn(self.env) is None:
            raise Conflict("the game is over")

    def move(self, name: str, ply: int) -> None:
        """The person's move, by name; ValueError (nothing changes) unless it is legal now."""
        self._check_ply(ply)
        seat = seat_of_turn(self.env)
        if seat != self.human:
            raise Conflict(f"it is player_{seat}'s turn, not yours")
        action = self.env.game.action_from_name(name)
        if action not in self.env.legal_actions():
            raise ValueError(f"{name!r} is not legal now")
        self._play(seat, action)

    def advance(self, ply: int) -> None:
        """One agent's move (the seat to act must be an agent's)."""
        self._check_ply(ply)
        seat = seat_of_turn(self.env)
        agent = self.agents[seat]
        if agent is None:
            raise Conflict("it is your turn: an agent cannot move for you")
        obs = self.env.observe(self.env.agent_selection)
        self._play(seat, int(agent.act(obs, self.env)))

    def _play(self, seat: int, action: int) -> None:
        env = self.env
        env.step(action)
        self.actions.append(action)
        self.movers.append(seat)
        for p, agent in enumerate(env.possible_agents):
            self.returns[p] += float(env.rewards.get(agent, 0.0))
        while env.agents and all(env.terminations[a] or env.truncations[a] for a in env.agents):
            env.step(None)  # the dead steps PettingZoo asks for once the game is over

    def finish(self, folder: Path | None) -> None:
        """Keep the finished game as a replay in ``folder`` (once)."""
        if seat_of_turn(self.env) is not None or self.saved is not None or folder is None:
            return
        name = f"{self.env.game.name}-{self.seed}-{os.getpid()}-{id(self):x}.json"
        self.saved = str(save(self.replay(), folder / name))

    def replay(self) -> Any:
        """The game as a replay (the format of envs.replay)."""
        scores = [float(x) for x in self.env.game.final_scores(self.env.core_state)]
        result = GameResult(self.seed, self.specs, self.returns, self.ply, [], self.actions, scores)
        return record(self.env.game, result, self.specs)
