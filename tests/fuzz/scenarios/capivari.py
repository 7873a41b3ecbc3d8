"""Documented positions the fuzz campaign forges from (reset(options={"scenario": ...})).

Taken from the rules tests (tests/capivari/test_rules.py): pushes, Capionças, the refill, round ends,
shared wins; plus a single available card with a deck (the end-of-turn refill applies at once).
"""

QUIET_RIVER = ["crias2", "oxes3", "tches3"]
ONCA_RIVER = ["crias1", "crias3", "crias4"]

SCENARIOS = [
    # entering the river and pushing chains
    {
        "river": ["onca1", "onca2", "onca3"],
        "available": ["oxes4", "crias2"],
        "deck": ["tches5", "crias5"],
        "capybaras": [[1, "oxes3", 1], [2, "oxes2", 0], [3, "oxes1", 1]],
    },
    {"river": QUIET_RIVER, "available": ["crias5", "oxes2"], "deck": ["onca3"], "capybaras": [[1, "crias1", 1]]},
    # Capionças: push, flip, swap; one segment already holds one
    {
        "river": ONCA_RIVER,
        "available": ["onca1", "crias2"],
        "deck": ["oxes5", "tches1"],
        "capybaras": [[2, "tches4", 1], [2, "oxes1", 0], [1, "crias5", 0]],
    },
    {
        "river": ONCA_RIVER,
        "available": ["onca1", "crias2"],
        "deck": ["tches5"],
        "capybaras": [[1, "oxes2", 1]],
        "oncas_in": [2],
        "current": 1,
    },
    # the refill, and a single available card refilled at once from the deck
    {"river": ONCA_RIVER, "available": ["crias2", "crias5"], "deck": ["oxes1", "oxes2", "oxes3", "oxes4", "oxes5"]},
    {"river": QUIET_RIVER, "available": ["crias1"], "deck": ["oxes1", "oxes2", "onca1", "tches4", "tches5"]},
    # the last turn of a round, with the match score at various points
    {"river": QUIET_RIVER, "available": ["crias4", "crias5"], "current": 1},
    {"river": QUIET_RIVER, "available": ["crias4", "crias5"], "capybaras": [[2, "oxes4", 1]], "round_wins": [1, 1]},
    {"river": QUIET_RIVER, "available": ["crias4", "crias5"], "round_wins": [1, 0]},
    {"river": QUIET_RIVER, "available": ["crias4", "crias5"], "round_wins": [2, 2], "current": 1},
]


def scenarios(config: dict) -> list[dict]:
    """Scenarios valid for this config (an empty list: random play only)."""
    need = config.get("wins_needed", 2)
    out = []
    for sc in SCENARIOS:
        wins = sc.get("round_wins", [0, 0])
        if max(wins) < need or wins[0] == wins[1]:  # a decided match is not a position to play from
            out.append(sc)
    return out
