"""# Dorfromantik: The Duel (base game)

| | |
|---|---|
| Import | `from envs import dorfromantik_duel_v0` |
| Agents | `player_0`, `player_1` |
| Actions | Discrete((2R+1)^2 * 6 + 1), masked; R = `board_radius` (default 17: 7351 actions) |
| Observation | `{"observation": float32[96 (2R+1)^2 + 247] in [0, 1], "action_mask": int8[...]}` (R = 17: 117,847) |
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
Observation (ego-centric, "me" first): 48 planes of (2R+1) x (2R+1) for my board, 48
for the opponent's (as it stood at the start of the turn), then 247 entries: the
tile to place, its marker, which tiles and markers are still unseen, stack sizes,
both score pads, the turn. The layout is in `seeds/dorfromantik_duel.md`.
Rewards: +1 / -1 / 0 at the end; `infos[agent]["score"]` is the score pad.
In the AEC env `player_0` chooses first, but its placement is revealed only once
`player_1` has chosen too.
Scenarios: `reset(options={"scenario": {"boards": ..., "landscape": ..., ...}})`.
Config: `board_radius`, `distinct_rotations`, `forbid_doomed_tasks`.
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
    # the default radius-17 board gives 117,847 inputs and 7,351 actions, beyond what an MLP learns in minutes on
    # 2 cores; random games never reach a radius-6 board's edge (no forced passes in 200 games), so train there
    training={
        "game_config": {"board_radius": 6},
        # learning dominates here (16,471 inputs): a narrower first layer and fewer epochs; random-heavy pool
        # because against the heuristic an untrained policy never wins, and a +-1 reward needs some wins
        "train_batch_size": 2000,
        "minibatch_size": 250,
        "num_epochs": 4,
        "hiddens": (128, 128),
        "pool": {"random": 0.5, "heuristic": 0.3, "snapshot": 0.2},
        # +-1 after 43 decisions is too sparse for 20 minutes (a run without it stayed near 50% against random)
        "shaping": "duel_margin",
    },
    targets={"learning": {"players": 2, "vs": {"random": 0.80}}},
    quick_config={"board_radius": 9},  # the generic suites' PettingZoo checks on a smaller board
)
