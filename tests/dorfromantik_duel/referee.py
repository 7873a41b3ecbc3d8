"""The Duel's test referee: whole random games in one compiled loop, snapshots of their ends for the
property tests, the hidden-information probe, and the measurement in the rules document
(``python -m tests.dorfromantik_duel.referee 100000``: how far random games spread).

Actions are drawn from a local generator seeded separately, never from the state's own
``rng``, so the game's chance events are the same as in an env reset with the same seed.
"""

import numpy as np
from numba import njit

from envs.dorfromantik_duel.determinize import determinize
from envs.dorfromantik_duel.grid import action_count
from envs.dorfromantik_duel.observation import observe_into
from envs.dorfromantik_duel.placement import legal_into
from envs.dorfromantik_duel.rules import NUM_KINDS, NUM_MARKER_TYPES
from envs.dorfromantik_duel.setup import reset
from envs.dorfromantik_duel.state import MAX_PLACED, state_dtype
from envs.dorfromantik_duel.tiles import NUM_TILES, T_CONNECTION
from envs.dorfromantik_duel.turn import step
from envs.engine.rng import splitmix64

_STAR = np.uint64(0x2545F4914F6CDD1D)

# One finished game as the property tests and measurements read it: placement-ordered boards,
# the areas through each placed tile, markers, the score pad, stacks and tile bookkeeping.
SNAPSHOT_DTYPE = np.dtype(
    [
        ("steps", np.int32),
        ("turn", np.int16),
        ("winner", np.int8),
        ("extent", np.int8, (2,)),
        ("rewards", np.float64, (2,)),
        ("total", np.int16, (2,)),
        ("task_points", np.int16, (2, NUM_MARKER_TYPES)),
        ("tasks_done", np.int8, (2, NUM_MARKER_TYPES)),
        ("tasks_cancelled", np.int8, (2, NUM_MARKER_TYPES)),
        ("flag_points", np.int16, (2, 3)),
        ("longest", np.int16, (2, 2)),
        ("open_markers", np.int8, (2,)),
        ("n_placed", np.int16, (2,)),
        ("tile", np.int16, (2, MAX_PLACED)),  # in placement order
        ("q", np.int8, (2, MAX_PLACED)),
        ("r", np.int8, (2, MAX_PLACED)),
        ("rot", np.int8, (2, MAX_PLACED)),
        ("mk_state", np.int8, (2, MAX_PLACED)),
        ("mk_type", np.int8, (2, MAX_PLACED)),
        ("mk_value", np.int8, (2, MAX_PLACED)),
        ("area_size", np.int16, (2, NUM_KINDS, MAX_PLACED)),  # area of each kind through each tile, 0: none
        ("area_open", np.int16, (2, NUM_KINDS, MAX_PLACED)),
        ("used", np.uint8, (2, NUM_TILES)),
        ("unseen", np.uint8, (NUM_TILES,)),
        ("land_n", np.int8),
        ("land_pos", np.int8),
        ("task_n", np.int8),
        ("task_pos", np.int8),
        # the modules (zero when off)
        ("cards", np.int8, (3,)),
        ("closed2", np.int16, (2, 3)),
        ("card_points", np.int16, (2, 3)),
        ("poi_points", np.int16, (2, 3)),
        ("poi_taken", np.uint8, (2, 6)),
        ("milestones", np.int8, (2,)),
        ("hearts_left", np.int8, (2,)),
        ("cameras", np.int8, (2,)),
        ("cameras_left", np.int8),
        ("special_cell", np.int16, (2,)),  # index into the placement order, -1: none
        ("heart", np.uint8, (2, MAX_PLACED)),  # per placed tile
        ("camera", np.int8, (2, MAX_PLACED)),
    ]
)


