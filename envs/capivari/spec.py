"""# Capivari

| | |
|---|---|
| Import | `from envs import capivari_v0` |
| Agents | `player_0`, `player_1` |
| Actions | Discrete(36), masked |
| Observation | `{"observation": float32[181] in [-1, 1], "action_mask": int8[36]}` |
| Rules | `seeds/capivari.md` |

Every year capybaras gather to fight over the Capivari river. On your turn take one
of the available cards: a herd card (Capicrias, Capiôxes, Capitchês, numbered 1-5)
enters the first river segment on your side and may push a same-herd capybara
downstream, in chains; a Capionça is tucked under a segment and pushes, flips or
swaps capybaras there. When the deck runs out a round is scored with each segment's
modifier; two round wins take the match.

Actions: `crias1`..`tches5` take that herd card (ids 0-14); `onca sS push H`,
`onca sS flip H`, `onca sS swap` play a Capionça on segment S (ids 15-35).
Rewards: +1 / -1 to the match winner / loser at the end (0 each in a draw at
`max_rounds`). `infos[agent]["round_scores"]` holds every finished round's scores.
Config: `first_player`, `subtract_points`, `wins_needed`, `max_rounds`, and the observation's
`observe_margins` (off by default: one more piece, float32[36], each legal move's margin),
`observe_unseen` (off by default: one more piece, float32[18], the cards in the deck below its top) and
`observe_afterstates` (off by default: one more piece, last, float32[24 x 131], a row per legal move, the river
right after it), with `observe_replies` each row one number longer: the margin after the opponent's best reply
(`tabuleiro games` lists them with their ranges).
"""

from envs.capivari.game import Capivari
from envs.capivari.hidden import deck_order
from envs.capivari.shaping import round_wins
from envs.engine.spec import GameSpec

SPEC = GameSpec(
    title="Capivari, capybaras pushed along a three-segment river",
    doc=__doc__,
    game=Capivari,
    rules="seeds/capivari.md",
    seats=(2, 2),
    parallel=False,
    # random is beaten within minutes; the heuristic is the opponent worth the samples
    # 2 epochs of 1,024-row minibatches: far more learner decisions/s than 6 epochs of 500 rows, learning as well
    # (docs/training.md, "Lighter learning")
    training={
        "lr": 5e-4,
        "num_epochs": 2,
        "minibatch_size": 1024,
        "pool": {"random": 0.25, "heuristic": 0.6, "snapshot": 0.15},
    },
    targets={"learning": {"players": 2, "vs": {"random": 0.90, "heuristic": 0.80}}},  # within 20 minutes
    shaping={"round_wins": round_wins},  # a potential a run may name (--set shaping=round_wins; training.shaping)
    hidden=deck_order,  # no hands: what no seat sees is the deck (--set privileged_critic=true)
)
