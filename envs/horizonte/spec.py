"""# Horizonte

| | |
|---|---|
| Import | `from envs import horizonte_v0` |
| Agents | `player_0` .. `player_{n-1}`, n = `num_players` (3, 4 or 5; default 4), seated clockwise |
| Actions | Discrete(51 + `max_prediction`) = Discrete(58) by default, masked |
| Observation | `{"observation": float32[obs_size] in [0, 1], "action_mask": int8[num_actions]}` |
| Observation size | 591 (3 players), 774 (4), 961 (5) with the default config |
| Rules | `seeds/horizonte.md` |

A trick-taking game for 3 to 5 players in which two tricks run at the same time.
In the Dragon trick high cards win (the highest Cloud, else the highest card of
the suit led); in the Dog trick the lowest card of any suit wins, ties going to
the card played last. The Dragon initiative holder leads the Dragon trick; when
the turn reaches the Dog initiative holder, they interrupt it to lead the Dog
trick, everyone plays into that, and then the Dragon trick resumes with them.
Winning a trick takes its initiative; a trick won with a star card (3, 7, 13, 17)
counts twice. When one player holds both initiatives, the next trick is a single
merged trick resolved by both rules.

Before playing, every player secretly predicts the difference between the
Dragon and Dog tricks they will win. Scoring (lowest total wins after three
rounds): 1 point per Dragon/Dog pair, plus 5 points (3 with the Neblina
variant) per unit by which the unpaired rest misses the prediction.

Actions: `O0`..`O12`, `D1`..`D12`, `M1`..`M12`, `C13`..`C25` play that card
(ids 0-49, suit by suit, low to high); `predict k` (id 50 + k) makes the secret
prediction. The predictions are simultaneous in the game and sequential here
(from the Dragon holder, clockwise): nobody sees another's prediction before all
are made. Observations are ego-centric (the observer is relative seat 0, the
next seat clockwise is 1, ...): own hand, cards played by each seat this round,
both current tricks in play order with their led suits, initiative holders, hand
sizes, known voids, predictions once revealed, tricks taken this round, round,
totals and phase; the layout is documented in `seeds/horizonte.md`.

Rewards: `reward="rank"` (default) gives, at the end, +1 split among the
players with the lowest total and -1 split among the others (0 for all if all
tie); `reward="points"` gives minus each round's points at that round's end.
`infos[agent]` holds each finished round's prediction, Dragon and Dog tricks and
points as arrays of fixed length, `["scores"]` the totals; `env.details(agent)["rounds"]`
a dict per round (pairs and rest too).

Config: `num_players`, `max_prediction`, `rounds`, `neblina`, `reward`,
`removed` (card names out of the deck; default: none for 5 players, O0 and C25
for 4, and also O1 O12 D1 D12 M1 M12 for 3). Scenarios for tests and analysis:
`reset(options={"scenario": {"hands": [...], "dragon": 0, "dog": 2,
"predictions": [...], "round": 1, "scores": [...]}})` (see `seeds/horizonte.md`).
"""

from envs.engine.spec import GameSpec
from envs.horizonte.game import Horizonte
from envs.horizonte.hidden import other_hands

SPEC = GameSpec(
    title="Horizonte, Dragon and Dog tricks played at once, secret prediction",
    doc=__doc__,
    game=Horizonte,
    rules="seeds/horizonte.md",
    seats=(3, 5),
    parallel=False,
    # 2 epochs of 1,000-row minibatches and a heuristic-heavy pool: more decisions, more of them against the
    # heuristics the target is about; hidden layers 256 x 256, not 512 x 256, for speed at no loss in strength
    # (docs/training.md, "Lighter learning" and "Learning results")
    training={
        "train_batch_size": 6000,
        "minibatch_size": 1000,
        "num_epochs": 2,
        "lr": 5e-4,
        "hiddens": (256, 256),
        "pool": {"random": 0.1, "heuristic": 0.6, "snapshot": 0.3, "self": 0.0},
    },
    targets={"learning": {"players": 4, "vs": {"random": 0.50, "heuristic": 0.45}}},  # first in, within 20 minutes
    hidden=other_hands,  # the privileged critic's input (--set privileged_critic=true)
)
