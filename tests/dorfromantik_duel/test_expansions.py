"""The Duel's Module 1 (task cards) and Module 2 (points of interest), sentence by sentence from
the rules document and the manual (pages 9-10), through scenarios and action names."""

import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.observation import layout, obs_size
from envs.dorfromantik_duel.rules import CARD_KINDS, DEFAULT_RADIUS, cell_of
from envs.engine import IllegalActionError

RADIUS = DEFAULT_RADIUS
ALL_POI = {"poi school", "poi barn", "poi oak", "poi photographer", "poi hearts", "poi none"}


def table(boards, task_cards=False, poi=False, **scenario):
    """A strict env with the modules asked for, set up with a scenario (``boards``: one per seat)."""
    scenario["boards"] = boards
    scenario.setdefault("turn", 4)
    scenario.setdefault("tasks", [])
    env = duel.raw_env(module_task_cards=task_cards, module_points_of_interest=poi, render_mode="ansi")
    env.reset(seed=0, options={"scenario": scenario})
    return env


def act(env, *names):
    """The named actions in turn, each by whoever is to act."""
    for name in names:
        env.step(env.action_from_name(name))


def legal(env, agent=None):
    return {env.action_name(a) for a in env.legal_actions(agent)}


def modules(env, p):
    return env.details(f"player_{p}")["modules"]


def pad(env, p):
    return env.details(f"player_{p}")["score"]


def phase(env):
    return env.details("player_0").get("phase")


# -- Module 1: task cards --------------------------------------------------------------------


def test_setup_reveals_one_card_per_landscape_at_random_and_both_seats_see_them():
    seen = {k: set() for k in ("forest", "grain", "village")}
    for seed in range(30):
        env = duel.raw_env(module_task_cards=True)
        env.reset(seed=seed)
        cards = modules(env, 0)["task cards"]
        assert set(cards) == {"forest", "grain", "village"}
        for land, card in cards.items():
            seen[land].add(card["card"])
        base = layout(RADIUS, True).offset("task_cards")
        mine, theirs = (env.observe(a)["observation"][base : base + 9] for a in ("player_0", "player_1"))
        assert np.array_equal(mine, theirs) and mine.sum() == 3
        for k, land in enumerate(("forest", "grain", "village")):
            assert mine[k * 3 + CARD_KINDS.index(cards[land]["card"])] == 1
    assert all(s == set(CARD_KINDS) for s in seen.values()), "each of the 3 cards of a landscape can come up"


# Two forest territories of 4 tiles, each closed at 5 by one more tile: seat 0's by L13 at q=1 r=0
# (rot 2), seat 1's by L23 at q=-1 r=0 (rot 3); the stacks hold neither board's tiles.
FOREST4_A = [["L03", 0, 0, 1], ["L10", 1, -1, 5], ["L12", 0, -1, 5], ["L25", -1, 0, 2]]
CLOSE_A = "place q=1 r=0 rot=2"
FOREST4_B = [["L27", 0, 0, 1], ["L25", 1, 0, 1], ["L03", 1, -1, 4], ["L10", 0, -1, 5]]
CLOSE_B = "place q=-1 r=0 rot=3"
FOREST_CARDS = {"forest": "closed 5+", "grain": "many closed 2+", "village": "many closed 2+"}


def forest_card(env, p):
    return modules(env, p)["task cards"]["forest"]["points"]


def test_closed_5_card_first_player_scores_8_the_second_4_once_each():
    env = table([FOREST4_A, FOREST4_B], task_cards=True, landscape=["L13", "L23", "L17"], cards=FOREST_CARDS)
    act(env, CLOSE_A, "place q=2 r=-1 rot=0")  # L13 closes seat 0's forest at 5; seat 1 puts it aside
    assert (forest_card(env, 0), forest_card(env, 1)) == (8, 0)
    act(env, "place q=-1 r=1 rot=0", CLOSE_B)  # L23 closes seat 1's forest at 5: second
    assert (forest_card(env, 0), forest_card(env, 1)) == (8, 4)
    assert pad(env, 0)["module 1: task cards"] == 8 and pad(env, 1)["module 1: task cards"] == 4
    assert (
        pad(env, 0)["total"]
        == sum(v for k, v in pad(env, 0).items() if k.startswith("module"))
        + pad(env, 0)["tasks subtotal"]
        + pad(env, 0)["flags and lines subtotal"]
    )


