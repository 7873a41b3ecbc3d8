"""The contract between one game's rules and the shared PettingZoo adapter.

A game is a numba core over one structured state record plus a few Python
helpers (names, scenarios, text). The adapter in ``envs.engine.aec`` does all
the PettingZoo bookkeeping, so a game module holds only game logic.

Every ``STATE_DTYPE`` starts with ``header_fields(max_players)`` (``envs.engine.record``:
seat to act, done, rewards, info version, seats, generator); the core keeps them current.
"""

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Collection
from typing import Any, ClassVar

import numpy as np

from envs.engine.config import build_config
from envs.engine.layout import ObsLayout
from envs.engine.record import header_fields  # noqa: F401  (the record header is part of the contract)

MAX_REWARD = 1e9  # |reward| a state or a header may hold: far beyond any game's scores, and finite


class Game(ABC):
    """One game's rules bound to one validated config.

    Subclasses set the class attributes and implement the abstract methods; ``envs.engine.contract``
    lists every piece (required and optional) and checks them when the game registers. The compiled
    pieces are ``@njit(cache=True)`` functions of the game's core, assigned as
    ``step_fn = staticmethod(core.step)`` (a numba dispatcher would otherwise bind ``self``):

    - ``reset_fn(s, seed)``: start a new game in record ``s`` (config fields already written)
    - ``step_fn(s, action) -> int``: 0 if applied; 1 if illegal, leaving ``s`` untouched.
      Chance events (shuffles, deals, reveals) happen inside, from ``s.rng``.
    - ``observe_fn(s, seat) -> (float32[obs_size], int8[num_actions])``: fresh arrays;
      the mask is all zeros for a seat that is not to act
    - ``observe_into_fn(s, seat, obs, mask)``: the same, written into caller buffers, every entry of
      both set (the batch API hands out arrays it wrote into without zeroing them first)
    - ``legal_into_fn(s, mask) -> int``: the acting seat's mask into ``mask``; returns the
      number of legal actions (cheaper than a full observation)
    - ``determinize_fn(s, seat, seed)``: resample in place everything ``seat`` cannot see, consistently
      with everything it has seen; the result is a state ``seat`` could be in. Draws from ``seed`` only,
      and reseeds ``s.rng`` from it too: future chance (next deals, draws) is hidden information as well.
    - optional: ``pick_random_action_fn(s, mask, r)`` (a faster uniformly random legal move),
      ``action_values_fn(state, work, seat, mask, out)`` (the heuristic: a value per legal action of a
      one-record array ``state``, with ``work`` a one-record scratch array), ``search`` (IS-MCTS hooks).

    The game's registered name (``envs.GAMES``) is bound to the class when it registers.
    """

    _registered_name: ClassVar[str | None] = None
    rules_version: ClassVar[str]
    config_cls: ClassVar[type]
    max_actions: ClassVar[int]  # the most actions any config has: the size of the kernels' mask buffers
    state_dtype: ClassVar[np.dtype | None] = None  # the one record layout of the byte fast path, if any
    reset_fn: ClassVar[Any]
    step_fn: ClassVar[Any]
    observe_fn: ClassVar[Any]
    observe_into_fn: ClassVar[Any]
    legal_into_fn: ClassVar[Any]
    determinize_fn: ClassVar[Any]
    pick_random_action_fn: ClassVar[Any] = None
    action_values_fn: ClassVar[Any] = None
    search: ClassVar[Any] = None  # envs.engine.contract.SearchHooks

    @property
    def name(self) -> str:
        """The registered name (``capivari_v0``)."""
        name = type(self)._registered_name
        if name is None:
            raise RuntimeError(f"{type(self).__qualname__} is not registered: load it through envs.spec()")
        return name

    def __init__(self, config: Any) -> None:
        self.config = config

    def __reduce__(self) -> tuple:
        # unpickling rebuilds the game through its validated config: a tampered pickle cannot
        # smuggle in a config (say rounds=40) that __post_init__ would have refused
        return (_rebuild_game, (type(self), _config_values(self.config), type(self)._registered_name))

    # sizes -------------------------------------------------------------------
    @property
    @abstractmethod
    def num_players(self) -> int:
        """Seats at the table for this config."""

    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the flat discrete action space."""

    @property
    @abstractmethod
    def obs_size(self) -> int:
        """Length of the flat float32 observation vector."""

    def observation_layout(self) -> ObsLayout | None:
        """The observation's named pieces (``envs.engine.layout``), as the rules document's table lists them."""
        return None

    def obs_bounds(self) -> tuple[float, float]:
        """Lowest and highest value any observation entry can take."""
        return (0.0, 1.0)

    # state -------------------------------------------------------------------
    @abstractmethod
    def new_state(self) -> np.ndarray:
        """An array of one zeroed record with this config's fields written in."""

    def validate_state(self, rec: np.void) -> None:
        """Raise ValueError if a record (from bytes or a hand edit) is not a reachable state."""
        n = int(rec["num_players"])
        if n != self.num_players:
            raise ValueError(f"state has num_players={n}, config says {self.num_players}")
        if int(rec["done"]) not in (0, 1):
            raise ValueError("state field 'done' must be 0 or 1")
        cur = int(rec["current"])
        if not (-1 <= cur < n) or (cur == -1) != bool(rec["done"]):
            raise ValueError(f"state field 'current'={cur} is inconsistent")
        rewards = np.asarray(rec["rewards"], np.float64)
        if not np.isfinite(rewards).all() or np.abs(rewards).max() > MAX_REWARD or rewards[n:].any():
            raise ValueError(f"state field 'rewards' {rewards.tolist()} must be finite, zero beyond seat {n - 1}")
        if int(rec["rng"]) == 0:
            raise ValueError("state field 'rng' is 0, a state the generator never reaches")
        if int(rec["info_version"]) < 0:
            raise ValueError("state field 'info_version' must not be negative")

    # results and what others see ------------------------------------------------
    higher_score_wins: ClassVar[bool]  # how final_scores rank: False for penalty points (Horizonte)

    @abstractmethod
    def final_scores(self, rec: np.void) -> list[float]:
        """Each seat's score as the game's own pad shows it (rounds won, points): for result tables."""

    @abstractmethod
    def move_is_public(self, seat: int, action: int) -> bool:
        """Whether the other seats learn this move of ``seat`` as soon as it is made (not a secret choice)."""

    # what results look like (OpenSpiel's GameType/GameInfo, envs.openspiel); None: not declared
    def returns_range(self) -> tuple[float, float] | None:
        """Lowest and highest total reward one seat can end a game with, for this config."""
        return None

    def returns_sum(self) -> float | None:
        """What the seats' total rewards add up to in every game (0.0: zero-sum); None if it varies."""
        return None

    def rewards_at_end(self) -> bool:
        """True if every reward comes with the move that ends the game."""
        return False

    def max_game_length(self) -> int | None:
        """The most decisions (chance events not counted) a game of this config can take."""
        return None

    def solved_values(self, state: np.ndarray) -> np.ndarray | None:
        """Each action's exact worth to the seat to act in ``state`` (one record), both seats playing perfectly on,
        where the game can solve the position from what that seat sees (higher is better; illegal actions -inf);
        None elsewhere. The default: no position is solved."""
        return None

    def refill_values(self, state: np.ndarray) -> np.ndarray | None:
        """Each action's exact expected worth to the seat to act in ``state`` (one record) where the game can solve the
        position in expectation over chance still to come, from what that seat sees (as ``solved_values``); None
        elsewhere. The default: none."""
        return None

    # optional explicit chance (OpenSpiel's EXPLICIT_STOCHASTIC): a game that offers it binds the first four
    # (and chance_move_fn if a move can lead to a new deal); the default path (reset_fn/step_fn drawing from
    # s.rng) is unchanged. In this mode the core stops at each chance event (deal, draw, reveal) and the caller
    # picks the outcome.
    chance_reset_fn: ClassVar[Any] = None  # (s, seed): a new game stopped at its first chance event
    chance_outcomes_fn: ClassVar[Any] = None  # (s, outcomes int64[k], probs float64[k]) -> n; 0 if none pending
    chance_step_fn: ClassVar[Any] = None  # (s, outcome) -> 0 if applied, 1 if not an outcome now (s untouched)
    chance_observe_fn: ClassVar[Any] = None  # (s, seat) -> (obs, mask): observe_fn for every state of this mode
    chance_move_fn: ClassVar[Any] = None  # (s, action): step_fn for this mode, if a move can start a deal; else None
    max_chance_outcomes: ClassVar[int] = 0  # outcome ids are below this
    chance_explicit_by_default: ClassVar[bool] = True  # OpenSpiel's mode when the game is loaded without choosing

    @property
    def candidate_actions(self) -> int | None:
        """How many leading actions the rows of a candidate observation piece describe (None: no such piece)."""
        return None

    def max_chance_events(self) -> int | None:
        """The most chance events a game of this config has in explicit-chance mode (None: not declared)."""
        return None

    def chance_outcome_name(self, outcome: int) -> str:
        """A chance outcome as text (``deal K``)."""
        return f"chance {outcome}"

    # names ---------------------------------------------------------------------
    @abstractmethod
    def action_name(self, action: int) -> str:
        """Human-readable name of an action id (like OpenSpiel's action_to_string)."""

    def action_from_name(self, name: str) -> int:
        """The action id with this name; ValueError listing a few names otherwise."""
        if not isinstance(name, str):
            raise ValueError(f"an action name must be a string, got {name!r}")
        table = self._name_table()
        key = name.strip()
        if key in table:
            return table[key]
        sample = ", ".join(list(table)[:8])
        raise ValueError(f"unknown action name {name!r} for {self.name}; names look like: {sample}")

    def _name_table(self) -> dict[str, int]:
        cached = getattr(self, "_names_cache", None)
        if cached is None:
            cached = {self.action_name(a): a for a in range(self.num_actions)}
            self._names_cache = cached
        return cached

    # scenarios, infos, text ----------------------------------------------------
    def apply_options(self, states: np.ndarray, options: dict[str, Any]) -> None:
        """Set up a documented position from ``reset(options={"scenario": options})``; validate everything."""
        if options:
            raise ValueError(f"{self.name} takes no reset options, got {sorted(options)}")

    def infos(self, rec: np.void, details: bool = False) -> list[dict[str, Any]]:
        """Per-seat info dicts; rebuilt when info_version moves.

        ``details=False`` (the env's ``infos``): the same keys, shapes and numeric types at every step of a
        game (Python bool/int/float, or numpy arrays of one dtype and a shape fixed by the config), the
        same for every seat, nothing else. ``details=True`` (the env's ``details(agent)``): anything
        readable (names, nested dicts, lists that grow), for people and rules tests.
        """
        return [{} for _ in range(self.num_players)]

    @abstractmethod
    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        """The table as text, from one seat's view (None: a spectator who sees everything)."""

    has_rgb: ClassVar[bool] = False

    def render_rgb(self, rec: np.void, seat: int | None) -> np.ndarray:
        """The table as a picture (H x W x 3 uint8), from one seat's view; set ``has_rgb`` when implemented."""
        raise NotImplementedError(f"{self.name} has no picture renderer")

    has_svg: ClassVar[bool] = False

    def render_svg(self, rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
        """The table as SVG text from one seat's view; the moves named in ``legal`` are marked clickable
        (``data-move``). Set ``has_svg`` when implemented."""
        raise NotImplementedError(f"{self.name} has no SVG renderer")


def _config_values(config: Any) -> dict[str, Any]:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def _rebuild_game(cls: type, values: Any, name: str | None = None) -> "Game":
    """A game unpickled from its class, config values and registered name, validated like a new one (a process
    that has not loaded the registry yet learns the class's name from the pickle)."""
    if not (isinstance(cls, type) and issubclass(cls, Game)) or not isinstance(values, dict):
        raise ValueError("not a pickled tabuleiro game")
    if name is not None:
        bind_name(cls, name)
    return cls(build_config(cls.config_cls, values))


def bind_name(cls: type, name: str) -> None:
    """Give Game class ``cls`` its registered name; ValueError if it already has another (one class, one name)."""
    bound = cls.__dict__.get("_registered_name")
    if not isinstance(name, str) or bound not in (None, name):
        raise ValueError(f"{cls.__qualname__} is registered as {bound!r} already, not {name!r}")
    cls._registered_name = name
