"""Every registered game as an OpenSpiel game, so that OpenSpiel's own algorithms run on it unchanged.

``import envs.openspiel`` registers each game of ``envs.specs()`` with ``pyspiel.register_game``, through
OpenSpiel's Python game API, as ``tabuleiro_<short name>``: ``tabuleiro_capivari``,
``tabuleiro_horizonte``, ``tabuleiro_dorfromantik_duel``, ``tabuleiro_kuhn_poker``. After that one import,
``pyspiel.load_game("tabuleiro_horizonte", {"num_players": 5})`` works like any OpenSpiel game. This is
the only module that imports ``pyspiel`` (the ``peers`` extra: ``open-spiel``); it is generic over the
specs and reads only the Game contract (``envs.engine.game``).

**Declarations** (``GameType``/``GameInfo``):

- dynamics: sequential, the AEC turn order. The Duel's simultaneous placement stays sequential too: in the
  AEC turn order seat 0 chooses first but seat 1's observation does not show that choice until both have
  chosen, so the sequential game has the same information sets as the simultaneous one.
- information: imperfect.
- chance: ``EXPLICIT_STOCHASTIC`` where the game offers explicit chance (``chance_outcomes_fn`` and the
  other ``chance_*`` hooks) and it is chosen: the game parameter ``explicit_chance``, whose default is the
  game's ``chance_explicit_by_default``. Kuhn poker (default explicit): the deal as two chance nodes, seat
  0's card then seat 1's, 3 then 2 outcomes, uniform. Horizonte (default sampled; ``explicit_chance=True``
  for CFR-family algorithms and exact best responses): the initiative (n (n - 1) uniform outcomes) and each
  round's deal, one event per card, seat by seat (``envs/horizonte/chance.py``). Sampled is Horizonte's
  default because sampling algorithms (IS-MCTS, MCTS) then get a whole deal in one compiled call instead
  of ~50 Python round trips, and their resampling uses the game's determinizer. Otherwise
  ``SAMPLED_STOCHASTIC``: shuffles, deals and draws happen inside the compiled core, from the generator in
  the state record, seeded from the game parameter ``seed`` (below).
- utility, reward model, utility range, game length: from the game's ``returns_range()``, ``returns_sum()``
  (0: zero-sum; another number: constant-sum; None: general-sum), ``rewards_at_end()`` and
  ``max_game_length()`` where it declares them. A game that does not is declared general-sum, with rewards
  at any move, returns within +-1e9 (the engine's bound on a reward) and at most 100,000 moves: true, but
  loose; OpenSpiel algorithms that scale by the utility range want the game's own numbers.
- A loaded game's type describes its config (Horizonte's ``reward="points"`` is general-sum, ``"rank"``
  zero-sum); ``pyspiel.registered_games()`` shows the default config's.

**Parameters.** Every config knob is a game parameter with our default: ints, bools, floats and strings as
they are; a tuple knob (Horizonte's ``removed``) is a string of items separated by spaces or commas, ``""``
for the knob's default (None) and ``"none"`` for an empty tuple. The game string writes the items separated by
spaces, because OpenSpiel's game-string syntax splits parameters at commas. Every game takes ``seed`` and a
game offering explicit chance ``explicit_chance`` (a bool). With sampled chance ``seed`` (an int, default 0;
-1 draws one from the OS) fixes the deals: the k-th state the game deals (k = 0, 1, ...) is the AEC env's
``reset(seed=seed + k)``; with explicit chance a seed other than 0 is refused. A state is dealt when it is
first read, so clones and deserialized states never deal; and OpenSpiel's C++ side, which learns tensor shapes
by observing a fresh state it then drops (at each C++ ``ObservationTensor`` call), does not move the count: a
state only observed holds a draft of the next deal, which becomes it at the state's first other read. Unknown
parameters and wrong types are refused by OpenSpiel (``SpielError``), out-of-range values by our config check
(``ValueError`` naming the knob). ``parameters("horizonte", removed=("O0", "C25"))`` and ``load("horizonte",
num_players=3)`` convert a Python config.

**States.** Legal actions from the core's mask; action strings are our action names (``pass``,
``place q=2 r=-1 rot=3``; chance outcomes through ``chance_outcome_name``, ``deal K``); rewards and
returns are the AEC env's (the record's rewards of each move, summed); ``str(state)`` is the spectator's
``render_ansi``. An illegal action raises ``ValueError`` naming the legal ones.

**Observations**, for each seat exactly what it may know (our observations are ego-centric and hide what the
seat cannot see): ``observation_tensor`` is the game's observation vector (``state.observe(p)`` gives it as a
float32 array; the observer's ``dict`` holds its named pieces when the game declares a layout) and
``observation_string`` the seat's ``render_ansi``. ``information_state_string`` is the seat's number, its own
moves so far, then its ``render_ansi``, which must therefore tell apart states in which the seat has different
legal actions (OpenSpiel's IS-MCTS keeps one node per string); ``information_state_tensor`` is the observation
vector. Both are perfect recall only as far as the observation is: Kuhn poker's holds the own card and the whole
betting, so its information states are exact (12 decision information sets, as OpenSpiel's ``kuhn_poker``); in
the other games the observation summarizes the past (cards played, scores, boards) rather than listing every
event, and the tensor leaves out the seat's own past moves (a one-hot of them would be longer than the Duel's
24,205-entry observation many times over). Observer types other than one seat's private and the public
information (``private_info=SINGLE_PLAYER``, ``public_info=True``; perfect recall or not) are refused.

**Copies.** ``clone()``; ``state.serialize()`` / ``game.deserialize_state(text)``: text that is parsed, never
unpickled (OpenSpiel's own form for Python games pickles the state's ``__dict__``, so a crafted string would run
code): OpenSpiel's ``history=`` and ``move_number=`` lines, then ``tabuleiro=`` and JSON (returns, last rewards, the
record's bytes in base64). The record must pass the game's ``validate_state``; in explicit-chance games the history
is replayed and must give that record and those returns. ``pickle`` and ``copy`` of games and states (a pickled game
keeps how many states it has dealt). ``pyspiel.serialize_game_and_state`` works for explicit-chance games only (for
sampled ones OpenSpiel asks the game for a generator state its Python game API cannot supply); its C++ reader,
``pyspiel.deserialize_game_and_state``, is OpenSpiel's and unpickles: give it only strings you made.

**resample_from_infostate(player, sampler)**, from Python (C++ algorithms cannot reach a Python method):
for sampled-chance games the game's ``determinize_fn`` on a clone, seeded from two draws of ``sampler``
(everything the seat cannot see, future chance included, resampled consistently with what it has seen);
for explicit-chance games the history is replayed with chance outcomes drawn from their probabilities,
keeping a replay only if the seat's observation matches the original's after every event (rejection
sampling: exact under chance, moves kept as they were).
"""

