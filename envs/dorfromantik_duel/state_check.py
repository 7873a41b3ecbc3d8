"""Checks a deserialized, unpickled or hand-edited state record (and every scenario) before compiled
code reads it.

numba does not check bounds, so every field is range-checked for the phase the record is in
(finished games included), and the invariants the core keeps are checked across fields: the
tiles (each in one place: a stack, a board, set aside), the markers (each value once), the
counts kept in step with the boards, the areas (recomputed by the core's flood fill and
compared), the score pad (recomputed where the core last wrote it), the turn and its tile.
Only then is compiled code called on a copy: to recompute, and to see that the seat to act
has a legal action. A record that passes is one the core could have produced (from a reset or
a scenario), so the core's indices and loop bounds stay in range from it on: at most 71 tiles
ever reach a board (``order``'s size), every marker drawn exists, every cell a field names is
on the board. tests/fuzz (``python -m tests.fuzz.campaign --boundscheck``) tries forgeries.
"""

import itertools

import numpy as np

from envs.dorfromantik_duel.areas import relabel_areas
from envs.dorfromantik_duel.grid import LINE_BITS, TURNED_EDGES
from envs.dorfromantik_duel.placement import is_legal, legal_into
from envs.dorfromantik_duel.rules import (
    BOXED_LANDSCAPE,
    DIR_Q,
    DIR_R,
    DOUBLE_VALUE,
    FIRST_TASK_TURNS,
    MARKER_VALUES,
    MIN_OPEN_MARKERS,
    MK_CANCELLED,
    MK_DONE,
    MK_NONE,
    MK_OPEN,
    NUM_MARKER_TYPES,
    NUM_PLAYERS,
    PH_PLACE,
    DorfromantikDuelConfig,
    cell_of,
    coords_of,
    hex_distance,
    num_actions,
    num_cells,
    on_board,
)
from envs.dorfromantik_duel.scoring import score_board
from envs.dorfromantik_duel.state import MAX_PLACED
from envs.dorfromantik_duel.state_check_expansions import check_expansion_scores, check_expansions
from envs.dorfromantik_duel.tiles import (
    NUM_LANDSCAPE,
    NUM_TASK,
    NUM_TILE_IDS,
    NUM_TILES,
    T_DOUBLE,
    TASKS_PER_TYPE,
    TILE_TASK,
    TRACK,
)

MAX_SCENARIO_TURN = 1000  # scenario option 'turn': turns played before the scenario's first tile
MAX_INFO_VERSION = 100_000  # a few increments a turn, a few hundred turns at most
# The score pad's bounds: flags count a territory per flag tile (2 flag tiles per colour),
# a line is at most every tile; the total is far below this.
MAX_FLAG_POINTS = 2 * MAX_PLACED
MAX_TOTAL = 2000


def fail(message: str) -> None:
    raise ValueError(message)


def _in(rec: np.void, key: str, lo: int, hi: int, values: np.ndarray | None = None) -> None:
    arr = np.asarray(rec[key] if values is None else values)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        fail(f"state field {key!r} out of range [{lo}, {hi}]")


# the record's config bytes and the knob each one holds (``DorfromantikDuel.new_state`` writes them)
SWITCH_FIELDS = (
    ("distinct_rotations", "distinct_rotations"),
    ("forbid_doomed_tasks", "forbid_doomed_tasks"),
    ("module_task_cards", "module_task_cards"),
    ("module_poi", "module_points_of_interest"),
    ("placement_prior", "placement_prior"),
    ("placement_candidates", "placement_candidates"),
    ("observe_boards", "observe_boards"),
)


