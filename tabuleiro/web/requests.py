"""Checks on what a page sends: a bounded body, a JSON object, each field of the expected type and range.

Every failure is a ``BadRequest`` with a message for the person (HTTP 4xx); nothing is changed before the
whole request has passed.
"""

import dataclasses
import json
from typing import Any

import envs
from agents.arena import parse_agents
from agents.registry import check_spec, parse_spec
from envs.replay import MAX_SEATS

MAX_BODY_BYTES = 1024**2 + 4096  # an uploaded replay and a little more
MAX_SEED = 2**32 - 1
WEB_AGENTS_REFUSED = ("rllib",)  # loads pickled checkpoints: never on a page's word


class BadRequest(ValueError):
    """A request the server refuses; ``status`` is the HTTP code (4xx)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def parse_json(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):
        raise BadRequest("the body must be a JSON object (UTF-8)") from None
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


def field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    """``data[key]`` of type ``kind`` (bools are not ints); the default when missing, if there is one."""
    if key not in data:
        if default is ...:
            raise BadRequest(f"missing field {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise BadRequest(f"field {key!r} has the wrong type (bool)")
    if not isinstance(value, kind):
        raise BadRequest(f"field {key!r} has the wrong type ({type(value).__name__})")
    return value


def game_name(data: dict[str, Any]) -> str:
    """The registered name of the requested game."""
    name = field(data, "game", str)
    try:
        return envs.game_name(name)
    except ValueError as exc:
        raise BadRequest(str(exc), 404) from None


def config(data: dict[str, Any], game: str) -> dict[str, Any]:
    """The requested config knobs, each known to the game; values are checked by the game when the table is made."""
    values = field(data, "config", dict, {})
    known = [f.name for f in dataclasses.fields(envs.spec(game).game.config_cls)]
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise BadRequest(f"unknown config key(s) {unknown} for {game}; known: {known}")
    try:
        envs.make(game, **values)
    except (ValueError, TypeError) as exc:
        raise BadRequest(f"bad config: {exc}") from None
    return values


def seed(data: dict[str, Any]) -> int | None:
    """The requested seed (None: a fresh one)."""
    value = field(data, "seed", (int, type(None)), None)
    if value is not None and not 0 <= value <= MAX_SEED:
        raise BadRequest(f"seed must be 0..{MAX_SEED}, got {value}")
    return value


def agent_specs(data: dict[str, Any], key: str) -> list[str]:
    """Agent specs (a list of strings, or one string in the arena's syntax), each checked."""
    value = field(data, key, (list, str))
    try:
        specs = parse_agents(value) if isinstance(value, str) else list(value)
        if not specs or not all(isinstance(s, str) for s in specs) or len(specs) > MAX_SEATS:
            raise ValueError(f"{key} must list 1..{MAX_SEATS} agent specs")
        for spec in specs:
            check_spec(spec)
            if parse_spec(spec)[0] in WEB_AGENTS_REFUSED:
                raise ValueError(f"agent {parse_spec(spec)[0]!r} cannot be chosen from the browser")
    except ValueError as exc:
        raise BadRequest(f"{key}: {exc}") from None
    return specs


def fill_seats(specs: list[str], count: int, key: str) -> list[str]:
    """One spec per seat: the last one fills the rest; too many is an error."""
    if len(specs) > count:
        raise BadRequest(f"{key}: {len(specs)} agents do not fit {count} seat(s)")
    return specs + [specs[-1]] * (count - len(specs))


def ply(data: dict[str, Any]) -> int:
    """The ply a move was chosen at (the page's ``ply``)."""
    value = field(data, "ply", int)
    if value < 0:
        raise BadRequest(f"ply must be >= 0, got {value}")
    return value
