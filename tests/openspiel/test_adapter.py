"""OpenSpiel interop (envs/openspiel.py): known values, OpenSpiel's random-simulation checks, AEC equality.

- Kuhn poker on our engine, through the adapter: OpenSpiel's own ``cfr.CFRSolver`` reaches the game value
  -1/18 for the first player and a NashConv below 1e-3, exactly as on pyspiel's ``kuhn_poker`` in the same
  test (the two runs agree to the last digit: same tree, same information sets, same order of actions).
- Conformance, for every config family of ``tests/fuzz/forge.py``: the Python equivalent of OpenSpiel's
  ``random_sim_test`` (legal actions, chance outcomes summing to 1, returns within the declared range and
  summing as declared, rewards adding up to the returns, clone / serialize / pickle copies that continue
  identically, observation and information-state tensors and strings for every seat).
- The same seeded game through ``envs.make(...)`` and through the adapter: the same seats to act, legal
  actions, action names, observations, action sequence and returns.
"""

import math
import pickle
import time
import zlib

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402
from open_spiel.python.algorithms.get_all_states import get_all_states  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

import envs  # noqa: E402
import envs.openspiel as eo  # noqa: E402
from envs.horizonte.chance import DEAL_BASE  # noqa: E402
from envs.horizonte.rules import CARD_NAMES, MAX_PLAYERS  # noqa: E402
from tests.fuzz.forge import FAMILIES as FUZZ_FAMILIES  # noqa: E402

KUHN_VALUE = -1 / 18  # the first player's equilibrium value (Kuhn 1950)
CFR_ITERATIONS = 1700  # vanilla CFR's NashConv oscillates downwards on Kuhn: 8.3e-4 here (first below 1e-3 at 1380)

# random-simulation games per family: a few hundred for the small games, fewer for the Duel
SIM_GAMES = {"kuhn_poker": 400, "capivari": 300, "horizonte": 200, "dorfromantik_duel": 24}  # by game, every family
AEC_GAMES = {"kuhn_poker": 60, "capivari": 30, "horizonte": 8, "dorfromantik_duel": 2}
OTHER_GAMES = 20  # a game registered later, until it gets its own line above

CHANCE = int(pyspiel.PlayerId.CHANCE)
# benchmarks/mccfr.py's small Horizonte: 3 players, one round, hands of 2 from a deck of 6
MCCFR_KEPT = ("O3", "O8", "D2", "D7", "M5", "C14")
MCCFR_REMOVED = tuple(name for name in CARD_NAMES if name not in MCCFR_KEPT)

# every config family of the fuzz suite in the game's default chance mode, and Horizonte's with explicit chance
FAMILIES = {
    **FUZZ_FAMILIES,
    **{
        f"{family}-explicit": (name, {**config, eo.EXPLICIT: True})
        for family, (name, config) in FUZZ_FAMILIES.items()
        if name == "horizonte_v0"
    },
}


def _load(family: str, seed: int) -> "pyspiel.Game":
    """The family's game; sampled-chance games seeded with ``seed`` (explicit-chance ones take no seed)."""
    name, config = FAMILIES[family]
    game = eo.load(name, **config)
    return game if game.explicit else eo.load(name, seed=seed, **config)


def _short(family: str) -> str:
    return envs.spec(FAMILIES[family][0]).short_name


# -- registration and declarations ----------------------------------------------------------------------------


def test_every_game_is_registered_and_declared():
    registered = set(pyspiel.registered_names())
    assert eo.names() == [eo.PREFIX + spec.short_name for spec in envs.specs()]
    chance = pyspiel.GameType.ChanceMode
    for spec in envs.specs():
        name = eo.openspiel_name(spec.name)
        assert name in registered
        game = pyspiel.load_game(name)
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        offers = getattr(spec.game, "chance_outcomes_fn", None) is not None
        explicit = offers and spec.game.chance_explicit_by_default
        assert kind.chance_mode == (chance.EXPLICIT_STOCHASTIC if explicit else chance.SAMPLED_STOCHASTIC)
        assert eo.SEED in kind.parameter_specification
        assert (eo.EXPLICIT in kind.parameter_specification) == offers
        if offers:  # the other mode on request
            other = pyspiel.load_game(name, {eo.EXPLICIT: not explicit}).get_type().chance_mode
            assert other == (chance.SAMPLED_STOCHASTIC if explicit else chance.EXPLICIT_STOCHASTIC)
        assert game.num_distinct_actions() == game.tab.num_actions
        assert game.num_players() == game.tab.num_players
        assert game.min_utility() < game.max_utility()
    kuhn = pyspiel.load_game("tabuleiro_kuhn_poker")
    assert kuhn.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kuhn.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (kuhn.min_utility(), kuhn.max_utility(), kuhn.utility_sum(), kuhn.max_game_length()) == (-2, 2, 0, 3)
    assert kuhn.max_chance_outcomes() == 3
    horizonte = pyspiel.load_game("tabuleiro_horizonte", {eo.EXPLICIT: True, "num_players": 3, "rounds": 2})
    assert horizonte.get_type().chance_mode == chance.EXPLICIT_STOCHASTIC
    assert horizonte.max_chance_outcomes() == DEAL_BASE + 50 * MAX_PLAYERS
    assert horizonte.max_chance_nodes_in_history() == 1 + 2 * 42  # the initiative and one event a card at most


