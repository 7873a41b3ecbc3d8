"""Validated, frozen game configurations.

Each game declares a frozen dataclass whose fields carry their allowed values in
``metadata`` (``range=(lo, hi)`` inclusive, or ``choices=(...)``). ``build_config``
turns user keyword arguments into one, and a bad key, type or value raises a
ValueError that names the key and what is allowed: never a numba crash later.
"""

import dataclasses
import json
from typing import Any, TypeVar

import numpy as np

C = TypeVar("C")


def knob(
    default: Any,
    *,
    range: tuple | None = None,
    choices: tuple | None = None,
    doc: str = "",
    observation: bool = False,
) -> Any:
    """A config field with its allowed values, for use inside a game's Config dataclass. ``observation``: an
    option of the observation only, which the rules never read; the state record holds it in a field of the
    knob's name (``envs.engine.observer`` observes a table's state with another value of it)."""
    meta: dict[str, Any] = {"doc": doc}
    if observation:
        meta["observation"] = True
    if range is not None:
        meta["range"] = range
    if choices is not None:
        meta["choices"] = choices
    if isinstance(default, (list, dict, set)):
        raise TypeError("config defaults must be immutable (use a tuple)")
    return dataclasses.field(default=default, metadata=meta)


def _check_type(name: str, value: Any, default: Any) -> Any:
    expected = type(default)
    if expected is bool:
        if not isinstance(value, bool):
            raise ValueError(f"config {name!r} must be a bool, got {value!r}")
        return value
    if expected is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, np.integer) and not isinstance(value, np.bool_):
                return int(value)
            raise ValueError(f"config {name!r} must be an int, got {value!r}")
        return value
    if expected is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"config {name!r} must be a number, got {value!r}")
        return float(value)
    if expected is str:
        if not isinstance(value, str):
            raise ValueError(f"config {name!r} must be a string, got {value!r}")
        return value
    if expected is tuple or default is None:
        if isinstance(value, list):
            value = tuple(value)
        if value is not None and not isinstance(value, tuple):
            raise ValueError(f"config {name!r} must be a list/tuple or None, got {value!r}")
        return value
    return value


def validate_config(cfg: Any) -> None:
    """Check every field of a config dataclass against its declared type and allowed values."""
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        value = _check_type(f.name, value, f.default)
        object.__setattr__(cfg, f.name, value)
        if "range" in f.metadata:
            lo, hi = f.metadata["range"]
            if not lo <= value <= hi:
                raise ValueError(f"config {f.name!r} must be in [{lo}, {hi}], got {value!r}")
        if "choices" in f.metadata and value not in f.metadata["choices"]:
            allowed = ", ".join(repr(c) for c in f.metadata["choices"])
            raise ValueError(f"config {f.name!r} must be one of {allowed}, got {value!r}")


def build_config(cls: type[C], kwargs: dict[str, Any]) -> C:
    """Make a validated config from keyword arguments; unknown keys are an error, not ignored."""
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(kwargs) - set(names))
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown} for {cls.__name__}; known keys: {names}")
    return cls(**kwargs)


def describe_config(cls: type) -> list[tuple[str, Any, str]]:
    """(name, default, allowed values and doc) for each knob: for `tabuleiro games` and docs."""
    rows = []
    for f in dataclasses.fields(cls):
        allowed = ""
        if "range" in f.metadata:
            allowed = f"{f.metadata['range'][0]}..{f.metadata['range'][1]}"
        elif "choices" in f.metadata:
            allowed = "|".join(str(c) for c in f.metadata["choices"])
        doc = f.metadata.get("doc", "")
        rows.append((f.name, f.default, f"{allowed} {doc}".strip()))
    return rows


def observation_knobs(cfg: Any) -> tuple[str, ...]:
    """The names of a config's (or config class's) observation options (``knob(..., observation=True)``)."""
    return tuple(f.name for f in dataclasses.fields(cfg) if f.metadata.get("observation", False))


def config_json(cfg: Any) -> dict[str, Any]:
    """A config's fields as JSON values (tuples as lists): what files store and compare it as."""
    return json.loads(json.dumps(dataclasses.asdict(cfg)))


def key_value(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (``--config``, ``--set``): VALUE read as JSON (``true``, ``3``, ``5e-4``, ``[128,128]``),
    else kept as the string it is (``action_prior=placement_prior``)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise ValueError(f"expected KEY=VALUE with KEY a name, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value
    except RecursionError:
        raise ValueError(f"{key}: the value nests too deeply to be a setting") from None


def key_values(pairs: list[tuple[str, Any]] | None, option: str) -> dict[str, Any]:
    """The ``key_value`` pairs of a repeatable option as a dict; a key given twice is refused."""
    out: dict[str, Any] = {}
    for key, value in pairs or []:
        if key in out:
            raise ValueError(f"{option} {key} given twice ({out[key]!r} and {value!r})")
        out[key] = value
    return out
