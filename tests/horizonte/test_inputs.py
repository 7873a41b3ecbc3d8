"""Nothing unchecked reaches compiled code: bad scenarios and corrupted states raise clear ValueErrors."""

import numpy as np
import pytest

from envs import horizonte_v0
from tests.common import random_legal, with_record

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
    return with_record(data, raw)


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
        for _ in range(int(rng.integers(1, 3))):
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
    # the record is checked field by field for its phase, so a random byte is nearly always refused
    # (the rng is one of the few fields where most values are valid); the fuzz campaign
    # (tests/fuzz) forges field by field and plays out many more accepted states
    assert accepted >= 3 and rejected > 250


# -- every phase is checked, finished games included --------------------------------------------------


def _finished(seed: int = 0, **config):
    env = horizonte_v0.raw_env(**{"num_players": 4, **config})
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.core_state.done:
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    return env


def _forged(env, edit) -> bytes:
    states = env._states.copy()
    edit(states[0])
    return _with_raw(env.serialize(), states.tobytes())


@pytest.mark.parametrize("count", [4, 6, 64, 127, -1])
def test_a_finished_game_with_a_forged_trick_count_is_refused(count):
    """A finished game skipped every trick check: trick_count[0] = 64 got through, and observing
    the game then read and wrote far past the trick arrays (a segfault, exit 139)."""
    env = _finished()
    data = _forged(env, lambda r: r["trick_count"].__setitem__(0, count))
    with pytest.raises(ValueError, match="invalid Horizonte state: (field 'trick_count' out of range|trick 0)"):
        env.deserialize_new(data)


FINISHED_CORRUPTIONS = {
    "a card left in the Dragon trick": lambda r: r["trick_card"].__setitem__((0, 0), 5),
    "a seat left in the Dog trick": lambda r: r["trick_seat"].__setitem__((1, 2), 1),
    "trick count 1": lambda r: r["trick_count"].__setitem__(1, 1),
    "the Dog trick active": lambda r: r.__setitem__("active", 1),
    "active 9": lambda r: r.__setitem__("active", 9),
    "rounds done 2": lambda r: r.__setitem__("rounds_done", 2),
    "rounds done 11": lambda r: r.__setitem__("rounds_done", 11),
    "a prediction missing": lambda r: r["prediction"].__setitem__(1, -1),
    "prediction 99": lambda r: r["prediction"].__setitem__(2, 99),
    "no resolution": lambda r: r.__setitem__("resolutions", 0),
    "hand count wrong": lambda r: r["hand_count"].__setitem__(0, 9),
    "two cards back in a hand": lambda r: r["hand"].__setitem__((0, np.flatnonzero(r["played"][0])[:2]), 1),
    "rewards changed": lambda r: r["rewards"].__setitem__(0, float(r["rewards"][0]) + 0.5),
    "last winner not the Dragon holder": lambda r: r["last_winner"].__setitem__(0, (int(r["dragon"]) + 1) % 4),
    "last card 60": lambda r: r["last_card"].__setitem__(1, 60),
    "score below its rounds' points": lambda r: r["score"].__setitem__(2, int(r["hist_points"][:, 2].sum()) - 1),
    "round points changed": lambda r: r["hist_points"].__setitem__((1, 0), int(r["hist_points"][1, 0]) + 1),
    "history written past the end": lambda r: r["hist_dragon"].__setitem__((3, 0), 1),
    "info_version off": lambda r: r.__setitem__("info_version", int(r["info_version"]) + 1),
    "tricks taken 99": lambda r: r["dog_tricks"].__setitem__(0, 99),
    "void in a suit still held": lambda r: (
        r["void"][:4].__setitem__(slice(None), 1) if r["hand"][:4].any() else r["void"].__setitem__((4, 0), 1)
    ),
}


@pytest.mark.parametrize("name", sorted(FINISHED_CORRUPTIONS))
def test_corrupted_finished_games_are_refused(name):
    env = _finished()
    with pytest.raises(ValueError, match="invalid Horizonte state|state field"):
        env.deserialize_new(_forged(env, FINISHED_CORRUPTIONS[name]))