def test_closed_5_card_both_in_the_same_turn_score_6_each():
    env = table([FOREST4_A, FOREST4_A], task_cards=True, landscape=["L13", "L17"], cards=FOREST_CARDS)
    act(env, CLOSE_A, CLOSE_A)
    assert (forest_card(env, 0), forest_card(env, 1)) == (6, 6)


def test_closed_5_card_needs_five_tiles_and_a_closed_territory():
    env = table([FOREST4_A, FOREST4_A], task_cards=True, landscape=["L17", "L13"], cards=FOREST_CARDS)
    act(env, "place q=2 r=-1 rot=0", "place q=2 r=-1 rot=0")  # L17 elsewhere: still 4 tiles, open
    assert (forest_card(env, 0), forest_card(env, 1)) == (0, 0)


# Two closed forest territories of 2+ tiles: a pair (L25, L13) and a triangle (L10, L12, L23).
TWO_CLOSED = [
    ["L10", 0, 0, 3],
    ["L12", 1, 0, 1],
    ["L23", 1, -1, 5],
    ["L41", -1, 0, 0],
    ["L25", -2, 0, 0],
    ["L13", -3, 0, 4],
]
ONE_CLOSED = FOREST4_A + [["L13", 1, 0, 2]]


@pytest.mark.parametrize(
    "boards, points",
    [((TWO_CLOSED, ONE_CLOSED), (8, 4)), ((ONE_CLOSED, TWO_CLOSED), (4, 8)), ((ONE_CLOSED, ONE_CLOSED), (6, 6))],
)
def test_most_closed_territories_card_8_for_more_4_for_fewer_6_each_when_equal(boards, points):
    cards = {"forest": "most closed 2+", "grain": "many closed 2+", "village": "many closed 2+"}
    env = table(list(boards), task_cards=True, landscape=["L17"], cards=cards)
    assert (forest_card(env, 0), forest_card(env, 1)) == points


def test_many_territories_card_scores_by_its_table_without_competition():
    cards = {"forest": "many closed 2+", "grain": "many closed 2+", "village": "many closed 2+"}
    env = table([TWO_CLOSED, ONE_CLOSED], task_cards=True, landscape=["L17"], cards=cards)
    assert modules(env, 0)["task cards"]["forest"]["closed territories 2+"] == 2
    assert (forest_card(env, 0), forest_card(env, 1)) == (1, 0)  # 2 -> 1 point; 1 -> nothing
    from envs.dorfromantik_duel.rules import MANY_CARD_POINTS

    table_of_the_card = {2: 1, 3: 2, 4: 4, 5: 6, 6: 9, 7: 12, 8: 15}
    assert {n: MANY_CARD_POINTS[n] for n in range(2, 9)} == table_of_the_card and MANY_CARD_POINTS[:2] == (0, 0)


def test_cards_scenario_needs_the_module_and_known_names():
    with pytest.raises(ValueError, match="needs module_task_cards"):
        table([[], []], landscape=["L17"], cards={"forest": "closed 5+"})
    with pytest.raises(ValueError, match="must be one of"):
        table([[], []], task_cards=True, landscape=["L17"], cards={"forest": "biggest"})


# -- Module 2: points of interest ------------------------------------------------------------

