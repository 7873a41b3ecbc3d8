"""Scenarios: ``reset(options={"scenario": {...}})`` sets up a position; every input is checked here,
in Python, so nothing malformed reaches the compiled core (keys: seeds/dorfromantik_duel.md)."""

from typing import Any

import numpy as np

from envs.dorfromantik_duel.rules import (
    BOXED_LANDSCAPE,
    DIR_Q,
    DIR_R,
    DOUBLE_VALUE,
    MARKER_VALUES,
    MK_OPEN,
    NUM_MARKER_TYPES,
    NUM_PLAYERS,
    cell_of,
    hex_distance,
)
from envs.dorfromantik_duel.scenario_expansions import (
    finish_points_of_interest,
    parse_cards,
    parse_points_of_interest,
    special_tiles_on_boards,
)
from envs.dorfromantik_duel.setup import clear_boards, setup_scenario
from envs.dorfromantik_duel.state_check import MAX_SCENARIO_TURN
from envs.dorfromantik_duel.tiles import (
    NUM_LANDSCAPE,
    NUM_TILES,
    T_DOUBLE,
    TASK_TYPES,
    TASKS_PER_TYPE,
    TILE_EDGES,
    TILE_NAMES,
    TILE_TASK,
    TRACK,
)
from envs.engine.checks import is_int
from envs.engine.rng import rng_below

KEYS = ("boards", "completed", "landscape", "tasks", "markers", "turn", "cards", "points_of_interest")


def tile_id(name: Any) -> int:
    """Tile id from its name (``L00``..``L41`` landscape, ``T00``..``T26`` task; Module 2's special
    tiles ``school``, ``barn``, ``oak``, ``photographer``)."""
    if isinstance(name, str) and name.strip() in TILE_NAMES:
        return TILE_NAMES.index(name.strip())
    raise ValueError(
        f"unknown tile {name!r}; tiles are named L00..L41 (landscape), T00..T26 (task), "
        "school, barn, oak, photographer (Module 2)"
    )


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if not is_int(value) or not lo <= value <= hi:
        raise ValueError(f"{what} must be an int in [{lo}, {hi}], got {value!r}")
    return int(value)


def _marker_values(t: int) -> tuple[int, ...]:
    return (DOUBLE_VALUE,) if t == T_DOUBLE else MARKER_VALUES


def _edge(tile: int, rot: int, d: int) -> int:
    return int(TILE_EDGES[tile, (d - rot) % 6])


def _parse_board(entries: Any, p: int, radius: int) -> list[tuple[int, int, int, int, int | None]]:
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"boards[{p}] must be a list of [tile, q, r, rot] or [tile, q, r, rot, marker]")
    out = []
    cells: dict[tuple[int, int], str] = {}
    tiles: set[int] = set()
    for e in entries:
        if not isinstance(e, (list, tuple)) or len(e) not in (4, 5):
            raise ValueError(f"boards[{p}] entry {e!r} must be [tile, q, r, rot] or [tile, q, r, rot, marker value]")
        tile = tile_id(e[0])
        q = _int(e[1], f"boards[{p}] {e[0]} q", -radius, radius)
        r = _int(e[2], f"boards[{p}] {e[0]} r", -radius, radius)
        if hex_distance(q, r) > radius:
            raise ValueError(f"boards[{p}] {e[0]} at q={q} r={r} is off a board of radius {radius}")
        rot = _int(e[3], f"boards[{p}] {e[0]} rot", 0, 5)
        marker = None
        if len(e) == 5 and e[4] is not None:
            t = int(TILE_TASK[tile])
            if t < 0:
                raise ValueError(f"boards[{p}] {e[0]} is a landscape tile and cannot carry a task marker")
            marker = _int(e[4], f"boards[{p}] {e[0]} marker", 3, 6)
            if marker not in _marker_values(t):
                raise ValueError(f"boards[{p}] {e[0]}: a {TASK_TYPES[t]} marker cannot have value {marker}")
        if tile in tiles:
            raise ValueError(f"boards[{p}] places {e[0]} twice")
        if (q, r) in cells:
            raise ValueError(f"boards[{p}] places {e[0]} and {cells[(q, r)]} in the same cell q={q} r={r}")
        tiles.add(tile)
        cells[(q, r)] = str(e[0])
        out.append((tile, q, r, rot, marker))
    _check_board_shape(out, p)
    return out


