"""The one PettingZoo ParallelEnv adapter, for games whose turns are simultaneous.

Every live seat acts once per simultaneous turn: ``step(actions)`` checks every action
against the mask that seat saw, then feeds them to the core in the core's own order
(``current``), one compiled step each, through the shared AEC adapter (which keeps the
bookkeeping, serialization and copies). The core must therefore give every seat that acts
in the coming turn a non-zero mask, not only ``current``, and a seat's legal actions must
not depend on the choices made before it in the same turn (true for simultaneous moves).
A live seat with nothing to decide this step (an all-zero mask, as in the Duel's Module 2
decisions that concern one seat) still sends an action; it is ignored.

``strict=True`` (``raw_parallel_env()``): an illegal action raises ``IllegalActionError``.
``strict=False`` (``parallel_env()``): illegal actions end the game with -1 for every
offender, 0 for the others, and ``infos[offender]["illegal_move"] = True``. Infos have the AEC env's
fixed keys, shapes and types (``illegal_move`` among them, False until then); ``details(agent)`` the rest.
"""

import json
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from envs.engine.aec import IllegalActionError, OrderError, TabuleiroAECEnv
from envs.engine.game import Game

_MAGIC = b"TABUP1\n"


class TabuleiroParallelEnv(ParallelEnv):
    """PettingZoo parallel environment over one game's numba core."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": True, "render_fps": 1}

    def __init__(self, game: Game, render_mode: str | None = None, strict: bool = True) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.strict = strict
        self.metadata = dict(self.metadata, name=game.name)
        self.aec = TabuleiroAECEnv(game, render_mode=None, strict=strict)
        self.possible_agents = list(self.aec.possible_agents)
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        self.state_space = self.aec.state_space
        self.agents: list[str] = []
        self._started = False

    @property
    def render_seat(self) -> int | None:
        """Whose view ``render()`` shows (kept, and checked, by the AEC env underneath)."""
        return self.aec.render_seat

    @render_seat.setter
    def render_seat(self, seat: int | None) -> None:
        self.aec.render_seat = seat

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # lifecycle ------------------------------------------------------------------------------
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict], dict[str, dict]]:
        """Start a new game (same seeds and ``options={"scenario": ...}`` as the AEC env)."""
        self.aec.reset(seed=seed, options=options)
        self._started = True
        self.agents = self._live()
        return self._observations(self.agents), {a: dict(self.aec.infos[a]) for a in self.agents}

    def _live(self) -> list[str]:
        aec = self.aec
        return [a for a in aec.agents if not (aec.terminations[a] or aec.truncations[a])]

    def _observations(self, agents: list[str]) -> dict[str, dict]:
        return {a: self.aec.observe(a) for a in agents}

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Every live agent's action for this turn; returns observations, rewards, terminations,
        truncations and infos of the agents that were live."""
        if not self._started:
            raise OrderError("call reset() before step()")
        live = list(self.agents)
        if not live:
            raise OrderError("the game is over; call reset()")
        missing = [a for a in live if a not in actions]
        extra = [a for a in actions if a not in live]
        if missing or extra:
            raise ValueError(f"step() needs one action for each live agent {live}; missing {missing}, unknown {extra}")
        chosen = {a: self.aec._checked_action(actions[a]) for a in live}
        deciders = [a for a in live if self.aec.action_mask(a).any()]
        offenders = [a for a in deciders if not self.aec.action_mask(a)[chosen[a]]]
        if offenders:
            return self._illegal(live, chosen, offenders)
        rewards = {a: 0.0 for a in live}
        acted: set[str] = set()
        while (
            not self.aec._rec["done"] and self.aec.agent_selection in deciders and self.aec.agent_selection not in acted
        ):
            agent = self.aec.agent_selection
            self.aec.step(chosen[agent])
            acted.add(agent)
            for a in live:
                rewards[a] += float(self.aec.rewards.get(a, 0.0))
        obs = self._observations(live)
        terminations = {a: bool(self.aec.terminations[a]) for a in live}
        truncations = {a: bool(self.aec.truncations[a]) for a in live}
        infos = {a: dict(self.aec.infos[a]) for a in live}
        self.agents = [a for a in live if not (terminations[a] or truncations[a])]
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos

    def _illegal(self, live: list[str], chosen: dict[str, int], offenders: list[str]) -> tuple:
        if self.strict:
            bad = ", ".join(f"{a}: {self.game.action_name(chosen[a])!r} (action {chosen[a]})" for a in offenders)
            legal = {a: [self.game.action_name(int(i)) for i in self.aec.legal_actions(a)][:20] for a in offenders}
            raise IllegalActionError(f"illegal action(s) {bad}; legal (first 20): {legal}")
        obs = self._observations(live)
        rewards = {a: (-1.0 if a in offenders else 0.0) for a in live}
        self.aec.end_by_illegal_moves(offenders)  # the end is in the AEC env's bytes, not only in self.agents
        terminations = {a: True for a in live}
        truncations = {a: False for a in live}
        infos = {a: dict(self.aec.infos[a]) for a in live}
        self.agents = []
        return obs, rewards, terminations, truncations, infos

    # views ----------------------------------------------------------------------------------
    def details(self, agent: str) -> dict[str, Any]:
        """``agent``'s infos in full (names, nested dicts, lists that grow), as the AEC env's ``details``."""
        if not self._started:
            raise OrderError("call reset() before details()")
        return self.aec.details(agent)

    def state(self) -> np.ndarray:
        """Every seat's observation, concatenated (for centralized critics)."""
        return self.aec.state()

    def action_name(self, action: int) -> str:
        return self.aec.action_name(action)

    def action_from_name(self, name: str) -> int:
        return self.aec.action_from_name(name)

    @property
    def core_state(self) -> np.record:
        """The live state record, fields as attributes; read-only by convention."""
        return self.aec.core_state

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if not self._started:
            raise OrderError("call reset() before render()")
        text = self.game.render_ansi(self.aec._rec, self.render_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # copies ---------------------------------------------------------------------------------
    def serialize(self) -> bytes:
        """The whole env as bytes; ``deserialize`` on an env of the same game and config restores it. The live
        agents in the header are redundant: ``deserialize`` rebuilds them from the AEC env's checked bytes."""
        if not self._started:
            raise OrderError("call reset() before serialize()")
        head = json.dumps({"agents": self.agents}).encode()
        return _MAGIC + len(head).to_bytes(4, "little") + head + self.aec.serialize()

    def deserialize(self, data: bytes) -> None:
        """Restore ``serialize()`` bytes; ValueError if they are not this game's."""
        if not isinstance(data, (bytes, bytearray)) or not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 4:
            raise ValueError("not a tabuleiro parallel-env state (bad magic bytes)")
        n = int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 4], "little")
        start = len(_MAGIC) + 4
        try:
            head = json.loads(bytes(data[start : start + n]).decode())
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"parallel-env header is corrupted: {type(exc).__name__}") from None
        agents = head.get("agents") if isinstance(head, dict) else None
        if not isinstance(agents, list) or not set(agents) <= set(self.possible_agents):
            raise ValueError("parallel-env header names unknown agents")
        aec = self.aec.deserialize_new(bytes(data[start + n :]))  # this env is unchanged until all is checked
        # the live agents follow from the record and the AEC bookkeeping (an illegal end included), both checksummed
        live = [a for a in aec.agents if not (aec.terminations[a] or aec.truncations[a])]
        if agents != live:
            raise ValueError(f"parallel-env header lists agents {agents}, the state's live agents are {live}")
        self.aec = aec
        self.agents = live
        self._started = True

    def clone(self) -> "TabuleiroParallelEnv":
        """An independent copy that continues exactly like this env."""
        twin = type(self)(self.game, render_mode=self.render_mode, strict=self.strict)
        if self._started:
            twin.deserialize(self.serialize())
        return twin

    def __getstate__(self) -> dict:
        return {
            "game": self.game,
            "render_mode": self.render_mode,
            "strict": self.strict,
            "data": self.serialize() if self._started else None,
        }

    def __setstate__(self, d: dict) -> None:
        if not isinstance(d, dict) or not isinstance(d.get("game"), Game) or not isinstance(d.get("strict"), bool):
            raise ValueError("not a pickled tabuleiro parallel env")
        self.__init__(d["game"], render_mode=d["render_mode"], strict=d["strict"])
        if d["data"] is not None:
            self.deserialize(d["data"])
