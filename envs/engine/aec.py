"""The one PettingZoo AEC adapter, shared by every game.

It owns the bookkeeping (agents, rewards, cumulative rewards, terminations,
dead steps, infos) and makes one compiled call per operation: ``step`` calls the
core's ``step_fn``, ``observe`` its ``observe_fn``, ``action_mask`` (of the seat to act) its
``legal_into_fn``.

``strict=True`` (``raw_env()``): an illegal action raises ``IllegalActionError``.
``strict=False`` (``env()``): PettingZoo classic's wrapper guarantees built in,
without the cost of stacking their wrappers: calls before ``reset`` raise, out-of-range actions
raise, and an illegal action ends the game with -1 for the offender, 0 for the
others, and ``infos[offender]["illegal_move"] = True``.

``infos[agent]`` has the same keys, shapes and numeric types at every step of a game (the game's
``infos(rec)``, and ``illegal_move``: False unless that agent's illegal action ended the game), so
libraries that stack infos into tensors take them; ``details(agent)`` gives the same and more in a
readable form (names, nested dicts, lists that grow).
"""

import copy
import dataclasses
import hashlib
import json
import os
import warnings
import weakref
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.engine.checks import checked_seat, is_int, seed_to_uint64
from envs.engine.config import config_json
from envs.engine.game import MAX_REWARD, Game
from envs.engine.templates import byte_kernels_of

