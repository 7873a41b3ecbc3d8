"""Dorfromantik: The Duel, sentence by sentence from the rules document and the manual, through scenarios and
action names."""

import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS, MARKER_STATE_NAMES, cell_of
from envs.dorfromantik_duel.scenario import tile_id
from envs.dorfromantik_duel.tiles import NUM_TILES, TASK_TYPES, TILE_TASK
from envs.engine import IllegalActionError
from tests import common

RADIUS = DEFAULT_RADIUS


def table(board=None, boards=None, **scenario):
    """A strict env set up with a scenario: ``board`` for both players, or ``boards`` one each."""
    if board is not None:
        scenario["boards"] = [board, board]
    elif boards is not None:
        scenario["boards"] = boards
    scenario.setdefault("turn", 4)
    env = duel.raw_env(render_mode="ansi")
    env.reset(seed=0, options={"scenario": scenario})
    return env


def place(env, name0, name1=None):
    """Both players place this turn's tile (player_0 first, as in the AEC order)."""
    env.step(env.action_from_name(name0))
    env.step(env.action_from_name(name1 or name0))


def legal(env, agent=None):
    return {env.action_name(a) for a in env.legal_actions(agent)}


def marker(env, p, q, r):
    """(state, value) of the task marker on seat p's tile at (q, r)."""
    s = env.core_state
    c = cell_of(RADIUS, q, r)
    return MARKER_STATE_NAMES[int(s.cell_mk_state[p, c])], int(s.cell_mk_value[p, c])


def pad(env, p):
    return env.details(f"player_{p}")["score"]


# -- setup -------------------------------------------------------------------------------------


def test_setup_boxes_three_landscape_tiles_and_shuffles_markers_by_type():
    env = duel.raw_env()
    orders = set()
    for seed in range(6):
        env.reset(seed=seed)
        s = env.core_state
        assert s.land_n == 39 and s.land_len == 42 and sorted(s.land.tolist()) == list(range(42))
        assert sorted(s.task.tolist()) == list(range(42, 69)) and s.task_n == 27
        for t in range(6):
            assert sorted(s.markers[t].tolist()) == [3, 4, 5, 6]
        assert s.markers[6, :3].tolist() == [6, 6, 6] and s.markers_n[6] == 3
        orders.add(tuple(s.land.tolist()))
        assert int(s.unseen.sum()) == NUM_TILES - 1, "only the first tile has been seen"
    assert len(orders) == 6


def test_first_three_turns_reveal_task_tiles_with_a_marker_of_their_type():
    for seed in range(5):
        env = duel.raw_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for turn in range(3):
            s = env.core_state
            assert TILE_TASK[s.tile] >= 0 and s.mk_type == TILE_TASK[s.tile]
            info = env.details("player_0")
            assert info["marker"]["type"] == TASK_TYPES[int(s.mk_type)]
            assert info["marker"]["value"] == s.mk_value and s.mk_value in ((6,) if s.mk_type == 6 else (3, 4, 5, 6))
            for _ in range(2):
                env.step(common.random_legal(env.action_mask(), rng))
            assert env.core_state.turn == turn + 1


def test_a_task_tile_while_an_area_has_fewer_than_three_open_markers_else_landscape():
    # seat 0 has three open markers, seat 1 only two: a task tile comes
    b0 = [["T17", 0, 0, 0, 3], ["T18", 1, 0, 0, 4], ["T13", -1, 0, 0, 5]]
    b1 = [["T17", 0, 0, 0, 3], ["T18", 1, 0, 0, 4]]
    env = table(boards=[b0, b1], tasks=["T00"], landscape=["L03", "L10"])
    assert env.core_state.tile == tile_id("T00")
    assert env.infos["player_0"]["open_markers"] == 3 and env.infos["player_1"]["open_markers"] == 2
    # both with three open: a landscape tile, though task tiles are left
    env = table(b0, tasks=["T00"], landscape=["L03", "L10"])
    assert env.core_state.tile == tile_id("L03")
    # fewer than three, but the task stack is empty: only landscape tiles
    env = table(b1, tasks=[], landscape=["L03"])
    assert env.core_state.tile == tile_id("L03")