def test_parameters_are_the_config_knobs():
    game = pyspiel.load_game("tabuleiro_horizonte", {"num_players": 4, "removed": "O0,C25", "neblina": True})
    assert game.tab.config.removed == ("O0", "C25") and game.tab.config.neblina
    assert game.get_parameters()["removed"] == "O0 C25"  # spaces: the game string splits parameters at commas
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.tab.config == game.tab.config
    assert eo.load("horizonte", num_players=3).tab.config.num_players == 3
    assert eo.load("horizonte", num_players=5, removed=()).tab.config.removed == ()
    assert eo.parameters("horizonte", removed=("O0", "C25"), seed=3) == {"removed": "O0 C25", "seed": 3}
    assert eo.load("capivari", wins_needed=3).tab.config.wins_needed == 3
    points = pyspiel.load_game("tabuleiro_horizonte", {"reward": "points"}).get_type()
    rank = pyspiel.load_game("tabuleiro_horizonte", {"reward": "rank"}).get_type()
    assert points.short_name == rank.short_name == "tabuleiro_horizonte"


@pytest.mark.parametrize(
    "name, params, error, words",
    [
        ("tabuleiro_horizonte", {"num_players": 7}, ValueError, ["tabuleiro_horizonte", "num_players", "[3, 5]"]),
        ("tabuleiro_capivari", {"subtract_points": 0}, ValueError, ["subtract_points"]),
        ("tabuleiro_horizonte", {"removed": "O0,O0"}, ValueError, ["removed"]),
        ("tabuleiro_horizonte", {"reward": "chips"}, ValueError, ["reward", "rank"]),
        ("tabuleiro_capivari", {"seed": -5}, ValueError, ["seed"]),
        ("tabuleiro_capivari", {"bogus": 1}, pyspiel.SpielError, ["bogus"]),
        ("tabuleiro_capivari", {"wins_needed": "two"}, pyspiel.SpielError, ["wins_needed"]),
        ("tabuleiro_kuhn_poker", {"seed": 1}, ValueError, ["seed", "explicit_chance"]),  # explicit: no seed
        ("tabuleiro_horizonte", {"explicit_chance": True, "seed": 2}, ValueError, ["seed", "explicit_chance"]),
        ("tabuleiro_capivari", {"explicit_chance": True}, pyspiel.SpielError, ["explicit_chance"]),  # not offered
    ],
)
def test_bad_parameters_are_refused_clearly(name, params, error, words):
    with pytest.raises(error) as caught:
        pyspiel.load_game(name, params)
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_bad_actions_and_players_are_refused():
    state = eo.load("capivari").new_initial_state()
    illegal = next(a for a in range(state.get_game().num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="not legal"):
        state.apply_action(illegal)
    with pytest.raises(ValueError, match="seat"):
        state.observation_tensor(5)
    kuhn = pyspiel.load_game("tabuleiro_kuhn_poker").new_initial_state()
    kuhn.apply_action(1)
    with pytest.raises(ValueError, match="not an outcome"):
        kuhn.apply_action(1)  # Q is already dealt


# -- Kuhn poker against theory and against OpenSpiel's kuhn_poker -------------------------------------------------


def _cfr(game: "pyspiel.Game") -> dict:
    start = time.perf_counter()
    solver = cfr.CFRSolver(game)
    for _ in range(CFR_ITERATIONS):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    values = expected_game_score.policy_value(game.new_initial_state(), [average] * 2)
    return {
        "nash_conv": exploitability.nash_conv(game, average),
        "values": [float(v) for v in values],
        "seconds": time.perf_counter() - start,
    }


def test_kuhn_cfr_reaches_the_game_value_as_on_openspiels_kuhn_poker():
    ours = _cfr(pyspiel.load_game("tabuleiro_kuhn_poker"))
    theirs = _cfr(pyspiel.load_game("kuhn_poker"))
    for run in (ours, theirs):
        assert run["nash_conv"] < 1e-3
        assert run["values"][0] == pytest.approx(KUHN_VALUE, abs=1e-3)
        assert run["values"][1] == pytest.approx(-KUHN_VALUE, abs=1e-3)
    assert ours["nash_conv"] == pytest.approx(theirs["nash_conv"], abs=1e-12)
    assert ours["values"] == pytest.approx(theirs["values"], abs=1e-12)


def test_kuhn_tree_and_information_sets_are_openspiels():
    ours, theirs = pyspiel.load_game("tabuleiro_kuhn_poker"), pyspiel.load_game("kuhn_poker")
    key = dict(depth_limit=-1, include_terminals=True, include_chance_states=True, to_string=lambda s: s.history_str())
    mine, cc = get_all_states(ours, **key), get_all_states(theirs, **key)
    assert sorted(mine) == sorted(cc)  # 58 histories, chance nodes included
    partition = {}
    for h, s in mine.items():
        t = cc[h]
        assert s.current_player() == t.current_player() and s.returns() == t.returns()
        assert s.legal_actions() == t.legal_actions()
        if s.is_chance_node():
            assert s.chance_outcomes() == t.chance_outcomes()
        elif not s.is_terminal():
            p = s.current_player()
            partition.setdefault(s.information_state_string(p), set()).add(t.information_state_string(p))
    assert len(partition) == 12 and all(len(v) == 1 for v in partition.values())  # the same 12 information sets
    assert len({next(iter(v)) for v in partition.values()}) == 12


def test_kuhn_resample_keeps_what_the_seat_knows():
    game = pyspiel.load_game("tabuleiro_kuhn_poker")
    state = game.new_initial_state()
    for a in (2, 0, 0):  # seat 0 holds K, seat 1 J; seat 0 passes
        state.apply_action(a)
    rng = np.random.default_rng(0)
    seen = {0: set(), 1: set()}
    for _ in range(300):
        for p in (0, 1):
            twin = state.resample_from_infostate(p, rng.random)
            assert twin.information_state_string(p) == state.information_state_string(p)
            assert twin.observation_tensor(p) == state.observation_tensor(p)
            assert twin.history()[2:] == state.history()[2:] and twin.history()[p] == state.history()[p]
            seen[p].add(twin.history()[1 - p])
    assert seen == {0: {0, 1}, 1: {1, 2}}  # the other seat's card: either card the seat does not hold


def test_sampled_resample_keeps_what_the_seat_knows():
    for name, config in (("capivari_v0", {}), ("horizonte_v0", {"num_players": 3})):
        state = eo.load(name, seed=3, **config).new_initial_state()
        rng = np.random.default_rng(1)
        for _ in range(3):  # early: much is still hidden (Capivari's deck order, Horizonte's other hands)
            state.apply_action(int(rng.choice(state.legal_actions())))
        p = state.current_player()
        views = set()
        for _ in range(20):
            twin = state.resample_from_infostate(p, rng.random)
            assert twin.observation_tensor(p) == state.observation_tensor(p)
            assert twin.legal_actions() == state.legal_actions()
            assert twin.information_state_string(p) == state.information_state_string(p)
            views.add(str(twin))
        assert len(views) > 1, f"{name}: resampling never changed what seat {p} cannot see"


@pytest.mark.parametrize(
    ("name", "config"),
    [("capivari_v0", {}), ("horizonte_v0", {"num_players": 4}),
     ("dorfromantik_duel_v0", {"placement_candidates": True, "observe_boards": False})],
)  # fmt: skip
def test_an_information_state_string_tells_the_seats_legal_actions(name, config):
    """OpenSpiel's IS-MCTS keys its nodes by the string and keeps the legal actions of the first state it met:
    states a seat cannot tell apart must give it the same legal actions (the Duel's map once showed each cell's
    main terrain only, so tiles with other edges elsewhere collided: a KeyError deep in OpenSpiel's search)."""
    game = eo.load(name, **config)
    rng = np.random.default_rng(0)
    legal_of: dict[str, tuple] = {}
    for _ in range(12):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 25))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        walk_seed = int(rng.integers(2**32))
        for _ in range(10):  # determinizations of this position, then the same few random moves in each
            twin = state.resample_from_infostate(state.current_player(), rng.random)
            walk = np.random.default_rng(walk_seed)
            for _ in range(5):
                if twin.is_terminal():
                    break
                key, legal = twin.information_state_string(twin.current_player()), tuple(twin.legal_actions())
                assert legal_of.setdefault(key, legal) == legal, f"one information state, two legal sets:\n{key}"
                twin.apply_action(int(walk.choice(legal)))


