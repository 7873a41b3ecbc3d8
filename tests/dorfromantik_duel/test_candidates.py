"""The optional ``placement_candidates`` piece: a row per legal placement, in action order, saying what it
would do to my board; and ``observe_boards=False``, which leaves the boards' tensor out."""

from functools import partial

import numpy as np
import pytest

from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.candidates import CANDIDATE, MAX_CANDIDATES
from envs.dorfromantik_duel.points_of_interest import matching_edges
from envs.dorfromantik_duel.rules import DEFAULT_RADIUS, NUM_ROT, PHASE_NAMES
from tests import common
from tests.dorfromantik_duel.test_expansions import COMPLETE, act
from tests.dorfromantik_duel.test_observation import POI_AFTER_THREE

W = 2 * DEFAULT_RADIUS + 1
PLACEMENTS = W * W * NUM_ROT
F = CANDIDATE.size


def rows_of(env, agent):
    obs = env.observe(agent)
    return env.game.observation_layout().split(obs["observation"])["placement_candidates"], obs["action_mask"]


def test_candidates_are_off_by_default_and_come_last_when_on():
    off = duel.raw_env().game
    assert off.config.placement_candidates is False and off.config.observe_boards is True
    assert "placement_candidates" not in off.observation_layout().names()
    on = duel.raw_env(placement_candidates=True).game
    assert on.candidate_actions == PLACEMENTS
    assert on.observation_layout().rows()[:-1] == off.observation_layout().rows()
    assert on.observation_layout().rows()[-1][3] == (MAX_CANDIDATES, F)
    both = duel.raw_env(placement_prior=True, placement_candidates=True).game
    assert both.observation_layout().names()[-2:] == ["placement_prior", "placement_candidates"]
    bare = duel.raw_env(placement_candidates=True, observe_boards=False).game
    assert bare.observation_layout().names() == on.observation_layout().names()[1:]
    assert bare.obs_size == on.obs_size - W * W * 22 < 25_000


def play_turn(env, seat, action, rng):
    """``seat`` places by ``action`` and the other seat by any legal action, so both tiles go down."""
    if seat == 0:
        env.step(action)
        env.step(common.random_legal(env.action_mask(), rng))
    else:
        env.step(action)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_row_is_what_its_placement_does_when_played(seed):
    """Along a seeded game: one row per legal placement, in action order, zeros after; a row's points are
    the rise of my pad's total once that placement is really played, and its matching edges those of
    the tile as it lies; a seat that has chosen shows no rows."""
    env = duel.raw_env(placement_candidates=True)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    checked = 0
    while not any(env.terminations.values()):
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        rows, mask = rows_of(env, agent)
        legal = np.flatnonzero(mask[:PLACEMENTS])
        assert not rows[legal.size :].any()
        assert (np.abs(rows[: legal.size]) <= 1).all()
        if seat == 1:
            assert not rows_of(env, "player_0")[0].any(), "seat 0 has chosen: nothing left to place"
        before = env.infos[agent]["total"]
        for k in rng.choice(legal.size, size=min(3, legal.size), replace=False):
            twin = env.clone()
            play_turn(twin, seat, int(legal[k]), rng)
            gained = twin.infos[agent]["total"] - before
            assert rows[k, CANDIDATE.offset("points")] == pytest.approx(min(gained / 10.0, 1.0), abs=1e-6)
            cell = int(legal[k]) // NUM_ROT
            matches = matching_edges(twin.core_state, seat, cell)
            assert rows[k, CANDIDATE.offset("matching_edges")] == pytest.approx(matches / 6.0, abs=1e-6)
            checked += 1
        env.step(common.random_legal(env.action_mask(), rng))
    assert checked > 100


def test_without_boards_the_observation_is_the_rest_of_the_usual_one():
    full = duel.raw_env(placement_candidates=True)
    bare = duel.raw_env(placement_candidates=True, observe_boards=False)
    start = full.game.observation_layout().offset("tile_edges")
    rng = np.random.default_rng(4)
    full.reset(seed=4)
    bare.reset(seed=4)
    for _ in range(60):
        for agent in full.possible_agents:
            a, b = full.observe(agent), bare.observe(agent)
            np.testing.assert_array_equal(a["observation"][start:], b["observation"])
            np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        action = common.random_legal(full.action_mask(), rng)
        full.step(action)
        bare.step(action)


def test_candidates_are_empty_outside_the_placement_phase():
    """Module 2's decisions and its special tile show no rows."""
    env = duel.raw_env(module_points_of_interest=True, placement_candidates=True)
    env.reset(seed=0, options={"scenario": POI_AFTER_THREE})
    assert rows_of(env, "player_0")[0].any() and rows_of(env, "player_1")[0].any()
    act(env, COMPLETE, COMPLETE)
    assert PHASE_NAMES[int(env.core_state.phase)] == "point of interest"
    assert not rows_of(env, "player_0")[0].any() and not rows_of(env, "player_1")[0].any()
    act(env, "poi school", "poi school")
    assert PHASE_NAMES[int(env.core_state.phase)] == "special tile"
    assert not rows_of(env, "player_0")[0].any()


def test_a_deserialized_state_must_match_the_observation_switches():
    env = duel.raw_env(placement_candidates=True)
    env.reset(seed=0)
    blob = env.serialize()
    with pytest.raises(ValueError, match="state has config"):
        duel.raw_env().deserialize(blob)


@pytest.mark.parametrize(
    "config", [{"placement_candidates": True}, {"placement_candidates": True, "observe_boards": False}]
)
def test_pettingzoo_suite_with_candidates(config):
    common.check_pettingzoo_suite(partial(duel.env, board_radius=9, **config))
