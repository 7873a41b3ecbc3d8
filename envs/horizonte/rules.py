"""Horizonte's constants, card table, config and action encoding (rules: seeds/horizonte.md)."""

from dataclasses import dataclass

import numpy as np

from envs.engine.config import knob, validate_config

MAX_PLAYERS = 5
MAX_ROUNDS = 10  # size of the per-round history in the state
MAX_PREDICTION_CAP = 40  # largest allowed config max_prediction

# Suits, in card-id order: Ocean 0-12, Desert 1-12, Mountain 1-12, Cloud 13-25.
OCEAN, DESERT, MOUNTAIN, CLOUD = range(4)
NUM_SUITS = 4
SUIT_LETTERS = ("O", "D", "M", "C")
SUIT_TITLES = ("Ocean", "Desert", "Mountain", "Cloud")
SUIT_RANGES = ((0, 12), (1, 12), (1, 12), (13, 25))
STAR_VALUES = (3, 7, 13, 17)  # a trick won with one of these counts twice

# Card ids 0..49: suit by suit, low to high (O0 = 0, D1 = 13, M1 = 25, C13 = 37, C25 = 49).
CARD_SUIT = np.array([s for s, (lo, hi) in enumerate(SUIT_RANGES) for _ in range(lo, hi + 1)], dtype=np.int8)
CARD_VALUE = np.array([v for lo, hi in SUIT_RANGES for v in range(lo, hi + 1)], dtype=np.int8)
CARD_STAR = np.array([v in STAR_VALUES for v in CARD_VALUE], dtype=np.uint8)
NUM_CARDS = len(CARD_SUIT)  # 50
CARD_NAMES = tuple(f"{SUIT_LETTERS[s]}{v}" for s, v in zip(CARD_SUIT.tolist(), CARD_VALUE.tolist(), strict=True))

# Our removal lists (the manual's are missing from our copy; seeds/horizonte.md, "Gaps and choices").
STANDARD_REMOVED = {
    5: (),
    4: ("O0", "C25"),
    3: ("O0", "C25", "O1", "O12", "D1", "D12", "M1", "M12"),
}

# Actions: 0..49 play that card; PREDICT_BASE + k predicts k (0..max_prediction).
PREDICT_BASE = NUM_CARDS

# Phases (state field `phase`).
PHASE_PREDICT, PHASE_PLAY, PHASE_OVER = range(3)
# The two tricks (index of the trick arrays; the merged trick lives in TRICK_DRAGON).
TRICK_DRAGON, TRICK_DOG = 0, 1
REWARD_MODES = ("rank", "points")


def card_name(card: int) -> str:
    """``O8``, ``D2``, ``M6``, ``C14``: suit letter and printed number of a card id."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be in [0, {NUM_CARDS}), got {card}")
    return CARD_NAMES[card]


def card_from_name(name: object) -> int:
    """Card id from a name like ``O8`` (case-insensitive); ValueError naming the valid cards otherwise."""
    key = str(name).strip().upper() if isinstance(name, str) else None
    if key in CARD_NAMES:
        return CARD_NAMES.index(key)
    raise ValueError(f"unknown Horizonte card {name!r}; cards are O0..O12, D1..D12, M1..M12, C13..C25")


def num_actions(max_prediction: int) -> int:
    """Size of the action space: 50 cards plus predictions 0..max_prediction."""
    return PREDICT_BASE + max_prediction + 1


MAX_ACTIONS = PREDICT_BASE + MAX_PREDICTION_CAP + 1  # action space of the largest config (batch mask buffers)


def action_name(action: int, max_prediction: int) -> str:
    """``C14`` (play that card) or ``predict 3``."""
    if not 0 <= action < num_actions(max_prediction):
        raise ValueError(f"Horizonte action must be in [0, {num_actions(max_prediction)}), got {action}")
    if action < PREDICT_BASE:
        return CARD_NAMES[action]
    return f"predict {action - PREDICT_BASE}"


@dataclass(frozen=True)
class HorizonteConfig:
    """Horizonte's knobs; every gap the manual leaves has one (seeds/horizonte.md)."""

    num_players: int = knob(4, range=(3, MAX_PLAYERS), doc="seats at the table, clockwise")
    max_prediction: int = knob(7, range=(0, MAX_PREDICTION_CAP), doc="highest prediction on the prediction card")
    rounds: int = knob(3, range=(1, MAX_ROUNDS), doc="rounds in a game")
    neblina: bool = knob(False, doc="variant Neblina: 3 points (not 5) per unit a prediction is off")
    reward: str = knob("rank", choices=REWARD_MODES, doc="rank: zero-sum at the end; points: -points each round")
    removed: tuple | None = knob(None, doc="card names taken out of the deck; None: our list for the player count")

    def __post_init__(self) -> None:
        validate_config(self)
        if self.removed is not None:
            ids = [card_from_name(c) for c in self.removed]
            if len(set(ids)) != len(ids):
                raise ValueError(f"config 'removed' names a card twice: {self.removed!r}")
            object.__setattr__(self, "removed", tuple(CARD_NAMES[c] for c in ids))
        deck = NUM_CARDS - len(self.removed_cards)
        if deck % self.num_players or deck // self.num_players < 2:
            raise ValueError(
                f"a deck of {deck} cards cannot be dealt equally in hands of at least 2 cards to "
                f"{self.num_players} players; adjust config 'removed'"
            )

    @property
    def removed_cards(self) -> tuple[int, ...]:
        """Ids of the cards out of the deck for this config."""
        names = STANDARD_REMOVED[self.num_players] if self.removed is None else self.removed
        return tuple(sorted(card_from_name(c) for c in names))

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat every round."""
        return (NUM_CARDS - len(self.removed_cards)) // self.num_players

    @property
    def points_per_unit(self) -> int:
        """Penalty points per unit of difference between prediction and result."""
        return 3 if self.neblina else 5
