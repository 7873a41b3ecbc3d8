"""The Duel's per-player tile set: 42 landscape + 27 task tiles, derived from the base game's lists.

The Duel's tiles are not published edge by edge. ``tiles.json`` keeps the base game's
transcribed lists verbatim and the set derived from them by ``derive_duel_set`` (the rule
is spelled out there and in seeds/dorfromantik_duel.md); a test re-derives and compares.
"""

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

# Edge letters, clockwise round the hex; the index is the terrain code used by the core.
TERRAIN_LETTERS = "MWGVTS"  # meadow, woods/forest, grain, village, track, stream
MEADOW, FOREST, GRAIN, VILLAGE, TRACK, STREAM = range(6)
TERRAIN_NAMES = ("meadow", "forest", "grain", "village", "track", "stream")

# Marker (task) types. 0..4 are also the "area kinds": kind k is terrain code k + 1.
TASK_TYPES = ("forest", "grain", "village", "track", "stream", "connection", "double")
T_CONNECTION, T_DOUBLE = 5, 6
DOUBLE_PAIRS = (("forest", "grain"), ("grain", "village"), ("village", "forest"))
FLAG_NAMES = ("green", "yellow", "red")  # flag k scores a closed territory of kind k (forest, grain, village)

NUM_LANDSCAPE = 42
NUM_TASK = 27
NUM_TILES = NUM_LANDSCAPE + NUM_TASK
TASKS_PER_TYPE = (4, 4, 4, 4, 4, 4, 3)

DATA_PATH = Path(__file__).with_name("tiles.json")

# Order in which typed task slots are filled: the scarcest terrain in the base task list first.
_SLOT_ORDER = ("track", "stream", "village", "forest", "grain")
_FLAG_TERRAINS = ("forest", "grain", "village")


def _count(edges: str, terrain: str) -> int:
    return edges.count(TERRAIN_LETTERS[TERRAIN_NAMES.index(terrain)])


def _others(edges: str, terrain: str) -> int:
    """Edges of other non-meadow terrains (the tie-break: prefer 'purer' tiles)."""
    own = TERRAIN_LETTERS[TERRAIN_NAMES.index(terrain)]
    return sum(1 for e in edges if e not in ("M", own))


def derive_duel_set(base_landscape: list[str], base_task: list[str]) -> dict[str, Any]:
    """The derivation rule (deterministic; documented in seeds/dorfromantik_duel.md).

    1. Landscape: lines 1-42 of the base landscape list, in file order.
    2. Flags: for forest, grain, village in turn, the two landscape tiles with the most edges of
       that terrain and no track or stream edge; ties go to fewer edges of other terrains, then
       file order; a tile carries at most one flag.
    3. Task tiles: each double (forest+grain, grain+village, village+forest) takes the first base
       task tile in file order with both terrains; then for track, stream, village, forest, grain
       (scarcest in the task list first) four tiles each, most edges of that terrain first, ties to
       fewer other-terrain edges, then file order; the base task tiles left over are connection
       tasks, and the remaining connection slots take base landscape lines 43.. in file order.
    """
    if len(base_landscape) != 48 or len(base_task) != 25:
        raise ValueError("expected the base game's 48 landscape and 25 task tiles")
    landscape = [
        {"id": f"L{i:02d}", "edges": e, "flag": None, "source": f"landscape line {i + 1}"}
        for i, e in enumerate(base_landscape[:NUM_LANDSCAPE])
    ]
    flagged: set[int] = set()
    for k, terrain in enumerate(_FLAG_TERRAINS):
        candidates = [
            i
            for i, t in enumerate(landscape)
            if i not in flagged and _count(t["edges"], terrain) > 0 and "T" not in t["edges"] and "S" not in t["edges"]
        ]
        candidates.sort(
            key=lambda i: (-_count(landscape[i]["edges"], terrain), _others(landscape[i]["edges"], terrain), i)
        )
        for i in candidates[:2]:
            landscape[i]["flag"] = FLAG_NAMES[k]
            flagged.add(i)

    free = list(range(len(base_task)))
    chosen: dict[str, list[int]] = {}
    for a, b in DOUBLE_PAIRS:
        i = next(i for i in free if _count(base_task[i], a) and _count(base_task[i], b))
        chosen[f"{a}+{b}"] = [i]
        free.remove(i)
    for terrain in _SLOT_ORDER:
        ranked = sorted(
            (i for i in free if _count(base_task[i], terrain)),
            key=lambda i: (-_count(base_task[i], terrain), _others(base_task[i], terrain), i),
        )
        chosen[terrain] = ranked[:4]
        for i in ranked[:4]:
            free.remove(i)
    connection = [("task", i) for i in free]
    spare = iter(range(NUM_LANDSCAPE, len(base_landscape)))
    while len(connection) < 4:
        connection.append(("landscape", next(spare)))

    task: list[dict[str, Any]] = []

    def add(kind: str, src: str, i: int) -> None:
        edges = base_task[i] if src == "task" else base_landscape[i]
        task.append({"id": f"T{len(task):02d}", "edges": edges, "task": kind, "source": f"{src} line {i + 1}"})

    for terrain in ("forest", "grain", "village", "track", "stream"):
        for i in sorted(chosen[terrain]):
            add(terrain, "task", i)
    for src, i in connection:
        add("connection", src, i)
    for a, b in DOUBLE_PAIRS:
        add(f"{a}+{b}", "task", chosen[f"{a}+{b}"][0])
    unused = [f"landscape line {i + 1}" for i in spare]
    return {"landscape": landscape, "task": task, "unused": unused}


