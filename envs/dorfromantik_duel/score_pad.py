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


def score_pad(rec: np.void, p: int) -> dict[str, int]:
    """Seat p's score pad as it stands (final once the game is over)."""
    tasks = [int(x) for x in rec["task_points"][p]]
    flags = [int(x) for x in rec["flag_points"][p]]
    track, stream = (int(x) for x in rec["longest"][p])
    cards = int(rec["card_points"][p].sum()) if rec["module_task_cards"] else 0
    poi = int(rec["poi_points"][p].sum()) if rec["module_poi"] else 0
    values = [*tasks, sum(tasks), *flags, track, stream, sum(flags) + track + stream, cards, poi, int(rec["total"][p])]
    return dict(zip(PAD_ROWS, values, strict=True))


__all__ = ["PAD_ROWS", "score_pad"]