def _check_board_shape(board: list, p: int) -> None:
    """One connected group, and track/stream edges only against their own kind."""
    at = {(q, r): (tile, rot) for tile, q, r, rot, _ in board}
    if not at:
        return
    for (q, r), (tile, rot) in at.items():
        for d in range(6):
            other = at.get((q + DIR_Q[d], r + DIR_R[d]))
            if other is None:
                continue
            e, f = _edge(tile, rot, d), _edge(other[0], other[1], (d + 3) % 6)
            if (e >= TRACK or f >= TRACK) and e != f:
                raise ValueError(
                    f"boards[{p}]: {TILE_NAMES[tile]} at q={q} r={r} meets {TILE_NAMES[other[0]]} with a "
                    "track or stream edge against a different edge"
                )
    start = next(iter(at))
    seen = {start}
    todo = [start]
    while todo:
        q, r = todo.pop()
        for d in range(6):
            nb = (q + DIR_Q[d], r + DIR_R[d])
            if nb in at and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    if len(seen) != len(at):
        raise ValueError(f"boards[{p}] is not one connected group of tiles")


def _parse_completed(entries: Any, p: int) -> list[tuple[int, int]]:
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"completed[{p}] must be a list of [task type, value]")
    out = []
    for e in entries:
        if not isinstance(e, (list, tuple)) or len(e) != 2 or e[0] not in TASK_TYPES:
            raise ValueError(f"completed[{p}] entry {e!r} must be [task type, value], types {list(TASK_TYPES)}")
        t = TASK_TYPES.index(e[0])
        v = _int(e[1], f"completed[{p}] {e[0]} value", 3, 6)
        if v not in _marker_values(t):
            raise ValueError(f"completed[{p}]: a {e[0]} marker cannot have value {v}")
        out.append((t, v))
    return out


def _pair(options: dict, key: str) -> list:
    value = options.get(key, [[], []])
    if not isinstance(value, (list, tuple)) or len(value) != NUM_PLAYERS:
        raise ValueError(f"option {key!r} must be a list of two lists (seat 0, seat 1), got {value!r}")
    return list(value)


def _shuffled(rec: np.void, items: list[int]) -> list[int]:
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = int(rng_below(rec, i + 1))
        items[i], items[j] = items[j], items[i]
    return items


def _stack(options: dict, key: str, ids: range, taken: set[int]) -> list[int] | None:
    if key not in options:
        return None
    names = options[key]
    if not isinstance(names, (list, tuple)):
        raise ValueError(f"option {key!r} must be a list of tile names, top of the stack first")
    out = []
    for name in names:
        t = tile_id(name)
        if t not in ids:
            raise ValueError(f"option {key!r}: {name} is not a {key[:-1] if key == 'tasks' else key} tile")
        if t in taken or t in out:
            raise ValueError(f"option {key!r}: {name} is already on a board or earlier in the stack")
        out.append(t)
    return out


def apply_scenario(rec: np.void, options: dict[str, Any]) -> None:
    """Write a checked scenario into a freshly reset record, then reveal the first tile."""
    unknown = sorted(set(options) - set(KEYS))
    if unknown:
        raise ValueError(f"unknown Dorfromantik scenario key(s) {unknown}; known: {list(KEYS)}")
    radius = int(rec["radius"])
    boards = [_parse_board(b, p, radius) for p, b in enumerate(_pair(options, "boards"))]
    completed = [_parse_completed(c, p) for p, c in enumerate(_pair(options, "completed"))]

    owned = [_all_markers(boards[p], completed[p]) for p in range(NUM_PLAYERS)]
    for p in range(NUM_PLAYERS):
        for t in range(NUM_MARKER_TYPES):
            values = [v for tt, v in owned[p] if tt == t]
            if len(values) > TASKS_PER_TYPE[t] or (t != T_DOUBLE and len(set(values)) != len(values)):
                raise ValueError(f"seat {p} would own more {TASK_TYPES[t]} markers than exist: {sorted(values)}")
    used = {(t, v) for mine in owned for t, v in mine if t != T_DOUBLE}
    doubles_used = max(sum(1 for t, _ in mine if t == T_DOUBLE) for mine in owned)

    on_boards = {tile for b in boards for tile, *_ in b}
    land = _stack(options, "landscape", range(NUM_LANDSCAPE), on_boards)
    boxed = 0
    if land is None:
        land = _shuffled(rec, [t for t in range(NUM_LANDSCAPE) if t not in on_boards])
        boxed = BOXED_LANDSCAPE if len(land) > BOXED_LANDSCAPE else 0
    tasks = _stack(options, "tasks", range(NUM_LANDSCAPE, NUM_TILES), on_boards)
    if tasks is None:
        tasks = _shuffled(rec, [t for t in range(NUM_LANDSCAPE, NUM_TILES) if t not in on_boards])
    markers = _marker_stacks(rec, options, used, doubles_used)
    for t in range(NUM_MARKER_TYPES):
        need = sum(1 for tile in tasks if TILE_TASK[tile] == t)
        if need > len(markers[t]):
            raise ValueError(
                f"the task stack holds {need} {TASK_TYPES[t]} tile(s) but only {len(markers[t])} "
                f"{TASK_TYPES[t]} marker(s) are left; give option 'markers'"
            )
    default_turn = max(len(boards[0]), len(boards[1]))
    turn = _int(options.get("turn", default_turn), "option 'turn'", 0, MAX_SCENARIO_TURN)

    clear_boards(rec)
    rec["land"][:] = 0
    rec["land"][: len(land)] = land
    rec["land_n"] = len(land) - boxed
    rec["land_len"] = len(land)
    rec["land_pos"] = 0
    rec["task"][:] = 0
    rec["task"][: len(tasks)] = tasks
    rec["task_n"] = len(tasks)
    rec["task_pos"] = 0
    rec["markers"][:, :] = 0
    for t in range(NUM_MARKER_TYPES):
        rec["markers"][t, : len(markers[t])] = markers[t]
        rec["markers_n"][t] = len(markers[t])
        rec["markers_pos"][t] = 0
    rec["unseen"][:] = 0
    rec["unseen"][land + tasks] = 1
    rec["turn"] = turn
    for p in range(NUM_PLAYERS):
        _write_board(rec, p, boards[p], radius)
        for t, v in completed[p]:
            rec["task_points"][p, t] += v
            rec["tasks_done"][p, t] += 1
    special_tiles_on_boards(rec)
    if "cards" in options:
        parse_cards(rec, options["cards"])
    if "points_of_interest" in options:
        parse_points_of_interest(rec, options["points_of_interest"])
    finish_points_of_interest(rec)
    bad = setup_scenario(rec)
    if bad >= 0:
        p, cell = divmod(int(bad), (2 * radius + 1) ** 2)
        w = 2 * radius + 1
        q, r = cell % w - radius, cell // w - radius
        raise ValueError(
            f"boards[{p}]: the open marker on {TILE_NAMES[int(rec['cell_tile'][p, cell])]} at q={q} r={r} is "
            "already completed or cancelled by this board; leave it out or list it under 'completed'"
        )
    if rec["done"]:
        raise ValueError(
            "scenario key 'landscape': no landscape tile is left to reveal, and 'tasks' has no tile left or none "
            f"is due (turn {turn}, open markers {rec['open_markers'].tolist()}; a task tile comes while the turn "
            "is below 3 or a seat has fewer than 3 open markers), so the game would be over before its first "
            "turn; give 'landscape' tiles"
        )


