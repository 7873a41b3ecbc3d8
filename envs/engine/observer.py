"""A table's state seen with another config's observation options: an agent trained with observation knobs
(``knob(..., observation=True)``: pieces the rules never read) plays at a table whose config differs from its
own in those knobs only, observing each state as its own config would."""

import dataclasses
from typing import Any

import numpy as np

from envs.engine.config import config_json, observation_knobs


def rules_config(game: Any) -> dict[str, Any]:
    """An engine ``Game``'s config as JSON values without its observation options: what its rules read."""
    hidden = set(observation_knobs(game.config))
    return {k: v for k, v in config_json(game.config).items() if k not in hidden}


def same_rules(a: Any, b: Any) -> bool:
    """Whether two engine ``Game`` s are one game under one set of rules (their configs may differ in observation
    options)."""
    return type(a) is type(b) and rules_config(a) == rules_config(b)


def with_observation(game: Any, config: dict[str, Any]) -> Any:
    """``game`` (an engine ``Game``) with the observation options ``config`` sets (its other keys ignored): the
    same rules, observed as a policy trained with ``config`` was; ``game`` itself if they are its own."""
    options = {k: v for k, v in config.items() if k in observation_knobs(game.config)}
    changed = dataclasses.replace(game.config, **options)
    return game if changed == game.config else type(game)(changed)


class Observer:
    """Observes a table's states (records of ``table``'s game) as ``game`` (same rules, its own observation
    options) would: each record copied, its observation fields set to ``game``'s, then ``game``'s ``observe_fn``."""

    def __init__(self, game: Any, table: Any) -> None:
        if not same_rules(game, table):
            raise ValueError(
                f"{game.name} with config {config_json(game.config)} cannot observe a table of {table.name} with "
                f"config {config_json(table.config)}: they differ in more than observation options "
                f"({list(observation_knobs(game.config))})"
            )
        if game.new_state().dtype != table.new_state().dtype or game.num_actions != table.num_actions:
            raise ValueError(f"{game.name}: its observation options change its state record or actions")
        self.game = game
        self.table = table
        self._fields = [(name, getattr(game.config, name)) for name in observation_knobs(game.config)]
        self._copy = game.new_state()

    def record(self, state: Any) -> np.ndarray:
        """A one-record copy of a table ``state`` with ``game``'s observation options (the observer's own
        buffer: valid until the next call)."""
        copy = self._copy
        copy[0] = state
        for name, value in self._fields:
            copy[0][name] = value
        return copy

    def byte_patch(self) -> np.ndarray:
        """``(byte, value)`` rows (int64): the bytes of a table's record that ``record`` sets, so compiled code can
        observe a table's record in place as ``game`` (``training.opponent_loop.observe_patched``)."""
        dtype = self._copy.dtype
        rows = []
        for name, value in self._fields:
            field, offset = dtype.fields[name][:2]
            rows += [(offset + k, b) for k, b in enumerate(np.array(value, field).tobytes())]
        return np.array(rows, np.int64).reshape(-1, 2)

    def observe(self, state: Any, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(observation, mask)`` of ``seat`` at a table ``state``, as ``game`` observes it (fresh arrays)."""
        return self.game.observe_fn(self.record(state)[0], seat)
