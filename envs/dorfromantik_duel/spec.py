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
`module_points_of_interest`, and three observation options: `placement_prior` (off by default: one more
piece, (2R+1, 2R+1, 6), the heuristic's judgement of each legal placement, 1 for the best, 0 for 10+ points
worse), `placement_candidates` (off by default: one more piece, last, (876, 8), a row per legal placement in
action order with what it would do to my board: points, task progress, cancellations, flags, edges) and
`observe_boards` (on by default; off leaves the boards' tensor out).
"""

from envs.dorfromantik_duel.game import DorfromantikDuel
from envs.dorfromantik_duel.shaping import margin, own_score
from envs.engine.spec import GameSpec

SPEC = GameSpec(
    title="Dorfromantik: The Duel, hex tiles, territories, tasks, flags; Modules 1 and 2 as switches",
    doc=__doc__,
    game=DorfromantikDuel,
    rules="seeds/dorfromantik_duel.md",
    seats=(2, 2),
    parallel=True,
    # train on the default radius-16 board: a smaller one would change the game the agents are measured on
    # (how far boards reach: seeds/dorfromantik_duel.md, "The board")
    training={
        # the policy reads placements by their consequences: the placement_candidates rows (what each legal
        # placement does to my board), scored by a small shared MLP (training.candidate_head), and the vector
        # (tile, stacks, pads, turn); the boards' tensor is left out (docs/training.md, "The Duel's preset")
        "game_config": {"placement_candidates": True, "observe_boards": False},
        "candidate_head": "placement_candidates",
        "candidate_hiddens": (64,),
        # the learner's action k is the k-th legal placement (row k): ~900 logits, not 6,535
        "candidate_actions": True,
        "train_batch_size": 4000,
        "minibatch_size": 1000,
        "num_epochs": 1,
        "lr": 2e-3,
        "entropy_coeff": 0.003,
        "hiddens": (128, 128),
        # the target is the heuristic: most games against it, some against random so early wins come
        "pool": {"random": 0.3, "heuristic": 0.5, "snapshot": 0.2},
        # the game's +-1 at the end is too sparse; shaped by my own points, not the margin: the boards are separate,
        # so the opponent's points do not depend on my placements and only add noise (docs/training.md)
        "shaping": "duel_score",
    },
    targets={"learning": {"players": 2, "vs": {"random": 0.90, "heuristic": 0.40}}},  # within 30 minutes
    quick_config={"board_radius": 9},  # the generic suites' PettingZoo checks on a smaller board
    shaping={"duel_margin": margin, "duel_score": own_score},  # potentials a preset may name (training.shaping)
)