_MAGIC = b"TABU2\n"
_OLD_MAGICS = (b"TABU1\n",)


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (names it and the legal ones)."""


class OrderError(RuntimeError):
    """An env method called before ``reset()``."""


_SPACES: "weakref.WeakKeyDictionary[Game, tuple]" = weakref.WeakKeyDictionary()


def _spaces(game: Game) -> tuple[spaces.Dict, spaces.Discrete, spaces.Box]:
    """(observation space, action space, state space) of ``game``. Built once per game (a Box over a large
    observation takes about a millisecond to check, which every clone would pay) and handed out as
    shallow copies with a generator of their own, since ``sample()`` draws from the space's generator."""
    if game not in _SPACES:
        lo, hi = game.obs_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(lo, hi, (game.obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        state_space = spaces.Box(lo, hi, (game.num_players * game.obs_size,), np.float32)
        _SPACES[game] = (obs_space, spaces.Discrete(game.num_actions), state_space)
    obs_space, action_space, state_space = _SPACES[game]
    own_obs = spaces.Dict({k: _own_copy(v) for k, v in obs_space.spaces.items()})
    return own_obs, _own_copy(action_space), _own_copy(state_space)


def _own_copy(space: spaces.Space) -> spaces.Space:
    """A shallow copy of ``space`` (bounds shared: never written) that seeds its own generator."""
    own = copy.copy(space)
    own._np_random = None
    return own


class TabuleiroAECEnv(AECEnv):
    """PettingZoo AEC environment over one game's numba core."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: Game, render_mode: str | None = None, strict: bool = True) -> None:
        super().__init__()
        modes = (
            self.metadata["render_modes"] + (["rgb_array"] if game.has_rgb else []) + (["svg"] if game.has_svg else [])
        )
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.strict = strict
        self._render_seat: int | None = None  # None: a spectator's view; a seat: only what it may see
        self.metadata = dict(self.metadata, name=game.name, render_modes=modes)
        n = game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space, action_space, self.state_space = _spaces(game)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self._step_fn = game.step_fn
        self._observe_fn = game.observe_fn
        self._buf_step, self._buf_observe = _byte_functions(game)
        self._states: np.ndarray | None = None
        self._rec = None
        self._info_version = -1
        self._illegal_end = False

    @property
    def render_seat(self) -> int | None:
        """Whose view ``render()`` shows: None for a spectator (everything), or a seat (what it may see)."""
        return self._render_seat

    @render_seat.setter
    def render_seat(self, seat: int | None) -> None:
        self._render_seat = checked_seat(seat, self.game.num_players, "render_seat")

    # spaces -------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # lifecycle ----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` fully determines it.

        ``options={"scenario": {...}}`` sets up a documented position (each game's
        rules document lists the keys). Other option keys are not ours: they are
        reported with a warning, not silently dropped.
        """
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        options = options or {}
        foreign = sorted(k for k in options if k != "scenario")
        if foreign:
            warnings.warn(
                f"{self.game.name}: ignoring reset option(s) {foreign}; only 'scenario' is read", stacklevel=2
            )
        scenario = options.get("scenario")
        if scenario is not None and not isinstance(scenario, dict):
            raise ValueError(f"options['scenario'] must be a dict, got {type(scenario).__name__}")
        s = seed_to_uint64(seed, int.from_bytes(os.urandom(8), "little"))
        states = self.game.new_state()
        self.game.reset_fn(states[0], s)
        if scenario:
            self.game.apply_options(states, dict(scenario))
        self._attach(states)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._illegal_end = False
        self._info_version = -1
        self._refresh_infos()
        self._sync_selection()

    def _attach(self, states: np.ndarray) -> None:
        self._states = states
        self._rec = states[0]
        self._buf = states.view(np.uint8)
        self._rewards_view = states["rewards"][0]
        self._info_view = states["info_version"]

    def _require_reset(self) -> None:
        if self._rec is None:
            raise OrderError("call reset() before step(), observe(), last(), agent_iter(), state() or render()")

    def last(self, observe: bool = True) -> tuple:
        self._require_reset()
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self._require_reset()
        return super().agent_iter(max_iter)

    def _sync_selection(self) -> None:
        rec = self._rec
        if rec["done"]:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[rec["current"]]

    def _refresh_infos(self) -> None:
        version = int(self._rec["info_version"])
        if version != self._info_version:
            self._info_version = version
            per_seat = self.game.infos(self._rec)
            self.infos = {a: dict(per_seat[self._seat[a]], illegal_move=False) for a in self.agents}

    def details(self, agent: str) -> dict[str, Any]:
        """``agent``'s infos in full, built from the record now: names, nested dicts and lists that grow
        (each game's rules document lists them), beside ``infos``' fixed numbers; ``illegal_move`` as there."""
        self._require_reset()
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        info = self.game.infos(self._rec, details=True)[self._seat[agent]]
        return dict(info, illegal_move=bool(self.infos.get(agent, {}).get("illegal_move", False)))

    # acting -------------------------------------------------------------------
    def step(self, action: int | None) -> None:
        self._require_reset()
        if not self.agents:
            raise OrderError("the game is over and every agent has taken its last step; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._checked_action(action)
        if self._buf_step is not None:
            code = self._buf_step(self._buf, a)
        elif self._step_fn(self._rec, a):
            code = -1
        else:
            code = 0 if self._rec["done"] else int(self._rec["current"]) + 1
        if code < 0:
            self._illegal(agent, a)
            return
        self._cumulative_rewards[agent] = 0.0
        # the record sizes rewards for the largest table; seats beyond num_players are ignored
        self.rewards = dict(zip(self.possible_agents, self._rewards_view.tolist(), strict=False))
        if code:
            self.agent_selection = self.possible_agents[code - 1]
        else:
            for a_ in self.agents:
                self.terminations[a_] = True
        if self._info_view[0] != self._info_version:
            self._refresh_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _checked_action(self, action: Any) -> int:
        if is_int(action):
            a = int(action)
            if 0 <= a < self.game.num_actions:
                return a
        raise ValueError(f"action must be an int in [0, {self.game.num_actions}) for {self.game.name}, got {action!r}")

    def _illegal(self, agent: str, action: int) -> None:
        if self.strict:
            legal = [self.game.action_name(int(i)) for i in np.flatnonzero(self.action_mask(agent))]
            raise IllegalActionError(
                f"{agent} cannot play {self.game.action_name(action)!r} (action {action}) now; legal: {legal}"
            )
        self.end_by_illegal_moves([agent])

    def end_by_illegal_moves(self, offenders: list[str]) -> None:
        """End the game for illegal moves: -1 for each offender, 0 for the others, ``illegal_move`` in their
        infos. Kept in ``serialize()`` (inside its checksum), so a restored game is over too."""
        self.rewards = {a: 0.0 for a in self.agents}
        for agent in offenders:
            self._cumulative_rewards[agent] = 0.0
            self.rewards[agent] = -1.0
            self.infos[agent] = dict(self.infos.get(agent, {}), illegal_move=True)
        for a in self.agents:
            self.terminations[a] = True
        self._illegal_end = True
        self._accumulate_rewards()

    # observing ----------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_reset()
        if self._buf_observe is not None:
            obs, mask = self._buf_observe(self._buf, self._seat[agent])
        else:
            obs, mask = self._observe_fn(self._rec, self._seat[agent])
        return {"observation": obs, "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 legal-action mask of ``agent`` (default: the agent to act: the core's ``legal_into_fn``)."""
        self._require_reset()
        seat = self._seat[agent if agent is not None else self.agent_selection]
        if seat != int(self._rec["current"]):  # another seat's view (the Duel shows a coming choice): observed
            return self._observe_fn(self._rec, seat)[1]
        mask = np.zeros(self.game.num_actions, np.int8)
        self.game.legal_into_fn(self._rec, mask)
        return mask

    def legal_actions(self, agent: str | None = None) -> list[int]:
        """Legal action ids of ``agent`` (default: the agent to act)."""
        return [int(i) for i in np.flatnonzero(self.action_mask(agent))]

    def state(self) -> np.ndarray:
        """Global state for centralized critics: every seat's observation, concatenated."""
        self._require_reset()
        return np.concatenate([self._observe_fn(self._rec, p)[0] for p in range(self.game.num_players)])

    def action_name(self, action: int) -> str:
        return self.game.action_name(self._checked_action(action))

    def action_from_name(self, name: str) -> int:
        return self.game.action_from_name(name)

    @property
    def core_state(self) -> np.record:
        """The live state record, fields as attributes (``s.round``); read-only by convention."""
        self._require_reset()
        return self._states.view(np.recarray)[0]

    # output -------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """The table from ``render_seat``'s view: text (ansi), printed (human), a picture (rgb_array) or SVG text."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        self._require_reset()
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self._rec, self.render_seat)
        if self.render_mode == "svg":
            return self.game.render_svg(self._rec, self.render_seat)
        text = self.game.render_ansi(self._rec, self.render_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # copies -------------------------------------------------------------------
    def clone(self) -> "TabuleiroAECEnv":
        """An independent copy that continues exactly like this env."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict) -> "TabuleiroAECEnv":
        """The record and bookkeeping copied as they are: they are this env's own, valid by construction
        (no byte round trip, checksum or ``validate_state``: those guard bytes from outside)."""
        new = self._fresh_like()
        if self._rec is None:
            return new
        new._attach(self._states.copy())
        new.agents = list(self.agents)
        new.agent_selection = self.agent_selection
        new.rewards = dict(self.rewards)
        new._cumulative_rewards = dict(self._cumulative_rewards)
        new.terminations = dict(self.terminations)
        new.truncations = dict(self.truncations)
        new.infos = copy.deepcopy(self.infos, memo)
        new._info_version = self._info_version
        new._illegal_end = self._illegal_end
        new.render_seat = self.render_seat
        return new

    def _fresh_like(self) -> "TabuleiroAECEnv":
        return type(self)(self.game, render_mode=self.render_mode, strict=self.strict)

    def __getstate__(self) -> dict:
        return {
            "game": self.game,
            "render_mode": self.render_mode,
            "strict": self.strict,
            "data": self.serialize() if self._rec is not None else None,
        }

    def __setstate__(self, d: dict) -> None:
        if not isinstance(d, dict) or not isinstance(d.get("game"), Game) or not isinstance(d.get("strict"), bool):
            raise ValueError("not a pickled tabuleiro env")
        self.__init__(d["game"], render_mode=d["render_mode"], strict=d["strict"])
        if d["data"] is not None:
            self.deserialize(d["data"])

    def serialize(self) -> bytes:
        """The whole env (core record and bookkeeping) as bytes; ``deserialize`` restores it."""
        self._require_reset()
        raw = self._states.tobytes()
        header = {
            "game": self.game.name,
            "rules_version": self.game.rules_version,
            "config": dataclasses.asdict(self.game.config),
            "dtype": _dtype_digest(self._states.dtype),
            "agents": self.agents,
            "agent_selection": self.agent_selection,
            "rewards": self.rewards,
            "cumulative": self._cumulative_rewards,
            "terminations": self.terminations,
            "truncations": self.truncations,
            "illegal_end": self._illegal_end,
            "illegal_movers": [a for a, info in self.infos.items() if info.get("illegal_move")],
            "render_seat": self.render_seat,
        }
        header["sha256"] = _checksum(header, raw)
        head = json.dumps(header).encode()
        return _MAGIC + len(head).to_bytes(4, "little") + head + raw

    def deserialize(self, data: bytes) -> None:
        """Restore a state made by ``serialize()`` of the same game and config; ValueError if not.

        The checksum covers the header and the record; the record must pass the game's
        ``validate_state``, and the PettingZoo bookkeeping in the header must agree with it
        (seat to act, terminations, finite rewards); infos are rebuilt from the record.
        """
        header, raw = _split(data)
        if header.get("game") != self.game.name:
            raise ValueError(f"state is for game {header.get('game')!r}, this env is {self.game.name!r}")
        if header.get("rules_version") != self.game.rules_version:
            raise ValueError(
                f"state is from rules version {header.get('rules_version')!r}; "
                f"this build of {self.game.name} implements {self.game.rules_version!r}"
            )
        if header.get("config") != config_json(self.game.config):
            raise ValueError(f"state has config {header.get('config')}, this env has {self.game.config}")
        states = self.game.new_state()
        if header.get("dtype") != _dtype_digest(states.dtype) or len(raw) != states.nbytes:
            raise ValueError("state bytes do not match this build's state layout")
        if _checksum(header, raw) != header.get("sha256"):
            raise ValueError("state bytes are corrupted (checksum mismatch)")
        states = np.frombuffer(bytearray(raw), dtype=states.dtype).copy()
        self.game.validate_state(states[0])
        book = _checked_bookkeeping(header, states[0], self.possible_agents)
        self._attach(states)
        self.agents = book["agents"]
        self.agent_selection = book["agent_selection"]
        self.rewards = book["rewards"]
        self._cumulative_rewards = book["cumulative"]
        self.terminations = book["terminations"]
        self.truncations = book["truncations"]
        self._illegal_end = book["illegal_end"]
        self._info_version = -1
        self._refresh_infos()
        for agent in book["illegal_movers"]:
            self.infos[agent] = dict(self.infos[agent], illegal_move=True)
        self.render_seat = header.get("render_seat")

    def deserialize_new(self, data: bytes) -> "TabuleiroAECEnv":
        """A new env of this game restored from ``serialize()`` bytes."""
        env = self._fresh_like()
        env.deserialize(data)
        return env


def _byte_functions(game: Game) -> tuple[Any, Any]:
    """The game's ``buf_step``/``buf_observe`` kernels when its record has the ``state_dtype`` layout, else Nones."""
    k = byte_kernels_of(game)
    return (None, None) if k is None else (k.buf_step, k.buf_observe)


def _checksum(header: dict, raw: bytes) -> str:
    """sha256 over the header (all but its checksum, canonical JSON) and the record bytes."""
    rest = {k: v for k, v in header.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode() + raw).hexdigest()


def _finite_rewards(value: Any, agents: list[str], what: str) -> dict[str, float]:
    finite = (
        isinstance(value, dict)
        and list(value) == agents
        and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= MAX_REWARD for v in value.values()
        )
    )
    if not finite:
        raise ValueError(f"state header: {what} must map each agent {agents} to a finite number")
    return {agent: float(v) for agent, v in value.items()}


def _checked_bookkeeping(header: dict, rec: np.void, possible: list[str]) -> dict[str, Any]:
    """The header's PettingZoo bookkeeping, checked against the record; ValueError if they disagree."""
    agents = header.get("agents")
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ValueError("state header: 'agents' must be a list of agent names")
    if [a for a in possible if a in agents] != agents or len(set(agents)) != len(agents):
        raise ValueError(f"state header: agents {agents} are not in seat order among {possible}")
    illegal_end = header.get("illegal_end")
    if not isinstance(illegal_end, bool):
        raise ValueError("state header: 'illegal_end' must be true or false")
    over = bool(rec["done"]) or illegal_end
    selection = header.get("agent_selection")
    if not over:
        if agents != possible:
            raise ValueError("state header: a game in progress must list every agent")
        if selection != possible[int(rec["current"])]:
            raise ValueError(f"state header: agent_selection {selection!r} is not the seat to act in the record")
    elif selection not in (agents or possible):
        raise ValueError(f"state header: agent_selection {selection!r} is not one of {agents or possible}")
    terminations = header.get("terminations")
    if terminations != {a: over for a in agents}:
        raise ValueError(
            f"state header: terminations must be {over} for every agent of a game {'over' if over else 'in progress'}"
        )
    if header.get("truncations") != {a: False for a in agents}:
        raise ValueError("state header: truncations must be false for every agent")
    movers = header.get("illegal_movers")
    if not isinstance(movers, list) or not set(movers) <= set(agents) or (movers and not illegal_end):
        raise ValueError("state header: 'illegal_movers' must list agents of a game ended by an illegal move")
    return {
        "agents": list(agents),
        "agent_selection": selection,
        "rewards": _finite_rewards(header.get("rewards"), agents, "rewards"),
        "cumulative": _finite_rewards(header.get("cumulative"), agents, "cumulative rewards"),
        "terminations": dict(terminations),
        "truncations": {a: False for a in agents},
        "illegal_end": illegal_end,
        "illegal_movers": list(movers),
    }


def _dtype_digest(dtype: np.dtype) -> str:
    return hashlib.sha256(repr(dtype.descr).encode()).hexdigest()[:16]


def _split(data: bytes) -> tuple[dict, bytes]:
    if isinstance(data, (bytes, bytearray)) and data.startswith(_OLD_MAGICS):
        raise ValueError("a state from an older tabuleiro version (format TABU1); it cannot be restored")
    if not isinstance(data, (bytes, bytearray)) or not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 4:
        raise ValueError("not a tabuleiro state (bad magic bytes)")
    n = int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 4], "little")
    start = len(_MAGIC) + 4
    try:
        header = json.loads(data[start : start + n].decode())
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"state header is corrupted: {type(exc).__name__}") from None
    if not isinstance(header, dict):
        raise ValueError("state header is corrupted")
    return header, bytes(data[start + n :])


def header_of(data: bytes) -> dict:
    """The JSON header of ``serialize()`` bytes (game name, config, ...), validated for shape only."""
    return _split(data)[0]
