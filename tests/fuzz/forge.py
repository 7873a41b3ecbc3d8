"""Forged states: real records with one field set to a boundary or out-of-range value, or bits flipped.

Each forgery is serialized with a valid checksum, so only ``validate_state`` stands between it and
compiled code. ``try_forgery`` then expects one of two outcomes: the state is refused with a
``ValueError``, or it plays to its end with random legal moves (every seat observes the forged
state, the seat to act every later one, all within the declared observation bounds; the final
state valid again). Anything else is a defect: an exception of another type, a live state
with no legal action, a game that does not end, or a final state ``validate_state`` refuses.
"""

import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import numpy as np

import envs
from envs.engine.aec import _MAGIC, TabuleiroAECEnv
from tests.common import with_record

# config families the campaign covers: every registered game's default config (by its short name),
# plus the other configs worth forging from: family -> (game, config)
EXTRA_FAMILIES: dict[str, tuple[str, dict[str, Any]]] = {
    "capivari-long": ("capivari_v0", {"max_rounds": 64, "wins_needed": 5}),
    "horizonte-3": ("horizonte_v0", {"num_players": 3}),
    "horizonte-5": ("horizonte_v0", {"num_players": 5}),
    "horizonte-neblina": ("horizonte_v0", {"num_players": 4, "neblina": True}),
    "duel-cards": ("dorfromantik_duel_v0", {"module_task_cards": True}),
    "duel-poi": ("dorfromantik_duel_v0", {"module_points_of_interest": True}),
    "duel-both": ("dorfromantik_duel_v0", {"module_task_cards": True, "module_points_of_interest": True}),
}
FAMILIES: dict[str, tuple[str, dict[str, Any]]] = {
    **{spec.short_name: (spec.name, {}) for spec in envs.specs()},
    **EXTRA_FAMILIES,
}
MAX_STEPS = 20_000  # more turns than any game can last


@dataclass
class Outcome:
    """What one forged state did: ``refused``, ``played``, or a defect kind with its detail."""

    kind: str  # refused | played | crash | dead_end | no_end | final_invalid | bad_observation
    detail: str = ""

    @property
    def defect(self) -> bool:
        return self.kind not in ("refused", "played")


def raw_env_of(family: str) -> TabuleiroAECEnv:
    game, config = FAMILIES[family]
    return envs.game_module(game).raw_env(**config)


def scenarios_of(family: str) -> list[dict]:
    """Documented positions for this family (tests/fuzz/scenarios/<game>.py: ``scenarios(config)``, if any)."""
    game, config = FAMILIES[family]
    try:
        module = import_module(f"tests.fuzz.scenarios.{envs.spec(game).short_name}")
    except ModuleNotFoundError:  # a game without documented positions: random play only
        return []
    return module.scenarios(dict(config))


# -- where forgeries start: reachable states --------------------------------------------------


def reachable_states(family: str, rng: np.random.Generator, count: int) -> Iterator[bytes]:
    """Serialized states from random play: fresh, mid-game at a random depth, finished, from scenarios."""
    env = raw_env_of(family)
    scenarios = scenarios_of(family)
    for i in range(count):
        seed = int(rng.integers(2**31))
        source = i % 4
        options = None
        if source == 3 and scenarios:
            options = {"scenario": scenarios[int(rng.integers(len(scenarios)))]}
        env.reset(seed=seed, options=options)
        depth = 0 if source == 0 else (MAX_STEPS if source == 2 else int(rng.integers(1, 200)))
        for _ in range(depth):
            if not env.agents or all(env.terminations.values()):
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(legal.size)]))
        yield env.serialize()


# -- forging ----------------------------------------------------------------------------------


def _leaves(dtype: np.dtype, prefix: str = "", offset: int = 0) -> Iterator[tuple[str, np.dtype, int, tuple]]:
    """Every scalar-typed field of a (nested) record dtype: name, base dtype, byte offset, shape."""
    for name in dtype.names:
        sub, off = dtype.fields[name][:2]
        base, shape = sub.subdtype if sub.subdtype else (sub, ())
        if base.names:
            count = int(np.prod(shape)) if shape else 1
            for k in range(count):
                yield from _leaves(base, f"{prefix}{name}[{k}].", offset + off + k * base.itemsize)
        else:
            yield f"{prefix}{name}", base, offset + off, shape