# -- OpenSpiel's random-simulation checks, in Python --------------------------------------------------------------


def _check_observations(game: "pyspiel.Game", state: "pyspiel.State", lo: float, hi: float) -> None:
    for p in range(game.num_players()):
        for tensor in (state.observation_tensor(p), state.information_state_tensor(p)):
            assert len(tensor) == game.observation_tensor_size()
            assert lo <= min(tensor) and max(tensor) <= hi
        assert isinstance(state.observation_string(p), str)
        assert state.information_state_string(p).startswith(f"player {p}\n")


def _copies(game: "pyspiel.Game", state: "pyspiel.State") -> list:
    """A clone, a deserialized copy and an unpickled copy of ``state``, each checked against it."""
    copies = [state.clone(), game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state))]
    for twin in copies:
        assert str(twin) == str(state) and twin.history() == state.history()
        assert twin.returns() == state.returns() and twin.current_player() == state.current_player()
    return copies


def _simulate(game: "pyspiel.Game", rng: np.random.Generator, max_steps: int = 20_000) -> tuple[int, int]:
    """One random game with OpenSpiel's checks; (moves, chance events)."""
    n = game.num_players()
    lo, hi = game.tab.obs_bounds()
    total = game.utility_sum() if game.get_type().utility != pyspiel.GameType.Utility.GENERAL_SUM else None
    state = game.new_initial_state()
    actions, copies, moves, chances = [], [], 0, 0
    summed = np.zeros(n)
    checkpoint = int(rng.integers(0, 40))  # where the copies are taken (or at the end, if the game is shorter)
    for step in range(max_steps):
        if state.is_terminal():
            break
        if step == checkpoint:
            _check_observations(game, state, lo, hi)
            copies = _copies(game, state)
        player = state.current_player()
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            ids, probs = zip(*outcomes, strict=True)
            assert outcomes and len(set(ids)) == len(ids) and all(p > 0 for p in probs)
            assert math.isclose(sum(probs), 1.0, abs_tol=1e-9)
            assert all(0 <= a < game.max_chance_outcomes() for a in ids)
            assert state.legal_actions() == sorted(ids)
            action = int(rng.choice(ids, p=probs))
            chances += 1
        else:
            assert 0 <= player < n
            legal = state.legal_actions()
            assert legal and legal == sorted(legal) and 0 <= legal[0] and legal[-1] < game.num_distinct_actions()
            assert all(state.legal_actions(q) == [] for q in range(n) if q != player)
            assert state.action_to_string(player, legal[0]) == game.tab.action_name(legal[0])
            action = int(legal[rng.integers(len(legal))])
            moves += 1
        state.apply_action(action)
        actions.append(action)
        summed += state.rewards()
    assert state.is_terminal(), "game did not end"
    assert moves <= game.max_game_length()
    assert state.legal_actions() == [] and all(state.legal_actions(p) == [] for p in range(n))
    returns = state.returns()
    assert returns == pytest.approx(summed.tolist(), abs=1e-9)
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    assert all(state.player_return(p) == returns[p] for p in range(n))
    if total is not None:
        assert sum(returns) == pytest.approx(total, abs=1e-9)
    if not copies:  # the game ended before the checkpoint: copy the final state
        _check_observations(game, state, lo, hi)
        copies, checkpoint = _copies(game, state), len(actions)
    for twin in copies:  # each copy, fed the same actions, continues exactly like the original
        for action in actions[checkpoint:]:
            twin.apply_action(action)
        assert str(twin) == str(state) and twin.history() == state.history() and twin.returns() == returns
    return moves, chances


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_random_simulation(family):
    short = _short(family)
    count = SIM_GAMES.get(short, OTHER_GAMES)
    if family.endswith("-explicit"):
        count //= 2  # ~50 chance events a round, each a Python call
    game = _load(family, seed=17)
    assert pickle.loads(pickle.dumps(game.get_type())) == game.get_type()
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.dealt == game.dealt
    rng = np.random.default_rng(zlib.crc32(family.encode()))
    moves = chances = 0
    for _ in range(count):
        m, c = _simulate(game, rng)
        moves, chances = moves + m, chances + c
    assert moves >= count
    assert (chances > 0) == game.explicit


