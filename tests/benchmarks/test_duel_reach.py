"""benchmarks/duel_reach.py: how far the Duel's boards reach, the rules document's "How large" table."""

from benchmarks.duel_reach import board_reach, markdown
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS


def test_each_game_counts_both_boards_inside_the_board():
    result = board_reach("random", 3, radius=DEFAULT_RADIUS, seed=5, progress=False)
    assert sum(result["reach"].values()) == 6, "two boards a game"
    assert all(1 <= k <= DEFAULT_RADIUS for k in result["reach"])
    assert result["at_rim"] == result["reach"].get(DEFAULT_RADIUS, 0)
    assert result["turns"][0] >= 40, "a game lasts at least the 39 landscape tiles and 3 task tiles"
    head, _, row = markdown(result).splitlines()
    assert head.count("|") == row.count("|") == len(result["reach"]) + 2
