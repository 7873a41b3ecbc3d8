"""Documented positions the fuzz campaign forges from (reset(options={"scenario": ...})).

Random play from a fresh game seldom reaches Module 2's decisions (4 completed tasks first), so
these positions put them a placement or two away: three tasks done and a connection marker 3
already touched by two tiles (any tile on one of its four free sides completes it), hearts in
hand, a photographer with cameras, a school; and for Module 1 two forest territories one tile
from closing at 5. Positions come from tests/dorfromantik_duel/test_rules.py and test_expansions.py.
"""

# The connection task T20 (marker 3) touched by L16 and L17: a third touching tile completes it.
TRIANGLE = [["T20", 0, 0, 0, 3], ["L16", 1, 0, 0], ["L17", 0, 1, 0]]
THREE_DONE = [["forest", 3], ["grain", 3], ["village", 3]]
# Task tiles whose markers the position leaves: forest, grain, village 4..6, every track, two streams.
TASKS = ["T01", "T02", "T05", "T06", "T09", "T10", "T12", "T13", "T14", "T15", "T16", "T17"]
NEAR_MILESTONE = {"boards": [TRIANGLE, TRIANGLE], "completed": [THREE_DONE, THREE_DONE], "tasks": TASKS, "turn": 3}

# test_expansions.py: forest territories of 4, closed at 5 by L13 (seat 0) and L23 (seat 1).
FOREST4_A = [["L03", 0, 0, 1], ["L10", 1, -1, 5], ["L12", 0, -1, 5], ["L25", -1, 0, 2]]
FOREST4_B = [["L27", 0, 0, 1], ["L25", 1, 0, 1], ["L03", 1, -1, 4], ["L10", 0, -1, 5]]
CLOSING = {"boards": [FOREST4_A, FOREST4_B], "landscape": ["L13", "L23", "L17", "L16", "L32"], "tasks": [], "turn": 30}

BASE = [
    NEAR_MILESTONE,
    CLOSING,
    # test_inputs.py: default stacks around a small board; a forest task open on seat 0's board
    {"boards": [[["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]], [["L17", 0, 0, 0]]], "turn": 2},
    # the last turns the scenario key allows, then a few more
    {"turn": 1000, "landscape": ["L16", "L17", "L32", "L03"], "tasks": ["T00", "T20"]},
]
CARDS = [
    dict(CLOSING, cards={"forest": "closed 5+", "grain": "most closed 2+", "village": "many closed 2+"}),
    dict(NEAR_MILESTONE, cards={"forest": "most closed 2+", "grain": "many closed 2+", "village": "closed 5+"}),
]
POINTS_OF_INTEREST = [
    # seat 0 holds 3 hearts (a heart decision after each landscape tile); seat 1's photographer has 2 cameras
    dict(
        NEAR_MILESTONE,
        boards=[TRIANGLE, [*TRIANGLE, ["photographer", 1, 1, 0]]],
        points_of_interest={"taken": [["hearts"], []], "hearts_left": [3, 0], "cameras": [0, 2]},
    ),
    # seat 0 has a school (so the school is gone for seat 1), seat 1 has a heart placed and 1 in hand
    dict(
        NEAR_MILESTONE,
        boards=[[*TRIANGLE, ["school", 1, 1, 0]], TRIANGLE],
        points_of_interest={"hearts": [[], [[1, 0]]], "hearts_left": [0, 1], "cameras_left": 5},
    ),
    # test_expansions.py: both seats complete a 4th task with L32 at q=1 r=-1
    {
        "boards": [[["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]], [["L17", 0, 0, 0], ["T03", 1, 0, 0, 3]]],
        "completed": [[["connection", 3], ["connection", 4], ["connection", 5]]] * 2,
        "landscape": ["L32", "L03", "L10", "L12", "L13", "L16", "L23"],
        "tasks": [],
        "turn": 4,
    },
]


def scenarios(config: dict) -> list[dict]:
    """Scenarios valid for this config (module keys only with their module on)."""
    out = list(BASE)
    if config.get("module_task_cards"):
        out += CARDS
    if config.get("module_points_of_interest"):
        out += POINTS_OF_INTEREST
    return out
