"""Kuhn poker's rules as data: the cards, the chips, the actions, the betting sequences, the config.

Standard Kuhn poker (H. W. Kuhn, 1950; OpenSpiel's ``kuhn_poker``): three cards J < Q < K, two
players, an ante of 1 each, one card each, one betting round with bets of 1 chip. Action ids as
OpenSpiel: 0 = ``pass`` (check or fold), 1 = ``bet`` (bet or call). See seeds/kuhn_poker.md.
"""

from dataclasses import dataclass

from envs.engine.config import knob, validate_config

NUM_PLAYERS = 2
NUM_CARDS = 3  # card ids 0, 1, 2: a higher id is a higher card
JACK, QUEEN, KING = 0, 1, 2
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


@dataclass(frozen=True)
class KuhnPokerConfig:
    """Kuhn poker's one knob; the default is standard Kuhn poker (seeds/kuhn_poker.md)."""

    first_player: int = knob(0, range=(0, 1), doc="seat that acts first (0: standard Kuhn poker)")

    def __post_init__(self) -> None:
        validate_config(self)
