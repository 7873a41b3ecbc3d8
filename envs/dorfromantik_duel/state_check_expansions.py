"""Checks of the expansions' fields (the manual's Modules 1 and 2) in a deserialized or hand-edited
record (see state_check.py): cleared while an expansion is off; with it on, indices in range, the
counts the core keeps in step with the boards, and the decision phases as ``turn.next_phase``
leaves them."""

import numpy as np

from envs.dorfromantik_duel.areas import closed_territories
from envs.dorfromantik_duel.rules import (
    CAMERA_MARKERS,
    CARD_CLOSED,
    CARD_MANY,
    CARD_MOST,
    CLOSED_CARD_POINTS,
    CLOSED_CARD_SIZE,
    COUNTED_SIZE,
    HEARTS_FIRST,
    MANY_CARD_POINTS,
    MAX_HEART_POINTS,
    MOST_CARD_POINTS,
    NUM_PLAYERS,
    PH_HEART,
    PH_PLACE,
    PH_POI,
    PH_SPECIAL,
    POI_HEARTS,
    POI_MILESTONES,
    POI_NONE,
    coords_of,
    hex_distance,
)
from envs.dorfromantik_duel.state import MAX_PLACED
from envs.dorfromantik_duel.tiles import NUM_LANDSCAPE, NUM_TILE_IDS, PHOTOGRAPHER_TILE, SPECIAL_FIRST

MAX_POI_POINTS = 3 * MAX_HEART_POINTS  # special tile: the 18 cells within 2 steps; cameras: 18 markers; hearts: 3 x 6
# Every expansion field and the value it keeps while its expansion is off (setup.clear_expansions).
CARDS_OFF = {"cards": -1, "closed2": 0, "card_points": 0}
POI_OFF = {
    "phase": 0,
    "acts": 1,
    "milestones": 0,
    "poi_due": 0,
    "poi_taken": 0,
    "special_gone": 0,
    "to_place": -1,
    "last_cell": -1,
    "ask_heart": 0,
    "ask_photo": 0,
    "hearts_left": 0,
    "hearts_from": 0,
    "hearts_claimed": 0,
    "photo_cell": -1,
    "special_cell": -1,
    "cameras_left": CAMERA_MARKERS,
    "cameras": 0,
    "cell_heart": 0,
    "cell_camera": 0,
    "poi_points": 0,
}


def _fail(message: str) -> None:
    raise ValueError(message)


def _in(rec: np.void, key: str, lo: int, hi: int) -> None:
    arr = np.asarray(rec[key])
    if arr.size and (arr.min() < lo or arr.max() > hi):
        _fail(f"state field {key!r} out of range [{lo}, {hi}]")


def _cleared(rec: np.void, fields: dict, switch: str) -> None:
    for key, value in fields.items():
        if np.any(rec[key] != value):
            _fail(f"state field {key!r} is set but {switch} is off")


def check_expansions(rec: np.void) -> None:
    """ValueError naming the first expansion field the core could not have produced (boards checked already)."""
    if rec["module_task_cards"]:
        _in(rec, "cards", 0, 2)
        _in(rec, "closed2", 0, MAX_PLACED)
        _in(rec, "card_points", 0, max(MANY_CARD_POINTS))
    else:
        _cleared(rec, CARDS_OFF, "module_task_cards")
    if not rec["module_poi"]:
        _cleared(rec, POI_OFF, "module_points_of_interest")
        return
    _in(rec, "phase", PH_PLACE, PH_SPECIAL)
    _in(rec, "acts", 0, 1)
    _in(rec, "milestones", 0, len(POI_MILESTONES))
    _in(rec, "poi_due", 0, len(POI_MILESTONES))
    _in(rec, "poi_taken", 0, 1)
    _in(rec, "special_gone", 0, 1)
    _in(rec, "to_place", -1, NUM_TILE_IDS - 1)
    _in(rec, "ask_heart", 0, 1)
    _in(rec, "ask_photo", 0, 1)
    _in(rec, "hearts_left", 0, HEARTS_FIRST)
    _in(rec, "hearts_from", 0, int(rec["turn"]) + 1)
    _in(rec, "hearts_claimed", 0, 1)
    _in(rec, "cameras_left", 0, CAMERA_MARKERS)
    _in(rec, "cameras", 0, CAMERA_MARKERS)
    _in(rec, "cell_heart", 0, 1)
    _in(rec, "cell_camera", 0, CAMERA_MARKERS)
    _in(rec, "poi_points", 0, MAX_POI_POINTS)
    if np.any(rec["poi_taken"][:, POI_NONE]):
        _fail("state field 'poi_taken': 'none' is never recorded as taken")
    for p in range(NUM_PLAYERS):
        _seat(rec, p)
    taken = rec["poi_taken"]
    if not np.array_equal(rec["special_gone"], taken[::-1, :3] & (1 - taken[:, :3])):
        _fail("state field 'special_gone' does not match the school, barn, oak taken by the other seat only")
    if int(rec["hearts_claimed"]) != int(taken[:, POI_HEARTS].any()):
        _fail("state field 'hearts_claimed' does not match 'poi_taken'")
    if int(rec["cameras"].sum()) + int(rec["cameras_left"]) > CAMERA_MARKERS:
        _fail(f"state fields 'cameras'/'cameras_left': more than {CAMERA_MARKERS} camera markers")
    _phase(rec)