def test_both_players_place_the_same_tile():
    env = duel.raw_env()
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(common.random_legal(env.action_mask(), rng))
    s = env.core_state
    assert (s.used[0] > 0).tolist() == (s.used[1] > 0).tolist()
    assert s.n_placed.tolist() == [15, 15]
    first = [s.order[p, 0] for p in (0, 1)]  # the first tile, a task tile: both took the same marker
    assert s.cell_tile[0, first[0]] == s.cell_tile[1, first[1]]
    assert s.cell_mk_type[0, first[0]] == s.cell_mk_type[1, first[1]] >= 0
    assert s.cell_mk_value[0, first[0]] == s.cell_mk_value[1, first[1]] >= 3


# -- placement -----------------------------------------------------------------------------


def test_first_tile_goes_to_the_origin_in_any_distinct_rotation():
    env = table(tasks=[], landscape=["L16", "L03"])  # L16 MWMWMW: only 2 distinct rotations
    assert legal(env) == {"place q=0 r=0 rot=0", "place q=0 r=0 rot=1"}
    env = duel.raw_env(distinct_rotations=False)
    env.reset(seed=0, options={"scenario": {"tasks": [], "landscape": ["L16"], "turn": 4}})
    assert legal(env) == {f"place q=0 r=0 rot={k}" for k in range(6)}


def test_later_tiles_touch_one_of_your_own_tiles():
    env = table([["L03", 0, 0, 0]], tasks=[], landscape=["L10", "L12"])
    cells = {name.rsplit(" rot", 1)[0] for name in legal(env)}
    assert cells == {f"place q={q} r={r}" for q, r in [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]}
    assert len(legal(env)) == 36
    with pytest.raises(IllegalActionError, match="place q=2 r=0 rot=0"):
        env.step(env.action_from_name("place q=2 r=0 rot=0"))


def rotations_at(env, q, r):
    prefix = f"place q={q} r={r} rot="
    return sorted(int(n[len(prefix) :]) for n in legal(env) if n.startswith(prefix))


def test_track_and_stream_edges_meet_only_their_own_kind():
    # L00 GGMTTM turned 0 shows track to the SW and W. L21 GGGTMT (track on letters 3 and 5):
    # west of it, the edge facing east must be track (rot 2 or 4); east of it, facing its
    # grain edge, the edge facing west must not be track (not rot 1 or 5).
    env = table([["L00", 0, 0, 0]], tasks=[], landscape=["L21"])
    assert rotations_at(env, -1, 0) == [2, 4]
    assert rotations_at(env, 1, 0) == [0, 2, 3, 4]
    # forest, grain, village and meadow edges need not match: a grain tile anywhere by a forest tile
    env = table([["L17", 0, 0, 0]], tasks=[], landscape=["L24"])
    assert len(legal(env)) == 36


def test_a_track_edge_may_face_an_empty_cell():
    # L29 WWWMTM east of L03: only rot 0 turns its track edge against L03's grain edge
    env = table([["L03", 0, 0, 0]], tasks=[], landscape=["L29"])
    assert rotations_at(env, 1, 0) == [1, 2, 3, 4, 5]


# -- territories and task markers ------------------------------------------------------------