@pytest.mark.parametrize("spec", envs.specs(), ids=lambda spec: spec.short_name)
def test_openspiels_own_random_sim_test(spec):
    """OpenSpiel's C++ ``random_sim_test`` as it is (its serialization check needs a game's generator state,
    which OpenSpiel's Python game API cannot supply for sampled chance: explicit-chance games only)."""
    game = eo.load(spec.name, **spec.quick_config)
    sims = 3 if game.tab.obs_size < 10_000 else 1  # it observes every seat at every state: the Duel's are big
    pyspiel.random_sim_test(game, num_sims=sims, serialize=game.explicit, verbose=False)


def test_observer_api():
    game = eo.load("capivari")
    state = game.new_initial_state()
    for obs_type in (None, pyspiel.IIGObservationType(perfect_recall=True)):
        observation = make_observation(game, obs_type)
        observation.set_from(state, 1)
        assert observation.tensor.tolist() == state.observation_tensor(1)
        assert set(observation.dict) == set(game.tab.observation_layout().names())
    public = pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    with pytest.raises(ValueError, match="one seat"):
        make_observation(game, public)
    # the C++ side learns tensor shapes by observing a fresh state: that leaves the game's deals where they were
    dealt = game.dealt
    assert game.information_state_tensor_size() == game.tab.obs_size
    assert pyspiel.State.observation_tensor(state, 0) == state.observation_tensor(0)  # the C++ method
    assert game.dealt == dealt


