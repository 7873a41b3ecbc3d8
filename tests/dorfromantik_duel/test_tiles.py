"""The tile set: the counts the rules document fixes, and that the data file is what the derivation rule gives."""

from collections import Counter

import numpy as np

from envs.dorfromantik_duel import tiles


def test_counts_match_the_duel():
    data = tiles.load_data()
    assert tiles.set_summary(data) == {
        "landscape": 42,
        "flag green": 2,
        "flag yellow": 2,
        "flag red": 2,
        "task forest": 4,
        "task grain": 4,
        "task village": 4,
        "task track": 4,
        "task stream": 4,
        "task connection": 4,
        "task double": 3,
    }
    assert tiles.NUM_TILES == 69 and len(set(tiles.TILE_NAMES[:69])) == 69
    assert Counter(tiles.TILE_TASK[:69].tolist()) == {-1: 42, 0: 4, 1: 4, 2: 4, 3: 4, 4: 4, 5: 4, 6: 3}


def test_special_tiles_follow_the_game_tiles():
    assert tiles.NUM_TILE_IDS == 73 and tiles.TILE_NAMES[69:] == ("school", "barn", "oak", "photographer")
    for i, terrain in enumerate((tiles.VILLAGE, tiles.GRAIN, tiles.FOREST, tiles.MEADOW)):
        assert tiles.TILE_EDGES[69 + i].tolist() == [terrain] * 6
        assert tiles.TILE_TASK[69 + i] == -1 and tiles.TILE_FLAG[69 + i] == -1


def test_data_file_is_the_derivation_of_the_base_lists():
    data = tiles.load_data()
    assert len(data["base_landscape"]) == 48 and len(data["base_task"]) == 25
    derived = tiles.derive_duel_set(data["base_landscape"], data["base_task"])
    assert derived["landscape"] == data["landscape"]
    assert derived["task"] == data["task"]
    assert derived["unused"] == data["unused"]
    used = [t["source"] for t in data["landscape"] + data["task"]] + data["unused"]
    assert len(used) == len(set(used)) == 48 + 25, "every base tile is used once or listed as unused"


def test_flags_and_tasks_sit_on_their_own_terrain():
    for t in range(tiles.NUM_TILES):
        edges = set(tiles.TILE_EDGES[t].tolist())
        if tiles.TILE_FLAG[t] >= 0:
            assert tiles.TILE_FLAG[t] + 1 in edges and not edges & {tiles.TRACK, tiles.STREAM}
        task = tiles.TILE_TASK[t]
        if 0 <= task < tiles.T_CONNECTION:
            assert task + 1 in edges
        if task == tiles.T_DOUBLE:
            assert {int(k) + 1 for k in tiles.TILE_PAIR[t]} <= edges
    pairs = {tuple(tiles.TASK_TYPES[int(k)] for k in tiles.TILE_PAIR[t]) for t in range(69) if tiles.TILE_TASK[t] == 6}
    assert pairs == set(tiles.DOUBLE_PAIRS)


def test_rotation_table_marks_identical_orientations():
    for t in range(tiles.NUM_TILES):
        for rot in range(6):
            first = int(tiles.TILE_CANON[t, rot])
            assert first <= rot
            assert np.array_equal(np.roll(tiles.TILE_EDGES[t], rot), np.roll(tiles.TILE_EDGES[t], first))
            assert all(
                not np.array_equal(np.roll(tiles.TILE_EDGES[t], rot), np.roll(tiles.TILE_EDGES[t], r))
                for r in range(first)
            )
