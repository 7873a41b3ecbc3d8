"""Policy-guided IS-MCTS: it follows the network's priors where search has little to say, finds what search
must find whatever the network says, plays whole legal games in every searchable game, never reads hidden
state, and refuses bad specs with clear errors. The policies are random-weight files (numpy only)."""

import numpy as np
import pytest

import envs
from agents.compiled_policy import CompiledPolicy, save_policy
from agents.guided import GuidedAgent
from agents.match import play_game
from agents.random_agent import RandomAgent
from agents.registry import check_spec, make_agent
from tests.agents.test_compiled_policy import DUEL, DUEL_CONFIG, candidate_arrays, mlp_arrays
from tests.agents.test_hidden_information import _positions, _twin

GAMES = [spec.name for spec in envs.specs() if spec.search is not None]
KUHN = "kuhn_poker_v0"


def _policy(game: str, seed: int = 0) -> CompiledPolicy:
    return CompiledPolicy(mlp_arrays(game, seed=seed))


def _favouring(game: str, action: int, strength: float) -> CompiledPolicy:
    """A policy whose logits put ``strength`` on ``action`` (its pi head's bias) over near-zero weights."""
    arrays = mlp_arrays(game)
    for key in list(arrays):
        if key.startswith("pi."):
            arrays[key] = np.zeros_like(arrays[key])
    last = max(int(k.split(".")[1]) for k in arrays if k.startswith("pi.") and k.endswith(".bias"))
    arrays[f"pi.{last}.bias"][action] = strength
    return CompiledPolicy(arrays)


def _kuhn_facing_a_bet(card: int) -> tuple[object, np.ndarray, int]:
    """Seat 1 holding ``card`` (0 Jack, 1 Queen, 2 King) after seat 0 bet: (game, root, seat)."""
    env = envs.make(KUHN)
    for seed in range(200):
        env.reset(seed=seed)
        if int(env.core_state["cards"][1]) == card:
            break
    env.step(env.game.action_from_name("bet"))
    root = env.game.new_state()
    root[0] = env.core_state
    return env.game, root, 1


@pytest.mark.parametrize("game", GAMES)
def test_guided_agents_play_whole_legal_games(game):
    env = envs.make(game, **(DUEL_CONFIG if game == DUEL else {}))
    policy = CompiledPolicy(candidate_arrays()) if game == DUEL else _policy(game)
    players = [GuidedAgent(game, policy, iterations=30, seed=1)]
    players += [RandomAgent(seed) for seed in range(1, env.game.num_players)]
    result = play_game(env, players, seed=4)
    assert result is not None
    assert env.core_state.done
    assert players[0].last_iterations == 30 or players[0].last_iterations == 0  # 0: a forced last move


def test_with_few_iterations_the_most_visited_move_is_the_policy_favourite():
    game, root, seat = _kuhn_facing_a_bet(card=1)
    for name in ("pass", "bet"):
        action = game.action_from_name(name)
        agent = GuidedAgent(KUHN, _favouring(KUHN, action, 8.0), iterations=6, c_puct=4.0, seed=0)
        visits = agent.search(root, seat, game, seed=3)
        assert int(np.argmax(visits)) == action, (name, visits)


@pytest.mark.parametrize("game", ["capivari_v0", "horizonte_v0", KUHN])
def test_with_network_depth_zero_the_search_never_reads_the_network(game):
    # two unrelated policies give the same tree, node for node: uniform priors and playouts only
    for g, root, seat in list(_positions(game))[:3]:
        a = GuidedAgent(game, _policy(game, seed=0), iterations=200, network_depth=0)
        b = GuidedAgent(game, _policy(game, seed=1), iterations=200, network_depth=0)
        np.testing.assert_array_equal(a.search(root, seat, g, seed=5), b.search(root, seat, g, seed=5))
        np.testing.assert_array_equal(a._buffers.tree_f, b._buffers.tree_f)
        visited = a._buffers.tree_f[1:][a._buffers.tree_f[1:, 0] > 0]  # below the root, which has no prior
        assert visited.size and np.all(visited[:, 3] > 0)


