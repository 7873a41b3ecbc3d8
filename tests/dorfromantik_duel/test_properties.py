"""Properties over 10,000 random games, played by a compiled loop and recounted by the slow reference."""

import random

import numba
import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS, MK_DONE, MK_OPEN
from envs.dorfromantik_duel.tiles import NUM_LANDSCAPE
from tests import common
from tests.dorfromantik_duel import referee, reference

NUM_GAMES = 10_000
PRIOR_GAMES = 2_000  # fewer with the placement_prior or _candidates piece: a simulation per legal placement


def board_of(snap, p):
    n = int(snap["n_placed"][p])
    return {
        (int(snap["q"][p, i]), int(snap["r"][p, i])): (int(snap["tile"][p, i]), int(snap["rot"][p, i]))
        for i in range(n)
    }


def check_tiles_conserved(snap) -> None:
    """Every tile is on a board, passed, or still unseen (in a stack or boxed), exactly once."""
    assert snap["steps"] == 2 * snap["turn"], "a random game hit an illegal action or did not end"
    seen = snap["unseen"] == 0
    for p in range(2):
        used = snap["used"][p]
        placed = snap["tile"][p, : snap["n_placed"][p]]
        assert sorted(placed.tolist()) == np.flatnonzero(used == 1).tolist()
        assert np.array_equal(used > 0, seen), "every revealed tile was placed or passed, and nothing else"
        assert int((used > 0).sum()) == snap["turn"]
    assert int(seen[:NUM_LANDSCAPE].sum()) == 39, "every landscape tile but the 3 boxed ones"
    assert snap["land_pos"] == snap["land_n"] == 39
    assert int(seen[NUM_LANDSCAPE:].sum()) == snap["task_pos"] >= 3


def check_board_shape(snap, p) -> dict:
    """The first tile at the origin, each later one touching an earlier one, no illegal contact."""
    board = {}
    for i in range(int(snap["n_placed"][p])):
        cell = (int(snap["q"][p, i]), int(snap["r"][p, i]))
        if i == 0:
            assert cell == (0, 0), "the first tile goes to the origin"
        else:
            assert any(reference.step(cell, d) in board for d in range(6)), "a tile must touch an earlier one"
        board[cell] = (int(snap["tile"][p, i]), int(snap["rot"][p, i]))
    assert reference.bad_contacts(board) == []
    return board


def check_territories(snap, p, board, known) -> None:
    """The core's area through every tile, of every kind, equals the brute-force recount."""
    n = int(snap["n_placed"][p])
    cells = list(zip(snap["q"][p, :n].tolist(), snap["r"][p, :n].tolist(), strict=True))
    for k in range(5):
        found = [known[k + 1].get(cell, ((), 0)) for cell in cells]
        assert snap["area_size"][p, k, :n].tolist() == [len(group) for group, _ in found]
        assert snap["area_open"][p, k, :n].tolist() == [n_open for _, n_open in found]


def check_score(snap, p, board, known) -> int:
    """Task points are the completed markers; flags, lines and total match the recount."""
    n = int(snap["n_placed"][p])
    done = snap["mk_state"][p, :n] == MK_DONE
    points = np.zeros(7, np.int64)
    np.add.at(points, snap["mk_type"][p, :n][done], snap["mk_value"][p, :n][done])
    assert snap["task_points"][p].tolist() == points.tolist()
    assert snap["tasks_done"][p].tolist() == np.bincount(snap["mk_type"][p, :n][done], minlength=7).tolist()
    assert int(snap["open_markers"][p]) == int((snap["mk_state"][p, :n] == MK_OPEN).sum())
    got = reference.score(board, int(points.sum()), known)
    assert snap["flag_points"][p].tolist() == got["flags"]
    assert snap["longest"][p].tolist() == [got["track"], got["stream"]]
    assert snap["total"][p] == got["total"]
    for i in range(n):  # a marker still open is neither completed nor cancellable now
        if snap["mk_state"][p, i] == MK_OPEN:
            cell = (int(snap["q"][p, i]), int(snap["r"][p, i]))
            assert reference.marker_state(board, cell, int(snap["mk_value"][p, i]), known) == "open"
    return got["total"]


def test_ten_thousand_random_games_keep_every_invariant():
    """Tile conservation, legal contacts, territories, markers and scores, recounted for every game."""
    games = referee.random_games(NUM_GAMES, DEFAULT_RADIUS)
    for snap in games:
        check_tiles_conserved(snap)
        totals = []
        for p in range(2):
            board = check_board_shape(snap, p)
            known = reference.all_areas(board)
            check_territories(snap, p, board, known)
            totals.append(check_score(snap, p, board, known))
        expect = [0.0, 0.0] if totals[0] == totals[1] else ([1.0, -1.0] if totals[0] > totals[1] else [-1.0, 1.0])
        assert snap["rewards"].tolist() == expect
        assert snap["winner"] == (2 if totals[0] == totals[1] else int(totals[1] > totals[0]))
    assert games["tasks_done"].sum() > 0 and games["tasks_cancelled"].sum() > 0 and games["flag_points"].sum() > 0