def check_state(rec: np.void, config: DorfromantikDuelConfig) -> None:
    """ValueError naming the first field that the core could not have produced."""
    radius = config.board_radius
    got = (int(rec["radius"]), *(bool(rec[field]) for field, _ in SWITCH_FIELDS))
    want = (radius, *(getattr(config, name) for _, name in SWITCH_FIELDS))
    if got != want:
        fail(f"state config fields {got} differ from the env's config {want}")
    for field, _ in SWITCH_FIELDS:
        _in(rec, field, 0, 1)
    _header(rec)
    nc = num_cells(radius)
    revealed = _stacks(rec)
    for p in range(NUM_PLAYERS):
        _board(rec, p, radius, nc)
        _tasks(rec, p)
    _turn(rec, revealed)
    check_expansions(rec)
    holder = np.zeros(1, rec.dtype)
    holder[0] = rec
    h = holder[0]
    for p in range(NUM_PLAYERS):
        relabel_areas(h, p)
        n = int(rec["n_placed"][p])
        for key in ("area_root", "area_size", "area_open"):
            if not np.array_equal(h[key][p][:, :n], rec[key][p][:, :n]):
                fail(f"state field {key!r} does not match the board (areas recomputed)")
    _scores(rec, holder)
    _to_act(rec, radius, holder)


# -- the header ------------------------------------------------------------------------------


def _header(rec: np.void) -> None:
    """The generator, the rewards of the last step, the winner, the infos' version."""
    if int(rec["rng"]) == 0:
        fail("state field 'rng' is 0: the xorshift generator would draw zeros for ever")
    rewards = np.asarray(rec["rewards"], np.float64)
    if not np.all(np.isfinite(rewards)):
        fail("state field 'rewards' is not finite")
    _in(rec, "info_version", 0, MAX_INFO_VERSION)
    _in(rec, "winner", -1, 2)
    winner = int(rec["winner"])
    if not rec["done"]:
        if winner != -1:
            fail("state field 'winner' is set while the game goes on")
        if np.any(rewards != 0.0):
            fail("state field 'rewards' must be 0 while the game goes on (each step zeroes it)")
        return
    if winner == -1:
        fail("state field 'winner' is -1 in a finished game")
    want = {0: (1.0, -1.0), 1: (-1.0, 1.0), 2: (0.0, 0.0)}[winner]
    if tuple(rewards.tolist()) != want:
        fail(f"state field 'rewards' {rewards.tolist()} does not fit the winner {winner} (want {list(want)})")
    if int(rec["info_version"]) < 1:
        fail("state field 'info_version' is 0 in a finished game (the end moves it)")


# -- stacks, tiles, markers ------------------------------------------------------------------


def _distinct(values: np.ndarray, what: str) -> None:
    if len(set(values.tolist())) != len(values):
        fail(f"state field {what!r} holds a tile twice")


def _stacks(rec: np.void) -> set[int]:
    """The two stacks and the markers; returns the tiles revealed so far."""
    _in(rec, "land_len", 0, NUM_LANDSCAPE)
    _in(rec, "land_n", 0, int(rec["land_len"]))
    _in(rec, "land_pos", 0, int(rec["land_n"]))
    _in(rec, "task_n", 0, NUM_TASK)
    _in(rec, "task_pos", 0, int(rec["task_n"]))
    land_len, land_pos = int(rec["land_len"]), int(rec["land_pos"])
    boxed = land_len - int(rec["land_n"])
    if boxed not in (0, BOXED_LANDSCAPE) or (boxed and land_len <= BOXED_LANDSCAPE):
        fail(f"state field 'land_n': {boxed} landscape tiles boxed (setup boxes {BOXED_LANDSCAPE}, a scenario none)")
    task_n, task_pos = int(rec["task_n"]), int(rec["task_pos"])
    land, task = rec["land"][:land_len], rec["task"][:task_n]
    _in(rec, "land", 0, NUM_LANDSCAPE - 1, land)
    _in(rec, "task", NUM_LANDSCAPE, NUM_TILES - 1, task)
    if np.any(rec["land"][land_len:] != 0) or np.any(rec["task"][task_n:] != 0):
        fail("state fields 'land'/'task' hold tiles past the stack's end")
    _distinct(land, "land")
    _distinct(task, "task")
    remaining = np.concatenate([land[land_pos:], task[task_pos:]]).astype(np.int64)
    revealed = {int(t) for t in np.concatenate([land[:land_pos], task[:task_pos]])}
    _in(rec, "unseen", 0, 1)
    unseen = np.zeros(NUM_TILES, np.uint8)
    unseen[remaining] = 1
    if not np.array_equal(rec["unseen"], unseen):
        fail("state field 'unseen' does not mark exactly the tiles still in the stacks")
    _in(rec, "used", 0, 2)
    if np.any(rec["used"][:, remaining] != 0):
        fail("state field 'used' marks a tile that is still in a stack")
    revealed_types = TILE_TASK[task[:task_pos].astype(np.int64)]
    left_types = TILE_TASK[task[task_pos:].astype(np.int64)]
    for t in range(NUM_MARKER_TYPES):
        n, pos = int(rec["markers_n"][t]), int(rec["markers_pos"][t])
        if not 0 <= n <= TASKS_PER_TYPE[t] or not 0 <= pos <= n:
            fail("state fields 'markers_n'/'markers_pos' out of range")
        values = rec["markers"][t, :n]
        if t == T_DOUBLE:
            _in(rec, "markers", DOUBLE_VALUE, DOUBLE_VALUE, values)
        else:
            _in(rec, "markers", MARKER_VALUES[0], MARKER_VALUES[-1], values)
            if len(set(values.tolist())) != n:
                fail("state field 'markers' holds a marker value twice")
        if np.any(rec["markers"][t, n:] != 0):
            fail("state field 'markers' holds markers past the stack's end")
        if pos != int(np.sum(revealed_types == t)):
            fail("state field 'markers_pos' does not match the task tiles revealed")
        if int(np.sum(left_types == t)) > n - pos:
            fail("state field 'markers': fewer markers left than task tiles of that type")
    return revealed


