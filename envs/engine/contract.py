"""The game contract: every piece a game must provide and every piece it may, checked when it registers.

A game is a ``Game`` subclass (``envs/<game>/game.py``: compiled rules and Python helpers) plus a
``GameSpec`` (``envs/<game>/spec.py``: registration, documentation, training preset, shaping potentials;
its fields are checked by ``GameSpec`` itself). ``GAME_PIECES`` lists what the Game class carries, its
``SearchHooks`` the pieces in ``SEARCH_PIECES``; an optional method left out keeps ``Game``'s default.
``check_game`` runs when a spec is made (that is, when the registry imports it) and raises
``ContractError`` naming the first missing or malformed piece, so a broken game fails at import, never
later as a silently missing feature.

The compiled pieces are ``@njit(cache=True)`` functions. The templates written once for every game
(``envs.engine.batch_kernels``, ``agents.search.ismcts_loop``, ``training.opponent_loop``) import the
stand-ins below by these names; ``envs.engine.templates.instantiate`` compiles each template against a
game's own functions (``template_bindings``).
"""

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np


class ContractError(TypeError):
    """A game does not provide a required piece, or provides one of the wrong kind."""


# -- stand-ins: the names a template calls, bound to the game's functions when it is compiled for one game ----


def _stand_in(name: str) -> Callable:
    def unbound(*args: Any) -> Any:
        raise RuntimeError(f"{name} is a template's stand-in: compile the template for a game first")

    unbound.__name__ = unbound.__qualname__ = name
    unbound.stand_in = True
    return unbound


reset = _stand_in("reset")  # (s, seed): start a new game in record s
step = _stand_in("step")  # (s, action) -> 0 if applied, 1 if illegal (s untouched)
observe = _stand_in("observe")  # (s, seat) -> (float32 obs, int8 mask), fresh arrays
observe_into = _stand_in("observe_into")  # (s, seat, obs, mask): the same into caller buffers
legal_into = _stand_in("legal_into")  # (s, mask) -> number of legal actions of the seat to act
determinize = _stand_in("determinize")  # (s, seat, seed): resample what seat cannot see
pick_random_action = _stand_in("pick_random_action")  # (s, mask, r) -> a uniformly random legal action
action_values = _stand_in("action_values")  # (state, work, seat, mask, out): the heuristic's value per action
utility = _stand_in("utility")  # (s, returns, util): each seat's result in [0, 1] (search)
expand_action = _stand_in("expand_action")  # (s, untried, n_untried, r) -> the untried action to expand
default_policy = _stand_in("default_policy")  # (s, seat, mask, r) -> the move outside the search tree
# compiled once per game by envs.engine.batch_kernels, for the other templates
random_playout = _stand_in("random_playout")  # (s, seed, returns): play to the end at random, add up rewards
heuristic_action = _stand_in("heuristic_action")  # (states, i, seat, mask, r, scratch, values) -> the move
# compiled once per game by envs.engine.search_moves, for the search loops
default_move = _stand_in("default_move")  # (s, seat, mask, r, returns): one default-policy move, rewards added
playout = _stand_in("playout")  # (s, seat, mask, r, rollout_steps, returns): random to the end, or k default moves
NUM_ACTIONS = 1  # the mask buffers' size: the most actions any config of the game has
STATE_DTYPE = np.dtype([("done", np.uint8)])  # the one record layout of the byte fast path (buf_step)


# -- search hooks: what IS-MCTS (agents.search) needs from a game beyond its rules ------------------------------


@dataclasses.dataclass(frozen=True)
class SearchHooks:
    """A game's IS-MCTS bindings (``agents.search.ismcts_loop`` documents how each is used)."""

    utility: Any  # compiled (s, returns, util): each seat's result in [0, 1], required
    expand_action: Any = None  # compiled (s, untried, n_untried, r); None: uniformly at random
    default_policy: Any = None  # compiled (s, seat, mask, r); None: uniformly random legal moves
    root_candidates: Any = None  # Python (root, seat, game, seed, root_mask): narrows the root's actions
    rollout_steps: int = -1  # -1: random playouts to the end; k >= 0: k default-policy steps, then utility
    opponents_in_tree: bool = True  # False: other seats move by the default policy, not in the tree
    max_tree_depth: int = 1 << 30
    shared_determinizations: int = 1  # iterations sharing one determinization; 0: a round of root actions
    exploration: float | None = None  # UCB constant (inf: uniform); None: the agent's default
    play_by_value: bool = False  # play the root action of best mean utility, not the most visited


# -- the pieces ------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Piece:
    """One piece of the contract: where it lives, whether it is required, what it must be."""

    name: str  # attribute of the Game class (or of its SearchHooks, as ``search.<field>``)
    required: bool
    kind: str  # "compiled", "python", "method", "int", "bool", "str", "dtype", "dataclass", "hooks", "float"
    arity: int = 0  # parameters of a compiled or Python function
    binds: str = ""  # the template stand-in it binds, if any
    doc: str = ""


