"""benchmarks/solved_endings.py: an agent alone and with the solver's moves where the game solves the position."""

import pytest

from agents.arena import run_arena
from benchmarks import solved_endings


def test_the_agent_alone_is_the_arenas_figure_and_the_solver_past_the_last_turn_changes_nothing():
    rows = solved_endings.measure("policy:reference", "heuristic", games=40, first=14, workers=2, seed=1)
    arena = run_arena("capivari", ["policy:reference", "heuristic"], 40, seed=1, progress=False)
    assert rows[0]["wins"] == rows[1]["wins"] == arena["agents"][0]["wins"]  # the same deals, seats and seeds
    assert rows[1]["agent"] == "policy:reference + solver" and rows[1]["solver_from_turn"] == 14


def test_a_random_player_with_exact_round_endings_beats_random_far_more_often():
    alone, helped = solved_endings.measure("random", "random", games=200, workers=2, seed=3)
    assert helped["win_rate"] > alone["win_rate"] + 0.15, (alone, helped)


def test_solving_the_turns_before_the_last_refill_too_wins_more_than_the_round_endings_alone():
    endings = solved_endings.measure("random", "random", games=200, first=6, workers=2, seed=3)[1]
    before = solved_endings.measure("random", "random", games=200, first=6, workers=2, seed=3, before_refill=True)[1]
    assert before["agent"] == "random + solver before refill" and before["before_refill"]
    assert before["win_rate"] > endings["win_rate"], (endings, before)


@pytest.mark.parametrize(
    ("game", "piece", "message"),
    [("kuhn_poker", "turns_taken", "solves no position"), ("capivari", "river_capybaras", "no one-number")],
)
def test_a_game_without_solved_positions_or_a_turn_piece_is_refused(game, piece, message):
    with pytest.raises(ValueError, match=message):
        solved_endings.measure("random", "random", games=2, workers=1, game=game, turn_piece=piece)