def _turn(rec: np.void, revealed: set[int]) -> None:
    """The turn count, this turn's tile and marker, and which tiles each seat has placed or passed."""
    done = bool(rec["done"])
    live_place = not done and int(rec["phase"]) == PH_PLACE
    _in(rec, "turn", 0, MAX_SCENARIO_TURN + NUM_TILES)
    before = int(rec["turn"]) - len(revealed) + (0 if done else 1)  # turns played before the first tile
    if not 0 <= before <= MAX_SCENARIO_TURN:
        fail("state field 'turn' does not match the tiles revealed")
    _in(rec, "tile", -1, NUM_TILES - 1)
    _in(rec, "mk_type", -1, NUM_MARKER_TYPES - 1)
    _in(rec, "mk_value", 0, DOUBLE_VALUE)
    tile = int(rec["tile"])
    if (tile < 0) != done:
        fail("state field 'tile' must be -1 exactly when the game is over")
    open_markers = rec["open_markers"]
    need_task = int(rec["turn"]) < FIRST_TASK_TURNS or int(open_markers.min()) < MIN_OPEN_MARKERS
    tasks_left = int(rec["task_pos"]) < int(rec["task_n"])
    if done:
        if int(rec["mk_type"]) != -1 or int(rec["mk_value"]) != 0:
            fail("state fields 'mk_type'/'mk_value' set in a finished game")
        if int(rec["land_pos"]) != int(rec["land_n"]) or (need_task and tasks_left):
            fail("state field 'done': the game is over but a tile is still due")
    else:
        t = int(TILE_TASK[tile])
        if t >= 0:
            pos = int(rec["task_pos"])
            if pos == 0 or int(rec["task"][pos - 1]) != tile:
                fail("state field 'tile' is not the task tile revealed last")
            if int(rec["mk_type"]) != t or int(rec["mk_value"]) != int(
                rec["markers"][t, int(rec["markers_pos"][t]) - 1]
            ):
                fail("state fields 'mk_type'/'mk_value' are not the marker drawn with this tile")
        else:
            pos = int(rec["land_pos"])
            if pos == 0 or int(rec["land"][pos - 1]) != tile:
                fail("state field 'tile' is not the landscape tile revealed last")
            if int(rec["mk_type"]) != -1 or int(rec["mk_value"]) != 0:
                fail("state fields 'mk_type'/'mk_value' set for a landscape tile")
        if live_place and (not need_task if t >= 0 else need_task and tasks_left):
            fail("state field 'tile': the rules reveal a task tile exactly when one is due and left")
        placed = rec["used"][:, tile]
        if live_place and np.any(placed != 0):
            fail("state field 'used': this turn's tile is already placed or passed")
        if not live_place and np.any(placed == 0):
            fail("state field 'used': this turn's tile is not placed or passed after the placement phase")
    for t in revealed:
        if t == tile and live_place:
            continue
        if np.any(rec["used"][:, t] == 0):
            fail("state field 'used': a tile revealed in an earlier turn is neither placed nor passed")
    passed = np.flatnonzero(np.any(rec["used"] == 2, axis=0))
    if any(int(t) not in revealed for t in passed):
        fail("state field 'used': a tile was passed that was never revealed")