# forest: L17 and the forest task T03 (marker 3); L32 at q=1 r=-1 completes it
FOREST_PAIR = [["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]]
COMPLETE = "place q=1 r=-1 rot=0"
ASIDE = "place q=0 r=1 rot=2"  # L32 elsewhere: the marker stays open (checked below)
THREE_DONE = [["connection", 3], ["connection", 4], ["connection", 5]]


def milestone(completed=(THREE_DONE, THREE_DONE), landscape=("L32", "L03", "L10", "L12", "L13"), **scenario):
    """Both seats have completed 3 tasks; the L32 now due completes a 4th where it goes at q=1 r=-1."""
    return table(
        [FOREST_PAIR, FOREST_PAIR],
        poi=True,
        completed=[list(c) for c in completed],
        landscape=list(landscape),
        **scenario,
    )


def test_completing_the_4th_task_brings_a_choice_of_point_of_interest():
    env = milestone()
    act(env, COMPLETE, COMPLETE)
    assert phase(env) == "point of interest" and env.agent_selection == "player_0"
    assert legal(env, "player_0") == ALL_POI and legal(env, "player_1") == ALL_POI


def test_only_the_seat_reaching_a_milestone_chooses():
    env = milestone()
    act(env, COMPLETE, ASIDE)
    assert env.core_state.cell_mk_state[1, cell_of(RADIUS, 1, 0)] == 1, "seat 1's forest marker is still open"
    assert phase(env) == "point of interest" and env.agent_selection == "player_0"
    assert legal(env, "player_1") == set()
    act(env, "poi hearts")
    assert phase(env) == "place" and env.core_state.hearts_left[0] == 3


def test_simultaneous_milestones_neither_sees_the_others_choice_first():
    env = milestone()
    act(env, COMPLETE, COMPLETE)
    views = []
    for choice in ("poi school", "poi hearts"):
        twin = env.clone()
        act(twin, choice)
        assert twin.agent_selection == "player_1"
        views.append(twin.observe("player_1")["observation"])
        twin.render_seat = 1
        assert "player_0 has chosen (hidden" in twin.render()
    assert np.array_equal(views[0], views[1])


def test_7th_and_10th_tasks_bring_choices_and_each_point_of_interest_once_per_player():
    six = THREE_DONE + [["grain", 3], ["grain", 4], ["grain", 5]]
    env = milestone(completed=(six, THREE_DONE), points_of_interest={"taken": [["hearts"], []], "hearts_left": [3, 0]})
    act(env, COMPLETE, COMPLETE, "no heart")  # seat 0's hearts: first whether one goes on the new tile
    assert legal(env, "player_0") == ALL_POI - {"poi hearts"}  # the 7th task; hearts already taken
    assert legal(env, "player_1") == ALL_POI  # the 4th
    nine = six + [["village", 3], ["village", 4], ["village", 5]]
    env = milestone(completed=(nine, THREE_DONE), points_of_interest={"taken": [["school", "hearts"], []]})
    act(env, COMPLETE, ASIDE)
    assert legal(env, "player_0") == {"poi photographer", "poi none"}  # the 10th; one of school/barn/oak only


def test_a_special_type_taken_by_one_player_only_leaves_the_others_game():
    env = milestone()
    act(env, COMPLETE, COMPLETE, "poi school", "poi hearts")
    s = env.core_state
    assert s.special_gone[1].tolist() == [1, 0, 0] and s.special_gone[0].tolist() == [0, 0, 0]
    env = milestone(points_of_interest={"taken": [["school"], []]})
    act(env, COMPLETE, COMPLETE)
    assert legal(env, "player_1") == ALL_POI - {"poi school"}
    assert legal(env, "player_0") == {"poi photographer", "poi hearts", "poi none"}


def test_both_may_take_the_same_special_type_in_the_same_turn_and_place_it_at_once():
    env = milestone()
    act(env, COMPLETE, COMPLETE, "poi school", "poi school")
    assert phase(env) == "special tile"
    s = env.core_state
    assert s.to_place.tolist() == [69, 69] and s.special_gone.sum() == 0
    names = legal(env, "player_0")
    board = {(0, 0), (1, 0), (1, -1)}  # L17, T03, and this turn's L32
    empty_neighbours = {
        (q + dq, r + dr) for q, r in board for dq, dr in ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))
    }
    assert names == {f"place q={q} r={r} rot=0" for q, r in empty_neighbours - board}, "placement rules, one rotation"
    act(env, "place q=2 r=-1 rot=0", "place q=0 r=-1 rot=0")
    assert phase(env) == "place" and s.cell_tile[0, cell_of(RADIUS, 2, -1)] == 69
    assert s.special_cell.tolist() == [cell_of(RADIUS, 2, -1), cell_of(RADIUS, 0, -1)]