GAME_PIECES: tuple[Piece, ...] = (
    Piece("config_cls", True, "dataclass", doc="the frozen, validated Config dataclass"),
    Piece("rules_version", True, "str", doc="bumped when a rule changes: serialized states name it"),
    Piece("higher_score_wins", True, "bool", doc="how final_scores rank (False: penalty points)"),
    Piece("max_actions", True, "int", binds="NUM_ACTIONS", doc="the most actions any config has (mask buffers)"),
    Piece("reset_fn", True, "compiled", 2, "reset", "(s, seed): start a new game in record s"),
    Piece("step_fn", True, "compiled", 2, "step", "(s, action) -> 0 applied, 1 illegal (s untouched)"),
    Piece("observe_fn", True, "compiled", 2, "observe", "(s, seat) -> (obs, mask), fresh arrays"),
    Piece("observe_into_fn", True, "compiled", 4, "observe_into", "(s, seat, obs, mask): every entry written"),
    Piece("legal_into_fn", True, "compiled", 2, "legal_into", "(s, mask) -> number of legal actions"),
    Piece("determinize_fn", True, "compiled", 3, "determinize", "(s, seat, seed): resample what seat cannot see"),
    Piece("pick_random_action_fn", False, "compiled", 3, "pick_random_action", "(s, mask, r): faster random pick"),
    Piece("action_values_fn", False, "compiled", 5, "action_values", "the heuristic: (state, work, seat, mask, out)"),
    Piece("state_dtype", False, "dtype", binds="STATE_DTYPE", doc="the one record layout of the byte fast path"),
    Piece("search", False, "hooks", doc="SearchHooks: IS-MCTS bindings"),
    Piece("chance_reset_fn", False, "compiled", 2, doc="explicit chance (OpenSpiel): a game stopped at chance"),
    Piece("chance_outcomes_fn", False, "compiled", 3, doc="(s, outcomes, probs) -> n pending outcomes"),
    Piece("chance_step_fn", False, "compiled", 2, doc="(s, outcome) -> 0 applied, 1 not an outcome now"),
    Piece("chance_observe_fn", False, "compiled", 2, doc="observe_fn for every state of the explicit mode"),
    Piece("chance_move_fn", False, "compiled", 2, doc="step_fn of the explicit mode, if a move can start a deal"),
    Piece("max_chance_outcomes", False, "int", doc="explicit chance: outcome ids are below this"),
    Piece("chance_explicit_by_default", False, "bool", doc="OpenSpiel's chance mode when none is chosen"),
    Piece("has_rgb", False, "bool", doc="render_rgb draws pictures"),
    Piece("has_svg", False, "bool", doc="render_svg draws SVG pictures"),
    # Python methods (properties): the abstract ones are required, the others have defaults in Game
    Piece("num_players", True, "method", doc="seats at the table for this config"),
    Piece("num_actions", True, "method", doc="size of the flat discrete action space"),
    Piece("obs_size", True, "method", doc="length of the flat float32 observation"),
    Piece("new_state", True, "method", doc="an array of one zeroed record with the config's fields written in"),
    Piece("final_scores", True, "method", doc="each seat's score as the game's pad shows it"),
    Piece("move_is_public", True, "method", doc="whether the others learn this move at once"),
    Piece("action_name", True, "method", doc="an action id as text (action_from_name inverts it)"),
    Piece("render_ansi", True, "method", doc="the table as text from one seat's view"),
    Piece("observation_layout", False, "method", doc="the observation's named pieces (ObsLayout)"),
    Piece("obs_bounds", False, "method", doc="lowest and highest observation entry"),
    Piece("validate_state", False, "method", doc="ValueError unless a record is a reachable state"),
    Piece("apply_options", False, "method", doc="reset(options={'scenario': ...}): a documented position"),
    Piece("infos", False, "method", doc="per-seat info dicts"),
    Piece("render_rgb", False, "method", doc="the table as a picture (with has_rgb)"),
    Piece("render_svg", False, "method", doc="the table as SVG text, legal moves clickable (with has_svg)"),
    Piece("returns_range", False, "method", doc="lowest and highest total reward of a seat (OpenSpiel)"),
    Piece("returns_sum", False, "method", doc="the seats' total rewards in every game (0.0: zero-sum)"),
    Piece("rewards_at_end", False, "method", doc="every reward comes with the final move"),
    Piece("max_game_length", False, "method", doc="the most decisions a game takes"),
    Piece("solved_values", False, "method", doc="each move's exact worth where the game solves a position"),
    Piece("refill_values", False, "method", doc="each move's exact expected worth where chance is still to come"),
    Piece("max_chance_events", False, "method", doc="the most chance events of the explicit mode"),
    Piece("chance_outcome_name", False, "method", doc="a chance outcome as text"),
    Piece("candidate_actions", False, "method", doc="leading actions described by a candidate-rows piece"),
)

