"""Nothing unchecked reaches compiled code: bad scenarios and corrupted states raise clear ValueErrors."""

import hashlib
import json

import numpy as np
import pytest

from envs import horizonte_v0
from tests.common import random_legal

GOOD_HANDS = [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4"]]


def reset_with(**scenario):
    env = horizonte_v0.raw_env(num_players=4)
    env.reset(seed=0, options={"scenario": scenario})
    return env


@pytest.mark.parametrize(
    "scenario, match",
    [
        ({"hand": GOOD_HANDS}, "unknown Horizonte reset option"),
        ({"hands": GOOD_HANDS[:3]}, "list of 4 hands"),
        ({"hands": "O8 C13"}, "list of 4 hands"),
        ({"hands": [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], "D2 O4"]}, "seat 3's hand must be a list"),
        ({"hands": [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "X4"]]}, "unknown Horizonte card 'X4'"),
        ({"hands": [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", 7]]}, "unknown Horizonte card 7"),
        ({"hands": [["O8", "C13"], ["C14", "M6"], ["M2", "O8"], ["D2", "O4"]]}, "'O8' appears twice"),
        ({"hands": [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4", "D3"]]}, "same number of cards"),
        ({"hands": [["O8"], ["C14"], ["M2"], ["D2"]]}, "same number of cards, 2..12"),
        ({"hands": [[f"O{i}" for i in range(1, 13)] + ["D1"]] * 4}, "same number of cards|appears twice"),
        ({"hands": [["O0", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4"]]}, "'O0' is not in the deck"),
        ({"dragon": 0}, "go together"),
        ({"dragon": 0, "dog": 4}, "'dog' must be a seat 0..3"),
        ({"dragon": -1, "dog": 2}, "'dragon' must be a seat"),
        ({"dragon": True, "dog": 2}, "'dragon' must be a seat"),
        ({"dragon": 1.0, "dog": 2}, "'dragon' must be a seat"),
        ({"predictions": [0, 1, 2]}, "'predictions' must be a list of 4 ints in \\[0, 7\\]"),
        ({"predictions": [0, 1, 2, 8]}, "'predictions' must be a list of 4 ints"),
        ({"predictions": [0, 1, 2, -1]}, "'predictions' must be a list of 4 ints"),
        ({"predictions": [0, 1, 2, False]}, "'predictions' must be a list of 4 ints"),
        ({"round": 0}, "'round' must be 1..3"),
        ({"round": 4}, "'round' must be 1..3"),
        ({"scores": [1, 2, 3, -4]}, "'scores' must be a list of 4 ints"),
        ({"scores": [1, 2, 3, 10**9]}, "'scores' must be a list of 4 ints"),
    ],
)
def test_bad_scenarios_raise_a_clear_error(scenario, match):
    with pytest.raises(ValueError, match=match):
        reset_with(**scenario)


def test_a_scenario_that_is_fine_plays():
    env = reset_with(hands=GOOD_HANDS, dragon=0, dog=2, predictions=[0, 1, 0, 0], round=2, scores=[1, 2, 3, 4])
    assert env.agent_selection == "player_0" and env.core_state.rounds_done == 1


def _with_raw(data: bytes, raw: bytes) -> bytes:
    """Serialized env bytes with the state record replaced (and the checksum made to match)."""
    magic = data[:6]
    size = int.from_bytes(data[6:10], "little")
    header = json.loads(data[10 : 10 + size])
    header["sha256"] = hashlib.sha256(raw).hexdigest()
    head = json.dumps(header).encode()
    return magic + len(head).to_bytes(4, "little") + head + raw


def _mid_game(seed: int = 0, steps: int = 9):
    env = horizonte_v0.env(num_players=4)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    return env


CORRUPTIONS = {
    "current out of turn": lambda r: r.__setitem__("current", (int(r["current"]) + 1) % 4),
    "current beyond the table": lambda r: r.__setitem__("current", 4),
    "dragon holder 9": lambda r: r.__setitem__("dragon", 9),
    "dog holder -3": lambda r: r.__setitem__("dog", -3),
    "phase 7": lambda r: r.__setitem__("phase", 7),
    "trick count 5": lambda r: r["trick_count"].__setitem__(0, 5),
    "trick card 77": lambda r: r["trick_card"].__setitem__((0, 0), 77),
    "trick seat -1": lambda r: r["trick_seat"].__setitem__((0, 0), -1),
    "a card in two hands": lambda r: r["hand"].__setitem__((1, int(np.flatnonzero(r["hand"][0])[0])), 1),
    "hand value 2": lambda r: r["hand"].__setitem__((0, int(np.flatnonzero(r["hand"][0])[0])), 2),
    "a removed card in hand": lambda r: r["hand"].__setitem__((0, 0), 1),
    "hand count wrong": lambda r: r["hand_count"].__setitem__(0, 3),
    "prediction 99": lambda r: r["prediction"].__setitem__(0, 99),
    "active trick 2": lambda r: r.__setitem__("active", 2),
    "void of a suit in hand": lambda r: r["void"][:4].__setitem__(slice(None), 1),
    "rounds done 12": lambda r: r.__setitem__("rounds_done", 12),
    "config changed": lambda r: r.__setitem__("points_per_unit", 3),
    "deck changed": lambda r: r["in_deck"].__setitem__(0, 1),
    "negative tricks": lambda r: r["dragon_tricks"].__setitem__(0, -1),
    "a seat beyond the table holds cards": lambda r: r["hand"].__setitem__((4, 49), 1),
    "last winner 7": lambda r: r["last_winner"].__setitem__(0, 7),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupted_states_are_rejected_by_deserialize(name):
    env = _mid_game()
    states = env._states.copy()
    CORRUPTIONS[name](states[0])
    data = _with_raw(env.serialize(), states.tobytes())
    with pytest.raises(ValueError, match="invalid Horizonte state|state field|config|num_players"):
        horizonte_v0.env(num_players=4).deserialize(data)


def test_random_byte_flips_are_rejected_or_play_to_the_end():
    """Whatever deserialize accepts, the compiled core can play to the end (no wild indexing)."""
    rng = np.random.default_rng(5)
    accepted = rejected = 0
    for trial in range(300):
        env = _mid_game(seed=trial % 7, steps=int(rng.integers(0, 30)))
        raw = bytearray(env._states.tobytes())
        for _ in range(int(rng.integers(1, 4))):
            raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
        fresh = horizonte_v0.env(num_players=4)
        try:
            fresh.deserialize(_with_raw(env.serialize(), bytes(raw)))
        except ValueError:
            rejected += 1
            continue
        accepted += 1
        for steps, agent in enumerate(fresh.agent_iter()):
            assert steps < 2000
            obs, _, term, trunc, _ = fresh.last()
            fresh.step(None if term or trunc else random_legal(obs["action_mask"], rng))
            if fresh.agents and not (term or trunc):
                fresh.game.validate_state(fresh.core_state)
            del agent
    assert accepted > 20 and rejected > 20
