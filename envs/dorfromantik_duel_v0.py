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

from envs.dorfromantik_duel import DorfromantikDuel
from envs.engine.entry import aec_factories, parallel_factories

env, raw_env = aec_factories(DorfromantikDuel)
parallel_env, raw_parallel_env = parallel_factories(DorfromantikDuel)

__all__ = ["env", "parallel_env", "raw_env", "raw_parallel_env"]