# -- the boards --------------------------------------------------------------------------------


def _board(rec: np.void, p: int, radius: int, nc: int) -> None:
    """Seat p's board: cells, tiles, edges, markers, extent, and the empty cells left clean."""
    n = int(rec["n_placed"][p])
    if not 0 <= n <= MAX_PLACED:
        fail("state field 'n_placed' out of range")
    _in(rec, "cell_tile", -1, (NUM_TILE_IDS if rec["module_poi"] else NUM_TILES) - 1, rec["cell_tile"][p])
    _in(rec, "cell_rot", 0, 5, rec["cell_rot"][p])
    _in(rec, "cell_edge", 0, 5, rec["cell_edge"][p])
    _in(rec, "cell_mk_type", -1, NUM_MARKER_TYPES - 1, rec["cell_mk_type"][p])
    _in(rec, "cell_mk_value", 0, DOUBLE_VALUE, rec["cell_mk_value"][p])
    _in(rec, "cell_mk_state", MK_NONE, MK_CANCELLED, rec["cell_mk_state"][p])
    _in(rec, "area_root", -1, MAX_PLACED - 1, rec["area_root"][p])
    _in(rec, "area_size", 0, MAX_PLACED, rec["area_size"][p])
    _in(rec, "area_open", 0, 6 * MAX_PLACED, rec["area_open"][p])
    cells = [int(c) for c in rec["order"][p, :n]]
    if len(set(cells)) != n or any(not 0 <= c < nc or not on_board(radius, *coords_of(radius, c)) for c in cells):
        fail("state field 'order' holds repeated or off-board cells")
    if np.any(rec["order"][p, n:] != -1):
        fail("state field 'order' holds cells past 'n_placed'")
    occupied = np.flatnonzero(rec["cell_tile"][p] >= 0)
    if sorted(cells) != occupied.tolist():
        fail("state fields 'order' and 'cell_tile' disagree")
    empty = rec["cell_tile"][p] < 0
    for key, value in (
        ("cell_rot", 0),
        ("cell_edge", 0),
        ("cell_mk_type", -1),
        ("cell_mk_value", 0),
        ("cell_mk_state", MK_NONE),
        ("cell_heart", 0),
        ("cell_camera", 0),
    ):
        if np.any(rec[key][p][empty] != value):
            fail(f"state field {key!r} is set on an empty cell")
    for key, value in (("area_root", -1), ("area_size", 0), ("area_open", 0)):
        if np.any(rec[key][p][:, n:] != value):
            fail(f"state field {key!r} is set past 'n_placed'")
    index = np.full(nc, -1, np.int64)
    index[cells] = np.arange(n)
    if not np.array_equal(rec["cell_index"][p], index):
        fail("state fields 'cell_index' and 'order' disagree")
    _frontier(rec, p, radius, cells)
    tiles = rec["cell_tile"][p, cells].astype(np.int64)
    game_tiles = tiles[tiles < NUM_TILES]
    if len(set(tiles.tolist())) != n or np.any(rec["used"][p, game_tiles] != 1):
        fail("state fields 'cell_tile' and 'used' disagree")
    if int(np.sum(rec["used"][p] == 1)) != len(game_tiles):
        fail("state field 'used' marks tiles that are not on the board")
    extent = max((hex_distance(*coords_of(radius, c)) for c in cells), default=0)
    if extent != int(rec["extent"][p]):
        fail("state field 'extent' does not match the board")
    if not np.array_equal(rec["cell_edge"][p, cells], TURNED_EDGES[tiles, rec["cell_rot"][p, cells]]):
        fail("state field 'cell_edge' does not match the tile and rotation")
    n_open = 0
    for c, tile in zip(cells, tiles.tolist(), strict=True):
        st, t, v = (int(rec[key][p, c]) for key in ("cell_mk_state", "cell_mk_type", "cell_mk_value"))
        if st == MK_NONE:
            if t != -1 or v != 0:
                fail("state fields 'cell_mk_type'/'cell_mk_value' set on a cell without a marker")
        elif t < 0 or t != TILE_TASK[tile] or v not in _marker_values(t):
            fail("state fields 'cell_mk_type'/'cell_mk_value' do not fit the tile")
        n_open += st == MK_OPEN
    if n_open != int(rec["open_markers"][p]):
        fail("state field 'open_markers' does not match the board")
    _shape(rec, p, radius, cells)