import base64
import binascii
import dataclasses
import json
import math
import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

import envs
from envs.engine.checks import is_int
from envs.engine.entry import make_game
from envs.engine.game import MAX_REWARD, Game
from envs.engine.spec import GameSpec
from envs.engine.templates import byte_kernels_of

PREFIX = "tabuleiro_"  # OpenSpiel name: PREFIX + the game's short name
SEED = "seed"  # the game parameter that seeds sampled-chance games
EXPLICIT = "explicit_chance"  # the game parameter that picks explicit chance, for games that offer it
UNDECLARED_RETURN = 1e9  # |returns| bound for a game that declares none: the engine's bound on a reward
UNDECLARED_LENGTH = 100_000  # moves, for a game that declares no max_game_length
RESAMPLE_TRIES = 10_000  # replays tried by resample_from_infostate in explicit-chance games
_SEED_SPAN = 1 << 64
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_STRINGS_KEPT = 100_000  # observation strings an observer of an explicit-chance game remembers
_INT_ITEM = re.compile(r"^[+-]?\d+$")
_MOVE = re.compile(r"^(-1|\d{1,9}):(\d{1,12})$")  # one history entry, player:action
STATE_TEXT_FORMAT = 1  # of the JSON after ``tabuleiro=`` in a serialized state
_PICKLED_DICT = "__dict__="  # OpenSpiel's own Python-game form: a pickle, never read here
# the __dict__ field handed to OpenSpiel's C++ reader to set the history: our own constant (an empty dict), not data
_EMPTY_DICT_FIELD = _PICKLED_DICT + "gAR9lC4="


# -- parameters -------------------------------------------------------------------------------


def _kind(name: str, field: dataclasses.Field) -> str:
    """How a config knob travels as an OpenSpiel parameter: bool, int, float, str, or items in a string."""
    default = field.default
    for kind in (bool, int, float, str):  # bool before int: a bool is an int
        if isinstance(default, kind):
            return kind.__name__
    if default is None or isinstance(default, tuple):
        return "items"
    raise TypeError(
        f"{name}: config knob {field.name!r} has a default of type {type(default).__name__}, "
        "which envs.openspiel cannot offer as an OpenSpiel parameter"
    )


def _knobs(spec: GameSpec) -> dict[str, tuple[dataclasses.Field, str]]:
    fields = dataclasses.fields(spec.game.config_cls)
    knobs = {f.name: (f, _kind(spec.name, f)) for f in fields}
    for name in (SEED, EXPLICIT):
        if name in knobs:
            raise TypeError(f"{spec.name}: a config knob named {name!r} clashes with the OpenSpiel parameter")
    return knobs


