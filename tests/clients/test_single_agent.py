"""The single-agent env (``training.single_agent``) with gymnasium's own tools: registered for every game,
``check_env`` passes with no warning, one shape of infos, seeds and seats, and clear errors on bad input."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from envs.engine import IllegalActionError
from tests.clients.common import GAME_IDS, GAMES, random_legal
from training.single_agent import GYM_IDS, SingleAgentEnv, gym_id


def test_every_registered_game_is_a_gymnasium_id():
    assert GYM_IDS == [gym_id(name) for name in envs.GAMES]
    assert gym_id("capivari") == "tabuleiro/capivari-v0"
    assert gym_id("dorfromantik_duel_v0") == "tabuleiro/dorfromantik_duel-v0"
    for name in envs.GAMES:
        assert gym.spec(gym_id(name)).kwargs == {"game": name}


@pytest.mark.parametrize(("spec", "config"), GAMES, ids=GAME_IDS)
def test_check_env_passes_without_warnings(spec, config):
    env = gym.make(gym_id(spec.name), opponents={"random": 0.5, "heuristic": 0.5}, **config)
    assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.game_name == spec.name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


@pytest.mark.parametrize(("spec", "config"), GAMES, ids=GAME_IDS)
def test_masks_and_infos_keep_one_shape(spec, config):
    env = SingleAgentEnv(spec.name, **config)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=2)
    first = {key: (type(v), np.asarray(v).dtype, np.asarray(v).shape) for key, v in info.items()}
    games = steps = 0
    while games < 3:
        assert obs in env.observation_space
        assert {key: (type(v), np.asarray(v).dtype, np.asarray(v).shape) for key, v in info.items()} == first
        np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
        steps += 1
        assert np.isfinite(reward) and not truncated and not info["illegal_move"]
        if terminated:
            assert not info["action_mask"].any() and not env.action_masks().any()
            games += 1
            obs, info = env.reset()
    assert steps >= games


def play(env, seed, games, rng_seed=0):
    """Random legal play from ``reset(seed=seed)``: per game (seat, seed, return, won, learner decisions)."""
    rng = np.random.default_rng(rng_seed)
    out = []
    obs, info = env.reset(seed=seed)
    total, decisions, seed_now = 0.0, 0, env.episode_seed
    while len(out) < games:
        obs, reward, terminated, _, info = env.step(random_legal(info["action_mask"], rng))
        total, decisions = total + reward, decisions + 1
        if terminated:
            out.append((info["learner_seat"], seed_now, total, info["won"], decisions))
            obs, info = env.reset()
            total, decisions, seed_now = 0.0, 0, env.episode_seed
    return out


def test_a_seed_fixes_every_game_and_seats_rotate():
    env = SingleAgentEnv("horizonte_v0", opponents={"random": 1, "heuristic": 1}, num_players=3)
    first = play(env, seed=7, games=6)
    assert [g[0] for g in first] == [0, 1, 2, 0, 1, 2]
    assert first[0][1] == 7 and len({g[1] for g in first}) == 6  # game 0 is seed 7's; the next ones drawn from it
    assert play(env, seed=7, games=6) == first
    assert play(SingleAgentEnv("horizonte_v0", opponents={"random": 1, "heuristic": 1}, num_players=3), 7, 6) == first
    assert play(env, seed=8, games=6) != first


def test_a_chosen_seat_and_the_aec_game():
    """``seat=k`` holds seat k in every game; the game of ``reset(seed=s)`` is the AEC env's of ``reset(seed=s)``."""
    for seed in range(4):
        aec = envs.make("capivari_v0")
        aec.reset(seed=seed)
        seat = aec.possible_agents.index(aec.agent_selection)
        env = SingleAgentEnv("capivari_v0", seat=seat)
        obs, info = env.reset(seed=seed)
        np.testing.assert_array_equal(obs, aec.observe(aec.agent_selection)["observation"])
        np.testing.assert_array_equal(info["action_mask"], aec.observe(aec.agent_selection)["action_mask"])
        assert {g[0] for g in play(env, seed, 3)} == {seat}


