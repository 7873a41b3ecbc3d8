"""Replays: one game as a small JSON file, and its exact re-simulation.

A replay holds what is needed to play the game again move for move (game, config,
seed, actions by name) and what to check it against (returns, final scores), plus
who played and which build recorded it. It is the bug-report format: a replay from
another rules version, or one with an unknown or illegal action, fails with a
message naming the problem (and the step).
"""

import dataclasses
import importlib.metadata
import json
import math
import reprlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import envs
from envs.engine.config import config_json
from envs.files import write_atomic

FORMAT = "tabuleiro-replay/1"
_TOLERANCE = 1e-9
# bounds on a replay file: far above any real game, low enough that a forged file cannot exhaust memory
MAX_FILE_BYTES = 64 * 1024**2
MAX_ACTIONS = 1_000_000
MAX_SEATS = 16
MAX_TEXT = 1000  # characters in one string field (game, versions, an agent spec, an action name)
MAX_CONFIG_LIST = 1000  # items in one list-valued config knob


def _version() -> str:
    """The installed tabuleiro distribution's version (what recorded the replay)."""
    try:
        return importlib.metadata.version("tabuleiro")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class Replay:
    """One recorded game (see the module docstring)."""

    game: str
    config: dict[str, Any]
    seed: int
    actions: list[str]
    agents: list[str]
    returns: list[float]
    scores: list[float] | None
    rules_version: str
    tabuleiro_version: str
    format: str = FORMAT

    def to_json(self) -> str:
        """The replay as JSON text: one top-level key per line, so a diff shows what changed."""
        d = dataclasses.asdict(self)
        body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in d.items())
        return "{\n" + body + "\n}\n"


@dataclass
class Step:
    """One move of a re-simulation: 1-based index, the seat that moved, the action's name, the env after it.

    Index 0 is the start (seat -1, no action)."""

    index: int
    seat: int
    action: str
    env: Any


def record(game: Any, result: Any, agents: list[str]) -> Replay:
    """A replay of a finished game: ``game`` (env.game), ``result`` from ``agents.match.play_game``
    with ``record_actions=True``, and the agent spec of each seat."""
    n = game.num_players
    if len(agents) != n or len(result.returns) != n:
        raise ValueError(f"{game.name} has {n} seats: got {len(agents)} agents and {len(result.returns)} returns")
    if result.steps and not result.actions:
        raise ValueError("the game was played without record_actions=True: no actions to save")
    return Replay(
        game=game.name,
        config=config_json(game.config),
        seed=int(result.seed),
        actions=[game.action_name(int(a)) for a in result.actions],
        agents=[str(a) for a in agents],
        returns=[float(r) for r in result.returns],
        scores=list(result.scores),
        rules_version=game.rules_version,
        tabuleiro_version=_version(),
    )


def save(replay: Replay, path: str | Path) -> Path:
    """Write a replay file (folders created as needed) through a temporary file renamed into place: a kill
    or a full disk leaves the old file or the new one, never part of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, replay.to_json())


def load(path: str | Path) -> Replay:
    """Read a replay file; ValueError saying what is wrong with a malformed one."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read replay {str(path)!r}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"replay {str(path)!r} is larger than {MAX_FILE_BYTES // 1024**2} MB: not a replay")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"replay {str(path)!r} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"replay {str(path)!r} is not valid JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"replay {str(path)!r} is not a replay: its JSON is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ValueError(f"replay {str(path)!r} is not valid JSON: {exc}") from None
    try:
        return from_dict(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,),
    "config": (dict,),
    "seed": (int,),
    "actions": (list,),
    "agents": (list,),
    "returns": (list,),
    "scores": (list, type(None)),
    "rules_version": (str,),
    "tabuleiro_version": (str,),
    "format": (str,),
}


def _finite(v: Any) -> bool:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float
        return False


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, str)) or _finite(v)