def _all_markers(board: list, completed: list) -> list[tuple[int, int]]:
    return [(int(TILE_TASK[tile]), m) for tile, *_, m in board if m is not None] + list(completed)


def _marker_stacks(rec: np.void, options: dict, used: set[tuple[int, int]], doubles_used: int) -> list[list[int]]:
    given = options.get("markers", {})
    if not isinstance(given, dict) or any(k not in TASK_TYPES for k in given):
        raise ValueError(f"option 'markers' must map task types {list(TASK_TYPES)} to lists of values")
    stacks = []
    for t, name in enumerate(TASK_TYPES):
        if name in given:
            values = given[name]
            if not isinstance(values, (list, tuple)):
                raise ValueError(f"option 'markers'[{name!r}] must be a list of values, top first")
            values = [_int(v, f"option 'markers'[{name!r}] value", 3, 6) for v in values]
            if any(v not in _marker_values(t) for v in values):
                raise ValueError(f"option 'markers'[{name!r}]: values must be in {_marker_values(t)}")
            if t == T_DOUBLE:
                if len(values) > TASKS_PER_TYPE[t] - doubles_used:
                    raise ValueError(f"option 'markers'[{name!r}]: more double markers than are left")
            elif len(set(values)) != len(values) or any((t, v) in used for v in values):
                raise ValueError(f"option 'markers'[{name!r}]: a value twice, or one already on a board: {values}")
            stacks.append(values)
        elif t == T_DOUBLE:
            stacks.append([DOUBLE_VALUE] * (TASKS_PER_TYPE[t] - doubles_used))
        else:
            stacks.append(_shuffled(rec, [v for v in MARKER_VALUES if (t, v) not in used]))
    return stacks


def _write_board(rec: np.void, p: int, board: list, radius: int) -> None:
    for i, (tile, q, r, rot, marker) in enumerate(board):
        c = cell_of(radius, q, r)
        rec["cell_tile"][p, c] = tile
        rec["cell_rot"][p, c] = rot
        rec["cell_edge"][p, c] = [_edge(tile, rot, d) for d in range(6)]
        rec["order"][p, i] = c
        if tile < NUM_TILES:
            rec["used"][p, tile] = 1
        rec["extent"][p] = max(int(rec["extent"][p]), hex_distance(q, r))
        if marker is not None:
            rec["cell_mk_type"][p, c] = TILE_TASK[tile]
            rec["cell_mk_value"][p, c] = marker
            rec["cell_mk_state"][p, c] = MK_OPEN
    rec["n_placed"][p] = len(board)
