"""Checks of the modules' fields in a deserialized or hand-edited record (see state_check.py):
indices in range, and the counts the core keeps in step with the boards."""

import numpy as np

from envs.dorfromantik_duel.rules import CAMERA_MARKERS, HEARTS_FIRST, NUM_PLAYERS, PH_SPECIAL, POI_MILESTONES
from envs.dorfromantik_duel.tiles import NUM_LANDSCAPE, NUM_TILE_IDS, PHOTOGRAPHER_TILE, SPECIAL_FIRST


def _in(rec: np.void, key: str, lo: int, hi: int) -> None:
    arr = np.asarray(rec[key])
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(f"state field {key!r} out of range [{lo}, {hi}]")


def _cell(rec: np.void, key: str, p: int, tiles: range, what: str) -> None:
    c = int(rec[key][p])
    if c == -1:
        return
    if not 0 <= c < rec["cell_tile"].shape[1] or int(rec["cell_tile"][p, c]) not in tiles:
        raise ValueError(f"state field {key!r} does not point at {what} on the board")


def check_modules(rec: np.void) -> None:
    """ValueError naming the first module field the core could not have produced."""
    _in(rec, "cards", 0 if rec["module_task_cards"] else -1, 2 if rec["module_task_cards"] else -1)
    if not rec["module_poi"]:
        for key in ("phase", "poi_due", "milestones", "poi_taken", "cameras", "cell_heart", "cell_camera"):
            if np.any(rec[key] != 0):
                raise ValueError(f"state field {key!r} is set but module_points_of_interest is off")
        if not np.all(rec["acts"] == 1):
            raise ValueError("state field 'acts' must be both seats without module_points_of_interest")
        return
    _in(rec, "phase", 0, PH_SPECIAL)
    _in(rec, "acts", 0, 1)
    _in(rec, "poi_due", 0, len(POI_MILESTONES))
    _in(rec, "milestones", 0, len(POI_MILESTONES))
    _in(rec, "poi_taken", 0, 1)
    _in(rec, "special_gone", 0, 1)
    _in(rec, "ask_heart", 0, 1)
    _in(rec, "ask_photo", 0, 1)
    _in(rec, "hearts_left", 0, HEARTS_FIRST)
    _in(rec, "hearts_claimed", 0, 1)
    _in(rec, "cameras_left", 0, CAMERA_MARKERS)
    _in(rec, "cameras", 0, CAMERA_MARKERS)
    _in(rec, "cell_heart", 0, 1)
    _in(rec, "cell_camera", 0, CAMERA_MARKERS)
    _in(rec, "hearts_from", 0, 1001)
    if not rec["done"] and not rec["acts"].any():
        raise ValueError("state field 'acts': nobody is to decide")
    for p in range(NUM_PLAYERS):
        tp = int(rec["to_place"][p])
        if tp != -1 and not SPECIAL_FIRST <= tp < NUM_TILE_IDS:
            raise ValueError("state field 'to_place' out of range")
        _cell(rec, "last_cell", p, range(NUM_TILE_IDS), "a tile")
        _cell(rec, "photo_cell", p, range(NUM_TILE_IDS), "a tile")
        _cell(rec, "special_cell", p, range(SPECIAL_FIRST, PHOTOGRAPHER_TILE), "a school, barn or oak")
        if rec["ask_heart"][p] or rec["ask_photo"][p]:
            if int(rec["last_cell"][p]) < 0:
                raise ValueError("state fields 'ask_heart'/'ask_photo' set without a latest placement")
        if (rec["ask_photo"][p] or rec["cameras"][p]) and int(rec["photo_cell"][p]) < 0:
            raise ValueError("state field 'cameras'/'ask_photo' without a photographer")
        hearts = rec["cell_heart"][p] == 1
        if np.any(rec["cell_tile"][p][hearts] < 0) or np.any(rec["cell_tile"][p][hearts] >= NUM_LANDSCAPE):
            raise ValueError("state field 'cell_heart' marks a cell without a landscape tile")
        if int(hearts.sum()) + int(rec["hearts_left"][p]) > HEARTS_FIRST:
            raise ValueError("state fields 'cell_heart'/'hearts_left': more than 3 hearts")
        if int(rec["cell_camera"][p].sum()) != int(rec["cameras"][p]):
            raise ValueError("state field 'cell_camera' does not add up to 'cameras'")
        if np.any(rec["cell_camera"][p][rec["cell_tile"][p] < 0] != 0):
            raise ValueError("state field 'cell_camera' marks an empty cell")
    if int(rec["cameras"].sum()) + int(rec["cameras_left"]) > CAMERA_MARKERS:
        raise ValueError("state fields 'cameras'/'cameras_left': more than 18 camera markers")