def _frontier(rec: np.void, p: int, radius: int, cells: list[int]) -> None:
    """The empty cells touching p's tiles, in the order of the tiles they first touch."""
    placed = set(cells)
    want: list[int] = []
    for c in cells:
        q, r = coords_of(radius, c)
        for d in range(6):
            if on_board(radius, q + DIR_Q[d], r + DIR_R[d]):
                nb = cell_of(radius, q + DIR_Q[d], r + DIR_R[d])
                if nb not in placed and nb not in want:
                    want.append(nb)
    got = rec["frontier"][p]
    if int(rec["n_frontier"][p]) != len(want) or got[: len(want)].tolist() != want or np.any(got[len(want) :] != -1):
        fail("state fields 'frontier'/'n_frontier' do not match the board")
    codes = np.zeros(got.shape[0], np.int64)
    masks = np.zeros(got.shape[0], np.int64)
    for i, nb in enumerate(want):
        q, r = coords_of(radius, nb)
        for d in range(6):
            x = (q + DIR_Q[d], r + DIR_R[d])
            if on_board(radius, *x) and cell_of(radius, *x) in placed:
                edge = int(rec["cell_edge"][p, cell_of(radius, *x), (d + 3) % 6])
                masks[i] |= 3 << (LINE_BITS * d)
                codes[i] |= (edge - TRACK + 1 if edge >= TRACK else 0) << (LINE_BITS * d)
    if not np.array_equal(rec["frontier_code"][p], codes) or not np.array_equal(rec["frontier_mask"][p], masks):
        fail("state fields 'frontier_code'/'frontier_mask' do not match the board")


def _marker_values(t: int) -> tuple[int, ...]:
    return (DOUBLE_VALUE,) if t == T_DOUBLE else MARKER_VALUES


def _shape(rec: np.void, p: int, radius: int, cells: list[int]) -> None:
    """One connected group; track and stream edges meet only their own kind."""
    if not cells:
        return
    at = {coords_of(radius, c): c for c in cells}
    edges = rec["cell_edge"][p]
    seen = {cells[0]}
    todo = [coords_of(radius, cells[0])]
    while todo:
        q, r = todo.pop()
        c = at[(q, r)]
        for d in range(6):
            nb = at.get((q + DIR_Q[d], r + DIR_R[d]))
            if nb is None:
                continue
            e, f = int(edges[c, d]), int(edges[nb, (d + 3) % 6])
            if (e >= TRACK or f >= TRACK) and e != f:
                fail("state field 'cell_edge': a track or stream edge meets a different edge")
            if nb not in seen:
                seen.add(nb)
                todo.append((q + DIR_Q[d], r + DIR_R[d]))
    if len(seen) != len(cells):
        fail("state field 'cell_tile': the board is not one connected group")


