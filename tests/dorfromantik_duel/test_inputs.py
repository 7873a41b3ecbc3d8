"""Garbage at every entry point (scenarios, state records, bytes) is a clear ValueError, never a crash."""

import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.scenario import tile_id
from tests import common

GOOD = [["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]]


def reset(scenario):
    env = duel.raw_env()
    env.reset(seed=0, options={"scenario": scenario})
    return env


@pytest.mark.parametrize(
    "scenario, match",
    [
        ({"colour": 1}, "unknown Dorfromantik scenario key"),
        ({"boards": [GOOD]}, "list of two lists"),
        ({"boards": [[["X99", 0, 0, 0]], []]}, "unknown tile"),
        ({"boards": [[["L17", 0, 0]], []]}, r"\[tile, q, r, rot\]"),
        ({"boards": [[["L17", 0, 0, 0], ["L17", 1, 0, 0]], []]}, "twice"),
        ({"boards": [[["L17", 0, 0, 0], ["L03", 0, 0, 1]], []]}, "same cell"),
        ({"boards": [[["L17", 18, 0, 0]], []]}, "q must be an int"),
        ({"boards": [[["L17", 10, 10, 0]], []]}, "off a board"),
        ({"boards": [[["L17", 0, 0, 6]], []]}, "rot must be an int"),
        ({"boards": [[["L17", 0, 0, True]], []]}, "rot must be an int"),
        ({"boards": [[["L17", 0, 0, 0], ["L03", 2, 0, 0]], []]}, "not one connected group"),
        ({"boards": [[["L00", 0, 0, 0], ["L03", -1, 0, 0]], []]}, "track or stream edge"),
        ({"boards": [[["L17", 0, 0, 0, 3]], []]}, "landscape tile"),
        ({"boards": [[["T24", 0, 0, 0, 5]], []]}, "cannot have value 5"),
        ({"boards": [[["T00", 0, 0, 0, 3], ["T01", 1, 0, 0, 3]], []]}, "more forest markers"),
        ({"boards": [GOOD, []], "landscape": ["L17"]}, "already on a board"),
        ({"landscape": ["L03", "L03"]}, "already on a board or earlier"),
        ({"landscape": ["T03"]}, "not a landscape tile"),
        ({"tasks": ["L03"]}, "not a task tile"),
        ({"tasks": "T03"}, "list of tile names"),
        ({"tasks": ["T00", "T01"], "markers": {"forest": [3]}}, "only 1 forest marker"),
        ({"markers": {"forest": [3, 3]}}, "a value twice"),
        ({"markers": {"double": [5]}}, "values must be in"),
        ({"markers": {"fire": [3]}}, "must map task types"),
        ({"boards": [GOOD, []], "markers": {"forest": [3]}}, "already on a board"),
        ({"completed": [[["forest", 7]], []]}, "value must be an int"),
        ({"completed": [[["fire", 3]], []]}, "task type, value"),
        ({"turn": -1}, "'turn' must be an int"),
        ({"boards": [[["L17", 0, 0, 0], ["T03", 1, 0, 0, 2]], []]}, "marker must be an int"),
        (
            {"boards": [[["T03", 0, 0, 0, 4], ["L19", -1, 0, 0], ["L03", 0, -1, 0]], []]},
            "already completed or cancelled",
        ),
    ],
)
def test_bad_scenarios_name_the_problem(scenario, match):
    with pytest.raises(ValueError, match=match):
        reset(scenario)


def test_scenario_defaults_keep_every_tile_and_marker_once():
    env = reset({"boards": [GOOD, [["L17", 0, 0, 0]]], "turn": 2})
    s = env.core_state
    stack = s.land[: s.land_len].tolist() + s.task[: s.task_n].tolist()
    assert sorted(stack + [tile_id("L17"), tile_id("T03")]) == list(range(69)), "board tiles are out of the stacks"
    assert s.land_n == s.land_len - 3, "three landscape tiles are boxed"
    assert sorted(s.markers[0, : s.markers_n[0]].tolist()) == [4, 5, 6], "the forest 3 is on a board"


def mid_game_state(seed=3, steps=41):
    env = duel.raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(common.random_legal(env.action_mask(), rng))
    return env


def _some_area(rec):
    """(kind, label) of an area on seat 0's board."""
    c = rec["order"][0, 0]
    k = next(k for k in range(5) if rec["label"][0, k, c] >= 0)
    return k, rec["label"][0, k, c]


FIELD_GARBAGE = [
    ("cell_tile", lambda r: r["cell_tile"].__setitem__((0, 5), 200)),
    ("cell_tile", lambda r: r["cell_tile"].__setitem__((1, 0), 3)),
    ("cell_rot", lambda r: r["cell_rot"].__setitem__((0, r["order"][0, 0]), 9)),
    ("cell_edge", lambda r: r["cell_edge"].__setitem__((0, r["order"][0, 0], 0), 7)),
    ("label", lambda r: r["label"].__setitem__((0, 1, r["order"][0, 0]), 30000)),
    ("area_size", lambda r: r["area_size"].__setitem__((0, *_some_area(r)), 99)),
    ("area_open", lambda r: r["area_open"].__setitem__((0, *_some_area(r)), 77)),
    ("order", lambda r: r["order"].__setitem__((0, 0), -7)),
    ("n_placed", lambda r: r["n_placed"].__setitem__(0, 70)),
    ("land", lambda r: r["land"].__setitem__(41, 100)),
    ("land_pos", lambda r: r.__setitem__("land_pos", 50)),
    ("task", lambda r: r["task"].__setitem__(26, 3)),
    ("markers", lambda r: r["markers"].__setitem__((6, 2), 5)),
    ("markers_pos", lambda r: r["markers_pos"].__setitem__(2, 5)),
    ("tile", lambda r: r.__setitem__("tile", 300)),
    ("mk_type", lambda r: r.__setitem__("mk_type", 9)),
    ("pending", lambda r: r["pending"].__setitem__(1, 4)),
    ("open_markers", lambda r: r["open_markers"].__setitem__(0, 40)),
    ("cell_mk_state", lambda r: r["cell_mk_state"].__setitem__((0, 0), 1)),
    ("extent", lambda r: r["extent"].__setitem__(1, 30)),
    ("used", lambda r: r["used"].__setitem__((0, r["land"][41]), 1)),
    ("radius", lambda r: r.__setitem__("radius", 30)),
]


@pytest.mark.parametrize("field, corrupt", FIELD_GARBAGE, ids=[f for f, _ in FIELD_GARBAGE])
def test_state_checks_reject_corrupted_fields(field, corrupt):
    env = mid_game_state()
    game = env.game
    states = env._states.copy()
    game.validate_state(states[0])  # the untouched state passes
    corrupt(states[0])
    with pytest.raises(ValueError):
        game.validate_state(states[0])


def test_state_checks_reject_a_pending_choice_seat_0_could_not_make():
    env = mid_game_state(steps=40)
    env.step(env.legal_actions()[0])
    states = env._states.copy()
    env.game.validate_state(states[0])
    states[0]["pending"][0] = env.game.num_actions - 2  # a corner cell, never legal
    with pytest.raises(ValueError, match="pending"):
        env.game.validate_state(states[0])


def test_states_from_random_play_pass_the_checks():
    for seed in range(6):
        env = duel.raw_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not all(env.terminations.values()):
            env.game.validate_state(env._states[0])
            env.step(common.random_legal(env.action_mask(), rng))
        env.game.validate_state(env._states[0])