# School (village) at q=1 r=0: village tiles within 2 steps score, across the empty cell q=1 r=-1 too.
SCHOOL_BOARD = [
    ["L41", 0, 0, 0],  # VVVVVM, 1 step: counts
    ["school", 1, 0, 0],
    ["L17", 0, -1, 0],  # MWWWWW, no village: does not count
    ["L13", 1, -2, 0],  # VVMWMM, 2 steps with an empty cell between: counts
    ["L12", 2, 0, 0],  # VVMWWM, 1 step: counts
    ["L06", 3, 0, 0],  # VVMMGM, 2 steps: counts
    ["L19", 4, 0, 0],  # GGMVMM, 3 steps: does not count
]


def test_school_scores_one_per_village_tile_within_two_steps_counting_empty_cells():
    env = table([SCHOOL_BOARD, [["L17", 0, 0, 0]]], poi=True, landscape=["L32"])
    assert modules(env, 0)["points of interest"]["points"]["special tile"] == 4
    assert pad(env, 0)["module 2: points of interest"] == 4 and pad(env, 1)["module 2: points of interest"] == 0
    assert modules(env, 0)["points of interest"]["taken"] == ["school"]


PHOTO_BOARD = [["L17", 0, 0, 0], ["photographer", 1, 0, 0]]


def test_photographer_may_move_onto_a_touching_new_tile_then_a_camera_goes_on_his_tile():
    env = table([PHOTO_BOARD, [["L17", 0, 0, 0]]], poi=True, landscape=["L10", "L12", "L13", "L03"])
    act(env, "place q=2 r=0 rot=0", "place q=1 r=0 rot=0")
    assert phase(env) == "photographer" and legal(env, "player_0") == {"move photographer", "keep photographer"}
    assert legal(env, "player_1") == set(), "seat 1 has no photographer"
    act(env, "move photographer")
    s = env.core_state
    assert s.photo_cell[0] == cell_of(RADIUS, 2, 0) and s.cell_camera[0, cell_of(RADIUS, 2, 0)] == 1
    assert (int(s.cameras[0]), int(s.cameras_left)) == (1, 17)
    act(env, "place q=3 r=0 rot=0", "place q=2 r=0 rot=0", "keep photographer")
    assert s.photo_cell[0] == cell_of(RADIUS, 2, 0) and s.cell_camera[0, cell_of(RADIUS, 2, 0)] == 2
    act(env, "place q=-1 r=0 rot=0", "place q=3 r=0 rot=0")  # not touching the photographer: no question
    assert phase(env) == "place" and s.cameras[0] == 2
    assert modules(env, 0)["points of interest"]["points"]["cameras"] == 2


def test_camera_markers_are_shared_and_run_out():
    both = [PHOTO_BOARD, PHOTO_BOARD]
    poi = {"cameras": [2, 0], "cameras_left": 1}
    env = table(both, poi=True, landscape=["L10", "L12", "L13"], points_of_interest=poi)
    act(env, "place q=2 r=0 rot=0", "place q=2 r=0 rot=0", "keep photographer", "keep photographer")
    s = env.core_state
    assert s.cameras.tolist() == [2, 1] and s.cameras_left == 0, "the last marker: to the seat with fewer"
    act(env, "place q=1 r=1 rot=0", "place q=1 r=1 rot=0")  # touching, but no markers are left
    assert phase(env) == "place" and s.cameras.tolist() == [2, 1]


def test_choosing_the_photographer_places_his_tile_with_him_on_it():
    env = milestone()
    act(env, COMPLETE, COMPLETE, "poi photographer", "poi none")
    assert phase(env) == "special tile" and env.agent_selection == "player_0" and legal(env, "player_1") == set()
    act(env, "place q=2 r=-1 rot=0")
    s = env.core_state
    assert s.photo_cell[0] == cell_of(RADIUS, 2, -1) and s.cell_tile[0, s.photo_cell[0]] == 72 and s.cameras[0] == 0


def test_hearts_first_taker_gets_3_a_later_one_2_both_at_once_3_each():
    env = milestone()
    act(env, COMPLETE, COMPLETE, "poi hearts", "poi hearts")
    assert env.core_state.hearts_left.tolist() == [3, 3]
    env = milestone(points_of_interest={"taken": [["hearts"], []], "hearts_left": [3, 0]})
    act(env, COMPLETE, COMPLETE, "no heart")  # seat 0 holds hearts: first whether one goes on this tile
    act(env, "poi none", "poi hearts")
    assert env.core_state.hearts_left.tolist() == [3, 2]