def _tasks(rec: np.void, p: int) -> None:
    """Seat p's score pad for tasks: the markers on its board plus those completed before a scenario."""
    _in(rec, "open_markers", 0, NUM_TASK, rec["open_markers"][p])
    n = int(rec["n_placed"][p])
    cells = rec["order"][p, :n]
    states = rec["cell_mk_state"][p, cells]
    types = rec["cell_mk_type"][p, cells]
    values = rec["cell_mk_value"][p, cells].astype(np.int64)
    for t in range(NUM_MARKER_TYPES):
        done_, cancelled = int(rec["tasks_done"][p, t]), int(rec["tasks_cancelled"][p, t])
        points = int(rec["task_points"][p, t])
        mine = (types == t) & (states != MK_NONE)
        vals = values[mine].tolist()
        on_board_done = values[mine & (states == MK_DONE)]
        if cancelled != int(np.sum(mine & (states == MK_CANCELLED))):
            fail("state field 'tasks_cancelled' does not match the board")
        extra = done_ - len(on_board_done)  # completed before a scenario's first tile
        if extra < 0 or len(vals) + extra > TASKS_PER_TYPE[t]:
            fail("state field 'tasks_done' does not match the board")
        stack = rec["markers"][t, int(rec["markers_pos"][t]) : int(rec["markers_n"][t])].tolist()
        extra_points = points - int(on_board_done.sum())
        if t == T_DOUBLE:
            ok = extra_points == DOUBLE_VALUE * extra
        else:
            if len(set(vals)) != len(vals) or set(vals) & set(stack):
                fail("state field 'cell_mk_value': a marker value twice")
            free = set(MARKER_VALUES) - set(vals) - set(rec["markers"][t, : int(rec["markers_n"][t])].tolist())
            ok = any(sum(c) == extra_points for c in itertools.combinations(sorted(free), extra))
        if not ok:
            fail("state field 'task_points' does not match the completed tasks")


# -- scores and the seat to act -------------------------------------------------------------------


def _scores(rec: np.void, holder: np.ndarray) -> None:
    """The pad the core wrote at the end of the last turn: recomputed at a turn's start and at the end."""
    _in(rec, "flag_points", 0, MAX_FLAG_POINTS)
    _in(rec, "longest", 0, MAX_PLACED)
    _in(rec, "total", 0, MAX_TOTAL)
    check_expansion_scores(rec, holder[0])
    if not rec["done"] and int(rec["phase"]) != PH_PLACE:
        return  # placements of this turn are not scored until it ends
    keys = ("flag_points", "longest", "total", "closed2", "card_points", "poi_points")
    fresh = not rec["n_placed"].any() and not any(np.any(rec[k]) for k in keys)  # as reset leaves it
    again = holder.copy()
    for p in range(NUM_PLAYERS):
        score_board(again[0], p)
    for key in keys:
        if not fresh and not np.array_equal(again[0][key], rec[key]):
            fail(f"state field {key!r} does not match the boards (score pad recomputed)")
    if rec["done"]:
        total = rec["total"]
        winner = 0 if total[0] > total[1] else (1 if total[1] > total[0] else 2)
        if int(rec["winner"]) != winner:
            fail("state field 'winner' does not match the totals")


def _to_act(rec: np.void, radius: int, holder: np.ndarray) -> None:
    """Seat 0's hidden choice, if it has made one, and at least one legal action for the seat to act."""
    pend = rec["pending"]
    if int(pend[1]) != -1:
        fail("state field 'pending' out of range")
    if rec["done"]:
        if int(pend[0]) != -1:
            fail("state field 'pending' set in a finished game")
        return
    cur = int(rec["current"])
    if not rec["acts"][cur]:
        fail(f"state field 'acts': seat {cur} is to act but does not decide in this phase")
    h = holder[0]
    if cur == 1 and rec["acts"][0]:
        a = int(pend[0])
        if not 0 <= a < num_actions(radius, bool(rec["module_poi"])):
            fail("state field 'pending' out of range")
        h["current"] = 0
        legal = is_legal(h, 0, a)
        h["current"] = cur
        if not legal:
            fail("state field 'pending' holds an action seat 0 could not have taken")
    elif int(pend[0]) != -1:
        fail("state field 'pending' set while seat 0 has not chosen")
    mask = np.zeros(num_actions(radius, bool(rec["module_poi"])), np.int8)
    if legal_into(h, mask) < 1:
        fail(f"state: seat {cur} is to act but has no legal action")


__all__ = ["MAX_SCENARIO_TURN", "check_state", "fail"]
