"""A slow, plain-Python reading of the rules, written apart from the core, to recount its results.

Boards are dicts ``{(q, r): (tile, rot)}``; nothing here imports the compiled core.
"""

from envs.dorfromantik_duel.rules import DIR_Q, DIR_R
from envs.dorfromantik_duel.tiles import TILE_EDGES, TILE_FLAG, TILE_PAIR, TILE_TASK

TRACK, STREAM = 4, 5
KINDS = {"forest": 1, "grain": 2, "village": 3, "track": 4, "stream": 5}
DOUBLE, CONNECTION = 6, 5


_EDGES = [
    [tuple(int(TILE_EDGES[t][(d - rot) % 6]) for d in range(6)) for rot in range(6)] for t in range(len(TILE_EDGES))
]
_STEPS = list(zip(DIR_Q, DIR_R, strict=True))


def edges(tile: int, rot: int) -> tuple[int, ...]:
    """Terrain facing each direction (0 = NE, clockwise) of a tile turned rot steps clockwise."""
    return _EDGES[tile][rot]


def step(cell: tuple[int, int], d: int) -> tuple[int, int]:
    dq, dr = _STEPS[d]
    return cell[0] + dq, cell[1] + dr


def bad_contacts(board: dict) -> list[tuple]:
    """Every pair of touching edges where a track or stream edge meets a different edge."""
    bad = []
    for cell, (tile, rot) in board.items():
        mine = edges(tile, rot)
        for d in range(6):
            other = board.get(step(cell, d))
            if other is not None:
                theirs = edges(*other)[(d + 3) % 6]
                if (mine[d] >= TRACK or theirs >= TRACK) and mine[d] != theirs:
                    bad.append((cell, d))
    return bad


def areas(board: dict, terrain: int) -> dict:
    """``{cell: (area cells as a frozenset, open edges)}`` for every tile with an edge of ``terrain``.

    An edge is open when the cell it faces is empty."""
    out: dict = {}
    for start, (tile, rot) in board.items():
        if start in out or terrain not in _EDGES[tile][rot]:
            continue
        group = {start}
        todo = [start]
        n_open = 0
        while todo:
            cell = todo.pop()
            mine = _EDGES[board[cell][0]][board[cell][1]]
            for d in range(6):
                if mine[d] != terrain:
                    continue
                nb = step(cell, d)
                other = board.get(nb)
                if other is None:
                    n_open += 1
                elif _EDGES[other[0]][other[1]][(d + 3) % 6] == terrain and nb not in group:
                    group.add(nb)
                    todo.append(nb)
        frozen = frozenset(group)
        for cell in group:
            out[cell] = (frozen, n_open)
    return out


def all_areas(board: dict) -> dict:
    """``{terrain: areas(board, terrain)}`` for forest, grain, village, track and stream."""
    return {terrain: areas(board, terrain) for terrain in range(1, 6)}


def territory(board: dict, terrain: int, cell: tuple[int, int], known: dict | None = None) -> tuple[int, bool]:
    """(tiles, closed) of the area of ``terrain`` through the tile at ``cell`` (``known``: all_areas)."""
    found = (known[terrain] if known else areas(board, terrain)).get(cell)
    if found is None:
        return 1, True
    return len(found[0]), found[1] == 0


def marker_state(board: dict, cell: tuple[int, int], value: int, known: dict | None = None) -> str:
    """'done', 'cancel' or 'open' for a marker of ``value`` on the task tile at ``cell``, judged now."""
    tile = board[cell][0]
    t = int(TILE_TASK[tile])
    if t == CONNECTION:
        touching = sum(1 for d in range(6) if step(cell, d) in board)
        return "done" if touching == value else "open"
    kinds = [int(TILE_PAIR[tile][0]), int(TILE_PAIR[tile][1])] if t == DOUBLE else [t]
    results = [territory(board, k + 1, cell, known) for k in kinds]
    if any(size == value for size, _ in results):
        return "done"
    if all(size > value or closed for size, closed in results):
        return "cancel"
    return "open"


def legal_placements(board: dict, tile: int, value: int | None, radius: int, forbid_doomed: bool = True) -> set:
    """Every (q, r, rot) the rules allow for ``tile`` (a task tile carries a marker of ``value``)."""
    if not board:
        cells = [(0, 0)]
    else:
        cells = {step(c, d) for c in board for d in range(6)} - set(board)
    out = set()
    for q, r in cells:
        if max(abs(q), abs(r), abs(q + r)) > radius:
            continue
        for rot in range(6):
            trial = dict(board)
            trial[(q, r)] = (tile, rot)
            if bad_contacts(trial):
                continue
            if forbid_doomed and TILE_TASK[tile] >= 0:
                if TILE_TASK[tile] == CONNECTION:
                    if sum(1 for d in range(6) if step((q, r), d) in board) > value:
                        continue
                elif marker_state(trial, (q, r), value) == "cancel":
                    continue
            out.add((q, r, rot))
    return out


def score(board: dict, task_points: int, known: dict | None = None) -> dict:
    """Flags in closed territories, longest track and stream, and the total with the task points."""
    known = known or all_areas(board)
    flags = [0, 0, 0]
    for cell, (tile, _) in board.items():
        f = int(TILE_FLAG[tile])
        if f >= 0:
            size, closed = territory(board, f + 1, cell, known)
            if closed:
                flags[f] += size
    lines = []
    for terrain in (TRACK, STREAM):
        found = known[terrain]
        lines.append(max((len(g) for g, _ in found.values()), default=0))
    return {"flags": flags, "track": lines[0], "stream": lines[1], "total": task_points + sum(flags) + sum(lines)}