# -- the AEC env and the adapter play the same games ----------------------------------------------------------


def _follow_deal(state: "pyspiel.State", env) -> "pyspiel.State":
    """The adapter's state after the chance events that give every seat the AEC env's observation (a search)."""
    if not state.is_chance_node():
        views = [env.observe(a)["observation"].tolist() for a in env.possible_agents]
        return state if all(state.observation_tensor(p) == v for p, v in enumerate(views)) else None
    for outcome, _ in state.chance_outcomes():
        found = _follow_deal(state.child(outcome), env)
        if found is not None:
            return found
    return None


def _deal_as(state: "pyspiel.State", rec: np.void) -> None:
    """Explicit-chance Horizonte: resolve the pending chance events as the AEC env's record drew and dealt them."""
    while state.is_chance_node():
        chosen = []
        for outcome, _ in state.chance_outcomes():
            if outcome < DEAL_BASE:
                if outcome == rec["dragon"] * MAX_PLAYERS + rec["dog"]:
                    chosen.append(outcome)
            elif rec["dealt"][(outcome - DEAL_BASE) % MAX_PLAYERS, (outcome - DEAL_BASE) // MAX_PLAYERS]:
                chosen.append(outcome)
        assert chosen, f"the env's deal is not an outcome of {state.chance_outcomes()}"
        state.apply_action(chosen[0])  # a hand is dealt lowest card first


def _same_chance(state: "pyspiel.State", env) -> "pyspiel.State":
    """The adapter's state after resolving its pending chance events as the AEC env's game did."""
    if state.get_game().explicit and state.is_chance_node():
        if env.game.name == "horizonte_v0":
            _deal_as(state, env._rec)  # the env's record: what it drew and dealt
        else:
            state = _follow_deal(state, env)
            assert state is not None, "no deal of the adapter gives the AEC env's observations"
    return state


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_aec_env_and_adapter_play_the_same_game(family):
    name, config = FAMILIES[family]
    short = _short(family)
    seed = 1000 + len(family)
    game = _load(family, seed=seed)
    env = envs.make(name, **{k: v for k, v in config.items() if k != eo.EXPLICIT})
    every = 8 if short == "dorfromantik_duel" else 1  # observations compared every `every` moves (the Duel's are big)
    for k in range(AEC_GAMES.get(short, OTHER_GAMES)):
        env.reset(seed=seed + k)  # the adapter's k-th state is reset(seed=seed + k)
        state = game.new_initial_state()
        rng_env, rng_os = np.random.default_rng(k), np.random.default_rng(k)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        played_env, played_os = [], []
        step = 0
        while not all(env.terminations.values()):
            state = _same_chance(state, env)  # the first deal, and each new round's
            agent = env.agent_selection
            seat = env.possible_agents.index(agent)
            assert state.current_player() == seat
            legal = env.legal_actions()
            assert state.legal_actions() == legal
            if step % every == 0:
                for p, a in enumerate(env.possible_agents):
                    assert state.observation_tensor(p) == env.observe(a)["observation"].tolist()
            a_env = legal[rng_env.integers(len(legal))]
            a_os = state.legal_actions()[rng_os.integers(len(legal))]
            assert state.action_to_string(seat, a_os) == env.action_name(a_env)
            env.step(a_env)
            state.apply_action(a_os)
            played_env.append(a_env)
            played_os.append(a_os)
            for a in env.possible_agents:
                totals[a] += env.rewards[a]
            assert state.rewards() == pytest.approx([env.rewards[a] for a in env.possible_agents])
            step += 1
        assert state.is_terminal()
        assert played_os == played_env
        assert state.returns() == pytest.approx([totals[a] for a in env.possible_agents], abs=1e-9)


# -- Horizonte's explicit chance ----------------------------------------------------------------------------------


def test_horizonte_initiative_is_uniform_over_ordered_pairs_as_the_rules_draw_it():
    """Explicit chance gives each (Dragon, Dog) pair of different seats 1 / (n (n - 1)); the default path's
    card draw (ties redrawn) must agree: 6,000 seeded resets per player count, every pair within 5 sigma."""
    for n in (3, 4, 5):
        explicit = eo.load("horizonte", num_players=n, explicit_chance=True).new_initial_state()
        pairs = explicit.chance_outcomes()
        assert len(pairs) == n * (n - 1) and all(p == pytest.approx(1 / (n * (n - 1))) for _, p in pairs)
        env = envs.make("horizonte_v0", num_players=n)
        counts: dict[int, int] = {}
        games = 6000
        for seed in range(games):
            env.reset(seed=seed)
            key = int(env._rec["dragon"]) * MAX_PLAYERS + int(env._rec["dog"])
            counts[key] = counts.get(key, 0) + 1
        assert sorted(counts) == sorted(outcome for outcome, _ in pairs)
        p = 1 / (n * (n - 1))
        sigma = math.sqrt(games * p * (1 - p))
        assert all(abs(c - games * p) < 5 * sigma for c in counts.values()), counts


def test_horizonte_explicit_deals_are_the_rules_deals():
    """After each explicit deal the record is an ordinary Horizonte state (the state check accepts it): equal
    hands from the config's deck; each seat holds each card of the deck in about 1 / n of the deals."""
    game = eo.load("horizonte", num_players=3, rounds=2, explicit_chance=True)
    tab = game.tab
    deck = [c for c in range(50) if c not in tab.config.removed_cards]
    held = np.zeros((3, 50))
    rng = np.random.default_rng(5)
    deals = 0
    for _ in range(150):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                if not state.is_chance_node():  # the deal is complete
                    rec = state._rec()
                    tab.validate_state(rec)
                    assert rec["hand"][:3, deck].sum(axis=0).tolist() == [1] * len(deck)
                    held += rec["hand"][:3]
                    deals += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert deals == 300
    share = held[:, deck] / deals
    assert np.abs(share - 1 / 3).max() < 0.15  # 300 deals: sigma ~ 0.027 a cell


def test_horizonte_explicit_resample_keeps_what_the_seat_knows():
    game = eo.load("horizonte", num_players=3, removed=MCCFR_REMOVED, rounds=1, max_prediction=2, explicit_chance=True)
    rng = np.random.default_rng(2)
    state = game.new_initial_state()
    while state.is_chance_node():  # to the first prediction: the other hands are hidden
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    state.apply_action(state.legal_actions()[0])
    p = state.current_player()
    others = set()
    for _ in range(20):
        twin = state.resample_from_infostate(p, rng.random)
        assert twin.observation_tensor(p) == state.observation_tensor(p)
        assert twin.information_state_string(p) == state.information_state_string(p)
        others.add(str(twin))
    assert len(others) > 1
