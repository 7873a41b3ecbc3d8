"""Every agent plays whole games of every game through the strict env: an illegal move would raise."""

import numpy as np
import pytest

import envs
from agents.match import play_game
from agents.registry import make_agent

GAMES = [spec.name for spec in envs.specs()]
HEURISTIC_GAMES = [spec.name for spec in envs.specs() if spec.heuristic is not None]
# agent spec -> games per game: small search budgets, the point is legality over whole games
SPECS = {"random": 3, "heuristic": 2, "ismcts:iterations=24": 1}


def _lineup(game: str, spec: str) -> list:
    env = envs.game_module(game).raw_env()
    n = len(env.possible_agents)
    return env, [make_agent(spec, game) for _ in range(n)]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("spec", list(SPECS))
def test_agent_plays_full_games_legally(game, spec):
    declared = envs.spec(game).heuristic if spec == "heuristic" else envs.spec(game).search
    if spec != "random" and declared is None:
        pytest.skip(f"{game}'s spec declares no {spec.split(':')[0]}")
    env, agents = _lineup(game, spec)
    for seed in range(SPECS[spec]):
        result = play_game(env, agents, seed=seed)  # raw_env: an illegal action raises IllegalActionError
        assert result.steps > 0
        assert env.agents == [] or all(env.terminations.values())
        assert not any(info.get("illegal_move") for info in result.infos)
        assert np.isfinite(result.returns).all()


@pytest.mark.parametrize("game", HEURISTIC_GAMES)
def test_heuristic_against_random_in_the_safe_env(game):
    env = envs.make(game)
    n = len(env.possible_agents)
    agents = [make_agent("heuristic", game)] + [make_agent("random", game) for _ in range(n - 1)]
    result = play_game(env, agents, seed=11)
    assert not any(info.get("illegal_move") for info in result.infos)


@pytest.mark.parametrize("opponent", ["random", "ismcts:iterations=24"])
def test_duel_agents_play_the_modules_legally(opponent):
    """The heuristic (with its Module 2 rules of thumb), random and IS-MCTS play the Duel with both modules on."""
    env = envs.game_module("dorfromantik_duel_v0").raw_env(module_task_cards=True, module_points_of_interest=True)
    agents = [make_agent("heuristic", "dorfromantik_duel_v0", seed=1), make_agent(opponent, "dorfromantik_duel_v0", 2)]
    taken = 0
    for seed in range(2):
        result = play_game(env, agents, seed=seed)
        assert result.steps > 0 and all(env.terminations.values())
        taken += int(env.core_state.poi_taken[0, :5].sum())
    assert taken > 0, "the heuristic reaches a milestone and chooses a point of interest"