def test_wins_and_rewards_against_the_heuristic_and_random():
    """Random play wins some games against random and fewer against the heuristic; a win is a positive return
    in Kuhn poker (two seats, zero-sum: the winner is the seat with the higher return)."""
    vs_random = play(SingleAgentEnv("kuhn_poker_v0", opponents="random"), 0, 200)
    vs_heuristic = play(SingleAgentEnv("kuhn_poker_v0", opponents="heuristic"), 0, 200)
    for _, _, total, won, _ in vs_random + vs_heuristic:
        assert won == (total > 0)
    assert sum(g[3] for g in vs_heuristic) < sum(g[3] for g in vs_random)


def test_an_illegal_action_loses_or_raises():
    env = SingleAgentEnv("capivari_v0")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_move"], info["won"]) == (-1.0, True, False, True, False)
    np.testing.assert_array_equal(obs2, obs)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(random_legal(info["action_mask"] + 1, np.random.default_rng(0)))
    obs, info = env.reset()
    assert not info["illegal_move"] and info["action_mask"].any()

    strict = SingleAgentEnv("capivari_v0", illegal_action="raise")
    _, info = strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"is illegal here; legal: "):
        strict.step(illegal)
    strict.step(random_legal(info["action_mask"], np.random.default_rng(0)))  # the game goes on


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"game": "chess"}, ValueError, "unknown game 'chess'"),
        ({"opponents": "snapshot"}, ValueError, r"unknown opponent\(s\) \['snapshot'\].*'random', 'heuristic'"),
        ({"opponents": {"random": 1, "minimax": 1}}, ValueError, r"unknown opponent\(s\) \['minimax'\]"),
        ({"opponents": {"random": -1}}, ValueError, "finite number >= 0"),
        ({"opponents": {"random": 0}}, ValueError, "at least one opponent weight"),
        ({"opponents": 3}, ValueError, "opponents must be one of"),
        ({"opponents": "policy"}, ValueError, "no opponent_policy file given"),
        ({"seat": 2}, ValueError, r"seat must be None or a seat 0\.\.1, got 2"),
        ({"seat": -1}, ValueError, "seat must be None or a seat"),
        ({"seat": True}, ValueError, "seat must be None or a seat"),
        ({"seat": "0"}, ValueError, "seat must be None or a seat"),
        ({"illegal_action": "ignore"}, ValueError, "illegal_action must be one of"),
        ({"render_mode": "human"}, ValueError, "no render modes"),
        ({"subtract_points": -5}, ValueError, "subtract_points"),
    ],
)
def test_bad_input_is_refused_clearly(kwargs, error, match):
    with pytest.raises(error, match=match):
        SingleAgentEnv(**{"game": "capivari_v0", **kwargs})


def test_bad_calls_are_refused_clearly():
    env = SingleAgentEnv("capivari_v0")
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(seed=0, options={"scenario": 1})
    for seed in (-1, 2**64, 1.5, "1"):
        with pytest.raises(ValueError, match="seed must be"):
            env.reset(seed=seed)
    env.reset(seed=0)
    for action in (-1, 36, 1.0, "pass", None, np.array([1, 2])):
        with pytest.raises(ValueError, match=r"action must be an int in \[0, 36\)"):
            env.step(action)
    env.step(np.int64(int(np.flatnonzero(env.action_masks())[0])))  # numpy ints and 0-d arrays are fine
    assert gym.make("tabuleiro/horizonte-v0", num_players=5).unwrapped.num_players == 5


def test_a_policy_file_plays_the_other_seat(tmp_path):
    from agents.compiled_policy import save_policy
    from tests.agents.test_compiled_policy import mlp_arrays

    path = save_policy(mlp_arrays("capivari_v0"), tmp_path / "opponent.npz")
    env = SingleAgentEnv("capivari_v0", opponents="policy", opponent_policy=path, seat=1)
    assert env.opponents == {"policy": 1.0}
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, done, truncated, info = env.step(random_legal(info["action_mask"], rng))
        assert not truncated
    assert env.vector._slot_kind(int(env.vector._slots[0])) == "policy"
