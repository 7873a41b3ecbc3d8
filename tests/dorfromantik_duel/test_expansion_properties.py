"""Both modules over 10,000 random games: the module rows recounted by the slow reference, the
bookkeeping of hearts, cameras and points of interest, determinism, and no leak."""

import random
from functools import partial

import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS
from envs.dorfromantik_duel.tiles import FOREST, NUM_TILES, VILLAGE
from tests import common
from tests.dorfromantik_duel import referee, reference
from tests.dorfromantik_duel.test_properties import (
    NUM_GAMES,
    PIECE_IDS,
    PIECES,
    PRIOR_GAMES,
    _disturb_numba_global_rng,
    board_of,
)

HEAD_START = 9  # completed tasks at the start (0..9 by game), so the 4th, 7th and 10th come up
MANY = {2: 1, 3: 2, 4: 4, 5: 6, 6: 9, 7: 12}  # the "many closed territories" card; 8 or more: 15
SPECIAL_TERRAIN = {69: VILLAGE, 70: 2, 71: FOREST}  # school, barn (grain), oak


@pytest.fixture(scope="module")
def games() -> np.ndarray:
    return referee.random_games(NUM_GAMES, DEFAULT_RADIUS, 0, True, True, HEAD_START)


def closed_counts(board: dict) -> tuple[list[int], list[int]]:
    """Closed territories of 2+ tiles, and of 5+, per landscape (forest, grain, village)."""
    two, five = [], []
    for terrain in (1, 2, 3):
        groups = {group: n_open for group, n_open in reference.areas(board, terrain).values()}
        closed = [len(g) for g, n_open in groups.items() if n_open == 0]
        two.append(sum(size >= 2 for size in closed))
        five.append(sum(size >= 5 for size in closed))
    return two, five


def card_points(snap, two: list[list[int]], five: list[list[int]]) -> list[list[int]]:
    """The cards recounted from the end boards; the closed-5+ card from who has such a territory."""
    out = [[0, 0, 0], [0, 0, 0]]
    for k in range(3):
        card = int(snap["cards"][k])
        for p in range(2):
            mine, theirs = two[p][k], two[1 - p][k]
            if card == 1:
                out[p][k] = 8 if mine > theirs else (4 if mine < theirs else 6)
            elif card == 2:
                out[p][k] = 15 if mine >= 8 else MANY.get(mine, 0)
        if card == 0:
            got = [int(snap["card_points"][p, k]) for p in range(2)]
            has = [five[p][k] > 0 for p in range(2)]
            assert [g > 0 for g in got] == has, "a closed 5+ territory never reopens: scored exactly when one exists"
            assert tuple(sorted(got)) in {(0, 0), (0, 8), (4, 8), (6, 6)}
            for p in range(2):
                out[p][k] = got[p]
    return out


def special_points(snap, p: int, board: dict) -> int:
    i = int(snap["special_cell"][p])
    if i < 0:
        return 0
    q0, r0 = int(snap["q"][p, i]), int(snap["r"][p, i])
    terrain = SPECIAL_TERRAIN[int(snap["tile"][p, i])]
    n = 0
    for (q, r), (tile, rot) in board.items():
        dq, dr = q - q0, r - r0
        if (q, r) != (q0, r0) and max(abs(dq), abs(dr), abs(dq + dr)) <= 2 and terrain in reference.edges(tile, rot):
            n += 1
    return n


def heart_points(snap, p: int, board: dict) -> int:
    n = 0
    for i in np.flatnonzero(snap["heart"][p]):
        cell = (int(snap["q"][p, i]), int(snap["r"][p, i]))
        mine = reference.edges(*board[cell])
        matches = 0
        for d in range(6):
            other = board.get(reference.step(cell, d))
            matches += other is not None and reference.edges(*other)[(d + 3) % 6] == mine[d]
        n += min(matches, 6)
    return n


