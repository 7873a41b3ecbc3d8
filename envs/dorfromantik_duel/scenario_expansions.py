"""Scenario keys of the expansions: ``cards`` (Module 1) and ``points_of_interest`` (Module 2), checked
in Python and written into a record whose boards ``apply_scenario`` has already written."""

from typing import Any

import numpy as np

from envs.dorfromantik_duel.rules import (
    CAMERA_MARKERS,
    CARD_KINDS,
    CARD_LANDSCAPES,
    HEARTS_FIRST,
    NUM_PLAYERS,
    POI_HEARTS,
    POI_MILESTONES,
    POI_NAMES,
    POI_NONE,
    POI_PHOTOGRAPHER,
    cell_of,
)
from envs.dorfromantik_duel.tiles import NUM_LANDSCAPE, NUM_TILES, PHOTOGRAPHER_TILE, SPECIAL_FIRST
from envs.engine.checks import is_int

POI_KEYS = ("taken", "hearts", "hearts_left", "photographer", "cameras", "cameras_left")


def parse_cards(rec: np.void, cards: Any) -> None:
    """``{"forest": "closed 5+", "grain": "most closed 2+", "village": "many closed 2+"}``; missing
    landscapes keep the card drawn at setup."""
    if not rec["module_task_cards"]:
        raise ValueError("scenario key 'cards' needs module_task_cards=True")
    if not isinstance(cards, dict) or any(k not in CARD_LANDSCAPES for k in cards):
        raise ValueError(f"scenario key 'cards' must map {list(CARD_LANDSCAPES)} to one of {list(CARD_KINDS)}")
    for land, kind in cards.items():
        if kind not in CARD_KINDS:
            raise ValueError(f"scenario 'cards'[{land!r}] must be one of {list(CARD_KINDS)}, got {kind!r}")
        rec["cards"][CARD_LANDSCAPES.index(land)] = CARD_KINDS.index(kind)


def _per_seat(poi: dict, key: str, default: Any) -> list:
    value = poi.get(key, [default, default])
    if not isinstance(value, (list, tuple)) or len(value) != NUM_PLAYERS:
        raise ValueError(f"points_of_interest[{key!r}] must be a list of two (seat 0, seat 1), got {value!r}")
    return list(value)


def _count(value: Any, what: str, hi: int) -> int:
    if not is_int(value) or not 0 <= value <= hi:
        raise ValueError(f"{what} must be an int in [0, {hi}], got {value!r}")
    return int(value)


def _own_cell(rec: np.void, p: int, at: Any, what: str) -> int:
    radius = int(rec["radius"])
    if not isinstance(at, (list, tuple)) or len(at) != 2:
        raise ValueError(f"{what} must be [q, r], got {at!r}")
    try:
        c = cell_of(radius, int(at[0]), int(at[1]))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}: {e}") from None
    if rec["cell_tile"][p, c] < 0:
        raise ValueError(f"{what}: no tile of seat {p} at q={at[0]} r={at[1]}")
    return c


def special_tiles_on_boards(rec: np.void) -> None:
    """Special tiles written by ``boards``: what they imply (the point of interest taken, its cell)."""
    for p in range(NUM_PLAYERS):
        for c in rec["order"][p, : int(rec["n_placed"][p])]:
            tile = int(rec["cell_tile"][p, c])
            if tile < NUM_TILES:
                continue
            if not rec["module_poi"]:
                raise ValueError(f"boards[{p}]: special tiles need module_points_of_interest=True")
            i = tile - SPECIAL_FIRST
            if tile == PHOTOGRAPHER_TILE:
                rec["photo_cell"][p] = c
            elif rec["special_cell"][p] >= 0:
                raise ValueError(f"boards[{p}]: at most one of school, barn, oak per player")
            else:
                rec["special_cell"][p] = c
            rec["poi_taken"][p, i] = 1