def _candidates(base: np.dtype, current: Any, shape: tuple) -> list:
    """Values worth trying in a field: the type's limits, -1/0/1, neighbours, the array sizes around;
    never the value it holds (a no-op forgery would only count as played)."""
    if base.kind == "f":
        values = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1.0, 1e300, float(current) + 1.0]
        return [v for v in values if not (v == current)]
    if base.kind == "b":
        return [not bool(current)]
    info = np.iinfo(base)
    near = {info.min, info.max, -1, 0, 1, 2, int(current) - 1, int(current) + 1, int(current) * 2 + 7}
    for dim in shape:
        near |= {dim - 1, dim, dim + 1}
    return sorted(v for v in near if info.min <= v <= info.max and v != int(current))


def forge(raw: bytes, dtype: np.dtype, rng: np.random.Generator) -> tuple[bytes, str]:
    """One forgery of a record's bytes (1-3 random bit flips, or 1-3 fields set to a candidate value)
    and a description of what was changed."""
    buf = bytearray(raw)
    if rng.random() < 0.25:
        where = []
        for _ in range(int(rng.integers(1, 4))):
            bit = int(rng.integers(len(buf) * 8))
            buf[bit // 8] ^= 1 << (bit % 8)
            where.append(bit)
        return bytes(buf), f"bit flips at {where}"
    leaves = list(_leaves(dtype))
    changes = []
    for _ in range(1 if rng.random() < 0.6 else int(rng.integers(2, 4))):
        name, base, offset, shape = leaves[int(rng.integers(len(leaves)))]
        count = int(np.prod(shape)) if shape else 1
        k = int(rng.integers(count))
        view = np.ndarray((1,), dtype=base, buffer=buf, offset=offset + k * base.itemsize)
        choices = _candidates(base, view[0], shape)
        value = choices[int(rng.integers(len(choices)))]
        view[0] = value
        changes.append(f"{name}{'' if not shape else str(np.unravel_index(k, shape))} = {value}")
    return bytes(buf), "; ".join(changes)


def record_bytes(data: bytes) -> bytes:
    n = int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 4], "little")
    return data[len(_MAGIC) + 4 + n :]


# -- judging ----------------------------------------------------------------------------------


def try_forgery(env: TabuleiroAECEnv, data: bytes, rng: np.random.Generator) -> Outcome:
    """Refused with ValueError, or played to a valid end with random legal moves; else a defect."""
    try:
        forged = env.deserialize_new(data)
    except ValueError:
        return Outcome("refused")
    except Exception:  # noqa: BLE001 - any other type is the defect we look for
        return Outcome("crash", "deserialize: " + traceback.format_exc(limit=3))
    try:
        return _play_out(forged, rng)
    except Exception:  # noqa: BLE001
        return Outcome("crash", traceback.format_exc(limit=4))


def _play_out(env: TabuleiroAECEnv, rng: np.random.Generator) -> Outcome:
    """Every seat observes the forged state (and, one time in eight, renders it); then random play."""
    game = env.game
    lo, hi = game.obs_bounds()
    for agent in env.agents:
        if _out_of_bounds(env.observe(agent)["observation"], lo, hi):
            return Outcome("bad_observation", f"{agent}'s observation leaves [{lo}, {hi}]")
    if rng.random() < 0.125:
        for seat in range(game.num_players):
            game.render_ansi(env._rec, seat)
    for _ in range(MAX_STEPS):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if _out_of_bounds(obs["observation"], lo, hi):
            return Outcome("bad_observation", f"{env.agent_selection}'s observation leaves [{lo}, {hi}]")
        legal = np.flatnonzero(obs["action_mask"])
        if legal.size == 0:
            return Outcome("dead_end", f"{env.agent_selection} to act with no legal action")
        env.step(int(legal[rng.integers(legal.size)]))
    else:
        return Outcome("no_end", f"still going after {MAX_STEPS} steps")
    try:
        game.validate_state(env._rec)
    except ValueError as exc:
        return Outcome("final_invalid", str(exc))
    return Outcome("played")


def _out_of_bounds(obs: np.ndarray, lo: float, hi: float) -> bool:
    return not (np.isfinite(obs).all() and obs.min() >= lo and obs.max() <= hi)


def campaign(family: str, states: int, seed: int, start_states: int = 50) -> Iterator[tuple[str, Outcome]]:
    """``states`` forgeries of ``start_states`` reachable states of a family, with their outcomes."""
    rng = np.random.default_rng(seed)
    env = raw_env_of(family)
    dtype = env.game.new_state().dtype
    starts = list(reachable_states(family, rng, start_states))
    for i in range(states):
        data = starts[i % len(starts)]
        raw, what = forge(record_bytes(data), dtype, rng)
        yield what, try_forgery(env, with_record(data, raw), rng)