def _items_text(value: Any) -> str:
    """A tuple knob's value as the parameter string: None -> "", () -> "none", items separated by spaces."""
    if value is None:
        return ""
    if isinstance(value, (tuple, list)):
        return " ".join(str(v) for v in value) if value else "none"
    raise ValueError(f"a tuple knob takes a tuple, a list or None, got {value!r}")


def _items_value(text: str) -> tuple | None:
    """The parameter string of a tuple knob as its value (see ``_items_text``); integer items become ints."""
    text = text.strip()
    if not text:
        return None
    if text.lower() == "none":
        return ()
    items = [item for item in re.split(r"[\s,]+", text) if item]
    return tuple(int(item) if _INT_ITEM.match(item) else item for item in items)


def _to_parameter(kind: str, value: Any) -> Any:
    return _items_text(value) if kind == "items" else value


def openspiel_name(game: str) -> str:
    """The OpenSpiel name of a registered game: ``openspiel_name("capivari_v0") == "tabuleiro_capivari"``."""
    return PREFIX + envs.spec(game).short_name


def parameters(game: str, **config: Any) -> dict[str, Any]:
    """OpenSpiel game parameters for a tabuleiro config (``seed=`` and ``explicit_chance=`` too)."""
    spec = envs.spec(game)
    knobs = _knobs(spec)
    out = {}
    for key, value in config.items():
        if key in (SEED, EXPLICIT):
            out[key] = value
        elif key in knobs:
            out[key] = _to_parameter(knobs[key][1], value)
        else:
            known = f"{sorted(knobs)}, {SEED!r}" + (f" and {EXPLICIT!r}" if _offers_chance(spec.game) else "")
            raise ValueError(f"unknown config key {key!r} for {spec.name}; known keys: {known}")
    return out


def offers_explicit_chance(game: str) -> bool:
    """Whether a registered game takes the ``explicit_chance`` parameter (it offers both chance modes)."""
    return _offers_chance(envs.spec(game).game)