def load_data(path: Path = DATA_PATH) -> dict[str, Any]:
    """The JSON data file: base lists, the derived set, and where it came from."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _task_type(name: str) -> int:
    return T_DOUBLE if "+" in name else TASK_TYPES.index(name)


def build_tables(data: dict[str, Any]) -> dict[str, np.ndarray]:
    """Arrays the core reads: edges (terrain codes), flag kind, task type, double pair, tile names."""
    tiles = data["landscape"] + data["task"]
    n = len(tiles)
    edges = np.zeros((n, 6), np.int8)
    flag = np.full(n, -1, np.int8)
    task = np.full(n, -1, np.int8)
    pair = np.full((n, 2), -1, np.int8)
    for i, t in enumerate(tiles):
        edges[i] = [TERRAIN_LETTERS.index(c) for c in t["edges"]]
        if t.get("flag"):
            flag[i] = FLAG_NAMES.index(t["flag"])
        if "task" in t:
            task[i] = _task_type(t["task"])
            if task[i] == T_DOUBLE:
                a, b = t["task"].split("+")
                pair[i] = (TASK_TYPES.index(a), TASK_TYPES.index(b))
    canon = np.zeros((n, 6), np.int8)
    for i in range(n):
        seen: dict[tuple, int] = {}
        for rot in range(6):
            key = tuple(np.roll(edges[i], rot))
            canon[i, rot] = seen.setdefault(key, rot)
    names = tuple(t["id"] for t in tiles)
    return {"edges": edges, "flag": flag, "task": task, "pair": pair, "canon": canon, "names": names}


def describe_tile(tile: int) -> str:
    """``L17 MWWWWW green flag`` or ``T03 MMWMMW forest task``: for texts and errors."""
    if tile >= NUM_TILES:
        i = tile - NUM_TILES
        return f"{SPECIAL_NAMES[i]} {TERRAIN_LETTERS[SPECIAL_TERRAIN[i]] * 6} special tile"
    t = (_DATA["landscape"] + _DATA["task"])[tile]
    extra = f" {t['flag']} flag" if t.get("flag") else (f" {t['task']} task" if "task" in t else "")
    return f"{t['id']} {t['edges']}{extra}"


def set_summary(data: dict[str, Any]) -> dict[str, int]:
    """The counts the rules document fixes ("Components"): landscape, flags by colour, task tiles by type."""
    c: Counter = Counter()
    c["landscape"] = len(data["landscape"])
    for t in data["landscape"]:
        if t["flag"]:
            c[f"flag {t['flag']}"] += 1
    for t in data["task"]:
        c["task " + ("double" if "+" in t["task"] else t["task"])] += 1
    return dict(c)


_DATA = load_data()
TABLES = build_tables(_DATA)
TILE_NAMES: tuple[str, ...] = TABLES["names"]
TILE_EDGES: np.ndarray = TABLES["edges"]
TILE_FLAG: np.ndarray = TABLES["flag"]
TILE_TASK: np.ndarray = TABLES["task"]
TILE_PAIR: np.ndarray = TABLES["pair"]
TILE_CANON: np.ndarray = TABLES["canon"]

# Module 2's special tiles follow the 69 game tiles as ids 69..72. The manual does not show
# their edges; our choice (seeds/dorfromantik_duel.md): School, Barn and Oak show their
# terrain on all six edges, the Photographer's tile is all meadow (it joins no territory).
SPECIAL_NAMES = ("school", "barn", "oak", "photographer")
SPECIAL_TERRAIN = (VILLAGE, GRAIN, FOREST, MEADOW)
SPECIAL_FIRST = NUM_TILES
PHOTOGRAPHER_TILE = NUM_TILES + 3
NUM_TILE_IDS = NUM_TILES + len(SPECIAL_NAMES)


def _with_specials(table: np.ndarray, rows: list) -> np.ndarray:
    return np.concatenate([table, np.array(rows, table.dtype)])


TILE_EDGES = _with_specials(TILE_EDGES, [[t] * 6 for t in SPECIAL_TERRAIN])
TILE_FLAG = _with_specials(TILE_FLAG, [-1] * 4)
TILE_TASK = _with_specials(TILE_TASK, [-1] * 4)
TILE_PAIR = _with_specials(TILE_PAIR, [[-1, -1]] * 4)
TILE_CANON = _with_specials(TILE_CANON, [[0] * 6] * 4)
TILE_NAMES = TILE_NAMES + SPECIAL_NAMES
