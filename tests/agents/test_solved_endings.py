"""Any agent with ``solve=true``: exact play where the game solves the position, the agent's own moves elsewhere."""

import numpy as np
import pytest

import envs
from agents.arena import checked_agents, run_arena
from agents.registry import check_spec, make_agent
from agents.search.buffers import search_root
from agents.solved_endings import SolvedEndings
from training.best_response import in_kernel


def test_the_solver_moves_where_the_game_solves_and_the_policy_moves_everywhere_else():
    helped = make_agent("policy:reference,solve=true", "capivari", seed=1)
    plain = make_agent("policy:reference", "capivari", seed=1)
    rng = np.random.default_rng(5)
    env = envs.make("capivari")
    solved = expected = own = 0
    for game in range(6):
        env.reset(seed=100 + game)
        helped.reset(game)
        while not all(env.terminations.values()):
            observation = env.observe(env.agent_selection)
            legal = np.flatnonzero(observation["action_mask"])
            if env.agent_selection != env.possible_agents[game % 2]:
                env.step(int(rng.choice(legal)))  # a random opponent
                continue
            move = helped.act(observation, env)
            root = search_root(env)[0]
            exact, refill = env.game.solved_values(root), env.game.refill_values(root)
            values = exact if exact is not None else refill
            if values is None:
                assert move == plain.act(observation, env)
                own += 1
            else:
                assert move in legal and values[move] == values.max()
                solved += exact is not None
                expected += refill is not None
            env.step(move)
    assert solved and expected and own  # the round's end, the turns before its last refill, and the rest
    assert helped.solved_moves == solved + expected and helped.name == "policy:reference+solve"


def test_random_with_exact_endings_beats_random_in_the_arena():
    report = run_arena("capivari", ["random:solve=true", "random"], 100, seed=2, progress=False)
    assert report["agents"][0]["win_rate"] > 0.6, report["agents"]


def test_the_option_parses_with_any_agent_and_bad_values_are_named():
    assert checked_agents("policy:reference,solve=true,heuristic") == ["policy:reference,solve=true", "heuristic"]
    for spec in ("heuristic:solve=true", "ismcts:iterations=10,solve=false", "guided:reference,solve=true"):
        check_spec(spec)
    with pytest.raises(ValueError, match="solve='maybe' must be true or false"):
        check_spec("heuristic:solve=maybe")
    with pytest.raises(ValueError, match="dorfromantik_duel_v0 solves no position"):
        make_agent("random:solve=true", "dorfromantik_duel")
    assert isinstance(make_agent("random:solve=true", "capivari"), SolvedEndings)
    assert not isinstance(make_agent("random:solve=false", "capivari"), SolvedEndings)


def test_a_solving_policy_is_not_played_by_the_training_kernel():
    assert in_kernel("policy:reference") and not in_kernel("policy:reference,solve=true")
    assert in_kernel("heuristic:solve=false")  # the plain heuristic
