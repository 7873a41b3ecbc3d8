"""Dorfromantik: The Duel, constants, config and action encoding (rules: seeds/dorfromantik_duel.md).

The board is an axial hex grid (q, r) stored as a (2R+1) x (2R+1) box, R = ``board_radius``;
box cell ``c = (r + R) * (2R+1) + (q + R)``, and cells with |q + r| > R are off the board.
An action is ``c * 6 + rot`` (place the current tile in cell c turned rot steps clockwise),
or the single ``pass`` action after them, legal only when no placement is. With Module 2 on,
ten decisions follow ``pass`` (``EXTRA_NAMES``: points of interest, hearts, the photographer).
"""

import re
from dataclasses import dataclass

from envs.engine.config import knob, validate_config

NUM_PLAYERS = 2
NUM_ROT = 6
NUM_KINDS = 5  # areas: forest, grain, village, track, stream (kind k = terrain code k + 1)
NUM_MARKER_TYPES = 7
MARKER_VALUES = (3, 4, 5, 6)
DOUBLE_VALUE = 6
BOXED_LANDSCAPE = 3  # landscape tiles returned to the box unseen at setup
FIRST_TASK_TURNS = 3  # a task tile on each of the first 3 turns
MIN_OPEN_MARKERS = 3  # fewer open markers in either area: the next tile is a task tile

# Marker states (per cell of each board).
MK_NONE, MK_OPEN, MK_DONE, MK_CANCELLED = range(4)
MARKER_STATE_NAMES = ("none", "open", "completed", "cancelled")

# Hex directions clockwise from north-east, pointy-top axial coordinates.
DIR_Q = (1, 1, 0, -1, -1, 0)
DIR_R = (-1, 0, 1, 1, 0, -1)
DIR_NAMES = ("NE", "E", "SE", "SW", "W", "NW")

# Module 1: task cards. One card per landscape (forest, grain, village) is drawn at setup.
CARD_KINDS = ("closed 5+", "most closed 2+", "many closed 2+")
CARD_CLOSED, CARD_MOST, CARD_MANY = range(3)
CARD_LANDSCAPES = ("forest", "grain", "village")  # area kinds 0, 1, 2
CLOSED_CARD_POINTS = (8, 4, 6)  # first, second, both in the same turn
MOST_CARD_POINTS = (8, 4, 6)  # more, fewer, equal
MANY_CARD_POINTS = (0, 0, 1, 2, 4, 6, 9, 12, 15)  # by closed territories of 2+ tiles, 8 or more: 15
CLOSED_CARD_SIZE = 5
COUNTED_SIZE = 2

# Module 2: points of interest, chosen on completing the 4th, 7th and 10th task.
POI_NAMES = ("school", "barn", "oak", "photographer", "hearts", "none")
POI_SCHOOL, POI_BARN, POI_OAK, POI_PHOTOGRAPHER, POI_HEARTS, POI_NONE = range(6)
POI_MILESTONES = (4, 7, 10)
HEARTS_FIRST, HEARTS_LATER = 3, 2
CAMERA_MARKERS = 18
MAX_HEART_POINTS = 6
SPECIAL_REACH = 2  # a School, Barn or Oak scores tiles of its terrain up to this many steps away
# Decision phases of a turn; each is simultaneous among the seats that act in it.
PH_PLACE, PH_HEART, PH_PHOTO, PH_POI, PH_SPECIAL = range(5)
PHASE_NAMES = ("place", "heart", "photographer", "point of interest", "special tile")
# The actions after ``pass`` (Module 2): pass + 1 + i.
EXTRA_NAMES = (*(f"poi {n}" for n in POI_NAMES), "heart", "no heart", "move photographer", "keep photographer")
X_POI, X_HEART, X_NO_HEART, X_MOVE, X_KEEP = 0, 6, 7, 8, 9
NUM_EXTRA = len(EXTRA_NAMES)

DEFAULT_RADIUS = 16  # the rim steers almost no game (seeds/dorfromantik_duel.md, "The board")
MAX_BOARD_RADIUS = 30


def board_width(radius: int) -> int:
    """Side of the square box holding the hex board."""
    return 2 * radius + 1


def num_cells(radius: int) -> int:
    """Cells in the box (hex cells plus the unused corners)."""
    return board_width(radius) ** 2


def num_actions(radius: int, points_of_interest: bool = False) -> int:
    """Every (cell, rotation) placement, then ``pass``, then Module 2's decisions if it is on."""
    return num_cells(radius) * NUM_ROT + 1 + (NUM_EXTRA if points_of_interest else 0)


