"""Horizonte's observation layout, declared once as named pieces with shapes (``envs.engine.layout``).

The layout depends on the config: ``layout(num_players, max_prediction, rounds)`` declares it, and
everything else derives from it: ``Horizonte.obs_size`` and ``observation_layout()``, the rules
document's table (seeds/horizonte.md, "Observation"; a test checks it against the default config)
and the offsets the compiled ``core.observe_into`` writes at.

numba bakes ints and NumPy arrays into machine code, not Python objects, so the compiled side reads
each piece's offset from three small tables built here from ``layout``: for ``n`` players, piece
``k`` (its index in ``PIECES``) starts at ``OFFSET_BASE[n, k] + OFFSET_PER_ROUND[n, k] * rounds +
OFFSET_PER_PREDICTION[n, k] * max_prediction``, and column ``END`` holds the size the same way.
The pieces' lengths are linear in ``rounds`` and ``max_prediction``, so this is exact (checked at
import: ``_check_tables``).
"""

import functools

import numpy as np

from envs.engine.layout import ObsLayout
from envs.horizonte.rules import MAX_PLAYERS, MAX_PREDICTION_CAP, MAX_ROUNDS, NUM_CARDS, NUM_SUITS


@functools.cache
def layout(num_players: int, max_prediction: int, rounds: int) -> ObsLayout:
    """The observation's pieces for a config, in order; ego-centric: "seat" r is the observer's r-th
    seat clockwise (0: the observer). The content of each is described in seeds/horizonte.md."""
    n = num_players
    return ObsLayout(
        ("phase", (4,)),  # one-hot: predicting, playing the Dragon (or merged) trick, playing the Dog trick, over
        ("merged", (1,)),  # one seat holds both initiatives
        ("round", (rounds,)),  # one-hot round number
        ("to_act", (n,)),  # one-hot seat to act
        ("my_hand", (NUM_CARDS,)),
        ("played", (n, NUM_CARDS)),  # cards each seat played this round
        ("dragon_trick", (n, NUM_CARDS + n)),  # k-th card into it: card one-hot, then its seat one-hot
        ("dragon_led", (NUM_SUITS,)),
        ("dog_trick", (n, NUM_CARDS + n)),
        ("dog_led", (NUM_SUITS,)),
        ("dragon_holder", (n,)),
        ("dog_holder", (n,)),
        ("hand_sizes", (n,)),  # / hand size
        ("voids", (n, NUM_SUITS)),  # suits each seat has shown it lacks this round
        ("predictions", (n, max_prediction + 1)),  # one-hot: mine once chosen, the others' once revealed
        ("dragon_tricks", (n,)),  # / (2 hand size)
        ("dog_tricks", (n,)),
        ("scores", (n,)),  # / core.score_scale
    )


PIECES = tuple(layout(MAX_PLAYERS, 0, 1).names())
END = len(PIECES)  # the tables' last column: the size


def _offsets(num_players: int, max_prediction: int, rounds: int) -> np.ndarray:
    """Each piece's offset, then the size (the tables' columns), computed from ``layout`` directly."""
    lay = layout(num_players, max_prediction, rounds)
    return np.array([lay.offset(name) for name in PIECES] + [lay.size], np.int64)


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    base = np.zeros((MAX_PLAYERS + 1, END + 1), np.int64)
    per_round = np.zeros_like(base)
    per_prediction = np.zeros_like(base)
    for n in range(1, MAX_PLAYERS + 1):
        first = _offsets(n, 0, 1)
        per_round[n] = _offsets(n, 0, 2) - first
        per_prediction[n] = _offsets(n, 1, 1) - first
        base[n] = first - per_round[n]
    return base, per_round, per_prediction


OFFSET_BASE, OFFSET_PER_ROUND, OFFSET_PER_PREDICTION = _tables()


def _check_tables() -> None:
    """The tables give ``layout``'s offsets on a 3 x 3 grid of (max_prediction, rounds) per player
    count: an offset is a polynomial of degree at most 2 in each (a piece's shape has at most two
    dimensions that grow with the config), and such a polynomial that is linear at three points of
    each variable is linear everywhere."""
    for n in range(1, MAX_PLAYERS + 1):
        for p in (0, 1, MAX_PREDICTION_CAP):
            for r in (1, 2, MAX_ROUNDS):
                derived = OFFSET_BASE[n] + OFFSET_PER_ROUND[n] * r + OFFSET_PER_PREDICTION[n] * p
                if not np.array_equal(derived, _offsets(n, p, r)):
                    raise AssertionError(f"observation offsets are not linear in the config at {(n, p, r)}")


_check_tables()