def test_module_rows_equal_a_recount_in_ten_thousand_random_games(games):
    for snap in games:
        assert snap["steps"] >= 2 * snap["turn"]
        boards = [board_of(snap, p) for p in range(2)]
        counts = [closed_counts(b) for b in boards]
        cards = card_points(snap, [c[0] for c in counts], [c[1] for c in counts])
        for p in range(2):
            assert snap["closed2"][p].tolist() == counts[p][0]
            assert snap["card_points"][p].tolist() == cards[p]
            pts = [special_points(snap, p, boards[p]), int(snap["camera"][p].sum()), heart_points(snap, p, boards[p])]
            assert snap["poi_points"][p].tolist() == pts
            base = reference.score(boards[p], int(snap["task_points"][p].sum()))
            assert snap["flag_points"][p].tolist() == base["flags"]
            assert snap["longest"][p].tolist() == [base["track"], base["stream"]]
            assert snap["total"][p] == base["total"] + sum(cards[p]) + sum(pts)
            done = int(snap["tasks_done"][p].sum())
            assert snap["milestones"][p] == sum(done >= m for m in (4, 7, 10))
            taken = snap["poi_taken"][p]
            assert taken[:5].sum() <= snap["milestones"][p] and taken[:3].sum() <= 1
            hearts = int(snap["heart"][p].sum()) + int(snap["hearts_left"][p])
            assert hearts in ((2, 3) if taken[4] else (0,))
            assert all(int(snap["tile"][p, i]) < 42 for i in np.flatnonzero(snap["heart"][p])), "landscape only"
            if not taken[3]:
                assert NUM_TILES + 3 not in snap["tile"][p, : snap["n_placed"][p]], "no photographer's tile untaken"
        assert int(snap["cameras"].sum()) + int(snap["cameras_left"]) == 18
        assert snap["camera"].sum() == snap["cameras"].sum()
        if snap["poi_taken"][:, 4].all():
            totals = sorted(int(snap["heart"][p].sum()) + int(snap["hearts_left"][p]) for p in range(2))
            assert totals in ([2, 3], [3, 3])
    # the random games really exercise the module
    assert games["poi_taken"][:, :, :5].sum(axis=(0, 1)).min() > 50, "every point of interest gets chosen"
    assert games["heart"].sum() > 100 and games["camera"].sum() > 100 and games["poi_points"][:, :, 0].sum() > 100
    assert (games["card_points"] > 0).sum() > 1000


def test_deterministic_with_both_modules(games):
    random.seed(12345)
    np.random.seed(54321)
    _disturb_numba_global_rng(999)
    again = referee.random_games(NUM_GAMES, DEFAULT_RADIUS, 0, True, True, HEAD_START)
    assert again.tobytes() == games.tobytes()
    common.check_deterministic_despite_global_rng(
        partial(duel.env, module_task_cards=True, module_points_of_interest=True), seeds=range(3)
    )


@pytest.mark.parametrize("pieces", PIECES, ids=PIECE_IDS)
def test_no_hidden_information_leaks_with_both_modules(pieces):
    games = PRIOR_GAMES if pieces else NUM_GAMES
    states = referee.new_states(DEFAULT_RADIUS, 2, True, True, **pieces)
    raw = states.view(np.uint8).reshape(2, -1)
    env = duel.raw_env(module_task_cards=True, module_points_of_interest=True, **pieces)
    obs = [np.zeros(env.game.obs_size, np.float32) for _ in range(2)]
    masks = [np.zeros(env.game.num_actions, np.int8) for _ in range(2)]
    seeds = np.arange(games, dtype=np.uint64) + np.uint64(777)
    checked, leaks, public, reshuffled, repicked = referee.hidden_info_probe(
        states, raw, seeds, *obs, *masks, HEAD_START
    )
    assert checked == 2 * games and leaks == 0 and public == 0
    assert reshuffled > 0.95 * checked and repicked > 0.2 * checked
