"""Kuhn poker's rules as data: the cards, the betting sequences, action names, the config.

Standard Kuhn poker (H. W. Kuhn, 1950; OpenSpiel's ``kuhn_poker``): three cards J < Q < K, two
players, an ante of 1 each, one card each, one betting round with bets of 1 chip. Action ids as
OpenSpiel: 0 = ``pass`` (check or fold), 1 = ``bet`` (bet or call). See seeds/kuhn_poker.md.
"""

from dataclasses import dataclass

from envs.engine.config import knob, validate_config

NUM_PLAYERS = 2
NUM_CARDS = 3  # J, Q, K: card id 0, 1, 2 (higher id, higher card)
CARD_NAMES = ("J", "Q", "K")
ANTE = 1  # chips each seat puts in before the deal
BET = 1  # chips a bet (or a call) adds

PASS, BET_ACTION = 0, 1
NUM_ACTIONS = 2
ACTION_NAMES = ("pass", "bet")
MAX_MOVES = 3  # the longest betting sequence: pass, bet, then pass or bet

# Betting sequences by the order of moves, first mover first ("p" pass, "b" bet). A hand ends
# after pass-pass (showdown for the antes), bet-pass (the first mover takes the antes), bet-bet
# (showdown for 2 each), pass-bet-pass (the second mover takes the antes) or pass-bet-bet
# (showdown for 2 each); the other sequences are still to be played on.
LIVE_SEQUENCES = ("", "p", "b", "pb")
TERMINAL_SEQUENCES = ("pp", "bp", "bb", "pbp", "pbb")


def sequence_of(moves: list[int]) -> str:
    """Action ids as a betting sequence string (``[0, 1]`` -> ``"pb"``)."""
    return "".join("pb"[a] for a in moves)


def action_name(action: int) -> str:
    """``pass`` (check or fold) or ``bet`` (bet or call)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"Kuhn poker action must be 0 (pass) or 1 (bet), got {action}")
    return ACTION_NAMES[action]


def card_from_name(name: object) -> int:
    """Card id from ``J``, ``Q`` or ``K`` (any case); ValueError naming the cards otherwise."""
    if isinstance(name, str) and name.strip().upper() in CARD_NAMES:
        return CARD_NAMES.index(name.strip().upper())
    raise ValueError(f"unknown Kuhn poker card {name!r}; cards are J, Q, K")


@dataclass(frozen=True)
class KuhnPokerConfig:
    """Kuhn poker's one knob; the default is standard Kuhn poker (seeds/kuhn_poker.md)."""

    first_player: int = knob(0, range=(0, 1), doc="seat that acts first (0: standard Kuhn poker)")

    def __post_init__(self) -> None:
        validate_config(self)
