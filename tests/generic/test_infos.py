"""Every game's infos keep one shape: the same keys, types, dtypes and shapes at every step of a game, for
every seat, in the AEC and parallel envs of each config family, and nothing but numbers in them (libraries
such as TorchRL and Tianshou stack infos into tensors from the first ones they see). ``details(agent)``
holds the readable rest. Runs over ``envs.specs()``: a new game is covered without a line of its own.
"""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import envs
from tests.common import random_legal

SPECS = envs.specs()
IDS = [spec.short_name for spec in SPECS]
STEPS = 300
ROOT = Path(__file__).resolve().parents[2]


def config_families(spec: envs.GameSpec) -> list[dict]:
    """The quick config, and from it: the fewest and most seats, each bool knob flipped, each other choice,
    and every switch that is off turned on at once (modules together)."""
    base = dict(spec.quick_config)
    fields = {f.name: f for f in dataclasses.fields(spec.game.config_cls)}
    out = [base]
    off = [name for name, f in fields.items() if base.get(name, f.default) is False]
    if len(off) > 1:
        out.append(dict(base, **dict.fromkeys(off, True)))
    if "num_players" in fields:
        out += [dict(base, num_players=n) for n in sorted(set(spec.seats))]
    for name, f in fields.items():
        default = base.get(name, f.default)
        if isinstance(f.default, bool):
            out.append(dict(base, **{name: not default}))
        for choice in f.metadata.get("choices", ()):
            if choice != default:
                out.append(dict(base, **{name: choice}))
    return out


CASES = [(spec, cfg) for spec in SPECS for cfg in config_families(spec)]
CASE_IDS = [f"{spec.short_name}-{'-'.join(f'{k}={v}' for k, v in cfg.items()) or 'quick'}" for spec, cfg in CASES]


def signature(info: dict) -> dict:
    """Each key's (type, dtype, shape); fails on anything but a Python bool/int/float or a numeric array."""
    out = {}
    for key, value in info.items():
        if isinstance(value, np.ndarray):
            assert value.dtype.kind in "biuf", f"infos[{key!r}] has dtype {value.dtype}"
            out[key] = ("array", value.dtype.str, value.shape)
        else:
            assert type(value) in (bool, int, float), f"infos[{key!r}] is a {type(value).__name__}: {value!r}"
            out[key] = (type(value).__name__,)
    return out


class Checker:
    """Holds the first signature seen and compares every later one with it."""

    def __init__(self) -> None:
        self.first: dict | None = None
        self.seen = 0

    def __call__(self, infos: dict[str, dict]) -> None:
        for agent, info in infos.items():
            sig = signature(info)
            if self.first is None:
                self.first = sig
                assert info["illegal_move"] is False
            assert sig == self.first, f"{agent}'s infos changed shape: {sig} != {self.first}"
            self.seen += 1


def _make(spec: envs.GameSpec, cfg: dict, parallel: bool):
    entry = envs.game_module(spec.name)
    try:
        return entry.parallel_env(**cfg) if parallel else entry.env(**cfg)
    except ValueError as exc:  # a knob that needs another (none of today's families): say which
        pytest.skip(f"config {cfg} is not valid on its own: {exc}")


@pytest.mark.parametrize("spec, cfg", CASES, ids=CASE_IDS)
def test_aec_infos_keep_one_shape(spec, cfg):
    env = _make(spec, cfg, parallel=False)
    check = Checker()
    rng = np.random.default_rng(0)
    seed, steps = 0, 0
    env.reset(seed=seed)
    check(env.infos)
    while steps < STEPS:
        obs, _, term, trunc, info = env.last()
        check({env.agent_selection: info})
        if term or trunc:
            env.step(None)
            if not env.agents:
                assert all(isinstance(env.details(a), dict) for a in env.possible_agents)
                seed += 1
                env.reset(seed=seed)
                check(env.infos)
            continue
        env.step(random_legal(obs["action_mask"], rng))
        check(env.infos)
        steps += 1
    assert all(isinstance(env.details(a), dict) for a in env.possible_agents)
    # an illegal move ends the game with the same keys, the flag set for the offender only
    env.reset(seed=seed + 1)
    offender = env.agent_selection
    illegal = np.flatnonzero(env.action_mask() == 0)
    if illegal.size:
        env.step(int(illegal[0]))
        check(env.infos)
        assert [a for a, i in env.infos.items() if i["illegal_move"]] == [offender]
        assert env.details(offender)["illegal_move"] is True


@pytest.mark.parametrize(
    "spec, cfg",
    [c for c in CASES if c[0].parallel],
    ids=[i for c, i in zip(CASES, CASE_IDS, strict=True) if c[0].parallel],
)
def test_parallel_infos_keep_one_shape(spec, cfg):
    env = _make(spec, cfg, parallel=True)
    check = Checker()
    rng = np.random.default_rng(1)
    seed = 0
    obs, infos = env.reset(seed=seed)
    check(infos)
    for _ in range(STEPS):
        # a seat with nothing to decide this step (an all-zero mask) still sends an action: ignored
        actions = {a: random_legal(m, rng) if (m := obs[a]["action_mask"]).any() else 0 for a in env.agents}
        obs, _, _, _, infos = env.step(actions)
        check(infos)
        if not env.agents:
            assert all(isinstance(env.details(a), dict) for a in env.possible_agents)
            seed += 1
            obs, infos = env.reset(seed=seed)
            check(infos)
    assert check.seen > STEPS


def test_the_families_cover_the_seat_counts_and_switches():
    horizonte = [cfg for spec, cfg in CASES if spec.short_name == "horizonte"]
    assert {cfg.get("num_players") for cfg in horizonte} >= {3, 5}
    assert any(cfg.get("reward") == "points" for cfg in horizonte)
    duel = [cfg for spec, cfg in CASES if spec.short_name == "dorfromantik_duel"]
    assert any(cfg.get("module_points_of_interest") and cfg.get("module_task_cards") for cfg in duel)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_the_rules_document_lists_every_infos_key(spec):
    env = envs.game_module(spec.name).env(**spec.quick_config)
    env.reset(seed=0)
    text = (ROOT / spec.rules).read_text()
    missing = [key for key in env.infos[env.agent_selection] if f"| `{key}` |" not in text]
    assert not missing, f"{spec.rules} has no row for infos key(s) {missing} in its infos table"