LIVE_CORRUPTIONS = {
    "a card beyond the trick count": lambda r: r["trick_card"].__setitem__((1, 4), 3),
    "the same card twice in the tricks": lambda r: r["trick_card"].__setitem__((0, 1), r["trick_card"][0, 0]),
    "a reward mid-round": lambda r: r["rewards"].__setitem__(1, -1.0),
    "rng 0": lambda r: r.__setitem__("rng", 0),
    "info_version ahead": lambda r: r.__setitem__("info_version", 1),
    "history written ahead": lambda r: r["hist_prediction"].__setitem__((0, 0), 3),
    "score written for seat 5": lambda r: r["score"].__setitem__(4, 7),
    "a resolution that did not happen": lambda r: r.__setitem__("resolutions", int(r["resolutions"]) + 1),
    "tricks taken without a resolution": lambda r: r["dragon_tricks"].__setitem__(1, int(r["dragon_tricks"][1]) + 3),
    "a hand one card short": lambda r: (
        r["hand"].__setitem__((2, int(np.flatnonzero(r["hand"][2])[0])), 0),
        r["dealt"].__setitem__((2, int(np.flatnonzero(r["hand"][2])[0])), 0),
        r["hand_count"].__setitem__(2, int(r["hand_count"][2]) - 1),
    ),
}


@pytest.mark.parametrize("name", sorted(LIVE_CORRUPTIONS))
def test_more_corrupted_live_states_are_refused(name):
    env = _mid_game(steps=9)
    assert env.core_state.trick_count.sum() >= 2
    with pytest.raises(ValueError, match="invalid Horizonte state|state field"):
        horizonte_v0.env(num_players=4).deserialize(_forged(env, LIVE_CORRUPTIONS[name]))


def test_a_prediction_out_of_order_is_refused():
    env = horizonte_v0.raw_env(num_players=4)
    env.reset(seed=3)
    env.step(env.action_from_name("predict 2"))
    dragon = int(env.core_state.dragon)

    def skip_a_seat(r):
        r["prediction"][(dragon + 1) % 4] = -1
        r["prediction"][(dragon + 2) % 4] = 2

    with pytest.raises(ValueError, match="invalid Horizonte state: predictions"):
        env.deserialize_new(_forged(env, skip_a_seat))


@pytest.mark.parametrize("config", [{}, {"num_players": 3}, {"num_players": 5, "reward": "points"}, {"rounds": 1}])
def test_reachable_states_pass_in_every_phase(config):
    """Predicting, playing (separate and merged), between rounds (points rewards), finished."""
    for seed in range(6):
        env = horizonte_v0.raw_env(**config)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            env.game.validate_state(env._rec)
            if env.core_state.done:
                break
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        env.deserialize_new(env.serialize())


# -- scenario typing: ints (Python or numpy) where ints are expected; bools and floats refused --------


def test_numpy_integers_are_ints_in_scenarios():
    env = reset_with(
        hands=GOOD_HANDS,
        dragon=np.int64(1),
        dog=np.int8(3),
        predictions=[np.int64(0), np.uint8(1), 0, np.int16(2)],
        round=np.int32(2),
        scores=[np.int64(5), 0, 1, np.uint16(2)],
    )
    s = env.core_state
    assert (int(s.dragon), int(s.dog), int(s.rounds_done)) == (1, 3, 1)
    assert s.prediction[:4].tolist() == [0, 1, 0, 2] and s.score[:4].tolist() == [5, 0, 1, 2]
    assert env.agent_selection == "player_1"


@pytest.mark.parametrize(
    "scenario, match",
    [
        ({"dragon": 0, "dog": np.bool_(True)}, "'dog' must be a seat"),
        ({"dragon": 0, "dog": 2.0}, "'dog' must be a seat"),
        ({"round": 2.0}, "'round' must be 1..3"),
        ({"round": True}, "'round' must be 1..3"),
        ({"round": "2"}, "'round' must be 1..3"),
        ({"predictions": [0, 1, 2, 1.0]}, "'predictions' must be a list of 4 ints"),
        ({"predictions": [0, 1, 2, np.bool_(True)]}, "'predictions' must be a list of 4 ints"),
        ({"scores": [1, 2, 3, 4.0]}, "'scores' must be a list of 4 ints"),
        ({"scores": [1, 2, 3, True]}, "'scores' must be a list of 4 ints"),
        ({"scores": "1234"}, "'scores' must be a list of 4 ints"),
    ],
)
def test_bools_and_floats_are_refused_naming_the_key(scenario, match):
    with pytest.raises(ValueError, match=match):
        reset_with(**scenario)
