"""The Duel's observation: the boards as a (height, width, channels) tensor first, then a small vector."""

import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.observation import CHANNELS, CHANNELS_POI
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS, NUM_ROT, coords_of
from envs.dorfromantik_duel.tiles import TILE_EDGES
from tests import common

R = DEFAULT_RADIUS
W = 2 * R + 1
C = CHANNELS.size


def boards(env, agent):
    """The observing agent's tensor: (W, W, 2C), my channels then the opponent's."""
    return env.game.observation_layout().split(env.observe(agent)["observation"])["boards"]


def test_the_first_piece_is_the_boards_as_height_width_channels_and_the_whole_fits_the_budget():
    env = duel.env()
    layout = env.game.observation_layout()
    name, first, _, shape = layout.rows()[0]
    assert (name, first, shape) == ("boards", 0, (W, W, 2 * C))
    assert layout.size <= 25_000, "the issue's budget at the default config"
    env.reset(seed=0)
    assert env.observe("player_0")["observation"].shape == (layout.size,)
    poi = duel.env(board_radius=5, module_points_of_interest=True).game.observation_layout()
    assert poi.rows()[0][3] == (11, 11, 2 * CHANNELS_POI.size)


def test_a_placed_tile_shows_at_its_axial_cell_with_its_turned_edges_to_both_seats():
    """After a turn, seat 0's tile is in seat 0's own channels and in seat 1's opponent channels, at
    row r + R, column q + R, each edge's terrain as (terrain + 1) / 6; the other cells stay empty."""
    env = duel.raw_env()
    env.reset(seed=3)
    tile = int(env.core_state.tile)
    a0, a1 = env.legal_actions("player_0")[-1], env.legal_actions("player_1")[0]
    env.step(a0)
    env.step(a1)
    (q, r), rot = coords_of(R, a0 // NUM_ROT), a0 % NUM_ROT
    mine, theirs = boards(env, "player_0")[..., :C], boards(env, "player_1")[..., C:]
    np.testing.assert_array_equal(mine, theirs)
    cell = mine[r + R, q + R]
    assert cell[CHANNELS.offset("tile")] == 1.0
    want = [(TILE_EDGES[tile, (d - rot) % NUM_ROT] + 1) / 6 for d in range(NUM_ROT)]
    edges = CHANNELS.offset("edge_terrain")
    np.testing.assert_allclose(cell[edges : edges + NUM_ROT], want, rtol=1e-6)
    placed = {coords_of(R, int(c)) for c in env.core_state.order[0, : env.core_state.n_placed[0]]}
    assert (q, r) in placed
    for row, col in zip(*np.nonzero(mine.any(axis=2)), strict=True):
        assert (col - R, row - R) in placed, "a cell without a tile shows something"


@pytest.mark.parametrize("modules", [{}, {"module_task_cards": True, "module_points_of_interest": True}])
def test_over_random_games_each_board_shows_exactly_its_tiles_and_open_markers(modules):
    env = duel.raw_env(board_radius=9, **modules)
    per_board = (CHANNELS_POI if modules else CHANNELS).size
    rng = np.random.default_rng(1)
    for seed in range(6):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            agent = env.agent_selection
            seat = int(agent[-1])
            obs = env.observe(agent)["observation"]
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            t = env.game.observation_layout().split(obs)["boards"]
            s = env.core_state
            for b, p in enumerate((seat, 1 - seat)):
                group = t[..., b * per_board : (b + 1) * per_board]
                assert group[..., CHANNELS.offset("tile")].sum() == s.n_placed[p]
                values = group[..., CHANNELS.offset("marker_value")] * 6
                assert np.count_nonzero(values) == int(s.open_markers[p])
                assert set(np.round(values[values > 0]).tolist()) <= {3.0, 4.0, 5.0, 6.0}
            env.step(common.random_legal(env.action_mask(), rng))
