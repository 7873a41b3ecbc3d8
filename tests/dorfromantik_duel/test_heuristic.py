"""The Duel's heuristic: one compiled ``action_values`` for every phase, valued exactly as the earlier
split implementation (placements and the special tile compiled, Module 2's other choices in Python by
action name), which is frozen below as the reference."""

import numpy as np
import pytest
from numba import njit

from agents.heuristic import HeuristicAgent
from envs import dorfromantik_duel_v0 as duel
from envs.dorfromantik_duel.heuristic import board_value
from envs.dorfromantik_duel.rules import NUM_EXTRA, NUM_ROT, PH_PLACE, PH_SPECIAL, PHASE_NAMES, action_name
from envs.dorfromantik_duel.simulation import matching_edges, place_tile, play_special, score_board
from envs.engine.templates import kernels_of

# --- the reference: the implementation before the heuristic became one compiled function -------------


@njit
def _old_action_values(base, base_bytes, work, work_bytes, seat, mask, out):
    work_bytes[:] = base_bytes
    s = work[0]
    score_board(s, seat)
    before = board_value(s, seat)
    n = mask.shape[0]
    for a in range(n):
        out[a] = -1e18
        if not mask[a]:
            continue
        if a >= n - 1 - NUM_EXTRA * s.module_poi:
            out[a] = 0.0
            continue
        work_bytes[:] = base_bytes
        s = work[0]
        place_tile(s, seat, a // NUM_ROT, a % NUM_ROT)
        score_board(s, seat)
        out[a] = board_value(s, seat) - before


@njit
def _old_special_values(base_bytes, work, work_bytes, seat, mask, out):
    for a in range(mask.shape[0]):
        out[a] = -1e18
        if mask[a]:
            work_bytes[:] = base_bytes
            s = work[0]
            play_special(s, seat, a)
            score_board(s, seat)
            out[a] = board_value(s, seat)


_OLD_POI_PREFERENCE = {"poi hearts": 5.0, "poi school": 4.0, "poi barn": 4.0, "poi oak": 4.0, "poi photographer": 3.0}


def _old_decision_values(state, seat, mask, names):
    out = np.zeros(mask.shape[0])
    s = state[0]
    for a in np.flatnonzero(mask):
        name = names[a]
        out[a] = _OLD_POI_PREFERENCE.get(name, 0.0)
        if name == "heart":
            c = int(s["last_cell"][seat])
            out[a] = 1.0 if matching_edges(s, seat, c) >= 3 else -1.0
        elif name == "move photographer":
            out[a] = 1.0
    return out


def _old_values(state: np.ndarray, seat: int, mask: np.ndarray) -> np.ndarray:
    work = np.zeros_like(state)
    out = np.empty(mask.shape[0])
    phase = int(state[0]["phase"])
    if phase == PH_PLACE:
        _old_action_values(state, state.view(np.uint8), work, work.view(np.uint8), seat, mask, out)
    elif phase == PH_SPECIAL:
        _old_special_values(state.view(np.uint8), work, work.view(np.uint8), seat, mask, out)
    else:
        radius = int(state[0]["radius"])
        names = [action_name(radius, a, True) if mask[a] else "" for a in range(mask.shape[0])]
        out = _old_decision_values(state, seat, mask, names)
    return out


# --- the comparison -----------------------------------------------------------------------------------

FAMILIES = {
    "base": {},
    "cards": {"module_task_cards": True},
    "poi": {"module_points_of_interest": True},
    "both": {"module_task_cards": True, "module_points_of_interest": True},
    "poi-r9": {"board_radius": 9, "module_points_of_interest": True},
}
GAMES = 3  # per family; every decision of each is compared
GREEDY = 0.8  # share of placements played by the heuristic (the rest at random): boards that reach Module 2's
# choices; those are made at random, so every point of interest (the photographer too) comes up


@pytest.mark.parametrize("family", FAMILIES)
def test_compiled_values_equal_the_earlier_implementation(family: str) -> None:
    config = FAMILIES[family]
    env = duel.raw_env(**config)
    heuristic = HeuristicAgent("dorfromantik_duel_v0")
    rng = np.random.default_rng(7)
    phases: dict[str, int] = {}
    for game in range(GAMES):
        env.reset(seed=100 + game)
        while not env.core_state["done"]:
            seat = env.possible_agents.index(env.agent_selection)
            obs = env.observe(env.agent_selection)
            mask = obs["action_mask"]
            state = env.game.new_state()
            state[0] = env.core_state
            env.game.determinize_fn(state[0], seat, np.uint64(rng.integers(2**63)))
            before = state.tobytes()
            new = heuristic.values(state, seat, obs)
            old = _old_values(state, seat, mask)
            assert state.tobytes() == before, "the heuristic changed the state it was given"
            phase = PHASE_NAMES[int(state[0]["phase"])]
            phases[phase] = phases.get(phase, 0) + 1
            np.testing.assert_array_equal(new, old, err_msg=f"{family} game {game}, phase {phase}")
            legal = np.flatnonzero(mask)
            if phase in ("place", "special tile") and rng.random() < GREEDY:
                a = int(legal[np.argmax(new[legal])])
            else:
                a = int(rng.choice(legal))
            env.step(a)
    assert phases.get("place", 0) > 100 * GAMES
    if config.get("module_points_of_interest"):
        assert set(phases) == set(PHASE_NAMES), f"{family}: phases met {phases}"


def test_heuristic_values_are_the_compiled_ones_in_the_kernels() -> None:
    env = duel.raw_env(module_points_of_interest=True)
    kernels = kernels_of(env.game)
    assert kernels.action_values is env.game.action_values_fn
    env.reset(seed=3)
    agent = HeuristicAgent("dorfromantik_duel_v0", seed=0)
    obs = env.observe(env.agent_selection)
    state = env.game.new_state()
    state[0] = env.core_state
    via_agent = agent.values(state, 0, obs)
    compiled = np.empty(obs["action_mask"].shape[0])
    kernels.action_values(state, np.zeros_like(state), 0, obs["action_mask"], compiled)
    np.testing.assert_array_equal(via_agent, compiled)
