"""Forged headers: a parallel env's serialized agents cannot end, prolong or duplicate a game, because they are
rebuilt from the checksummed AEC bytes (an illegal move's end included) and must equal what was rebuilt."""

import json

import numpy as np
import pytest

import envs


def _split(data: bytes) -> tuple[bytes, bytes]:
    magic = data[: data.index(b"{")]
    size = int.from_bytes(magic[-4:], "little")
    return magic[:-4], data[len(magic) + size :]


def _with_agents(data: bytes, agents: list[str]) -> bytes:
    magic, rest = _split(data)
    head = json.dumps({"agents": agents}).encode()
    return magic + len(head).to_bytes(4, "little") + head + rest


@pytest.fixture
def duel():
    env = envs.game_module("dorfromantik_duel").parallel_env(board_radius=9)
    obs, _ = env.reset(seed=4)
    env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
    return env


@pytest.mark.parametrize("forged", [[], ["player_0"], ["player_1"], ["player_0", "player_0"], ["player_1", "player_0"]])
def test_a_forged_agent_list_mid_game_is_refused_and_the_env_is_unchanged(duel, forged):
    data = duel.serialize()
    with pytest.raises(ValueError, match="live agents"):
        duel.deserialize(_with_agents(data, forged))
    assert duel.agents == ["player_0", "player_1"] and duel.serialize() == data


def test_a_game_ended_by_an_illegal_move_stays_ended_through_serialize(duel):
    obs = {a: duel.aec.observe(a) for a in duel.agents}
    illegal = {a: int(np.flatnonzero(obs[a]["action_mask"] == 0)[0]) for a in duel.agents}
    _, rewards, terms, _, infos = duel.step(illegal)
    assert duel.agents == [] and all(terms.values()) and infos["player_0"]["illegal_move"]
    twin = envs.game_module("dorfromantik_duel").parallel_env(board_radius=9)
    twin.deserialize(duel.serialize())
    assert twin.agents == [] and twin.aec.infos["player_0"]["illegal_move"]
    with pytest.raises(ValueError, match="live agents"):  # and it cannot be made to look in progress
        twin.deserialize(_with_agents(duel.serialize(), ["player_0", "player_1"]))


def test_a_forged_aec_header_cannot_end_a_game_in_progress(duel):
    data = duel.aec.serialize()
    head_at = data.index(b"{")
    size = int.from_bytes(data[head_at - 4 : head_at], "little")
    header = json.loads(data[head_at : head_at + size])
    header["terminations"] = {a: True for a in header["agents"]}
    head = json.dumps(header).encode()
    forged = data[: head_at - 4] + len(head).to_bytes(4, "little") + head + data[head_at + size :]
    with pytest.raises(ValueError):
        duel.aec.deserialize(forged)
