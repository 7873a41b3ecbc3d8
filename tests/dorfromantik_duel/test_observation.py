"""The Duel's observation: the boards as a (height, width, channels) tensor first, then a small vector."""

from functools import partial

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.observation import CHANNELS, CHANNELS_POI, PRIOR_SCALE
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS, NUM_ROT, PH_PLACE, PHASE_NAMES, coords_of
from envs.dorfromantik_duel.tiles import TILE_EDGES
from tests import common
from tests.dorfromantik_duel.test_expansions import COMPLETE, FOREST_PAIR, THREE_DONE, act

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


# -- the optional placement_prior piece -------------------------------------------------------------


def test_placement_prior_is_off_by_default_and_comes_last_when_on():
    off = duel.raw_env().game
    assert off.config.placement_prior is False
    assert "placement_prior" not in off.observation_layout().names()
    on = duel.raw_env(placement_prior=True).game
    assert on.obs_size == off.obs_size + W * W * NUM_ROT
    assert on.observation_layout().rows()[:-1] == off.observation_layout().rows()
    assert on.observation_layout().rows()[-1] == ("placement_prior", off.obs_size, on.obs_size - 1, (W, W, NUM_ROT))
    both = {"board_radius": 5, "module_task_cards": True, "module_points_of_interest": True}
    with_modules = duel.raw_env(placement_prior=True, **both).game
    assert with_modules.obs_size == duel.raw_env(**both).game.obs_size + 11 * 11 * NUM_ROT


def expected_prior(env, seat, obs):
    """The formula from the game-side heuristic's values (no determinization): legal placements only."""
    state = env.game.new_state()
    state[0] = env.core_state
    mask = obs["action_mask"]
    values = HeuristicAgent("dorfromantik_duel_v0").values(state, seat, obs)
    placements = np.flatnonzero(mask[: W * W * NUM_ROT])
    want = np.zeros(W * W * NUM_ROT)
    if placements.size and int(env.core_state.phase) == PH_PLACE:
        best = values[placements].max()
        want[placements] = np.maximum(0.0, 1.0 + (values[placements] - best) / PRIOR_SCALE)
    return want, values, placements


@pytest.mark.parametrize("seed", [0, 1])
def test_placement_prior_is_the_heuristics_values_scaled_and_the_rest_is_unchanged(seed):
    """Along a seeded game, both seats: the piece (cell-major, 6 rotations, as the place actions) is
    max(0, 1 + (v - v_best) / PRIOR_SCALE) at each legal placement and 0 elsewhere; the best is exactly 1;
    everything before it is the knob-off observation of the same game."""
    plain, env = duel.raw_env(), duel.raw_env(placement_prior=True)
    plain.reset(seed=seed)
    env.reset(seed=seed)
    size = plain.game.obs_size
    rng = np.random.default_rng(seed)
    shown = 0
    for _ in range(50):
        for seat, agent in enumerate(env.possible_agents):
            obs, base = env.observe(agent), plain.observe(agent)
            np.testing.assert_array_equal(obs["observation"][:size], base["observation"])
            np.testing.assert_array_equal(obs["action_mask"], base["action_mask"])
            prior = env.game.observation_layout().split(obs["observation"])["placement_prior"]
            assert prior.shape == (W, W, NUM_ROT)
            prior = prior.reshape(-1)
            want, values, placements = expected_prior(env, seat, obs)
            np.testing.assert_allclose(prior, want, rtol=0, atol=1e-6)
            assert not prior[obs["action_mask"][: prior.size] == 0].any(), "an illegal placement shows"
            if placements.size:
                assert prior.max() == 1.0
                assert values[int(np.argmax(prior))] == values[placements].max(), "the top is a best placement"
                shown += 1
        action = common.random_legal(env.action_mask(), rng)
        env.step(action)
        plain.step(action)
    assert shown >= 50, "some seat has placements at every step"


# both boards one task short of their 4th: completing it brings Module 2's choices, then its special tile
POI_AFTER_THREE = {
    "boards": [FOREST_PAIR, FOREST_PAIR],
    "turn": 4,
    "tasks": [],
    "completed": [THREE_DONE, THREE_DONE],
    "landscape": ["L32", "L03", "L10", "L12", "L13"],
}


def test_placement_prior_is_zero_outside_the_placement_phase():
    """Module 2's decisions and its special tile (whose placements the mask holds) show no prior."""
    scenario = POI_AFTER_THREE
    env = duel.raw_env(module_points_of_interest=True, placement_prior=True)
    env.reset(seed=0, options={"scenario": scenario})
    lay = env.game.observation_layout()

    def prior_of(agent):
        return lay.split(env.observe(agent)["observation"])["placement_prior"]

    assert prior_of("player_0").max() == prior_of("player_1").max() == 1.0, "both seats place this tile"
    act(env, COMPLETE)
    assert not prior_of("player_0").any(), "seat 0 has chosen: nothing left to place"
    act(env, COMPLETE)
    assert PHASE_NAMES[int(env.core_state.phase)] == "point of interest"
    assert not prior_of("player_0").any() and not prior_of("player_1").any()
    act(env, "poi school", "poi school")
    assert PHASE_NAMES[int(env.core_state.phase)] == "special tile"
    assert env.action_mask("player_0")[: W * W * NUM_ROT].any()
    assert not prior_of("player_0").any() and not prior_of("player_1").any()
    act(env, "place q=2 r=-1 rot=0", "place q=0 r=-1 rot=0")
    assert PHASE_NAMES[int(env.core_state.phase)] == "place" and prior_of("player_0").max() == 1.0


def test_pettingzoo_suite_with_the_placement_prior():
    common.check_pettingzoo_suite(partial(duel.env, board_radius=9, placement_prior=True))