def load(game: str, **config: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` of a tabuleiro game from a Python config: ``load("horizonte", num_players=3)``."""
    return pyspiel.load_game(openspiel_name(game), parameters(game, **config))


# -- declarations ------------------------------------------------------------------------------------------


def _declared(game: Game, method: str) -> Any:
    fn = getattr(game, method, None)
    return fn() if callable(fn) else None


def _offers_chance(game: Game | type) -> bool:
    """Whether the game offers explicit chance (the ``chance_*`` hooks of the Game contract)."""
    return getattr(game, "chance_outcomes_fn", None) is not None


def _explicit_by_default(game: Game | type) -> bool:
    return _offers_chance(game) and bool(getattr(game, "chance_explicit_by_default", True))


def _facts(game: Game) -> tuple[float, float, float | None, bool, int]:
    """(lowest return, highest return, the returns' sum or None, rewards at the end only, most moves)."""
    bounds = _declared(game, "returns_range")
    lo, hi = (-UNDECLARED_RETURN, UNDECLARED_RETURN) if bounds is None else (float(bounds[0]), float(bounds[1]))
    total = _declared(game, "returns_sum")
    at_end = bool(_declared(game, "rewards_at_end"))
    length = _declared(game, "max_game_length")
    return lo, hi, None if total is None else float(total), at_end, int(length or UNDECLARED_LENGTH)


def _game_type(spec: GameSpec, game: Game, explicit: bool) -> pyspiel.GameType:
    _, _, total, at_end, _ = _facts(game)
    utility = pyspiel.GameType.Utility
    if total is None:
        kind = utility.GENERAL_SUM
    else:
        kind = utility.ZERO_SUM if total == 0.0 else utility.CONSTANT_SUM
    chance = pyspiel.GameType.ChanceMode
    specification = {name: _to_parameter(kind_, field.default) for name, (field, kind_) in _knobs(spec).items()}
    specification[SEED] = 0
    if _offers_chance(game):
        specification[EXPLICIT] = _explicit_by_default(game)
    return pyspiel.GameType(
        short_name=PREFIX + spec.short_name,
        long_name=f"tabuleiro {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.EXPLICIT_STOCHASTIC if explicit else chance.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=kind,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL if at_end else pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=spec.seats[1],
        min_num_players=spec.seats[0],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=specification,
        default_loadable=True,
    )


def _game_info(game: Game, explicit: bool) -> pyspiel.GameInfo:
    lo, hi, total, _, length = _facts(game)
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_actions,
        max_chance_outcomes=int(getattr(game, "max_chance_outcomes", 0)) if explicit else 0,
        num_players=game.num_players,
        min_utility=lo,
        max_utility=hi,
        utility_sum=total,
        max_game_length=length,
    )


# -- the game --------------------------------------------------------------------------------------------


class TabuleiroGame(pyspiel.Game):
    """One tabuleiro game with one config as an OpenSpiel game (see the module docstring)."""

    spec: GameSpec  # set on each game's subclass (``_register``)

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = self.spec
        params = dict(params or {})
        knobs = _knobs(spec)
        name = PREFIX + spec.short_name
        config = {}
        for key, (_, kind) in knobs.items():
            if key in params:
                config[key] = _items_value(params[key]) if kind == "items" else params[key]
        try:
            game = make_game(spec.game, config)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        explicit = bool(params.get(EXPLICIT, _explicit_by_default(game)))
        if explicit and not _offers_chance(game):  # OpenSpiel refuses the parameter first; kept for direct calls
            raise ValueError(f"{name}: the game offers no explicit chance")
        seed = 0
        normal = {key: _to_parameter(kind, getattr(game.config, key)) for key, (_, kind) in knobs.items()}
        if _offers_chance(game):
            normal[EXPLICIT] = explicit
        if explicit and int(params.get(SEED, 0)) != 0:  # OpenSpiel passes every parameter: 0 is "not given"
            raise ValueError(
                f"{name}: parameter {SEED!r} seeds sampled chance; with {EXPLICIT}=True chance is explicit"
            )
        if not explicit:
            seed = int(params.get(SEED, 0))
            if seed == -1:  # a seed from the OS, written into the game string so that the game reloads as it is
                seed = int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF
            elif seed < 0:
                raise ValueError(f"{name}: parameter {SEED!r} must be >= 0, or -1 for a seed from the OS; got {seed}")
            normal[SEED] = seed
        super().__init__(_game_type(spec, game, explicit), _game_info(game, explicit), normal)
        self.tab = game  # the tabuleiro Game (rules bound to the config)
        self.explicit = explicit
        self.seed = seed
        self.dealt = 0  # states dealt so far: the next one is reset(seed=self.seed + self.dealt)
        self._mask = np.zeros(game.num_actions, np.int8)
        self._zeros = (0.0,) * game.num_players
        move = game.chance_move_fn if explicit else None
        self._move = game.step_fn if move is None else move  # a decision's step in this chance mode
        self._buf_step = _byte_step(game) if move is None else None
        size = max(1, int(getattr(game, "max_chance_outcomes", 0)))
        self._outcomes = np.zeros(size, np.int64)
        self._probs = np.zeros(size, np.float64)
        self._observe = game.chance_observe_fn if explicit else game.observe_fn
        self._state_cls = type("TabuleiroState", (TabuleiroState,), {"_g": self})

    def __reduce__(self) -> tuple:
        return (_restore_game, (str(self), self.dealt))

    def deserialize_state(self, text: str) -> "TabuleiroState":
        """The state ``state.serialize()`` wrote, parsed and checked (module docstring, "Copies"); ValueError for
        anything else, OpenSpiel's pickled ``__dict__=`` form included (a pickle would run code)."""
        history, core = _parse_state_text(self, text)
        if self.explicit:
            _check_by_replay(self, history, core)
        moves = ",".join(f"{p}:{a}" for p, a in history)
        # OpenSpiel's C++ reader sets the history and move number; its __dict__ field is our empty-dict constant
        state = super().deserialize_state(f"history={moves}\nmove_number={len(history)}\n{_EMPTY_DICT_FIELD}")
        state._c = core
        return state

    def new_initial_state(self, *args: Any) -> "TabuleiroState":
        """A new state; dealt when first read (see "Parameters" in the module docstring)."""
        if args:
            raise ValueError(f"{self.spec.name}: new_initial_state takes no argument, got {args!r}")
        return self._state_cls(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "Observer":
        """The observer OpenSpiel's ``make_observation`` and the state's observation methods use."""
        return Observer(self, iig_obs_type, params)

    def max_chance_nodes_in_history(self) -> int:
        if not self.explicit:
            return 0
        return int(_declared(self.tab, "max_chance_events") or self.max_game_length())

    # Python-side shapes: no state is dealt to learn them
    def observation_tensor_shape(self) -> list[int]:
        return [self.tab.obs_size]

    def observation_tensor_size(self) -> int:
        return self.tab.obs_size

    information_state_tensor_shape = observation_tensor_shape
    information_state_tensor_size = observation_tensor_size

    # a new state's core -----------------------------------------------------------------------------------
    def _deal(self, draft: bool = False) -> "_Core":
        """A new state's core: the next deal (``draft``: without claiming it yet, see ``_claim``)."""
        states = self.tab.new_state()
        index = -1
        if self.explicit:
            self.tab.chance_reset_fn(states[0], np.uint64(0))
        else:
            index = self.dealt
            self.tab.reset_fn(states[0], np.uint64((self.seed + index) % _SEED_SPAN))
            if not draft:
                self.dealt += 1
                index = -1
        core = _Core(states, self._zeros, self._zeros, _TERMINAL, index)
        core.cur = self._player(core)
        return core

    def _claim(self, core: "_Core") -> None:
        """A draft deal read for more than its observation becomes this game's next deal, if it still is."""
        if core.draft == self.dealt:
            self.dealt += 1
        core.draft = -1

    def _player(self, core: "_Core") -> int:
        """OpenSpiel's player to act in ``core``: a seat, the chance player, or terminal."""
        rec = core.states[0]
        if rec["done"]:
            return _TERMINAL
        if self._pending(rec):
            return _CHANCE
        return int(rec["current"])

    def _pending(self, rec: np.void) -> int:
        """Outcomes of the pending chance event (into the game's buffers); 0 at a decision or the end."""
        if not self.explicit:
            return 0
        return int(self.tab.chance_outcomes_fn(rec, self._outcomes, self._probs))


def _byte_step(game: Game) -> Callable | None:
    """The game's ``buf_step`` kernel (a state seen as bytes: numba dispatches that faster than a record), if any."""
    k = byte_kernels_of(game)
    return None if k is None else k.buf_step


def _restore_game(text: str, dealt: int) -> TabuleiroGame:
    game = pyspiel.load_game(text)
    game.dealt = dealt
    return game


def _restore_state(game_text: str, dealt: int, data: str) -> "TabuleiroState":
    return _restore_game(game_text, dealt).deserialize_state(data)


# -- states ------------------------------------------------------------------------------------------------


class _Core:
    """What changes in a state: the record (an array of one, and the same bytes as ``buf``), each seat's return so
    far and reward for the last move (tuples), and OpenSpiel's player to act. One attribute of the state, copied
    in one call: a Python game's clone deep-copies every attribute of the state, and each copy costs (copying
    the bytes and viewing them as a record is several times faster than copying the record)."""

    __slots__ = ("states", "buf", "ret", "rew", "cur", "draft")

    def __init__(self, states: np.ndarray, ret: tuple, rew: tuple, cur: int, draft: int = -1) -> None:
        self.states = states
        self.buf = states.view(np.uint8)
        self.ret = ret
        self.rew = rew
        self.cur = cur
        self.draft = draft  # -1; or, for a deal so far only observed, its index (TabuleiroGame._claim)

    def __deepcopy__(self, memo: dict) -> "_Core":
        twin = _Core.__new__(_Core)
        twin.buf = self.buf.copy()
        twin.states = twin.buf.view(self.states.dtype)
        twin.ret, twin.rew, twin.cur, twin.draft = self.ret, self.rew, self.cur, self.draft
        return twin

    def __reduce__(self) -> tuple:
        return (_Core, (self.states, self.ret, self.rew, self.cur, self.draft))


class TabuleiroState(pyspiel.State):
    """A state of a ``TabuleiroGame``: its ``_Core`` (dealt when first read); the game is a class attribute
    of the per-game subclass, so that copies do not copy it."""

    _g: TabuleiroGame

    def __init__(self, game: TabuleiroGame) -> None:
        super().__init__(game)
        self._c: _Core | None = None

    def _core(self) -> _Core:
        c = self._c
        if c is None:
            c = self._c = self._g._deal()
        elif c.draft >= 0:
            self._g._claim(c)
        return c

    def _peek(self) -> _Core:
        """The core for an observation only: a state nobody has read yet gets a draft deal, claimed at its
        first other read. OpenSpiel's C++ side learns tensor shapes by observing a fresh state it then drops
        (at every C++ ``ObservationTensor`` call); such states leave the game's deals where they were."""
        c = self._c
        if c is None:
            c = self._c = self._g._deal(draft=True)
        return c

    def _rec(self) -> np.void:
        return self._core().states[0]

    # OpenSpiel's Python state API ----------------------------------------------------------------------
    def current_player(self) -> int:
        return self._core().cur

    def is_terminal(self) -> bool:
        return self._core().cur == _TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        c = self._core()
        if c.cur != player or player < 0:
            return []
        mask = self._g._mask
        self._g.tab.legal_into_fn(c.states[0], mask)
        return np.flatnonzero(mask).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        c = self._core()
        if c.cur != _CHANCE:
            return []
        g = self._g
        n = g._pending(c.states[0])
        return [(int(g._outcomes[i]), float(g._probs[i])) for i in range(n)]

    def _apply_action(self, action: int) -> None:
        g = self._g
        c = self._core()
        a = int(action)
        if c.cur == _CHANCE:
            if g.tab.chance_step_fn(c.states[0], a):
                raise ValueError(f"{g.spec.name}: {a} is not an outcome of this chance event: {self.chance_outcomes()}")
            c.rew = g._zeros
            c.cur = g._player(c)
            return
        if c.cur == _TERMINAL:
            raise ValueError(f"{g.spec.name}: the game is over; no action can be applied")
        if not 0 <= a < g.tab.num_actions:
            ok = False
        elif g._buf_step is not None:
            code = g._buf_step(c.buf, a)
            ok = code >= 0
        else:
            ok = not g._move(c.states[0], a)
        if not ok:
            legal = [g.tab.action_name(b) for b in self._legal_actions(c.cur)]
            raise ValueError(f"{g.spec.name}: action {a} is not legal for player {c.cur}; legal: {legal}")
        rec = c.states[0]
        rewards = rec["rewards"].tolist()[: g.tab.num_players]
        if any(rewards):
            c.rew = tuple(rewards)
            c.ret = tuple(r + x for r, x in zip(c.ret, rewards, strict=True))
        else:
            c.rew = g._zeros
        if g.explicit or g._buf_step is None:
            c.cur = g._player(c)
        else:
            c.cur = code - 1 if code else _TERMINAL

    def _action_to_string(self, player: int, action: int) -> str:
        tab = self._g.tab
        if player == _CHANCE:
            name = getattr(tab, "chance_outcome_name", None)
            return name(int(action)) if name is not None else f"chance {int(action)}"
        return tab.action_name(int(action))

    def returns(self) -> list[float]:
        return list(self._core().ret)

    def rewards(self) -> list[float]:
        return list(self._core().rew)

    def __str__(self) -> str:
        return self._g.tab.render_ansi(self._rec(), None)

    # copies: deal first, so that a copy of an unread state continues like it -----------------------------
    def clone(self) -> "TabuleiroState":
        self._core()
        return super().clone()

    def serialize(self) -> str:
        """This state as text that ``game.deserialize_state`` parses (no pickle; module docstring, "Copies")."""
        c = self._core()
        moves = ",".join(f"{pa.player}:{pa.action}" for pa in self.full_history())
        payload = {
            "format": STATE_TEXT_FORMAT,
            "returns": list(c.ret),
            "rewards": list(c.rew),
            "record": base64.b64encode(c.buf.tobytes()).decode("ascii"),
        }
        return f"history={moves}\nmove_number={self.move_number()}\ntabuleiro={json.dumps(payload)}"

    def __reduce__(self) -> tuple:
        game = self._g
        return (_restore_state, (str(game), game.dealt, self.serialize()))

    # what a seat may know ----------------------------------------------------------------------------------
    def observe(self, player: int) -> np.ndarray:
        """``player``'s observation vector (float32) of this state: what that seat may know."""
        return self._g._observe(self._rec(), _checked_player(self._g, player))[0]

    # from Python, the tensors without OpenSpiel's C++ shape query (which observes a fresh state)
    def observation_tensor(self, player: int | None = None) -> list[float]:
        return self.observe(self.current_player() if player is None else player).tolist()

    information_state_tensor = observation_tensor

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> "TabuleiroState":
        """A state ``player_id`` cannot tell from this one, drawn with ``probability_sampler`` (module docstring)."""
        g = self._g
        player = _checked_player(g, player_id)
        self._core()
        if g.explicit:
            return _resample_by_replay(self, player, probability_sampler)
        if g.tab.determinize_fn is None:
            raise ValueError(f"{g.spec.name} has no determinize_fn: resample_from_infostate is not available")
        bits = 0
        for _ in range(2):
            bits = (bits << 32) | min(int(_uniform(probability_sampler) * 2**32), 2**32 - 1)
        twin = self.clone()
        core = twin._core()
        g.tab.determinize_fn(core.states[0], player, np.uint64(bits))
        core.cur = g._player(core)
        return twin


def state_of(game: TabuleiroGame, rec: np.void) -> TabuleiroState:
    """A state of ``game`` holding a copy of the record ``rec`` (an AEC env's ``core_state``), with an empty
    history and returns 0 so far: for OpenSpiel bots that search from an env's position (they must read it only
    through ``resample_from_infostate``, as OpenSpiel's IS-MCTS does)."""
    if not isinstance(game, TabuleiroGame):
        raise ValueError(f"state_of needs a tabuleiro OpenSpiel game, got {type(game).__name__}")
    if game.explicit:  # an explicit-chance state is its history (observation strings are kept by history)
        raise ValueError(f"{game.spec.name}: state_of needs sampled chance ({EXPLICIT}=False)")
    states = game.tab.new_state()
    if not isinstance(rec, np.void) or rec.dtype != states.dtype:
        raise ValueError(f"{game.spec.name}: state_of needs a state record of this game")
    states[0] = rec
    core = _Core(states, game._zeros, game._zeros, _TERMINAL)
    core.cur = game._player(core)
    state = game.new_initial_state()
    state._c = core
    return state


def _parse_state_text(game: TabuleiroGame, text: Any) -> tuple[list[tuple[int, int]], _Core]:
    """The history and the core of a ``serialize()`` string, each field parsed and checked; ValueError if not."""
    name = game.spec.name
    if not isinstance(text, str):
        raise ValueError(f"{name}: a state string must be a str, got {type(text).__name__}")
    states = game.tab.new_state()
    longest = game.max_game_length() + game.max_chance_nodes_in_history()
    if len(text) > 4 * states.nbytes + 24 * longest + 4096:
        raise ValueError(f"{name}: the state string is longer than any state of this game ({len(text):,} characters)")
    lines = text.split("\n")
    if len(lines) == 3 and lines[2].startswith(_PICKLED_DICT):
        raise ValueError(
            f"{name}: a state string with a pickled {_PICKLED_DICT} field (OpenSpiel's own form) is not read: a pickle "
            "can run code. Make state strings with state.serialize() of this adapter"
        )
    if len(lines) != 3 or not lines[0].startswith("history=") or not lines[1].startswith("move_number="):
        raise ValueError(f"{name}: not a tabuleiro state string (expected history=, move_number= and tabuleiro= lines)")
    history = []
    moves = lines[0][len("history=") :]
    for item in moves.split(",") if moves else []:
        m = _MOVE.match(item)
        if m is None:
            raise ValueError(f"{name}: history entry {item[:40]!r} is not player:action")
        player, action = int(m.group(1)), int(m.group(2))
        if player >= game.tab.num_players or (player == _CHANCE and not game.explicit):
            raise ValueError(f"{name}: history entry {item!r} names no player of this game")
        history.append((player, action))
    if len(history) > longest:
        raise ValueError(f"{name}: the history is longer than any game ({len(history)} > {longest} moves)")
    if lines[1] != f"move_number={len(history)}":
        raise ValueError(f"{name}: {lines[1][:40]!r} does not match the history's {len(history)} moves")
    if not lines[2].startswith("tabuleiro="):
        raise ValueError(f"{name}: the third line of a state string must start with tabuleiro=")
    try:
        payload = json.loads(lines[2][len("tabuleiro=") :])
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{name}: the state string's tabuleiro= field is not JSON ({type(exc).__name__})") from None
    keys = {"format", "returns", "rewards", "record"}
    if not isinstance(payload, dict) or set(payload) != keys or payload["format"] != STATE_TEXT_FORMAT:
        raise ValueError(f"{name}: the tabuleiro= field must hold {sorted(keys)} (format {STATE_TEXT_FORMAT})")
    returns = _seat_numbers(game, payload["returns"], "returns")
    rewards = _seat_numbers(game, payload["rewards"], "rewards")
    try:
        raw = base64.b64decode(payload["record"], validate=True) if isinstance(payload["record"], str) else None
    except binascii.Error:
        raw = None
    if raw is None or len(raw) != states.nbytes:
        raise ValueError(f"{name}: the record must be {states.nbytes} bytes in base64")
    states = np.frombuffer(bytearray(raw), dtype=states.dtype).copy()
    core = _Core(states, returns, rewards, _TERMINAL)
    if game.explicit:  # a record between chance events is no dealt state: the replay checks it (_check_by_replay)
        return history, core
    game.tab.validate_state(states[0])
    core.cur = game._player(core)
    return history, core


def _seat_numbers(game: TabuleiroGame, value: Any, what: str) -> tuple:
    """One finite number per seat (returns or rewards of a state string); ValueError if not."""
    bound = MAX_REWARD * (game.max_game_length() + 1)
    ok = (
        isinstance(value, list)
        and len(value) == game.tab.num_players
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
        and all(abs(v) <= bound for v in value)
    )
    if not ok:
        raise ValueError(f"{game.spec.name}: {what} must be one finite number per seat ({game.tab.num_players})")
    return tuple(float(v) for v in value)


def _check_by_replay(game: TabuleiroGame, history: list[tuple[int, int]], core: _Core) -> None:
    """An explicit-chance state is its history: replaying it must give the string's record, returns and rewards."""
    twin = game.new_initial_state()
    for player, action in history:
        if twin.current_player() != player:
            raise ValueError(f"{game.spec.name}: the history does not replay (player {player} is not to act)")
        try:
            twin.apply_action(action)  # ValueError for an action or outcome that is not legal there
        except pyspiel.SpielError as exc:
            raise ValueError(f"{game.spec.name}: the history does not replay ({exc})") from None
    c = twin._core()
    if c.buf.tobytes() != core.buf.tobytes() or c.ret != core.ret or c.rew != core.rew:
        raise ValueError(f"{game.spec.name}: the record, returns or rewards differ from what the history replays to")
    core.cur = c.cur


def _checked_player(game: TabuleiroGame, player: Any) -> int:
    if is_int(player) and 0 <= player < game.tab.num_players:
        return int(player)
    raise ValueError(f"{game.spec.name}: player must be a seat 0..{game.tab.num_players - 1}, got {player!r}")


def _uniform(sampler: Callable[[], float]) -> float:
    u = float(sampler())
    if not 0.0 <= u <= 1.0:
        raise ValueError(f"probability_sampler must return numbers in [0, 1], got {u}")
    return u


def _resample_by_replay(state: TabuleiroState, player: int, sampler: Callable[[], float]) -> TabuleiroState:
    """Explicit chance: replay the moves with fresh chance outcomes until ``player`` sees the same at every step."""
    g = state._g
    events = [(int(e.player), int(e.action)) for e in state.full_history()]
    replay = g.new_initial_state()
    seen = [replay.observe(player).tobytes()]
    for _, action in events:
        replay.apply_action(action)
        seen.append(replay.observe(player).tobytes())
    for _ in range(RESAMPLE_TRIES):
        twin = g.new_initial_state()
        ok = twin.observe(player).tobytes() == seen[0]
        for i, (who, action) in enumerate(events):
            if not ok:
                break
            if who == _CHANCE:
                action = _draw(twin.chance_outcomes(), sampler)
            elif twin.current_player() != who or action not in twin.legal_actions():
                ok = False
                break
            twin.apply_action(action)
            ok = twin.observe(player).tobytes() == seen[i + 1]
        if ok:
            return twin
    raise RuntimeError(f"{g.spec.name}: no resample matched player {player}'s observations in {RESAMPLE_TRIES} tries")


def _draw(outcomes: list[tuple[int, float]], sampler: Callable[[], float]) -> int:
    u = _uniform(sampler)
    total = 0.0
    for outcome, p in outcomes:
        total += p
        if u < total:
            return outcome
    return outcomes[-1][0]


# -- observations ------------------------------------------------------------------------------------------


class Observer:
    """OpenSpiel's Python observer: ``tensor`` (with named views in ``dict``), ``set_from``, ``string_from``."""

    def __init__(self, game: TabuleiroGame, iig_obs_type: Any, params: Any) -> None:
        if isinstance(iig_obs_type, dict):  # OpenSpiel's make_observer(params) passes the parameters alone
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{game.spec.name}: observers take no parameters, got {params!r}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                f"{game.spec.name}: only one seat's view is offered (private_info=SINGLE_PLAYER, public_info=True), "
                f"got {iig_obs_type}"
            )
        self._game = game
        self._perfect_recall = bool(iig_obs_type.perfect_recall)
        self._strings: dict[tuple, str] = {}  # explicit-chance games: strings by (player, history)
        self.tensor = np.zeros(game.tab.obs_size, np.float32)
        layout = game.tab.observation_layout()
        self.dict = layout.split(self.tensor) if layout is not None else {"observation": self.tensor}

    def set_from(self, state: TabuleiroState, player: int) -> None:
        g = self._game
        self.tensor[:] = g._observe(state._peek().states[0], _checked_player(g, player))[0]

    def string_from(self, state: TabuleiroState, player: int) -> str:
        g = self._game
        key = None
        if g.explicit:  # with every chance event explicit, the history determines the state: remember the strings
            key = (player, tuple(state.history()))
            text = self._strings.get(key)
            if text is not None:
                return text
        text = g.tab.render_ansi(state._rec(), _checked_player(g, player))
        if self._perfect_recall:
            mine = [g.tab.action_name(e.action) for e in state.full_history() if e.player == player]
            text = f"player {player}\nmy moves: {' '.join(mine) if mine else '-'}\n{text}"
        if key is not None:
            if len(self._strings) >= _STRINGS_KEPT:
                self._strings.clear()
            self._strings[key] = text
        return text


# -- registration ----------------------------------------------------------------------------------------


def _register(spec: GameSpec) -> None:
    name = PREFIX + spec.short_name
    if name in pyspiel.registered_names():
        return
    game = make_game(spec.game, {})
    game_type = _game_type(spec, game, _explicit_by_default(game))
    # a class, not a closure: OpenSpiel keeps the creator until after Python has shut down, and releasing
    # a closure then aborts the interpreter (a class is released without harm, as OpenSpiel's own games are)
    creator = type(f"{TabuleiroGame.__name__}_{spec.short_name}", (TabuleiroGame,), {"spec": spec})
    pyspiel.register_game(game_type, creator)


def names() -> list[str]:
    """The OpenSpiel names of every registered tabuleiro game, in registration order."""
    return [PREFIX + spec.short_name for spec in envs.specs()]


for _spec in envs.specs():
    _register(_spec)


__all__ = [
    "PREFIX",
    "SEED",
    "Observer",
    "TabuleiroGame",
    "TabuleiroState",
    "load",
    "names",
    "offers_explicit_chance",
    "openspiel_name",
    "parameters",
    "state_of",
]