def test_hearts_go_on_landscape_tiles_only_from_the_next_turn_on():
    env = milestone()
    act(env, COMPLETE, ASIDE, "poi hearts")
    s = env.core_state
    assert s.hearts_from[0] == s.turn and phase(env) == "place" and s.tile < 42, "next turn, a landscape tile"
    act(env, "place q=-1 r=0 rot=0", "place q=-1 r=0 rot=0")
    assert phase(env) == "heart" and legal(env, "player_0") == {"heart", "no heart"} and legal(env, "player_1") == set()
    act(env, "heart")
    assert s.cell_heart[0, cell_of(RADIUS, -1, 0)] == 1 and s.hearts_left[0] == 2 and phase(env) == "place"
    ready = {"taken": [["hearts"], []], "hearts_left": [3, 0]}
    env = table(
        [FOREST_PAIR, FOREST_PAIR],
        poi=True,
        tasks=["T04"],
        markers={"grain": [6]},
        landscape=["L03", "L10"],
        points_of_interest=ready,
    )
    s = env.core_state
    assert s.tile == 46, "the grain task tile T04 comes first"
    act(env, "place q=-1 r=0 rot=0", "place q=-1 r=0 rot=0")
    assert phase(env) == "place" and s.hearts_left[0] == 3, "no heart on a task tile"


# L17 (MWWWWW) with a heart: its forest edges meet forest on T01 (east) and L16 (west), not L24's grain (north-west)
HEART_BOARD = [["L17", 0, 0, 0], ["T01", 1, 0, 0], ["L16", -1, 0, 0], ["L24", 0, -1, 0]]


def test_a_heart_scores_one_per_edge_meeting_a_matching_edge():
    env = table([HEART_BOARD, HEART_BOARD], poi=True, landscape=["L32"], points_of_interest={"hearts": [[[0, 0]], []]})
    assert modules(env, 0)["points of interest"]["points"]["hearts"] == 2
    assert modules(env, 1)["points of interest"]["points"]["hearts"] == 0
    two = {"hearts": [[[0, 0], [-1, 0]], [[0, -1]]]}  # L16: its east edge meets L17's forest; L24: nothing
    env = table([HEART_BOARD, HEART_BOARD], poi=True, landscape=["L32"], points_of_interest=two)
    assert [modules(env, p)["points of interest"]["points"]["hearts"] for p in (0, 1)] == [3, 0]
    with pytest.raises(ValueError, match="landscape tiles only"):
        table([HEART_BOARD, HEART_BOARD], poi=True, landscape=["L32"], points_of_interest={"hearts": [[[1, 0]], []]})


def test_module_actions_are_illegal_in_the_wrong_phase_and_unknown_without_the_module():
    env = milestone()
    with pytest.raises(IllegalActionError):
        act(env, "poi school")
    plain = duel.raw_env()
    with pytest.raises(ValueError, match="module_points_of_interest"):
        plain.action_from_name("poi school")
    assert obs_size(RADIUS) < obs_size(RADIUS, True) < obs_size(RADIUS, True, True)


def test_parallel_env_steps_one_decision_phase_at_a_time():
    env = duel.raw_parallel_env(module_points_of_interest=True)
    scenario = {
        "boards": [FOREST_PAIR, FOREST_PAIR],
        "completed": [THREE_DONE, THREE_DONE],
        "landscape": ["L32", "L03", "L10"],
        "tasks": [],
        "turn": 4,
    }
    env.reset(seed=0, options={"scenario": scenario})
    name = env.aec.action_from_name
    env.step({"player_0": name(COMPLETE), "player_1": name(ASIDE)})
    obs = {a: env.aec.observe(a) for a in env.agents}
    assert obs["player_0"]["action_mask"].sum() == 6 and obs["player_1"]["action_mask"].sum() == 0
    env.step({"player_0": name("poi hearts"), "player_1": 0})  # player_1 has no decision: its action is ignored
    s = env.aec.core_state
    assert s.hearts_left.tolist() == [3, 0] and s.phase == 0 and s.turn == 5