FOREST_PAIR = [["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]]  # forest: L17 and the forest task T03, 2 tiles, open


def test_marker_completes_when_the_territory_has_exactly_n_tiles_and_scores_n():
    env = table(FOREST_PAIR, tasks=[], landscape=["L32", "L03"])
    assert marker(env, 0, 1, 0) == ("open", 3)
    place(env, "place q=1 r=-1 rot=0")  # L32 WWWMGM joins the forest: 3 tiles
    for p in (0, 1):
        assert marker(env, p, 1, 0) == ("completed", 3)
        assert pad(env, p)["forest tasks"] == 3 and env.infos[f"player_{p}"]["open_markers"] == 0


def test_marker_is_cancelled_when_its_territory_is_closed_below_n():
    # the forest task T03 (marker 4) has one open forest edge left, to the NW; L03 closes it with meadow
    env = table([["T03", 0, 0, 0, 4], ["L19", -1, 0, 0]], tasks=[], landscape=["L03"])
    place(env, "place q=0 r=-1 rot=0")
    assert marker(env, 0, 0, 0) == ("cancelled", 4)
    assert pad(env, 0)["forest tasks"] == 0 and env.core_state.tasks_cancelled[0, 0] == 1


def test_all_edges_of_one_terrain_on_a_tile_are_one_area():
    # L16 MWMWMW has three separate forest edges; forests touching two of them are one territory
    board = [["L16", 0, 0, 0], ["L17", 1, 0, 0], ["L32", -1, 1, 0]]
    env = table(board, tasks=["T03"], markers={"forest": [4]}, landscape=["L03"])
    place(env, "place q=0 r=-1 rot=4")  # T03 touches L16's third forest edge: 4 tiles
    assert marker(env, 0, 0, -1) == ("completed", 4)


# Manual p.6: a village territory of 3 whose only open edges face the empty cell q=0 r=0, from NE and E.
VILLAGE_THREE = [["L06", 1, -1, 2], ["L34", 1, 0, 4], ["L07", 2, -1, 0], ["L03", 0, 1, 0], ["L16", -1, 1, 0]]


def test_task_tile_may_not_close_a_village_territory_below_its_marker():
    """The manual's example: the village-5 task tile (T08 MMVMMV) would close the territory at 4
    in one orientation; turned once clockwise it is legal, and one more village tile completes 5."""
    env = table(VILLAGE_THREE, tasks=["T08"], markers={"village": [5]}, landscape=["L41"])
    assert env.details("player_0")["marker"] == {"type": "village", "value": 5}
    assert rotations_at(env, 0, 0) == [0, 2]  # rot 1 would close it at 4 (T08 repeats every 3 turns)
    with pytest.raises(IllegalActionError):
        env.step(env.action_from_name("place q=0 r=0 rot=1"))
    place(env, "place q=0 r=0 rot=2")
    assert marker(env, 0, 0, 0) == ("open", 5)
    place(env, "place q=-1 r=0 rot=1")  # L41 VVVVVM: the fifth village tile
    assert marker(env, 0, 0, 0) == ("completed", 5) and pad(env, 0)["village tasks"] == 5


def test_task_tile_may_not_be_placed_where_its_territory_already_exceeds_n():
    env = table(VILLAGE_THREE, tasks=["T08"], markers={"village": [3]}, landscape=["L41"])
    assert rotations_at(env, 0, 0) == [0]  # rot 1 and 2 join the village: 4 tiles > 3


# The manual's double example: the double task (T24 GGGMWM, grain + forest) sits in a grain
# territory of 2, the grain task T05 in one of 3; L24 at q=0 r=0 joins them into 6.
DOUBLE_AND_GRAIN = [
    ["T24", -1, 0, 0, 6],
    ["L25", 0, -1, 3],
    ["L12", 1, -1, 0],
    ["T05", 1, 0, 1],
    ["L27", 2, 0, 3],
    ["L19", 2, -1, 2],
]


def double_and_grain(grain_value):
    board = [list(e) for e in DOUBLE_AND_GRAIN]
    board[3].append(grain_value)
    return table(board, tasks=[], landscape=["L24"])


def test_double_task_completes_while_the_grain_five_is_cancelled():
    env = double_and_grain(5)
    place(env, "place q=0 r=0 rot=0")
    assert marker(env, 0, -1, 0) == ("completed", 6)
    assert marker(env, 0, 1, 0) == ("cancelled", 5), "the grain territory grew past 5"
    assert pad(env, 0)["double tasks"] == 6 and pad(env, 0)["grain tasks"] == 0


def test_one_placement_may_complete_several_markers():
    env = double_and_grain(6)  # "if the grain 5 were a grain 6, both would be completed"
    place(env, "place q=0 r=0 rot=0")
    assert marker(env, 0, -1, 0) == ("completed", 6) and marker(env, 0, 1, 0) == ("completed", 6)
    assert pad(env, 0)["tasks subtotal"] == 12


def test_double_task_is_cancelled_only_when_neither_territory_can_still_reach_six():
    # T24's forest edge is closed (size 1): dead; its grain keeps one open edge, so the marker stays
    board = [["T24", 0, 0, 0, 6], ["L19", -1, 0, 0], ["L10", 1, -1, 0], ["L13", 1, 0, 0]]
    env = table(board, tasks=[], landscape=["L12", "L30"])
    assert marker(env, 0, 0, 0) == ("open", 6)
    place(env, "place q=0 r=1 rot=0")  # L12 closes the grain at 1: now neither can reach 6
    assert marker(env, 0, 0, 0) == ("cancelled", 6)


def test_stream_of_four_completes_five_while_the_new_six_stays_open():
    """The manual's example: a stream of 4 with an open stream-5 marker; the stream task tile with
    a 6 marker extends it to 5: the 5 scores, the 6 needs one more stream tile."""
    board = [["L01", 0, 0, 1], ["L02", 1, 0, 1], ["T17", 2, 0, 2, 5], ["L20", 3, 0, 1]]
    env = table(board, tasks=["T18"], markers={"stream": [6]}, landscape=["L14"])
    assert env.details("player_0")["marker"] == {"type": "stream", "value": 6}
    assert marker(env, 0, 2, 0) == ("open", 5)
    place(env, "place q=4 r=0 rot=1")
    assert marker(env, 0, 2, 0) == ("completed", 5)
    assert marker(env, 0, 4, 0) == ("open", 6)
    assert pad(env, 0)["stream tasks"] == 5 and pad(env, 0)["longest stream"] == 5


def test_connection_task_completes_when_exactly_n_tiles_touch_it():
    env = table([["T20", 0, 0, 0, 3], ["L03", 1, 0, 0]], tasks=[], landscape=["L10", "L12", "L13"])
    place(env, "place q=0 r=1 rot=0")
    assert marker(env, 0, 0, 0) == ("open", 3)
    place(env, "place q=-1 r=1 rot=0")
    assert marker(env, 0, 0, 0) == ("completed", 3) and pad(env, 0)["connection tasks"] == 3


HOLE = [["L03", 1, -1, 0], ["L10", 1, 0, 0], ["L12", 0, 1, 0], ["L13", -1, 1, 0]]  # q=0 r=0 has 4 neighbours


def test_connection_task_may_not_go_where_more_than_n_tiles_touch_it_and_may_complete_at_once():
    env = table(HOLE, tasks=["T21"], markers={"connection": [3]}, landscape=["L17"])
    assert rotations_at(env, 0, 0) == []
    env = table(HOLE, tasks=["T21"], markers={"connection": [4]}, landscape=["L17"])
    assert rotations_at(env, 0, 0) == [0, 1, 2, 3, 4, 5]
    place(env, "place q=0 r=0 rot=0")
    assert marker(env, 0, 0, 0) == ("completed", 4)


def test_connection_task_is_never_cancelled():
    # its grain edge gets closed and the board grows round it: the marker just waits for 5 neighbours
    env = table([["T20", 0, 0, 0, 5], ["L10", 1, -1, 0]], tasks=[], landscape=["L13", "L12"])
    place(env, "place q=1 r=0 rot=0")
    place(env, "place q=2 r=0 rot=0")
    assert marker(env, 0, 0, 0) == ("open", 5)


def test_no_legal_placement_means_pass():
    # seat 0's three village tiles leave no cell where the village-3 task tile (T09 VVVVVV) fits
    crowded = [["L41", 0, 0, 1], ["L05", 1, 0, 1], ["L39", 0, 1, 5]]
    env = table(boards=[crowded, [["L41", 0, 0, 1]]], tasks=["T09"], markers={"village": [3]}, landscape=["L17"])
    assert legal(env, "player_0") == {"pass"}
    assert "pass" not in legal(env, "player_1")
    env.step(env.action_from_name("pass"))
    env.step(env.legal_actions()[0])
    s = env.core_state
    assert s.used[0, tile_id("T09")] == 2 and s.n_placed.tolist() == [3, 2]
    assert s.open_markers.tolist() == [0, 1]


# -- end of the game and scoring ---------------------------------------------------------------

THREE_OPEN = [["L17", 0, 0, 0], ["T03", 1, 0, 0, 3], ["T17", -1, 0, 0, 3], ["T18", -1, 1, 0, 4]]


def test_game_ends_when_a_landscape_tile_is_due_and_none_is_left():
    env = table(THREE_OPEN, tasks=["T00"], landscape=["L10"])
    assert env.core_state.tile == tile_id("L10")
    place(env, "place q=0 r=-1 rot=0")
    assert all(env.terminations.values()), "both still have 3 open markers: a landscape tile is due"
    assert env.core_state.task_pos == 0, "the task tiles left are not used"


def test_last_landscape_tile_settling_a_task_brings_task_tiles_until_three_are_open():
    env = table(THREE_OPEN, tasks=["T01", "T02"], markers={"forest": [5, 6]}, landscape=["L32"])
    place(env, "place q=1 r=-1 rot=0")  # completes the forest 3: two open markers left
    assert not any(env.terminations.values())
    assert env.core_state.tile == tile_id("T01") and env.infos["player_0"]["open_markers"] == 2
    place(env, env.action_name(env.legal_actions()[0]))
    assert all(env.terminations.values()) and env.core_state.task_pos == 1


# The manual's scoring example (p.8), rebuilt: a village territory of 7 with both red flags that
# the last tile (L13 at q=-2 r=1) closes, a yellow flag in an open grain territory, a track of 3.
SCORING_BOARD = [
    ["L41", 0, 0, 0],
    ["L30", -1, 0, 0],
    ["L06", 1, -1, 2],
    ["L07", 1, 0, 0],
    ["L10", 0, 1, 3],
    ["L12", -1, 1, 0],
    ["L00", 0, -1, 1],
    ["L04", -1, -1, 3],
    ["L08", -2, -1, 2],
    ["L24", -2, 0, 0],
]
TWENTY = [["village", 5], ["village", 4], ["grain", 4], ["track", 3], ["connection", 4]]


def test_manual_scoring_example_tasks_20_flags_14_track_3_is_37():
    env = table(SCORING_BOARD, tasks=[], landscape=["L13"], completed=[TWENTY, TWENTY[:2]])
    assert pad(env, 0)["red flags"] == 0, "the village territory is still open"
    place(env, "place q=-2 r=1 rot=0")
    assert all(env.terminations.values())
    got = pad(env, 0)
    assert got["tasks subtotal"] == 20 and got["village tasks"] == 9
    assert got["red flags"] == 14 and got["yellow flags"] == 0, "the yellow flag's grain territory is open"
    assert got["longest track"] == 3 and got["longest stream"] == 0
    assert got["flags and lines subtotal"] == 17 and got["total"] == 37
    assert pad(env, 1)["total"] == 9 + 17
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_0"]["winner"] == 0


def test_equal_totals_draw():
    env = table(SCORING_BOARD, tasks=[], landscape=["L13"], completed=[TWENTY, TWENTY[::-1]])
    place(env, "place q=-2 r=1 rot=0")
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.infos["player_1"]["winner"] == 2


def test_render_shows_both_boards_and_hides_a_choice_not_yet_revealed():
    env = table(SCORING_BOARD, tasks=[], landscape=["L13"])
    env.step(env.action_from_name("place q=-2 r=1 rot=0"))
    env.render_seat = 1
    text = env.render()
    assert "player_0" in text and "player_1 (you)" in text and "V*" in text
    assert "q=-2 r=1" not in text
    env.render_seat = None
    assert "player_0 has chosen place q=-2 r=1 rot=0" in env.render()
