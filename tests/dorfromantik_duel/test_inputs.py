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
    """(kind, root) of an area on seat 0's board."""
    k = next(k for k in range(5) if rec["area_root"][0, k, 0] >= 0)
    return k, rec["area_root"][0, k, 0]


FIELD_GARBAGE = [
    ("cell_tile", lambda r: r["cell_tile"].__setitem__((0, 5), 200)),
    ("cell_tile", lambda r: r["cell_tile"].__setitem__((1, 0), 3)),
    ("cell_rot", lambda r: r["cell_rot"].__setitem__((0, r["order"][0, 0]), 9)),
    ("cell_edge", lambda r: r["cell_edge"].__setitem__((0, r["order"][0, 0], 0), 7)),
    ("area_root", lambda r: r["area_root"].__setitem__((0, 1, 0), 100)),
    ("cell_index", lambda r: r["cell_index"].__setitem__((0, r["order"][0, 0]), 90)),
    ("frontier", lambda r: r["frontier"].__setitem__((0, 0), 20000)),
    ("n_frontier", lambda r: r["n_frontier"].__setitem__(0, 300)),
    ("frontier_code", lambda r: r["frontier_code"].__setitem__((0, 0), r["frontier_code"][0, 0] ^ 1)),
    ("frontier_mask", lambda r: r["frontier_mask"].__setitem__((0, 0), 0)),
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


# -- set-ups the rules cannot continue from, and states no seat can act in ------------------------


@pytest.mark.parametrize(
    "scenario",
    [
        {"landscape": [], "tasks": []},
        # turn 3 and no open marker: a task tile is due, but 'tasks' is empty and so is 'landscape'
        {"landscape": [], "tasks": [], "turn": 3},
    ],
)
def test_a_scenario_whose_game_would_be_over_before_it_starts_is_refused(scenario):
    with pytest.raises(ValueError, match="scenario key 'landscape': no landscape tile is left to reveal"):
        reset(scenario)


def test_a_scenario_with_only_a_due_task_tile_left_is_a_live_game():
    env = reset({"landscape": [], "tasks": ["T00"], "turn": 3})
    assert env.agent_selection == "player_0" and env.last()[0]["action_mask"].sum() > 0
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert all(env.terminations.values()), "no tile left: the game ends, properly scored"
    env.game.validate_state(env._states[0])


def test_a_scenario_at_the_last_turn_the_key_allows_plays_past_it():
    env = reset({"turn": 1000, "landscape": ["L16", "L17"], "tasks": ["T00"]})
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        env.step(common.random_legal(env.action_mask(), rng))
    assert env.core_state.turn == 1003
    env.game.validate_state(env._states[0])
    with pytest.raises(ValueError, match="'turn' must be an int"):
        reset({"turn": 1001})


def module_2_at_a_choice():
    """Both seats complete a 4th task at once: both choose a point of interest (test_expansions.py)."""
    env = duel.raw_env(module_points_of_interest=True)
    pair = [["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]]
    scenario = {
        "boards": [pair, pair],
        "completed": [[["connection", 3], ["connection", 4], ["connection", 5]]] * 2,
        "landscape": ["L32", "L03", "L10"],
        "tasks": [],
        "turn": 4,
    }
    env.reset(seed=0, options={"scenario": scenario})
    for _ in range(2):
        env.step(env.action_from_name("place q=1 r=-1 rot=0"))
    assert env.details("player_0")["phase"] == "point of interest"
    return env


def _deserialized(env, corrupt):
    """``env``'s bytes with the record corrupted and the checksum recomputed, as an attacker would."""
    states = env._states.copy()
    corrupt(states[0])
    return env.deserialize_new(common.with_record(env.serialize(), states.tobytes()))


@pytest.mark.parametrize("phase", ["place", "point of interest"])
def test_a_forged_module_2_state_where_the_seat_to_act_does_not_decide_is_refused(phase):
    if phase == "place":
        env = duel.raw_env(module_points_of_interest=True)
        env.reset(seed=0)
    else:
        env = module_2_at_a_choice()
    env.game.validate_state(env._states[0])
    with pytest.raises(ValueError, match="'acts'"):
        _deserialized(env, lambda r: r["acts"].__setitem__(0, 0))


def _first_cell(r, p=0):
    return r["order"][p, 0]


def _empty_cell(r, p=0):
    return int(np.flatnonzero(r["cell_tile"][p] < 0)[0])


STRICT_GARBAGE = [
    ("rng", lambda r: r.__setitem__("rng", 0), "'rng'"),
    ("rewards nan", lambda r: r["rewards"].__setitem__(0, np.nan), "'rewards'"),
    ("rewards mid-game", lambda r: r["rewards"].__setitem__(1, 1.0), "'rewards'"),
    ("winner mid-game", lambda r: r.__setitem__("winner", 0), "'winner'"),
    ("info_version", lambda r: r.__setitem__("info_version", -3), "'info_version'"),
    ("stack twice", lambda r: r["land"].__setitem__(41, r["land"][40]), "twice"),
    ("unseen", lambda r: r["unseen"].__setitem__(int(r["tile"]), 1), "'unseen'"),
    ("used on a stack tile", lambda r: r["used"].__setitem__((1, r["land"][41]), 2), "'used'"),
    ("passed and placed", lambda r: r["used"].__setitem__((1, r["cell_tile"][0, _first_cell(r)]), 2), "'used'"),
    ("markers_pos", lambda r: r["markers_pos"].__setitem__(0, r["markers_pos"][0] - 1), "'markers_pos'"),
    ("marker value twice", lambda r: r["markers"].__setitem__((4, 1), r["markers"][4, 0]), "'markers'"),
    ("tile", lambda r: r.__setitem__("tile", r["land"][41]), "'tile'"),
    ("turn", lambda r: r.__setitem__("turn", 1500), "'turn'"),
    ("order past n_placed", lambda r: r["order"].__setitem__((0, r["n_placed"][0]), 5), "'order'"),
    ("area past n_placed", lambda r: r["area_root"].__setitem__((0, 2, r["n_placed"][0]), 0), "'area_root'"),
    ("cell_index on an empty cell", lambda r: r["cell_index"].__setitem__((0, _empty_cell(r)), 0), "'cell_index'"),
    ("frontier order", lambda r: r["frontier"][0, :2].__setitem__(slice(None), r["frontier"][0, 1::-1]), "'frontier'"),
    ("edge on an empty cell", lambda r: r["cell_edge"].__setitem__((0, _empty_cell(r), 0), 4), "'cell_edge'"),
    ("task_points", lambda r: r["task_points"].__setitem__((0, 3), r["task_points"][0, 3] + 1), "'task_points'"),
    ("tasks_done", lambda r: r["tasks_done"].__setitem__((1, 5), 9), "'tasks_done'"),
    (
        "tasks_cancelled",
        lambda r: r["tasks_cancelled"].__setitem__((1, 2), r["tasks_cancelled"][1, 2] + 1),
        "cancelled",
    ),
    ("total", lambda r: r["total"].__setitem__(0, r["total"][0] + 1), "'total'"),
    ("flag_points", lambda r: r["flag_points"].__setitem__((1, 0), 300), "'flag_points'"),
    ("module field without the module", lambda r: r["milestones"].__setitem__(0, 1), "module_points_of_interest"),
]


@pytest.mark.parametrize("field, corrupt, match", STRICT_GARBAGE, ids=[f for f, _, _ in STRICT_GARBAGE])
def test_every_field_is_checked_against_the_rest_of_the_record(field, corrupt, match):
    env = mid_game_state(steps=40)
    assert env.core_state.phase == 0 and env.core_state.current == 0
    states = env._states.copy()
    env.game.validate_state(states[0])
    corrupt(states[0])
    with pytest.raises(ValueError, match=match):
        env.game.validate_state(states[0])


def test_a_finished_game_is_checked_too():
    env = mid_game_state()
    rng = np.random.default_rng(1)
    while not all(env.terminations.values()):
        env.step(common.random_legal(env.action_mask(), rng))
    s = env._states[0]
    env.game.validate_state(s)
    for corrupt, match in [
        (lambda r: r.__setitem__("winner", (int(r["winner"]) + 1) % 3), "'winner'|'rewards'"),
        (lambda r: r["rewards"].__setitem__(slice(None), 0.5), "'rewards'"),
        (lambda r: r.__setitem__("land_pos", r["land_pos"] - 1), None),
        (lambda r: r.__setitem__("phase", 3), "'phase'|module_points_of_interest"),
        (lambda r: r["pending"].__setitem__(0, 0), "'pending'"),
        (lambda r: r["total"].__setitem__(1, r["total"][1] + 2), "'total'|'winner'|'rewards'"),
    ]:
        states = env._states.copy()
        corrupt(states[0])
        with pytest.raises(ValueError, match=match):
            env.game.validate_state(states[0])


MODULE_2_GARBAGE = [
    ("milestones", lambda r: r["milestones"].__setitem__(1, 2), "'milestones'"),
    ("poi_due", lambda r: r["poi_due"].__setitem__(0, 3), "'poi_due'"),
    ("poi none taken", lambda r: r["poi_taken"].__setitem__((0, 5), 1), "'poi_taken'"),
    ("special_gone", lambda r: r["special_gone"].__setitem__((1, 2), 1), "'special_gone'"),
    ("hearts_claimed", lambda r: r.__setitem__("hearts_claimed", 1), "'hearts_claimed'"),
    ("to_place", lambda r: r["to_place"].__setitem__(0, 70), "'to_place'"),
    ("last_cell", lambda r: r["last_cell"].__setitem__(0, r["order"][0, 0]), "'last_cell'"),
    ("ask_heart", lambda r: r["ask_heart"].__setitem__(1, 1), "'ask_heart'|'phase'"),
    ("ask_photo", lambda r: r["ask_photo"].__setitem__(0, 1), "'ask_photo'|'phase'"),
    ("hearts_left", lambda r: r["hearts_left"].__setitem__(0, 2), "'hearts"),
    ("cameras", lambda r: r["cameras"].__setitem__(1, 1), "'cell_camera'|'cameras'"),
    ("cameras_left", lambda r: r.__setitem__("cameras_left", 19), "'cameras_left'"),
    ("phase", lambda r: r.__setitem__("phase", 4), "'acts'|'phase'"),
    ("pending", lambda r: r["pending"].__setitem__(0, 5), "'pending'"),
]


@pytest.mark.parametrize("field, corrupt, match", MODULE_2_GARBAGE, ids=[f for f, _, _ in MODULE_2_GARBAGE])
def test_module_2_fields_are_checked_for_the_phase(field, corrupt, match):
    env = module_2_at_a_choice()
    states = env._states.copy()
    env.game.validate_state(states[0])
    corrupt(states[0])
    with pytest.raises(ValueError, match=match):
        env.game.validate_state(states[0])


def test_every_fuzz_scenario_is_a_valid_live_start():
    from tests.fuzz.forge import FAMILIES, raw_env_of, scenarios_of

    for family, (game, _) in FAMILIES.items():
        if game != "dorfromantik_duel_v0":
            continue
        env = raw_env_of(family)
        for scenario in scenarios_of(family):
            env.reset(seed=1, options={"scenario": scenario})
            env.game.validate_state(env._states[0])
            assert env.agent_selection == "player_0" and env.action_mask().any()
