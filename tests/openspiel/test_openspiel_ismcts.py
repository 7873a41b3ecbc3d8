"""OpenSpiel's IS-MCTS bot as an arena agent (agents/openspiel_ismcts.py, ``openspiel-ismcts:iterations=N``).

- Made by name through the agent registry; its options are checked before any work (no ``seconds=``: the
  bot's budget is simulations).
- It plays whole games of every game with legal moves only, in the arena's match loop.
- It reads only what its seat may know: two states that differ only in what the seat cannot see (one the
  game's determinization of the other) get the same move from equally seeded agents.
"""

import numpy as np
import pytest

pytest.importorskip("pyspiel")

import envs  # noqa: E402
import envs.openspiel as eo  # noqa: E402
from agents.match import play_game  # noqa: E402
from agents.registry import check_spec, make_agent  # noqa: E402


@pytest.mark.parametrize(
    "spec, words",
    [
        ("openspiel-ismcts:seconds=1", ["seconds", "iterations"]),
        ("openspiel-ismcts:iterations=0", ["iterations"]),
        ("openspiel-ismcts:iterations=many", ["iterations", "int"]),
        ("openspiel-ismcts:exploration=nan", ["exploration"]),
    ],
)
def test_bad_options_are_refused_before_any_work(spec, words):
    with pytest.raises(ValueError) as caught:
        check_spec(spec)
    assert all(w in str(caught.value) for w in words), str(caught.value)


@pytest.mark.parametrize("game", ["kuhn_poker_v0", "capivari_v0", "horizonte_v0"])
def test_plays_whole_games_with_legal_moves(game):
    config = {"num_players": 3, "rounds": 1} if game == "horizonte_v0" else {}
    env = envs.game_module(game).raw_env(**config)  # raises IllegalActionError on an illegal move
    agents = [make_agent("openspiel-ismcts:iterations=4", game, seed=1)]
    agents += [make_agent("random", game, seed=2 + k) for k in range(len(env.possible_agents) - 1)]
    for seed in range(3):
        result = play_game(env, agents, seed=seed)
        assert result.steps > 0 and all(env.terminations.values())


def test_sees_only_what_its_seat_may_know():
    game = "horizonte_v0"
    env = envs.make(game, num_players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(5):  # into the play: hands partly known through the cards played
        env.step(int(rng.choice(env.legal_actions())))
    twin = env.clone()
    seat = env.possible_agents.index(env.agent_selection)
    env.game.determinize_fn(twin._states[0], seat, np.uint64(99))
    assert twin.core_state.tobytes() != env.core_state.tobytes()  # what the seat cannot see changed
    observation = env.observe(env.agent_selection)
    assert (twin.observe(twin.agent_selection)["observation"] == observation["observation"]).all()
    moves = [make_agent("openspiel-ismcts:iterations=30", game, seed=5).act(observation, e) for e in (env, twin)]
    assert moves[0] == moves[1]


def test_state_of_refuses_foreign_records():
    game = eo.load("capivari")
    with pytest.raises(ValueError, match="record"):
        eo.state_of(game, envs.make("kuhn_poker_v0").game.new_state()[0])
    kuhn = eo.load("kuhn_poker")  # explicit chance: a state is its history
    with pytest.raises(ValueError, match="sampled"):
        eo.state_of(kuhn, kuhn.tab.new_state()[0])