def _seat(rec: np.void, p: int) -> None:
    """Seat p's points of interest: special tiles, hearts, the photographer and his cameras."""
    radius = int(rec["radius"])
    n = int(rec["n_placed"][p])
    cells = rec["order"][p, :n]
    tiles = rec["cell_tile"][p, cells].astype(np.int64)
    taken = rec["poi_taken"][p]
    if int(taken[:3].sum()) > 1:
        _fail("state field 'poi_taken': more than one of school, barn, oak")
    specials = [(int(t), int(c)) for t, c in zip(tiles, cells, strict=True) if t >= SPECIAL_FIRST]
    for t, _ in specials:
        if not taken[t - SPECIAL_FIRST]:
            _fail("state field 'poi_taken': a special tile is on the board but was not taken")
    sbo = [c for t, c in specials if t < PHOTOGRAPHER_TILE]
    if int(rec["special_cell"][p]) != (sbo[0] if sbo else -1):
        _fail("state field 'special_cell' does not point at the school, barn or oak on the board")
    has_photographer = any(t == PHOTOGRAPHER_TILE for t, _ in specials)
    photo = int(rec["photo_cell"][p])
    if (photo not in cells) if has_photographer else photo != -1:
        _fail("state field 'photo_cell' does not point at a tile of a seat with the photographer")
    tp = int(rec["to_place"][p])
    if tp != -1:
        if tp < SPECIAL_FIRST or not taken[tp - SPECIAL_FIRST] or tp in tiles:
            _fail("state field 'to_place' is not a special tile the seat took and has still to place")
        if tp < PHOTOGRAPHER_TILE and sbo:
            _fail("state field 'to_place': the seat already has a school, barn or oak")
    last = int(rec["last_cell"][p])
    if last != -1 and (n == 0 or last != int(cells[-1])):
        _fail("state field 'last_cell' is not the seat's latest placement")
    hearts = rec["cell_heart"][p] == 1
    if np.any(rec["cell_tile"][p][hearts] >= NUM_LANDSCAPE):
        _fail("state field 'cell_heart' marks a cell without a landscape tile")
    if int(hearts.sum()) + int(rec["hearts_left"][p]) > HEARTS_FIRST:
        _fail(f"state fields 'cell_heart'/'hearts_left': more than {HEARTS_FIRST} hearts")
    if not taken[POI_HEARTS] and (hearts.any() or rec["hearts_left"][p] or rec["hearts_from"][p]):
        _fail("state fields 'cell_heart'/'hearts_left'/'hearts_from' set without the hearts taken")
    if int(rec["cell_camera"][p].sum()) != int(rec["cameras"][p]):
        _fail("state field 'cell_camera' does not add up to 'cameras'")
    if rec["cameras"][p] and photo < 0:
        _fail("state field 'cameras' set without a photographer")
    done = int(rec["tasks_done"][p].sum())
    if int(rec["milestones"][p]) != sum(done >= m for m in POI_MILESTONES):
        _fail("state field 'milestones' does not match the tasks completed")
    if rec["poi_due"][p] > rec["milestones"][p]:
        _fail("state field 'poi_due': more choices due than milestones reached")
    if rec["ask_heart"][p]:
        if (
            last < 0
            or int(rec["cell_tile"][p, last]) >= NUM_LANDSCAPE
            or rec["cell_heart"][p, last]
            or not rec["hearts_left"][p]
            or int(rec["turn"]) < int(rec["hearts_from"][p])
        ):
            _fail("state field 'ask_heart' set where no heart may go")
    if rec["ask_photo"][p]:
        if last < 0 or photo < 0 or not rec["cameras_left"] or not _touch(radius, last, photo):
            _fail("state field 'ask_photo' set where the photographer has nothing to do")


