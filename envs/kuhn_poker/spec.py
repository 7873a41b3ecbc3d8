"""# Kuhn poker

| | |
|---|---|
| Import | `from envs import kuhn_poker_v0` |
| Agents | `player_0`, `player_1` |
| Actions | Discrete(2), masked |
| Observation | `{"observation": float32[13] in [0, 1], "action_mask": int8[2]}` |
| Rules | `seeds/kuhn_poker.md` |

The smallest interesting poker (H. W. Kuhn, 1950), exactly as OpenSpiel's `kuhn_poker`:
a deck of three cards, J < Q < K. Both players ante 1 chip and are dealt one card each;
the third stays hidden. `player_0` acts first. On a turn a player may `pass` (check, or
fold when facing a bet) or `bet` (bet 1 chip, or call a bet). The hand ends after
pass-pass (showdown: the higher card takes the antes, +-1), bet-pass (the bettor takes
the antes, +-1), bet-bet (showdown, +-2), pass-bet-pass (the bettor, `player_1`, takes
the antes, +-1) or pass-bet-bet (showdown, +-2).

Actions: `pass` (id 0), `bet` (id 1), as in OpenSpiel. Rewards: the chips won or lost,
paid at the end of the hand (zero-sum). Observations are ego-centric ("me" is the
observing seat): my card, the moves so far, whose turn it is, each seat's chips in the
pot; never the other seat's card (`infos` show both cards after a showdown only). The
layout is in `seeds/kuhn_poker.md`. Config: `first_player` (default 0: standard Kuhn
poker). Under equilibrium play the first player's expected result is -1/18 chip a hand.
"""

from envs.engine.spec import GameSpec
from envs.kuhn_poker.game import KuhnPoker

SPEC = GameSpec(
    title="Kuhn poker, three-card poker with one betting round",
    doc=__doc__,
    game=KuhnPoker,
    rules="seeds/kuhn_poker.md",
    seats=(2, 2),
    parallel=False,
    training={},  # the defaults: a two-action game is learned within the smallest budgets
    targets={"learning": {"players": 2, "vs": {"random": 0.6}}},
)