SEARCH_PIECES: tuple[Piece, ...] = (
    Piece("utility", True, "compiled", 3, "utility", "(s, returns, util): each seat's result in [0, 1]"),
    Piece("expand_action", False, "compiled", 4, "expand_action", "(s, untried, n_untried, r)"),
    Piece("default_policy", False, "compiled", 4, "default_policy", "(s, seat, mask, r)"),
    Piece("root_candidates", False, "python", 5, doc="(root, seat, game, seed, root_mask)"),
    Piece("rollout_steps", True, "int", binds="ROLLOUT_STEPS"),
    Piece("opponents_in_tree", True, "bool", binds="OPPONENTS_IN_TREE"),
    Piece("max_tree_depth", True, "int", binds="MAX_TREE_DEPTH"),
    Piece("shared_determinizations", True, "int", binds="SHARED_DETERMINIZATIONS"),
    Piece("exploration", False, "float"),
    Piece("play_by_value", True, "bool"),
)

# the explicit-chance pieces come as a set: the first four together (chance_move_fn only where a move deals)
CHANCE_SET = ("chance_reset_fn", "chance_outcomes_fn", "chance_step_fn", "chance_observe_fn")


def _is_compiled(value: Any) -> bool:
    return hasattr(value, "py_func") and callable(value)


def _problem(piece: Piece, value: Any) -> str | None:
    """What is wrong with ``value`` as ``piece`` (None: fine)."""
    if value is None:
        if piece.kind == "method" and not piece.required:
            return "must not be None (leave it out for Game's default)"
        return "is missing" if piece.required else None
    kind = piece.kind
    if kind in ("compiled", "python"):
        if kind == "compiled" and not _is_compiled(value):
            return f"must be a numba-compiled function (cache=True), got {type(value).__name__}"
        if not callable(value):
            return f"must be a function, got {type(value).__name__}"
        func = value.py_func if kind == "compiled" else value
        try:
            params = inspect.signature(func).parameters
        except (TypeError, ValueError):
            return "has no readable signature"
        if len(params) != piece.arity:
            return f"must take {piece.arity} parameters ({piece.doc}), takes {len(params)}: {list(params)}"
        return None
    if kind == "method" and not (isinstance(value, property) or callable(value)):
        return f"must be a method or property, got {type(value).__name__}"
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"must be an int, got {value!r}"
    if kind == "int" and piece.name == "max_actions" and value < 1:
        return f"must be >= 1, got {value!r}"
    if kind == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return f"must be a number or None, got {value!r}"
    if kind == "bool" and not isinstance(value, bool):
        return f"must be True or False, got {value!r}"
    if kind == "str" and not (isinstance(value, str) and value.strip()):
        return f"must be a non-empty string, got {value!r}"
    if kind == "dtype" and not isinstance(value, np.dtype):
        return f"must be a numpy dtype, got {type(value).__name__}"
    if kind == "dataclass" and not (isinstance(value, type) and dataclasses.is_dataclass(value)):
        return f"must be a dataclass type, got {value!r}"
    if kind == "hooks" and not isinstance(value, SearchHooks):
        return f"must be a SearchHooks, got {type(value).__name__}"
    return None


def check_game(cls: type) -> None:
    """Raise ContractError naming the first missing or malformed piece of Game subclass ``cls``."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    abstract = sorted(getattr(cls, "__abstractmethods__", ()))
    if abstract:
        raise ContractError(f"{where} does not implement {abstract} (envs.engine.game.Game)")
    for piece in GAME_PIECES:
        problem = _problem(piece, getattr(cls, piece.name, None))
        if problem:
            raise ContractError(f"{where}.{piece.name} {problem}")
    present = [n for n in CHANCE_SET if getattr(cls, n, None) is not None]
    if present and len(present) != len(CHANCE_SET):
        missing = [n for n in CHANCE_SET if n not in present]
        raise ContractError(f"{where}: explicit chance needs all of {list(CHANCE_SET)}; {missing} is missing")
    if present and not (getattr(cls, "max_chance_outcomes", None) or 0) >= 1:
        raise ContractError(f"{where}.max_chance_outcomes must be >= 1 with explicit chance")
    hooks = getattr(cls, "search", None)
    if hooks is not None:
        for piece in SEARCH_PIECES:
            problem = _problem(piece, getattr(hooks, piece.name))
            if problem:
                raise ContractError(f"{where}.search.{piece.name} {problem}")


def template_bindings(cls: type) -> dict[str, Any]:
    """The template names bound to this game's pieces (optional pieces it lacks are left to the template)."""
    bound: dict[str, Any] = {}
    for piece in GAME_PIECES:
        value = getattr(cls, piece.name, None)
        if piece.binds and value is not None:
            bound[piece.binds] = value
    hooks = getattr(cls, "search", None)
    if hooks is not None:
        for piece in SEARCH_PIECES:
            value = getattr(hooks, piece.name)
            if piece.binds and value is not None:
                bound[piece.binds] = value
    return bound


def describe() -> str:
    """The contract as a Markdown table (docs/adding-a-game.md shows it)."""
    rows = ["| piece | required | what |", "|---|---|---|"]
    for piece in GAME_PIECES:
        rows.append(f"| `{piece.name}` | {'yes' if piece.required else 'no'} | {piece.kind}: {piece.doc} |")
    for piece in SEARCH_PIECES:
        need = "yes (with search)" if piece.required else "no"
        rows.append(f"| `search.{piece.name}` | {need} | {piece.kind}: {piece.doc} |")
    return "\n".join(rows)
