"""# Dorfromantik: The Duel (base game)

| | |
|---|---|
| Import | `from envs import dorfromantik_duel_v0` |
| Agents | `player_0`, `player_1` |
| Actions | Discrete((2R+1)^2 * 6 + 1), masked; R = `board_radius` (default 16: 6,535 actions) |
| Observation | `{"observation": float32[22 (2R+1)^2 + 247] in [0, 1], "action_mask": int8[...]}` (R = 16: 24,205) |
| Rules | `seeds/dorfromantik_duel.md` |
| Parallel | `parallel_env()`: both players place at once, as in the real game |

Two players build their own landscapes from identical tile sets. Each turn one tile
is revealed (a task tile with a task marker on the first three turns and whenever
either player has fewer than three open markers, else a landscape tile) and both
place it in their own area: touching their own tiles, any rotation, tracks only
against tracks and streams only against streams. A marker scores its value when
the territory (forest, grain, village), track or stream through its tile has exactly
that many tiles (a connection task: that many tiles touching it; a double task:
either of its two territories at 6), and is cancelled when it overshoots or is
closed short. At the end flags score the size of their closed territory, and the
longest track and stream score their length. Higher total wins.

Actions: `place q=2 r=-1 rot=3` puts the current tile on axial cell (q, r) turned 3
steps clockwise; `pass` only when no placement is legal. Rotations that give an
identical tile are masked to the first (config `distinct_rotations`).
Observation (ego-centric, "me" first): first the two boards as a spatial tensor of shape
(2R+1, 2R+1, 22), channels last (row r + R, column q + R; at each cell 11 channels of my board,
then 11 of the opponent's as it stood at the start of the turn: a tile, each edge's terrain as
a scaled value, task tile, open marker value and type, flag), then 247 entries: the tile to
place, its marker, which tiles and markers are still unseen, stack sizes, both score pads, the
turn. A network reshapes the first piece of `observation_layout()` to (H, W, C). The layout is
in `seeds/dorfromantik_duel.md`.
Rewards: +1 / -1 / 0 at the end; `infos[agent]["score"]` is the score pad.
In the AEC env `player_0` chooses first, but its placement is revealed only once
`player_1` has chosen too.
Scenarios: `reset(options={"scenario": {"boards": ..., "landscape": ..., ...}})`.
Config: `board_radius`, `distinct_rotations`, `forbid_doomed_tasks`, `module_task_cards`,
`module_points_of_interest`, `placement_prior` (off by default: one more observation piece, last,
(2R+1, 2R+1, 6), the heuristic's judgement of each legal placement, 1 for the best, 0 for 10+ points worse).
"""

from envs.dorfromantik_duel.game import DorfromantikDuel
from envs.engine.spec import GameSpec

SPEC = GameSpec(
    name="dorfromantik_duel_v0",
    title="Dorfromantik: The Duel, hex tiles, territories, tasks, flags; Modules 1 and 2 as switches",
    doc=__doc__,
    game=DorfromantikDuel,
    rules="seeds/dorfromantik_duel.md",
    seats=(2, 2),
    parallel=True,
    heuristic="envs.dorfromantik_duel.heuristic",
    search="envs.dorfromantik_duel.search",
    # the default radius-16 board (heuristic boards measured reached 14 at most, 1 of 434 IS-MCTS ones 16) gives
    # 24,205 inputs, a (33, 33, 22) tensor first for a conv encoder, and 6,535 actions; a smaller board would change
    # the game the agents are measured on (heuristic boards reach 8 steps on average), so train on the default
    training={
        # learning dominates here (24,205 inputs, 6,535 actions): a cheap conv stack (stride 4 then 2: 800
        # numbers from the 33x33x22 board), 4,000-row batches in 1,000-row minibatches, one epoch at lr 5e-4:
        # 8 minutes gave 80.7% against random (300 games) at 1,251 learner decisions/s, against 74.3% at ~920/s
        # with 2 epochs at 3e-4 (docs/training.md, "The Duel's preset")
        "train_batch_size": 4000,
        "minibatch_size": 1000,
        "num_epochs": 1,
        "lr": 5e-4,
        "hiddens": (128, 128),
        "conv_filters": ((16, 4, 4), (32, 3, 2)),
        # random-heavy pool: against the heuristic an untrained policy never wins, and a +-1 reward needs some wins
        "pool": {"random": 0.5, "heuristic": 0.3, "snapshot": 0.2},
        # +-1 after 43 decisions is too sparse for 20 minutes (a run without it stayed near 50% against random)
        "shaping": "duel_margin",
    },
    targets={"learning": {"players": 2, "vs": {"random": 0.90, "heuristic": 0.40}}},  # issue 15: 30 minutes
    quick_config={"board_radius": 9},  # the generic suites' PettingZoo checks on a smaller board
)
