"""Documented positions the fuzz campaign forges from (reset(options={"scenario": ...})).

Every deal with every betting sequence still to be played (tests/kuhn_poker/test_rules.py plays
them to each of the five ends): 6 deals x 4 histories.
"""

import itertools

HISTORIES = ([], ["pass"], ["bet"], ["pass", "bet"])


def scenarios(config: dict) -> list[dict]:
    """Every deal and live betting sequence (the same for both values of ``first_player``)."""
    return [
        {"cards": list(cards), "history": list(history)}
        for cards in itertools.permutations(("J", "Q", "K"), 2)
        for history in HISTORIES
    ]