@njit(cache=True)
def random_action(mask, n_legal: int, x: np.uint64):
    """The k-th legal action for a fresh k in [0, n_legal); returns (action, next generator state)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    hi = (x * _STAR) >> np.uint64(32)
    k = int((hi * np.uint64(n_legal)) >> np.uint64(32))
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a, x
            k -= 1
    return -1, x


@njit(cache=True)
def play_out(s, action_seed: np.uint64) -> int:
    """Play the game in record ``s`` to its end with random legal actions; returns the steps taken."""
    x = splitmix64(action_seed) | np.uint64(1)
    mask = np.empty(action_count(s), np.int8)
    steps = 0
    while not s.done:
        n = legal_into(s, mask)
        a, x = random_action(mask, n, x)
        if step(s, a) != 0:
            return -1
        steps += 1
    return steps


@njit(cache=True)
def snapshot(s, snap, steps: int) -> None:
    """Copy a finished (or running) game's record into a snapshot row."""
    w = 2 * s.radius + 1
    snap.steps = steps
    snap.turn = s.turn
    snap.winner = s.winner
    snap.extent[:] = s.extent
    snap.rewards[:] = s.rewards
    snap.total[:] = s.total
    snap.task_points[:, :] = s.task_points
    snap.tasks_done[:, :] = s.tasks_done
    snap.tasks_cancelled[:, :] = s.tasks_cancelled
    snap.flag_points[:, :] = s.flag_points
    snap.longest[:, :] = s.longest
    snap.open_markers[:] = s.open_markers
    snap.n_placed[:] = s.n_placed
    snap.used[:, :] = s.used
    snap.unseen[:] = s.unseen
    snap.land_n = s.land_n
    snap.land_pos = s.land_pos
    snap.task_n = s.task_n
    snap.task_pos = s.task_pos
    snap.area_size[:, :, :] = 0
    snap.area_open[:, :, :] = 0
    snap.cards[:] = s.cards
    snap.closed2[:, :] = s.closed2
    snap.card_points[:, :] = s.card_points
    snap.poi_points[:, :] = s.poi_points
    snap.poi_taken[:, :] = s.poi_taken
    snap.milestones[:] = s.milestones
    snap.hearts_left[:] = s.hearts_left
    snap.cameras[:] = s.cameras
    snap.cameras_left = s.cameras_left
    snap.special_cell[:] = -1
    for p in range(2):
        for i in range(s.n_placed[p]):
            c = s.order[p, i]
            if c == s.special_cell[p]:
                snap.special_cell[p] = i
            snap.heart[p, i] = s.cell_heart[p, c]
            snap.camera[p, i] = s.cell_camera[p, c]
            snap.tile[p, i] = s.cell_tile[p, c]
            snap.q[p, i] = c % w - s.radius
            snap.r[p, i] = c // w - s.radius
            snap.rot[p, i] = s.cell_rot[p, c]
            snap.mk_state[p, i] = s.cell_mk_state[p, c]
            snap.mk_type[p, i] = s.cell_mk_type[p, c]
            snap.mk_value[p, i] = s.cell_mk_value[p, c]
            for k in range(NUM_KINDS):
                root = s.area_root[p, k, i]
                if root >= 0:
                    snap.area_size[p, k, i] = s.area_size[p, k, root]
                    snap.area_open[p, k, i] = s.area_open[p, k, root]


@njit(cache=True)
def give_head_start(s, g: int, head_start: int) -> None:
    """Module 2 in random games: random play seldom completes 4 tasks, so game g starts with
    (7g mod head_start + 1) completed connection tasks (3 points each) for both seats."""
    if head_start <= 0:
        return
    h = (7 * g) % (head_start + 1)
    for p in range(2):
        s.tasks_done[p, T_CONNECTION] = h
        s.task_points[p, T_CONNECTION] = 3 * h


@njit(cache=True)
def play_random_games(states, seeds, snaps, head_start: int = 0) -> None:
    """Reset ``states[0]`` with each seed, play it out at random, snapshot the end into ``snaps[g]``."""
    s = states[0]
    for g in range(seeds.shape[0]):
        reset(s, seeds[g])
        give_head_start(s, g, head_start)
        steps = play_out(s, seeds[g] ^ np.uint64(0x5DEECE66D))
        snapshot(s, snaps[g], steps)


