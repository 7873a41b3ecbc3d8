"""Documented positions the fuzz campaign forges from (reset(options={"scenario": ...})).

Taken from the rules tests (tests/horizonte/test_rules.py): the manual's worked example, separate
and merged tricks, the predicting phase, a last round with scores. The four-seat hands are cut to
three seats or given a fifth seat from unused cards, and scenarios using a card the config removes
are left out.
"""

from envs.horizonte.rules import CARD_NAMES, HorizonteConfig

WORKED_EXAMPLE = [
    ["O8", "C13", "C20", "D9"],
    ["C14", "M6", "D5", "C16"],
    ["M2", "O5", "D6", "M9"],
    ["D2", "O4", "D10", "C18"],
]
MERGED = [["O3", "O9", "O10", "O11"], ["D5", "D8", "C20", "C22"], ["M7", "M8", "D9", "D10"], ["D4", "M9", "C21", "M10"]]
FOLLOW = [["O3", "M4", "C15", "D8"], ["O6", "M7", "D3", "C18"], ["O9", "M2", "M10", "D5"], ["D2", "O2", "M5", "C22"]]
SHORT = [["O8", "C13", "D9"], ["C14", "M6", "D5"], ["M2", "O5", "D6"], ["D2", "O4", "D10"]]
LAST = [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4"]]

# (four-seat hands, the rest of the scenario; seats are 0..2 so every table size has them)
BASES = [
    (WORKED_EXAMPLE, {"dragon": 0, "dog": 2, "predictions": [0, 0, 0, 0]}),
    (WORKED_EXAMPLE, {"dragon": 1, "dog": 0}),
    (MERGED, {"dragon": 0, "dog": 0, "predictions": [0, 1, 2, 3]}),
    (FOLLOW, {"dragon": 0, "dog": 1, "predictions": [0, 0, 0, 0], "round": 2}),
    (SHORT, {"dragon": 2, "dog": 2}),
    (LAST, {"dragon": 0, "dog": 2, "predictions": [0, 1, 0, 0], "round": 3, "scores": [10, 10, 20, 30]}),
]


def _seated(hands: list[list[str]], n: int, removed: set[str]) -> list[list[str]] | None:
    if n <= len(hands):
        hands = hands[:n]
    else:
        used = {c for hand in hands for c in hand} | removed
        spare = [c for c in CARD_NAMES if c not in used]
        size = len(hands[0])
        hands = hands + [spare[k * size : (k + 1) * size] for k in range(n - len(hands))]
    if any(c in removed for hand in hands for c in hand):
        return None
    return hands


def scenarios(config: dict) -> list[dict]:
    """Scenarios valid for this config (an empty list: random play only)."""
    c = HorizonteConfig(**config)
    n = c.num_players
    removed = {CARD_NAMES[i] for i in c.removed_cards}
    out = []
    for hands, rest in BASES:
        hands = _seated(hands, n, removed)
        if hands is None or len(hands[0]) > c.hand_size or rest.get("round", 1) > c.rounds:
            continue
        sc = {"hands": hands, **rest}
        for key in ("predictions", "scores"):
            if key in sc:
                values = (sc[key] * n)[:n]
                sc[key] = [min(v, c.max_prediction) for v in values] if key == "predictions" else values
        out.append(sc)
    return out