def test_with_network_depth_one_the_root_still_follows_the_policy_favourite():
    game, root, seat = _kuhn_facing_a_bet(card=1)
    for name in ("pass", "bet"):
        action = game.action_from_name(name)
        policy = _favouring(KUHN, action, 8.0)
        agent = GuidedAgent(KUHN, policy, iterations=6, c_puct=4.0, network_depth=1, seed=0)
        visits = agent.search(root, seat, game, seed=3)
        assert int(np.argmax(visits)) == action, (name, visits)
        root_children = agent._buffers.tree_f[1:3, 3]
        assert root_children.max() > 0.99  # the favourite's prior, from the network


def test_prior_temperature_flattens_the_priors_by_the_softmax_at_that_temperature():
    game, root, seat = _kuhn_facing_a_bet(card=1)
    policy = _favouring(KUHN, game.action_from_name("bet"), 8.0)  # logits 8 and 0 over the two legal actions
    for temperature in (1.0, 8.0, 1000.0):
        favourite = 1 / (1 + np.exp(-8.0 / temperature))  # 0.9997, 0.73, 0.502
        agent = GuidedAgent(KUHN, policy, iterations=1, prior_temperature=temperature, seed=0)
        agent.search(root, seat, game, seed=3)
        priors = agent._buffers.tree_f[1:3, 3]
        np.testing.assert_allclose(sorted(priors), [1 - favourite, favourite], atol=1e-6)


def _duel_position(seed: int, moves: int) -> tuple[object, np.ndarray, int, np.ndarray]:
    """(env, root, seat, the root candidates of the Duel's IS-MCTS) after ``moves`` random moves."""
    env = envs.make(DUEL, **DUEL_CONFIG)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        env.step(int(rng.choice(env.legal_actions())))
    root = env.game.new_state()
    root[0] = env.core_state
    seat = env.possible_agents.index(env.agent_selection)
    candidates = np.zeros(env.game.num_actions, np.int8)
    envs.spec(DUEL).search.root_candidates(root, seat, env.game, 5, candidates)
    return env, root, seat, candidates


def test_guided_search_plays_a_table_that_differs_from_its_file_only_in_observation_options():
    """The search runs on copies with the file's observation options: a game at a table of the default observation
    goes move for move as at a table of the file's config."""
    policy = CompiledPolicy(candidate_arrays())
    played = []
    for config in (DUEL_CONFIG, {"board_radius": 4}):
        players = [GuidedAgent(DUEL, policy, iterations=20, seed=1), RandomAgent(1)]
        played.append(play_game(envs.make(DUEL, **config), players, seed=4, record_actions=True))
    assert played[0].actions == played[1].actions and len(played[0].actions) > 20
    env = envs.make(DUEL, board_radius=5)  # another rule: refused
    env.reset(seed=0)
    with pytest.raises(ValueError, match="differs from its own only in observation options"):
        GuidedAgent(DUEL, policy, iterations=20).act(env.observe(env.agent_selection), env)


def test_with_root_candidates_the_duel_searches_only_the_heuristic_placements_ismcts_searches():
    env, root, seat, candidates = _duel_position(seed=2, moves=6)
    assert 1 < np.count_nonzero(candidates) < len(env.legal_actions())
    policy = CompiledPolicy(candidate_arrays())
    narrowed = GuidedAgent(DUEL, policy, iterations=40, root_candidates=True).search(root, seat, env.game, seed=5)
    assert np.all(candidates[narrowed > 0]) and narrowed.sum() == 39  # the first iteration expands the root
    narrow_priors = _root_priors(GuidedAgent(DUEL, policy, iterations=1, root_candidates=True), root, seat, env.game)
    wide_agent = GuidedAgent(DUEL, policy, iterations=40)
    wide = wide_agent.search(root, seat, env.game, seed=5)
    assert not np.all(candidates[wide > 0])  # without the option the whole root is open
    # the network reads its whole legal set (a candidate head scores the candidates it observes), then the
    # priors are renormalized over the kept ones
    wide_priors = _root_priors(wide_agent, root, seat, env.game)
    kept = sorted(narrow_priors)
    shares = np.array([wide_priors[a] for a in kept])
    np.testing.assert_allclose([narrow_priors[a] for a in kept], shares / shares.sum(), rtol=1e-6)


