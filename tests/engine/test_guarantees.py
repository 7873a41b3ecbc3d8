"""What the engine promises for bad input, whatever the game: clear errors of the documented types."""

import json
import pickle

import numpy as np
import pytest

from envs import capivari_v0, horizonte_v0
from envs.batch import BatchEnv
from envs.engine import IllegalActionError, OrderError
from envs.engine.aec import _MAGIC, _checksum, header_of
from tests.common import random_legal


def _mid_game(env, seed: int = 1, steps: int = 5):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    return env


def _with_header(data: bytes, **changes) -> bytes:
    """Serialized bytes with header entries changed and the checksum recomputed, as a forger would."""
    header = header_of(data)
    raw = data[len(_MAGIC) + 4 + int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 4], "little") :]
    header.update(changes)
    header["sha256"] = _checksum(header, raw)
    head = json.dumps(header).encode()
    return _MAGIC + len(head).to_bytes(4, "little") + head + raw


# -- the serialized header ------------------------------------------------------------------


def test_every_header_byte_flip_is_refused():
    data = _mid_game(capivari_v0.raw_env()).serialize()
    size = int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 4], "little")
    rng = np.random.default_rng(0)
    accepted = 0
    for _ in range(3000):
        b = bytearray(data)
        b[len(_MAGIC) + 4 + int(rng.integers(size))] ^= 1 << int(rng.integers(8))
        try:
            capivari_v0.raw_env().deserialize(bytes(b))
            accepted += 1
        except ValueError:
            pass
    assert accepted == 0


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"agent_selection": "player_1"}, "agent_selection"),
        ({"agent_selection": "player_7"}, "agent_selection"),
        ({"rewards": {"player_0": 7.5, "player_1": float("nan")}}, "rewards"),
        ({"cumulative": {"player_0": float("inf"), "player_1": 0.0}}, "cumulative"),
        ({"cumulative": {"player_0": True, "player_1": 0.0}}, "cumulative"),
        ({"terminations": {"player_0": True, "player_1": False}}, "terminations"),
        ({"truncations": {"player_0": True, "player_1": False}}, "truncations"),
        ({"agents": ["player_1", "player_0"]}, "seat order"),
        ({"agents": ["player_0"]}, "every agent"),
        ({"illegal_end": "yes"}, "illegal_end"),
        ({"illegal_movers": ["player_0"]}, "illegal_movers"),
        ({"render_seat": 5}, "render_seat"),
    ],
)
def test_a_forged_header_must_agree_with_the_record(changes, match):
    env = _mid_game(capivari_v0.raw_env())
    data = env.serialize()
    if header_of(data)["agent_selection"] == "player_1" and changes.get("agent_selection") == "player_1":
        changes = {"agent_selection": "player_0"}
    with pytest.raises(ValueError, match=match):
        capivari_v0.raw_env().deserialize(_with_header(data, **changes))


def test_infos_come_from_the_record_not_the_header():
    env = _mid_game(capivari_v0.raw_env())
    twin = capivari_v0.raw_env()
    twin.deserialize(_with_header(env.serialize(), infos={"player_0": {"winner": 1}}))
    assert repr(twin.infos) == repr(env.infos)


def test_deeply_nested_header_json_is_refused():
    nested = b"[" * 100_000 + b"]" * 100_000
    data = _MAGIC + len(nested).to_bytes(4, "little") + nested
    with pytest.raises(ValueError, match="corrupted"):
        capivari_v0.raw_env().deserialize(data)


def test_a_state_of_the_old_format_is_named():
    with pytest.raises(ValueError, match="older tabuleiro version"):
        capivari_v0.raw_env().deserialize(b"TABU1\n" + bytes(20))


# -- pickles ----------------------------------------------------------------------------------


def test_an_unpickled_env_revalidates_its_config():
    env = _mid_game(horizonte_v0.raw_env(num_players=4))
    object.__setattr__(env.game.config, "rounds", 40)  # what a tampered pickle would carry
    with pytest.raises(ValueError, match="rounds"):
        pickle.loads(pickle.dumps(env))


def test_an_unpickled_game_revalidates_its_config():
    game = capivari_v0.raw_env().game
    object.__setattr__(game.config, "max_rounds", 65)
    with pytest.raises(ValueError, match="max_rounds"):
        pickle.loads(pickle.dumps(game))


def test_a_pickle_round_trip_continues():
    env = _mid_game(horizonte_v0.raw_env(num_players=3))
    twin = pickle.loads(pickle.dumps(env))
    assert twin.serialize() == env.serialize()


# -- order and argument errors ----------------------------------------------------------------


def test_calls_before_reset_raise_the_order_error():
    env = capivari_v0.env()
    for call in (env.last, env.agent_iter, lambda: env.step(0), lambda: env.observe("player_0")):
        with pytest.raises(OrderError):
            call()


