"""The OpenSpiel benchmarks: benchmarks/mccfr.py's small Horizonte and benchmarks/openspiel_rate.py's rates."""

import pytest

pytest.importorskip("pyspiel")

import envs.openspiel as eo  # noqa: E402
from benchmarks.mccfr import SMALL_DECK, checkpoints, small_config  # noqa: E402
from benchmarks.openspiel_rate import adapter_rates  # noqa: E402
from envs.horizonte.rules import CARD_NAMES  # noqa: E402


def test_the_small_horizonte_is_what_the_docs_say():
    game = eo.load("horizonte", **small_config())
    config = game.tab.config
    assert game.explicit and config.num_players == 3 and config.rounds == 1 and config.max_prediction == 0
    kept = sorted(set(range(len(CARD_NAMES))) - set(config.removed_cards))
    assert config.hand_size == 2 and [CARD_NAMES[c] for c in kept] == list(SMALL_DECK)
    state = game.new_initial_state()
    assert len(state.chance_outcomes()) == 6  # the initiative: 3 x 2 ordered pairs


def test_checkpoints_are_log_spaced_from_one_to_the_end():
    marks = checkpoints(10_000, 8)
    assert marks[0] == 1 and marks[-1] == 10_000 and marks == sorted(set(marks)) and len(marks) == 8
    assert checkpoints(3, 8) == [1, 2, 3]


def test_adapter_rates_cover_every_game():
    rates = adapter_rates(seconds=0.05, repeats=1)
    assert list(rates) == eo.names() and all(rate > 0 for rate in rates.values())
