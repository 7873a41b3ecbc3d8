"""The score pad as the infos and the picture show it: its rows in the pad's order, and a seat's
values read from the record (game.py and picture.py both use it)."""

import numpy as np

from envs.dorfromantik_duel.tiles import FLAG_NAMES, TASK_TYPES

# The score pad's rows, in the pad's order (manual p.7): tasks by type, flags, longest lines,
# then each module's field (p.7 "4. Modules": 0 while a module is off).
PAD_ROWS = (
    *(f"{t} tasks" for t in TASK_TYPES),
    "tasks subtotal",
    *(f"{f} flags" for f in FLAG_NAMES),
    "longest track",
    "longest stream",
    "flags and lines subtotal",
    "module 1: task cards",
    "module 2: points of interest",
    "total",
)


def score_pads(rec: np.void) -> list[dict[str, int]]:
    """Both seats' score pads as they stand (final once the game is over); each field read once, as lists
    (reading a record's fields one value at a time is most of an AEC turn's Python time)."""
    tasks, flags, longest = rec["task_points"].tolist(), rec["flag_points"].tolist(), rec["longest"].tolist()
    cards = rec["card_points"].sum(axis=1).tolist() if rec["module_task_cards"] else [0, 0]
    poi = rec["poi_points"].sum(axis=1).tolist() if rec["module_poi"] else [0, 0]
    total = rec["total"].tolist()
    pads = []
    for p in range(2):
        track, stream = longest[p]
        values = [*tasks[p], sum(tasks[p]), *flags[p], track, stream, sum(flags[p]) + track + stream]
        pads.append(dict(zip(PAD_ROWS, [*values, cards[p], poi[p], total[p]], strict=True)))
    return pads


def score_pad(rec: np.void, p: int) -> dict[str, int]:
    """Seat p's score pad as it stands (final once the game is over)."""
    return score_pads(rec)[p]


__all__ = ["PAD_ROWS", "score_pad", "score_pads"]