@njit(cache=True)
def hidden_info_probe(states, raw, seeds, obs_a, obs_b, mask_a, mask_b, head_start: int = 0):
    """For each seed: play to a random point, then for each seat resample what it cannot see
    (``determinize``) in a copy and compare its observation and mask with the original's.
    Returns (positions checked, observations that changed, public fields that changed,
    stack orders resampled, hidden choices of seat 0 resampled)."""
    s = states[0]
    t = states[1]
    nc = (2 * s.radius + 1) ** 2
    mask = np.empty(action_count(s), np.int8)
    checked = 0
    leaks = 0
    public = 0
    reshuffled = 0
    repicked = 0
    for g in range(seeds.shape[0]):
        reset(s, seeds[g])
        give_head_start(s, g, head_start)
        x = splitmix64(seeds[g] ^ np.uint64(0xABCDEF)) | np.uint64(1)
        stop = int(x % np.uint64(84))  # every game lasts at least 84 steps
        steps = 0
        while not s.done and steps < stop:
            n = legal_into(s, mask)
            a, x = random_action(mask, n, x)
            step(s, a)
            steps += 1
        if s.done:
            continue
        for seat in range(2):
            observe_into(s, seat, obs_a, mask_a)
            raw[1, :] = raw[0, :]
            determinize(t, seat, splitmix64(x + np.uint64(seat)))
            observe_into(t, seat, obs_b, mask_b)
            checked += 1
            same = True
            for i in range(obs_a.shape[0]):
                if obs_a[i] != obs_b[i]:
                    same = False
            for i in range(mask_a.shape[0]):
                if mask_a[i] != mask_b[i]:
                    same = False
            if not same:
                leaks += 1
            for p in range(2):
                for i in range(nc):
                    if s.cell_tile[p, i] != t.cell_tile[p, i] or s.cell_rot[p, i] != t.cell_rot[p, i]:
                        public += 1
            for i in range(s.unseen.shape[0]):
                if s.unseen[i] != t.unseen[i]:
                    public += 1
            moved = False
            for i in range(s.land.shape[0]):
                moved = moved or s.land[i] != t.land[i]
            for i in range(s.task.shape[0]):
                moved = moved or s.task[i] != t.task[i]
            if moved:
                reshuffled += 1
            if s.pending[0] != t.pending[0]:
                repicked += 1
    return checked, leaks, public, reshuffled, repicked


def new_states(
    radius: int,
    count: int = 1,
    task_cards: bool = False,
    points_of_interest: bool = False,
    placement_prior: bool = False,
    placement_candidates: bool = False,
) -> np.ndarray:
    """``count`` zeroed state records for a board of ``radius`` with the default rule knobs
    (and the modules and the observation's ``placement_prior`` and ``placement_candidates`` as asked)."""
    states = np.zeros(count, state_dtype(radius))
    states["num_players"] = 2
    states["radius"] = radius
    states["distinct_rotations"] = 1
    states["forbid_doomed_tasks"] = 1
    states["module_task_cards"] = task_cards
    states["module_poi"] = points_of_interest
    states["placement_prior"] = placement_prior
    states["placement_candidates"] = placement_candidates
    states["observe_boards"] = 1
    return states


def random_games(
    games: int,
    radius: int,
    first_seed: int = 0,
    task_cards: bool = False,
    points_of_interest: bool = False,
    head_start: int = 0,
) -> np.ndarray:
    """Snapshots of ``games`` random games, seeds ``first_seed``.. (one compiled loop); ``head_start``:
    see ``give_head_start``."""
    snaps = np.zeros(games, SNAPSHOT_DTYPE)
    seeds = np.arange(first_seed, first_seed + games, dtype=np.uint64)
    play_random_games(new_states(radius, 1, task_cards, points_of_interest), seeds, snaps, head_start)
    return snaps


def extent_histogram(games: int, radius: int = 24, first_seed: int = 0) -> np.ndarray:
    """How far random games spread: counts of games by their farthest tile from the origin (steps),
    on a board of ``radius`` (pick it well above the answer, so the rim never steers a game)."""
    extent = random_games(games, radius, first_seed)["extent"].max(axis=1)
    return np.bincount(extent, minlength=radius + 1)


if __name__ == "__main__":  # python -m tests.dorfromantik_duel.referee [games]: the measurement in the rules doc
    import sys

    hist = extent_histogram(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print({k: int(v) for k, v in enumerate(hist) if v}, "largest:", int(np.flatnonzero(hist)[-1]))