def _touch(radius: int, a: int, b: int) -> bool:
    qa, ra = coords_of(radius, a)
    qb, rb = coords_of(radius, b)
    return hex_distance(qa - qb, ra - rb) == 1


def _needs(rec: np.void, p: int, phase: int) -> bool:
    """``points_of_interest.seat_needs``: whether seat p has a decision in this phase."""
    if phase == PH_HEART:
        return bool(rec["ask_heart"][p])
    if phase == PH_HEART + 1:
        return bool(rec["ask_photo"][p])
    if phase == PH_POI:
        return int(rec["poi_due"][p]) > 0
    return int(rec["to_place"][p]) >= 0


def _phase(rec: np.void) -> None:
    """``turn.next_phase`` runs the phases in order and ends the turn when none is needed: earlier
    phases are settled, and the seats acting now are exactly those the phase concerns."""
    phase = int(rec["phase"]) if not rec["done"] else PH_PLACE
    if rec["done"] and int(rec["phase"]) != PH_PLACE:
        _fail("state field 'phase' is not 'place' in a finished game")
    for p in range(NUM_PLAYERS):
        for earlier in range(PH_HEART, phase if phase != PH_PLACE else PH_SPECIAL + 1):
            if _needs(rec, p, earlier):
                _fail(f"state field 'phase': seat {p} still has a decision of an earlier phase")
        if int(rec["to_place"][p]) >= 0 and phase not in (PH_POI, PH_SPECIAL):
            _fail("state field 'to_place' set outside the point-of-interest and special-tile phases")
    if phase == PH_PLACE:
        if not np.all(rec["acts"] == 1):
            _fail("state field 'acts' must be both seats in the placement phase")
        return
    for p in range(NUM_PLAYERS):
        if bool(rec["acts"][p]) != _needs(rec, p, phase):
            _fail("state field 'acts' does not match who decides in this phase")


def check_expansion_scores(rec: np.void, h: np.void) -> None:
    """The expansion rows of the pad that hold between recounts (``h``: the record, areas recomputed)."""
    if rec["module_task_cards"]:
        points = rec["card_points"]
        closed2 = rec["closed2"]
        for p in range(NUM_PLAYERS):
            for k in range(3):
                if int(closed2[p, k]) > closed_territories(h, p, k, COUNTED_SIZE):
                    _fail("state field 'closed2': more closed territories than the board has")
        for k in range(3):
            kind = int(rec["cards"][k])
            n0, n1 = (int(x) for x in closed2[:, k])  # as counted with the card points, at the last turn's end
            if kind == CARD_MANY and any(
                int(points[p, k]) != MANY_CARD_POINTS[min(int(closed2[p, k]), len(MANY_CARD_POINTS) - 1)]
                for p in range(NUM_PLAYERS)
            ):
                _fail("state field 'card_points' does not match 'closed2' (many closed 2+ card)")
            if kind == CARD_MOST and (n0 or n1 or points[:, k].any()):  # 0 each before the first count
                more, fewer, equal = MOST_CARD_POINTS
                want = (more, fewer) if n0 > n1 else ((fewer, more) if n0 < n1 else (equal, equal))
                if tuple(int(x) for x in points[:, k]) != want:
                    _fail("state field 'card_points' does not match 'closed2' (most closed 2+ card)")
            if kind == CARD_CLOSED:
                allowed = {0, *CLOSED_CARD_POINTS}
            elif kind == CARD_MANY:
                allowed = set(MANY_CARD_POINTS)
            else:
                allowed = {0, *MOST_CARD_POINTS}
            if any(int(points[p, k]) not in allowed for p in range(NUM_PLAYERS)):
                _fail("state field 'card_points' is not a value the card scores")
            if kind != CARD_CLOSED:
                continue
            first, second, both = CLOSED_CARD_POINTS
            for p in range(NUM_PLAYERS):
                mine, theirs = int(points[p, k]), int(points[1 - p, k])
                if mine and closed_territories(h, p, k, CLOSED_CARD_SIZE) == 0:
                    _fail("state field 'card_points': a closed 5+ card scored without such a territory")
                if (
                    (mine == first and theirs not in (0, second))
                    or (mine == second and theirs != first)
                    or ((mine == both) != (theirs == both))
                ):
                    _fail("state field 'card_points': the closed 5+ card's first, second or shared points disagree")
