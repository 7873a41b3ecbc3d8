"""How far a finished Duel's boards reached, for the rules document's "How large" table (benchmarks.duel_reach)."""

import numpy as np

PASSED = 2  # ``used`` marks a tile a player had to pass with this value


def board_reach(rec: np.void) -> tuple[list[int], int, int]:
    """Each board's farthest tile from the origin, the tiles passed, and the turn the game ended on."""
    return [int(e) for e in rec["extent"]], int((rec["used"] == PASSED).sum()), int(rec["turn"])