def parse_points_of_interest(rec: np.void, poi: Any) -> None:
    """Module 2's position: points of interest taken, hearts, the photographer, cameras (choices
    come due by play: complete the 4th task with a placement)."""
    if not rec["module_poi"]:
        raise ValueError("scenario key 'points_of_interest' needs module_points_of_interest=True")
    if not isinstance(poi, dict) or any(k not in POI_KEYS for k in poi):
        raise ValueError(f"scenario key 'points_of_interest' must be a dict with keys from {list(POI_KEYS)}")
    for p, names in enumerate(_per_seat(poi, "taken", [])):
        if not isinstance(names, (list, tuple)) or any(n not in POI_NAMES[:POI_NONE] for n in names):
            raise ValueError(f"points_of_interest['taken'][{p}] must list names from {list(POI_NAMES[:POI_NONE])}")
        for n in names:
            rec["poi_taken"][p, POI_NAMES.index(n)] = 1
    for p in range(NUM_PLAYERS):
        if int(rec["poi_taken"][p, :3].sum()) > 1:
            raise ValueError(f"seat {p} has taken more than one of school, barn, oak")
    for p, cells in enumerate(_per_seat(poi, "hearts", [])):
        if not isinstance(cells, (list, tuple)):
            raise ValueError(f"points_of_interest['hearts'][{p}] must be a list of [q, r]")
        for at in cells:
            c = _own_cell(rec, p, at, f"points_of_interest['hearts'][{p}]")
            if rec["cell_tile"][p, c] >= NUM_LANDSCAPE:
                raise ValueError(f"points_of_interest['hearts'][{p}]: hearts go on landscape tiles only")
            rec["cell_heart"][p, c] = 1
    for p, n in enumerate(_per_seat(poi, "hearts_left", 0)):
        rec["hearts_left"][p] = _count(n, f"points_of_interest['hearts_left'][{p}]", HEARTS_FIRST)
        if rec["hearts_left"][p] + rec["cell_heart"][p].sum() > HEARTS_FIRST:
            raise ValueError(f"seat {p} would have more than {HEARTS_FIRST} hearts")
        if rec["hearts_left"][p] or rec["cell_heart"][p].any():
            rec["poi_taken"][p, POI_HEARTS] = 1
    rec["hearts_claimed"] = bool(rec["poi_taken"][:, POI_HEARTS].any())
    for p, at in enumerate(_per_seat(poi, "photographer", None)):
        if at is not None:
            if rec["photo_cell"][p] < 0:
                raise ValueError(f"points_of_interest['photographer'][{p}]: seat {p} has no photographer's tile")
            rec["photo_cell"][p] = _own_cell(rec, p, at, f"points_of_interest['photographer'][{p}]")
    cameras = [
        _count(n, f"points_of_interest['cameras'][{p}]", CAMERA_MARKERS)
        for p, n in enumerate(_per_seat(poi, "cameras", 0))
    ]
    left = _count(
        poi.get("cameras_left", CAMERA_MARKERS - sum(cameras)), "points_of_interest['cameras_left']", CAMERA_MARKERS
    )
    if sum(cameras) + left > CAMERA_MARKERS:
        raise ValueError(f"more than {CAMERA_MARKERS} camera markers in all")
    for p, n in enumerate(cameras):
        if n and rec["photo_cell"][p] < 0:
            raise ValueError(f"points_of_interest['cameras'][{p}]: seat {p} has no photographer")
        rec["cameras"][p] = n
        if n:
            rec["cell_camera"][p, rec["photo_cell"][p]] = n
    rec["cameras_left"] = left


def finish_points_of_interest(rec: np.void) -> None:
    """What follows from the whole position: milestones passed, special tiles left to each seat
    (nothing without Module 2: its fields stay as ``setup.clear_expansions`` left them)."""
    if not rec["module_poi"]:
        return
    for p in range(NUM_PLAYERS):
        done = int(rec["tasks_done"][p].sum())
        rec["milestones"][p] = sum(done >= m for m in POI_MILESTONES)
        if rec["poi_taken"][p, POI_PHOTOGRAPHER] and rec["photo_cell"][p] < 0:
            raise ValueError(f"seat {p} took the photographer: put its tile ('photographer') on the board")
    for i in range(3):
        for p in range(NUM_PLAYERS):
            if rec["poi_taken"][p, i] and not rec["poi_taken"][1 - p, i]:
                rec["special_gone"][1 - p, i] = 1