def test_stepping_after_every_agent_is_done_raises_the_order_error():
    env = capivari_v0.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
        del agent
    assert env.agents == []
    with pytest.raises(OrderError, match="call reset"):
        env.step(None)


@pytest.mark.parametrize("name", [5, None, b"oxes3", ["oxes3"]])
def test_action_from_name_wants_a_string(name):
    with pytest.raises(ValueError, match="must be a string"):
        capivari_v0.env().action_from_name(name)


@pytest.mark.parametrize("seat", [5, 4, -1, True, 1.0, "0"])
def test_render_seat_is_a_seat_or_none(seat):
    env = horizonte_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="render_seat"):
        env.render_seat = seat
    env.render_seat = np.int64(3)
    assert "player_3" in env.render() and env.render_seat == 3


@pytest.mark.parametrize("seed", [2**64, -1, 1.5, True, "7", np.float64(3)])
def test_seeds_out_of_range_or_of_another_type_are_refused(seed):
    with pytest.raises(ValueError, match="seed"):
        capivari_v0.env().reset(seed=seed)


def test_numpy_and_largest_seeds_are_accepted():
    env = capivari_v0.env()
    env.reset(seed=np.uint64(2**64 - 1))
    first = env.serialize()
    env.reset(seed=2**64 - 1)
    assert env.serialize() == first


# -- the batch API ----------------------------------------------------------------------------


def test_a_batch_with_an_illegal_action_changes_nothing_and_names_the_games():
    batch = BatchEnv("capivari_v0", 16, seed=0)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):  # play until some game has just ended and restarted
        actions = np.array([random_legal(m, rng) for m in masks])
        _, masks, _, _, dones = batch.step(actions)
    actions = np.array([random_legal(m, rng) for m in masks])
    actions[[3, 11]] = [int(np.flatnonzero(masks[i] == 0)[0]) for i in (3, 11)]
    before = batch.states.copy()
    with pytest.raises(IllegalActionError, match="game 3: .*game 11: .*no game was stepped"):
        batch.step(actions)
    assert batch.states.tobytes() == before.tobytes()
    actions[[3, 11]] = [random_legal(masks[i], rng) for i in (3, 11)]
    batch.step(actions)  # the corrected batch steps every game once
    assert batch.states.tobytes() != before.tobytes()


def test_batch_masks_are_refreshed_after_random_steps():
    batch = BatchEnv("capivari_v0", 8, seed=0)
    batch.reset()
    batch.random_steps(7)
    masks = batch.legal_mask()
    rng = np.random.default_rng(1)
    batch.step(np.array([random_legal(m, rng) for m in masks]))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"num_envs": True}, "num_envs"),
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 4.0}, "num_envs"),
        ({"num_envs": 4, "threads": True}, "threads"),
        ({"num_envs": 4, "threads": 0}, "threads"),
        ({"num_envs": 4, "seed": 1.5}, "seed"),
        ({"num_envs": 4, "seed": -1}, "seed"),
        ({"num_envs": 4, "seed": 2**64 - 2}, "seed"),
    ],
)
def test_batch_arguments_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BatchEnv("capivari_v0", **kwargs)


def test_batch_takes_numpy_integers():
    batch = BatchEnv("capivari_v0", np.int64(4), seed=np.uint64(2**64 - 4), threads=np.int32(1))
    batch.reset(seed=np.int64(3))
    assert batch.episode_seeds.tolist() == [3, 4, 5, 6]


def test_a_clone_is_independent_and_samples_from_its_own_spaces():
    env = capivari_v0.env()
    env.reset(seed=4)
    twin = env.clone()
    agent = env.agent_selection
    twin.action_space(agent).seed(7)
    env.action_space(agent).seed(7)
    assert [twin.action_space(agent).sample() for _ in range(5)] == [env.action_space(agent).sample() for _ in range(5)]
    before = env.serialize()
    twin.step(int(np.flatnonzero(twin.observe(agent)["action_mask"])[0]))
    assert env.serialize() == before and twin.serialize() != before


def test_a_parallel_env_header_must_name_the_live_agents():
    """The parallel env's agents follow from the record: a forged list (one seat, a seat twice) is refused."""
    import envs

    env = envs.game_module("dorfromantik_duel").parallel_env(board_radius=9)
    obs, _ = env.reset(seed=4)
    env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
    data = env.serialize()
    magic = data[: data.index(b"{")]
    size = int.from_bytes(magic[-4:], "little")
    rest = data[len(magic) + size :]
    for forged in (["player_0"], ["player_1"], ["player_0", "player_0"]):
        head = json.dumps({"agents": forged}).encode()
        with pytest.raises(ValueError, match="live agents"):
            env.deserialize(magic[:-4] + len(head).to_bytes(4, "little") + head + rest)
    env.deserialize(data)  # the real one still restores
    assert env.agents == ["player_0", "player_1"]