@numba.njit(cache=True)
def _disturb_numba_global_rng(seed):
    np.random.seed(seed)
    return np.random.random()


def test_deterministic_with_the_global_generators_disturbed():
    quiet = referee.random_games(NUM_GAMES, DEFAULT_RADIUS)
    random.seed(12345)
    np.random.seed(54321)
    _disturb_numba_global_rng(999)
    noisy = referee.random_games(NUM_GAMES, DEFAULT_RADIUS)
    assert noisy.tobytes() == quiet.tobytes()
    common.check_deterministic_despite_global_rng(duel.env, seeds=range(3))


# the observation's optional pieces: each computed from a simulation of my board, so each is probed
PIECES = [{}, {"placement_prior": True}, {"placement_candidates": True}]
PIECE_IDS = ["default", "placement_prior", "placement_candidates"]


@pytest.mark.parametrize("pieces", PIECES, ids=PIECE_IDS)
def test_no_hidden_information_leaks_through_observations(pieces):
    """Resampling everything a seat cannot see (stack orders, boxed tiles, marker order, future
    chance, the other seat's unrevealed choice) leaves that seat's observation and mask unchanged;
    with the ``placement_prior`` and ``placement_candidates`` pieces too (they must read public parts only)."""
    games = PRIOR_GAMES if pieces else NUM_GAMES
    states = referee.new_states(DEFAULT_RADIUS, 2, **pieces)
    raw = states.view(np.uint8).reshape(2, -1)
    env = duel.raw_env(**pieces)
    obs = [np.zeros(env.game.obs_size, np.float32) for _ in range(2)]
    masks = [np.zeros(env.game.num_actions, np.int8) for _ in range(2)]
    seeds = np.arange(games, dtype=np.uint64) + np.uint64(777)
    checked, leaks, public, reshuffled, repicked = referee.hidden_info_probe(states, raw, seeds, *obs, *masks)
    assert checked == 2 * games
    assert leaks == 0 and public == 0
    assert reshuffled > 0.95 * checked, "the resampling must really move the hidden parts"
    assert repicked > 0.2 * checked, "seat 0's unrevealed choice is resampled for seat 1"


@pytest.mark.parametrize("pieces", PIECES, ids=PIECE_IDS)
def test_hidden_parts_resampled_by_hand_do_not_show(pieces):
    """The same, with the hidden parts permuted here rather than by the core's determinize."""
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(40):
        env = duel.raw_env(**pieces)
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 80))):
            env.step(common.random_legal(env.action_mask(), rng))
        rec = env._states[0]
        for seat in (0, 1):
            before = env.observe(f"player_{seat}")
            twin = env.clone()
            t = twin._states[0]
            pos, n = int(t["land_pos"]), int(t["land_len"])
            t["land"][pos:n] = rng.permutation(t["land"][pos:n])
            pos, n = int(t["task_pos"]), int(t["task_n"])
            t["task"][pos:n] = rng.permutation(t["task"][pos:n])
            for k in range(7):
                pos, n = int(t["markers_pos"][k]), int(t["markers_n"][k])
                t["markers"][k, pos:n] = rng.permutation(t["markers"][k, pos:n])
            t["rng"] = np.uint64(rng.integers(1, 2**63))
            if seat == 1 and rec["current"] == 1:
                t["current"] = 0
                options = twin.legal_actions("player_0")
                t["current"] = 1
                t["pending"][0] = options[int(rng.integers(len(options)))]
            twin.game.validate_state(t)
            after = twin.observe(f"player_{seat}")
            np.testing.assert_array_equal(before["observation"], after["observation"])
            np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
            checked += 1
    assert checked == 80


def test_determinize_depends_only_on_what_the_seat_saw():
    """Two states that differ only in what a seat cannot see determinize to the same state."""
    rng = np.random.default_rng(5)
    for seed in range(30):
        env = duel.raw_env()
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 80))):
            env.step(common.random_legal(env.action_mask(), rng))
        seat = int(rng.integers(2))
        a = env._states.copy()
        b = env._states.copy()
        t = b[0]
        for key, pos, end in (("land", "land_pos", "land_len"), ("task", "task_pos", "task_n")):
            t[key][int(t[pos]) : int(t[end])] = rng.permutation(t[key][int(t[pos]) : int(t[end])])
        for k in range(7):
            pos, n = int(t["markers_pos"][k]), int(t["markers_n"][k])
            t["markers"][k, pos:n] = rng.permutation(t["markers"][k, pos:n])
        t["rng"] = np.uint64(rng.integers(1, 2**63))
        if seat == 1 and t["current"] == 1:
            twin = env.clone()
            twin._states[0]["current"] = 0
            options = twin.legal_actions("player_0")
            t["pending"][0] = options[int(rng.integers(len(options)))]
        env.game.determinize_fn(a[0], seat, np.uint64(99))
        env.game.determinize_fn(b[0], seat, np.uint64(99))
        assert a.tobytes() == b.tobytes()
