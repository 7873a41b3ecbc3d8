"""Capivari's constants, card table, config and action encoding (rules: seeds/capivari.md)."""

from dataclasses import dataclass

import numpy as np

from envs.engine.config import knob, validate_config

NUM_PLAYERS = 2
NUM_SEGMENTS = 3
NUM_HERDS = 3
NUM_NUMBERS = 5
NUM_HERD_CARDS = NUM_HERDS * NUM_NUMBERS  # 15
NUM_ONCAS = 3
NUM_CARDS = NUM_HERD_CARDS + NUM_ONCAS  # 18
AVAILABLE_TARGET = 4  # refill the available cards up to this many
MAX_ROUNDS_CAP = 64  # size of the per-round score history in the state

HERDS = ("crias", "oxes", "tches")  # Capicrias, Capiôxes, Capitchês
HERD_TITLES = ("Capicrias", "Capiôxes", "Capitchês")

# Card locations (state field `loc`).
LOC_DECK, LOC_RIVER_CARD, LOC_AVAILABLE, LOC_IN_RIVER, LOC_TUCKED, LOC_DISCARD = range(6)
LOC_NAMES = ("deck", "river card", "available", "in the river", "tucked", "discarded")

# River-side modifiers: which cards of the segment (selector) and what happens to them (effect).
SEL_ALL, SEL_EVEN, SEL_ODD, SEL_CRIAS, SEL_OXES, SEL_TCHES, SEL_HIGHEST, SEL_LOWEST = range(8)
SELECTORS = ("all", "even", "odd", "crias", "oxes", "tches", "highest", "lowest")
EFF_ZERO, EFF_DOUBLE, EFF_SUBTRACT = range(3)
EFFECTS = ("zero", "double", "subtract")

# The river side of each of the 18 cards, by card id (herd cards h*5+n-1, then the 3 Capionças).
# Our own table (the manual lists the kinds only): 18 distinct modifiers, spread so that no
# herd card carries a modifier naming its own herd. See seeds/capivari.md.
RIVER_SIDE = np.array(
    [
        (SEL_ALL, EFF_DOUBLE),  # crias1
        (SEL_OXES, EFF_ZERO),  # crias2
        (SEL_ODD, EFF_SUBTRACT),  # crias3
        (SEL_HIGHEST, EFF_DOUBLE),  # crias4
        (SEL_TCHES, EFF_DOUBLE),  # crias5
        (SEL_ALL, EFF_SUBTRACT),  # oxes1
        (SEL_EVEN, EFF_DOUBLE),  # oxes2
        (SEL_TCHES, EFF_ZERO),  # oxes3
        (SEL_LOWEST, EFF_ZERO),  # oxes4
        (SEL_CRIAS, EFF_DOUBLE),  # oxes5
        (SEL_ALL, EFF_ZERO),  # tches1
        (SEL_ODD, EFF_DOUBLE),  # tches2
        (SEL_CRIAS, EFF_ZERO),  # tches3
        (SEL_HIGHEST, EFF_SUBTRACT),  # tches4
        (SEL_OXES, EFF_DOUBLE),  # tches5
        (SEL_EVEN, EFF_SUBTRACT),  # onca1
        (SEL_LOWEST, EFF_DOUBLE),  # onca2
        (SEL_HIGHEST, EFF_ZERO),  # onca3
    ],
    dtype=np.int8,
)

# Actions: 0..14 take herd card h*5+n-1; then a Capionça on segment s with effect k:
# 15 + s*7 + k, k = 0..2 push herd k, 3..5 flip herd k-3, 6 swap all sides.
ONCA_BASE = NUM_HERD_CARDS
ONCA_EFFECTS = 7
K_PUSH, K_FLIP, K_SWAP = 0, 3, 6
NUM_ACTIONS = ONCA_BASE + NUM_SEGMENTS * ONCA_EFFECTS  # 36


def card_name(card: int) -> str:
    """``crias3``, ``oxes5``, ``onca2``: the capybara side of a card id."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be in [0, {NUM_CARDS}), got {card}")
    if card >= NUM_HERD_CARDS:
        return f"onca{card - NUM_HERD_CARDS + 1}"
    return f"{HERDS[card // NUM_NUMBERS]}{card % NUM_NUMBERS + 1}"


CARD_NAMES = tuple(card_name(c) for c in range(NUM_CARDS))


def card_from_name(name: str) -> int:
    """Card id from its name; ValueError listing the names otherwise."""
    try:
        return CARD_NAMES.index(str(name).strip())
    except ValueError:
        raise ValueError(f"unknown Capivari card {name!r}; cards are {', '.join(CARD_NAMES)}") from None


def modifier_name(card: int, subtract_points: int) -> str:
    """The river side of a card in words, e.g. ``double odd`` or ``-3 highest``."""
    sel, eff = RIVER_SIDE[card]
    verb = f"-{subtract_points}" if eff == EFF_SUBTRACT else EFFECTS[eff]
    return f"{verb} {SELECTORS[sel]}"


def action_name(action: int) -> str:
    """``oxes3`` (take a herd card) or ``onca s2 push crias`` / ``flip tches`` / ``swap``."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"Capivari action must be in [0, {NUM_ACTIONS}), got {action}")
    if action < ONCA_BASE:
        return card_name(action)
    seg, k = divmod(action - ONCA_BASE, ONCA_EFFECTS)
    if k == K_SWAP:
        what = "swap"
    elif k < K_FLIP:
        what = f"push {HERDS[k]}"
    else:
        what = f"flip {HERDS[k - K_FLIP]}"
    return f"onca s{seg + 1} {what}"


@dataclass(frozen=True)
class CapivariConfig:
    """Capivari's knobs; every gap the rules leave has one (seeds/capivari.md), but ``observe_margins``,
    ``observe_unseen``, ``observe_afterstates`` and ``observe_replies``, options of the observation."""

    first_player: int = knob(0, range=(0, 1), doc="seat that starts the first round")
    subtract_points: int = knob(3, range=(1, 10), doc="points a 'subtract' modifier takes off a card")
    wins_needed: int = knob(2, range=(1, 5), doc="round wins that end the game")
    max_rounds: int = knob(20, range=(1, MAX_ROUNDS_CAP), doc="rounds after which an undecided game is a draw")
    observe_margins: bool = knob(
        False,
        observation=True,
        doc="observation: one more piece, each legal move's river margin right after it (off: as before)",
    )
    observe_unseen: bool = knob(
        False, observation=True, doc="observation: one more piece, the cards in the deck below its top (off: as before)"
    )
    observe_afterstates: bool = knob(
        False,
        observation=True,
        doc="observation: one more piece, last, a row per legal move: the river right after it (off: as before)",
    )
    observe_replies: bool = knob(
        False,
        observation=True,
        doc="observation: the afterstates rows (as observe_afterstates), each one number longer: the margin after the "
        "opponent's best reply (off: as before)",
    )

    def __post_init__(self) -> None:
        validate_config(self)

    @property
    def observes_rows(self) -> bool:
        """Whether the observation ends with the ``afterstates`` rows (``observe_replies`` brings them too)."""
        return self.observe_afterstates or self.observe_replies