def test_with_game_search_the_duel_searches_as_its_ismcts_does_a_flat_tree_of_the_candidates():
    env, root, seat, candidates = _duel_position(seed=3, moves=8)
    policy = CompiledPolicy(candidate_arrays())
    agent = GuidedAgent(DUEL, policy, iterations=60, game_search=True)
    visits = agent.search(root, seat, env.game, seed=5)
    assert np.all(candidates[visits > 0]) and visits.sum() == 59
    children = _root_children(agent._buffers)
    assert sorted(children) == sorted(np.flatnonzero(candidates))  # the tree is the candidates, none with children
    assert max(agent._buffers.tree_i[c, 2] for c in children.values()) < 0
    plain = GuidedAgent(DUEL, policy, iterations=60, root_candidates=True)
    plain.search(root, seat, env.game, seed=5)
    grown = _root_children(plain._buffers).values()
    assert max(plain._buffers.tree_i[c, 2] for c in grown) >= 0  # without it the tree grows below the candidates


@pytest.mark.parametrize("game", ["capivari_v0", "horizonte_v0", KUHN])
def test_game_search_changes_nothing_where_the_game_keeps_the_default_hooks(game):
    for g, root, seat in list(_positions(game))[:3]:
        a = GuidedAgent(game, _policy(game), iterations=100)
        b = GuidedAgent(game, _policy(game), iterations=100, game_search=True)
        np.testing.assert_array_equal(a.search(root, seat, g, seed=5), b.search(root, seat, g, seed=5))
        np.testing.assert_array_equal(a._buffers.tree_f, b._buffers.tree_f)


def _root_children(buf) -> dict[int, int]:
    """Action -> node of each child of the root."""
    children = {}
    c = buf.tree_i[0, 2]
    while c >= 0:
        children[int(buf.tree_i[c, 0])] = int(c)
        c = buf.tree_i[c, 3]
    return children


def _root_priors(agent, root, seat, game):
    """Action -> prior of each root child after one more search from ``root``."""
    agent.search(root, seat, game, seed=5)
    return {a: agent._buffers.tree_f[c, 3] for a, c in _root_children(agent._buffers).items()}


@pytest.mark.parametrize("value_weight", [0.0, 0.5])
def test_search_overrules_a_misleading_prior_where_the_cards_decide(value_weight):
    # facing a bet with the King, calling wins every time; with the Jack, it loses every time
    for card, right in ((2, "bet"), (0, "pass")):
        game, root, seat = _kuhn_facing_a_bet(card)
        wrong = game.action_from_name("pass" if right == "bet" else "bet")
        agent = GuidedAgent(KUHN, _favouring(KUHN, wrong, 3.0), iterations=2000, value_weight=value_weight, seed=0)
        visits = agent.search(root, seat, game, seed=11)
        assert int(np.argmax(visits)) == game.action_from_name(right), (card, visits)


@pytest.mark.parametrize("game_search", [False, True])
@pytest.mark.parametrize("game", GAMES)
def test_guided_search_is_identical_on_states_differing_only_in_hidden_information(game, game_search):
    policy = _policy(game)
    for g, root, seat in _positions(game):
        twin = _twin(g, root, seat, seed=12345)
        a = GuidedAgent(game, policy, iterations=60, game_search=game_search)
        b = GuidedAgent(game, policy, iterations=60, game_search=game_search)
        visits_a = a.search(root, seat, g, seed=7)
        visits_b = b.search(twin, seat, g, seed=7)
        np.testing.assert_array_equal(visits_a, visits_b)
        np.testing.assert_array_equal(a._buffers.tree_f, b._buffers.tree_f)
        assert a._buffers.tree_f[0, 0] == 60