def from_dict(data: Any) -> Replay:
    """A Replay from parsed JSON, every field's type and range checked (seat-dependent checks are in
    ``make_env``); ValueError naming the field."""
    if not isinstance(data, dict):
        raise ValueError("a replay must be a JSON object")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a tabuleiro replay (format {data.get('format')!r}, expected {FORMAT!r})")
    missing = sorted(set(_TYPES) - set(data))
    if missing:
        raise ValueError(f"replay lacks field(s) {missing}")
    unknown = sorted(set(data) - set(_TYPES))
    if unknown:
        raise ValueError(f"replay has unknown field(s) {unknown}")
    for key, types in _TYPES.items():
        value = data[key]
        if not isinstance(value, types) or isinstance(value, bool):
            raise ValueError(f"replay field {key!r} has the wrong type ({type(value).__name__})")
    for key in ("game", "rules_version", "tabuleiro_version"):
        if not data[key] or len(data[key]) > MAX_TEXT:
            raise ValueError(f"replay field {key!r} must be a non-empty string of at most {MAX_TEXT} characters")
    if not 0 <= data["seed"] < 2**64:
        raise ValueError(f"replay field 'seed' must be in 0..2**64-1, got {data['seed']}")
    if not all(isinstance(a, str) and 0 < len(a) <= MAX_TEXT for a in data["actions"]):
        raise ValueError("replay field 'actions' must list action names (strings)")
    if len(data["actions"]) > MAX_ACTIONS:
        raise ValueError(f"replay field 'actions' has {len(data['actions'])} actions, more than {MAX_ACTIONS:,}")
    if not all(isinstance(a, str) and 0 < len(a) <= MAX_TEXT for a in data["agents"]):
        raise ValueError("replay field 'agents' must list agent specs (non-empty strings)")
    seats = len(data["agents"])
    if not 1 <= seats <= MAX_SEATS:
        raise ValueError(f"replay field 'agents' must name 1..{MAX_SEATS} seats, got {seats}")
    for key in ("returns", "scores"):
        values = data[key]
        if values is None:
            continue
        bad = next((i for i, v in enumerate(values) if not _finite(v)), None)
        if bad is not None:
            raise ValueError(
                f"replay field {key!r} must list finite numbers (no NaN or infinity): "
                f"item {bad} is {reprlib.repr(values[bad])}"
            )
        if len(values) != seats:
            raise ValueError(f"replay field {key!r} has {len(values)} values for {seats} seats")
    for key, value in data["config"].items():
        flat_list = isinstance(value, list) and len(value) <= MAX_CONFIG_LIST and all(_scalar(v) for v in value)
        if not (isinstance(key, str) and (_scalar(value) or flat_list)):
            raise ValueError(f"replay field 'config': {key!r} must be a number, string, bool, null or a flat list")
    return Replay(**data)


def make_env(replay: Replay, render_mode: str | None = "ansi") -> Any:
    """The strict env the replay was recorded in; ValueError for an unknown game, bad config or other rules."""

    try:
        name = envs.game_name(replay.game)
    except ValueError as exc:
        raise ValueError(f"replay field 'game': {exc}") from None
    known = sorted(f.name for f in dataclasses.fields(envs.make(name).game.config_cls))
    unknown = sorted(set(replay.config) - set(known))
    if unknown:
        raise ValueError(f"replay field 'config' has unknown key(s) {unknown}; {name} knows {known}")
    try:
        env = envs.game_module(name).raw_env(render_mode=render_mode, **replay.config)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"replay field 'config': {exc}") from None
    built = env.game.rules_version
    if replay.rules_version != built:
        raise ValueError(
            f"this replay was recorded with {name} rules version {replay.rules_version!r} "
            f"(tabuleiro {replay.tabuleiro_version}); this build implements {built!r}, so its moves "
            f"cannot be re-simulated here: replay it with the tabuleiro version that recorded it"
        )
    if len(replay.agents) != len(env.possible_agents):
        raise ValueError(f"replay names {len(replay.agents)} agents for {len(env.possible_agents)} seats")
    return env


def steps(replay: Replay, env: Any) -> Iterator[Step]:
    """Reset ``env`` to the replay's seed (yielding step 0, the start), then play its actions one by one.

    An unknown action name, an illegal action, or actions after the game ended raise a
    ValueError naming the step (1-based) and the seat.
    """
    env.reset(seed=replay.seed)
    yield Step(0, -1, "", env)
    game = env.game
    total = len(replay.actions)
    for i, name in enumerate(replay.actions, start=1):
        if all(env.terminations.values()):
            raise ValueError(f"step {i}: the game is already over, yet the replay has {total - i + 1} more action(s)")
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        try:
            a = game.action_from_name(name)
        except ValueError as exc:
            raise ValueError(f"step {i} ({agent}): {exc}") from None  # names the action and how names look
        legal = env.legal_actions()
        if a not in legal:
            shown = [game.action_name(x) for x in legal[:12]]
            more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
            raise ValueError(f"step {i} ({agent}): {name!r} is not legal here; legal: {shown}{more}")
        env.step(a)
        yield Step(i, seat, name, env)


def check_outcome(replay: Replay, env: Any, returns: list[float]) -> None:
    """ValueError unless the re-simulated game is over with the replay's returns and scores."""
    if not all(env.terminations.values()):
        raise ValueError(f"the replay ends after {len(replay.actions)} actions, but the game is not over")
    close = all(abs(a - b) <= _TOLERANCE for a, b in zip(returns, replay.returns, strict=False))  # NaN: False
    if len(returns) != len(replay.returns) or not close:
        raise ValueError(f"re-simulation gives returns {returns}, the replay says {replay.returns}")
    scores = [float(x) for x in env.game.final_scores(env.core_state)]
    if replay.scores is not None and scores != replay.scores:
        raise ValueError(f"re-simulation gives final scores {scores}, the replay says {replay.scores}")


def verify(replay: Replay) -> list[float]:
    """Re-simulate the whole replay and check its outcome; the returns (ValueError on any mismatch)."""
    env = make_env(replay, render_mode=None)
    returns = [0.0] * len(env.possible_agents)
    for step in steps(replay, env):
        if step.index:
            add_rewards(returns, step.env)
    check_outcome(replay, env, returns)
    return returns


def add_rewards(returns: list[float], env: Any) -> None:
    """Add the rewards of the step just taken to ``returns`` (per seat)."""
    for seat, agent in enumerate(env.possible_agents):
        returns[seat] += float(env.rewards.get(agent, 0.0))