def on_board(radius: int, q: int, r: int) -> bool:
    """Whether axial (q, r) is within ``radius`` steps of the origin."""
    return abs(q) <= radius and abs(r) <= radius and abs(q + r) <= radius


def cell_of(radius: int, q: int, r: int) -> int:
    """Box index of axial (q, r); ValueError if it is off the board."""
    if not on_board(radius, q, r):
        raise ValueError(f"cell q={q} r={r} is off a board of radius {radius}")
    w = board_width(radius)
    return (r + radius) * w + (q + radius)


def coords_of(radius: int, cell: int) -> tuple[int, int]:
    """Axial (q, r) of a box index."""
    w = board_width(radius)
    return cell % w - radius, cell // w - radius


def hex_distance(q: int, r: int) -> int:
    """Steps from the origin to (q, r)."""
    return max(abs(q), abs(r), abs(q + r))


def action_of(radius: int, q: int, r: int, rot: int) -> int:
    """The action placing the current tile at (q, r) turned ``rot`` steps clockwise (any cell of the
    box has an action, so names round-trip; the box's corners are off the board and never legal)."""
    if not 0 <= rot < NUM_ROT:
        raise ValueError(f"rotation must be 0..5, got {rot}")
    if not (abs(q) <= radius and abs(r) <= radius):
        raise ValueError(f"cell q={q} r={r} is outside a board of radius {radius}")
    return ((r + radius) * board_width(radius) + q + radius) * NUM_ROT + rot


def action_name(radius: int, action: int, points_of_interest: bool = False) -> str:
    """``place q=2 r=-1 rot=3``, ``pass``, or one of Module 2's ``EXTRA_NAMES``."""
    n = num_actions(radius, points_of_interest)
    if not 0 <= action < n:
        raise ValueError(f"Dorfromantik action must be in [0, {n}), got {action}")
    pass_action = num_cells(radius) * NUM_ROT
    if action == pass_action:
        return "pass"
    if action > pass_action:
        return EXTRA_NAMES[action - pass_action - 1]
    q, r = coords_of(radius, action // NUM_ROT)
    return f"place q={q} r={r} rot={action % NUM_ROT}"


_NAME = re.compile(r"^place q=(-?\d+) r=(-?\d+) rot=(\d)$")


def action_from_name(radius: int, name: str, points_of_interest: bool = False) -> int:
    """Inverse of ``action_name``; ValueError for anything else."""
    key = str(name).strip()
    pass_action = num_cells(radius) * NUM_ROT
    if key == "pass":
        return pass_action
    if key in EXTRA_NAMES:
        if not points_of_interest:
            raise ValueError(f"action {name!r} exists only with module_points_of_interest=True")
        return pass_action + 1 + EXTRA_NAMES.index(key)
    m = _NAME.match(key)
    if m is None:
        extra = f", or one of {list(EXTRA_NAMES)}" if points_of_interest else ""
        raise ValueError(f"unknown action name {name!r}; names look like 'place q=2 r=-1 rot=3' or 'pass'{extra}")
    return action_of(radius, int(m.group(1)), int(m.group(2)), int(m.group(3)))


@dataclass(frozen=True)
class DorfromantikDuelConfig:
    """The Duel's knobs; each answers a gap in the manual (seeds/dorfromantik_duel.md), but ``placement_prior``,
    ``placement_candidates`` and ``observe_boards``, options of the observation."""

    board_radius: int = knob(
        DEFAULT_RADIUS,
        range=(4, MAX_BOARD_RADIUS),
        doc="hex board radius (heuristic, IS-MCTS and random boards measured: seeds/dorfromantik_duel.md)",
    )
    distinct_rotations: bool = knob(
        True, doc="mask only the first of rotations that give an identical tile (WWWWWW: one, not six)"
    )
    forbid_doomed_tasks: bool = knob(
        True, doc="a task tile may not go where its marker would be cancelled at once (manual p.6)"
    )
    module_task_cards: bool = knob(False, doc="Module 1: one task card per forest, grain, village (manual p.9)")
    module_points_of_interest: bool = knob(
        False, doc="Module 2: points of interest on the 4th, 7th, 10th completed task (manual p.9-10)"
    )
    placement_prior: bool = knob(
        False,
        observation=True,
        doc="observation: one more piece, the heuristic's judgement of each placement (0..1; off: as before)",
    )
    placement_candidates: bool = knob(
        False,
        observation=True,
        doc="observation: one more piece, a row per legal placement with what it would do to my board",
    )
    observe_boards: bool = knob(
        True, observation=True, doc="observation: the boards' spatial tensor first (off: left out)"
    )

    def __post_init__(self) -> None:
        validate_config(self)