@pytest.mark.parametrize("game", ["capivari_v0", "horizonte_v0", KUHN])
def test_a_network_playout_of_no_steps_is_the_network_value_alone(game):
    # the playout stops at once and the network judges the leaf: the same tree as value_weight=1
    for g, root, seat in list(_positions(game))[:3]:
        a = GuidedAgent(game, _policy(game), iterations=100, value_weight=0.0, playout="network", playout_steps=0)
        b = GuidedAgent(game, _policy(game), iterations=100, value_weight=1.0)
        np.testing.assert_array_equal(a.search(root, seat, g, seed=5), b.search(root, seat, g, seed=5))
        np.testing.assert_allclose(a._buffers.tree_f, b._buffers.tree_f)


@pytest.mark.parametrize("playout", ["heuristic", "network"])
@pytest.mark.parametrize("game", ["capivari_v0", "horizonte_v0"])
def test_heuristic_and_network_playouts_search_reproducibly_and_change_the_tree(game, playout):
    g, root, seat = next(iter(_positions(game)))
    searches = [
        GuidedAgent(game, _policy(game), iterations=150, value_weight=0.0, playout=kind).search(root, seat, g, seed=9)
        for kind in (playout, playout, "random")
    ]
    np.testing.assert_array_equal(searches[0], searches[1])
    assert searches[0].sum() == 149  # the first iteration's leaf is the root itself
    assert not np.array_equal(searches[0], searches[2])


def test_bad_specs_and_mismatched_policies_are_refused(tmp_path):
    path = save_policy(mlp_arrays("capivari_v0"), tmp_path / "capivari.npz")
    for spec, message in (
        ("guided", "needs a policy file"),
        (f"guided:{path},iterations=0", "iterations must be a positive int"),
        (f"guided:{path},iterations=10,seconds=1", "not both"),
        (f"guided:{path},c_puct=-1", "c_puct must be >= 0"),
        (f"guided:{path},value_weight=1.5", "value_weight must be >= 0 and at most 1"),
        (f"guided:{path},depth=3", "unknown guided option"),
        (f"guided:{path},network_depth=-1", "network_depth=-1: must be an integer >= 0"),
        (f"guided:{path},network_depth=65", "network_depth=65: must be at most 64"),
        (f"guided:{path},network_depth=1.5", "network_depth='1.5' must be a int"),
        (f"guided:{path},prior_temperature=0", "prior_temperature=0: must be > 0"),
        (f"guided:{path},root_candidates=maybe", "root_candidates='maybe' must be true or false"),
        (f"guided:{path},game_search=1.5", "game_search='1.5' must be true or false"),
        (f"guided:{path},prior_temperature=-2", "prior_temperature must be >= 0 and at most 1000"),
        (f"guided:{path},playout=greedy", "playout='greedy': must be one of"),
        (f"guided:{path},playout_steps=3", "only with playout=heuristic or playout=network"),
        (f"guided:{path},playout=network,playout_steps=-1", "playout_steps=-1: must be in"),
        (f"guided:{path},playout=network,playout_steps=x", "playout_steps='x' must be a int"),
    ):
        with pytest.raises(ValueError, match=message):
            check_spec(spec)
    for spec in (
        f"guided:{path},root_candidates=true",
        f"guided:{path},game_search=true",
        f"guided:{path},network_depth=1,prior_temperature=2",
    ):
        check_spec(spec)
        agent = make_agent(spec, "capivari_v0")
        assert agent.network_depth == (1 if "network_depth" in spec else 64)
    with pytest.raises(ValueError, match="exported for capivari_v0"):
        make_agent(f"guided:{path}", "horizonte")
    with pytest.raises(ValueError, match="no reference policy is shipped for kuhn_poker_v0"):
        make_agent("guided:reference", KUHN)
