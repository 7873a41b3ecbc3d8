"""Nothing unchecked reaches compiled code: bad scenarios and corrupted states raise clear ValueErrors."""

import numpy as np
import pytest

from envs import capivari_v0
from envs.capivari.rules import LOC_AVAILABLE, LOC_DECK, LOC_DISCARD, LOC_TUCKED, card_from_name
from tests.common import random_legal, with_record

QUIET_RIVER = ["crias2", "oxes3", "tches3"]
BASE = {"river": QUIET_RIVER, "available": ["crias1", "crias4"], "deck": ["oxes1", "oxes2"]}
STATE_ERROR = "invalid Capivari state|state field|state config|num_players"


def reset_with(config=None, **scenario):
    env = capivari_v0.raw_env(**(config or {}))
    env.reset(seed=0, options={"scenario": {**BASE, **scenario}})
    return env


def play_to_the_end(env, rng_seed=0, max_steps=5000):
    rng = np.random.default_rng(rng_seed)
    for steps, _agent in enumerate(env.agent_iter()):
        assert steps < max_steps, "the game did not end"
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    return env


# -- scenario typing: ints (Python or numpy) where ints are expected; bools and floats refused --------


@pytest.mark.parametrize(
    "scenario",
    [
        {"capybaras": [[np.int64(1), "oxes4", np.int8(1)]]},
        {"current": np.int64(1)},
        {"oncas_in": [np.int8(2), np.uint8(3)]},
        {"round_wins": [np.int64(1), np.int16(0)]},
        {"round_wins": (1, 1), "oncas_in": (1,)},
    ],
)
def test_numpy_integers_are_ints(scenario):
    env = reset_with(**scenario)
    s = env.core_state
    if "current" in scenario:
        assert env.agent_selection == "player_1" and s.round_starter == 1
    if "round_wins" in scenario:
        assert s.round_wins.tolist() == [int(w) for w in scenario["round_wins"]]
    if "oncas_in" in scenario:
        assert s.onca_in.tolist() == [int(g in [int(x) for x in scenario["oncas_in"]]) for g in (1, 2, 3)]


@pytest.mark.parametrize(
    "scenario, match",
    [
        ({"capybaras": [[1.0, "oxes4", 0]]}, "option 'capybaras'.*segment must be 1..3"),
        ({"capybaras": [[True, "oxes4", 0]]}, "option 'capybaras'.*segment must be 1..3"),
        ({"capybaras": [[1, "oxes4", 1.0]]}, "option 'capybaras'.*seat 0 or 1"),
        ({"capybaras": [[1, "oxes4", np.True_]]}, "option 'capybaras'.*seat 0 or 1"),
        ({"capybaras": [["1", "oxes4", 0]]}, "option 'capybaras'.*segment must be 1..3"),
        ({"current": 1.0}, "option 'current' must be seat 0 or 1"),
        ({"current": True}, "option 'current' must be seat 0 or 1"),
        ({"current": np.bool_(False)}, "option 'current' must be seat 0 or 1"),
        ({"oncas_in": [True]}, "option 'oncas_in' must list segments 1..3"),
        ({"oncas_in": [2.0]}, "option 'oncas_in' must list segments 1..3"),
        ({"oncas_in": 2}, "option 'oncas_in' must list segments 1..3"),
        ({"round_wins": [1.0, 0]}, "option 'round_wins' must be two small non-negative ints"),
        ({"round_wins": [True, 0]}, "option 'round_wins' must be two small non-negative ints"),
        ({"round_wins": [1, 0, 0]}, "option 'round_wins' must be two small non-negative ints"),
    ],
)
def test_bools_and_floats_are_refused_naming_the_key(scenario, match):
    with pytest.raises(ValueError, match=match):
        reset_with(**scenario)


# -- set-ups the rules cannot continue from ------------------------------------------------------


def test_one_available_card_and_a_deck_refills_at_once_and_plays_on():
    """One available card and a deck: the refill reveals up to 4 at once, so play never stalls (no legal
    action while the game is not over)."""
    env = reset_with(available=["crias1"], deck=["oxes1", "oxes2", "oxes4", "oxes5"])
    s = env.core_state
    avail = {env.action_name(c) for c in range(15) if s.loc[c] == LOC_AVAILABLE}
    assert avail == {"crias1", "oxes1", "oxes2", "oxes4"}, "End of turn: refill up to 4 from the deck"
    assert s.deck_len - s.deck_pos == 1 and s.loc[card_from_name("oxes5")] == LOC_DECK
    env.step(env.action_from_name("crias1"))
    assert env.legal_actions(), "the next seat can move"
    play_to_the_end(env)


def test_one_available_card_and_an_empty_deck_is_a_finished_round():
    with pytest.raises(ValueError, match="option 'available' names 1 card and option 'deck' is empty"):
        reset_with(available=["crias1"], deck=[])


def test_a_decided_match_is_refused():
    with pytest.raises(ValueError, match=r"option 'round_wins' \[2, 0\]: the match is already decided"):
        reset_with(round_wins=[2, 0])
    reset_with(round_wins=[2, 2])  # tied at the target: play on
    reset_with(config={"wins_needed": 3}, round_wins=[2, 0])


def test_more_capionças_to_play_than_segments_for_them_is_refused():
    """All three Capionças still to come and every segment already holding one: a turn would come with
    only Capionças available and nowhere to put them."""
    scenario = {"available": ["crias1", "crias4"], "deck": ["onca1", "onca2", "onca3"], "oncas_in": [1, 2, 3]}
    with pytest.raises(ValueError, match="option 'oncas_in' .* a turn could come with only Capionças"):
        reset_with(**scenario)
    with pytest.raises(ValueError, match="option 'oncas_in' .* a turn could come with only Capionças"):
        reset_with(**dict(scenario, oncas_in=[1, 2]))
    env = reset_with(**dict(scenario, oncas_in=[1]))  # one more to play than free segments: safe
    play_to_the_end(env)


def test_a_deck_larger_than_the_deal_leaves_is_refused():
    deck = ["oxes1", "oxes2", "oxes4", "oxes5", "tches1", "tches2", "tches4", "tches5", "crias3", "crias5", "onca1"]
    reset_with(deck=deck)  # 11: as dealt
    with pytest.raises(ValueError, match="option 'deck' leaves 12 cards"):
        reset_with(deck=[*deck, "onca2"])


def test_tucked_capionças_are_real_cards_when_free():
    env = reset_with(oncas_in=[2])
    s = env.core_state
    assert s.onca_in.tolist() == [0, 1, 0]
    assert sorted(int(s.loc[c]) for c in range(15, 18)) == [LOC_TUCKED, LOC_DISCARD, LOC_DISCARD]


# -- corrupted states (deserialize with a recomputed checksum) ----------------------------------------


def _played(config=None, steps=5, seed=0):
    env = capivari_v0.raw_env(**(config or {}))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.core_state.done:
            break
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    return env


def _finished(config=None, seed=0):
    env = _played(config, steps=100_000, seed=seed)
    assert env.core_state.done
    return env


def _forged(env, edit):
    states = env._states.copy()
    edit(states[0])
    return with_record(env.serialize(), states.tobytes())


def _first(rec, where):
    return int(np.flatnonzero(rec["loc"] == where)[0])


LIVE_CORRUPTIONS = {
    "rounds_done == max_rounds in a live game": lambda r: r.__setitem__("rounds_done", r["max_rounds"]),
    "current out of turn": lambda r: r.__setitem__("current", 1 - int(r["current"])),
    "round_starter flipped": lambda r: r.__setitem__("round_starter", 1 - int(r["round_starter"])),
    "turn beyond the round": lambda r: r.__setitem__("turn", int(r["turn"]) + 14),
    "deck_pos moved back": lambda r: r.__setitem__("deck_pos", int(r["deck_pos"]) - 2),
    "deck_pos beyond deck_len": lambda r: r.__setitem__("deck_pos", int(r["deck_len"]) + 1),
    "deck card out of range": lambda r: r["deck"].__setitem__(int(r["deck_pos"]), 18),
    "deck card located elsewhere": lambda r: r["deck"].__setitem__(int(r["deck_pos"]), int(r["river_card"][0])),
    "loc 6": lambda r: r["loc"].__setitem__(0, 6),
    "avail out of step with loc": lambda r: r.__setitem__("avail", int(r["avail"]) ^ 1),
    "an available card discarded": lambda r: (
        r["loc"].__setitem__(_first(r, LOC_AVAILABLE), LOC_DISCARD),
        r.__setitem__("avail", sum(1 << c for c in range(18) if r["loc"][c] == LOC_AVAILABLE)),
    ),
    "one available card": lambda r: (
        r["loc"].__setitem__(np.flatnonzero(r["loc"] == LOC_AVAILABLE)[1:], LOC_DISCARD),
        r.__setitem__("avail", sum(1 << c for c in range(18) if r["loc"][c] == LOC_AVAILABLE)),
    ),
    "river card 18": lambda r: r["river_card"].__setitem__(0, 18),
    "river card twice": lambda r: r["river_card"].__setitem__(1, int(r["river_card"][0])),
    "seg_num 6": lambda r: r["seg_num"].__setitem__((0, 0), 6),
    "a capybara without its card": lambda r: r["seg_num"].__setitem__((2, 2), 3 if r["seg_num"][2, 2] != 3 else 4),
    "seg_side 2": lambda r: r["seg_side"].__setitem__((1, 1), 2),
    "onca_in 2": lambda r: r["onca_in"].__setitem__(0, 2),
    "a herd card tucked": lambda r: r["loc"].__setitem__(_first(r, LOC_DECK), LOC_TUCKED),
    "round wins decided while live": lambda r: r["round_wins"].__setitem__(0, int(r["wins_needed"])),
    "round wins -1": lambda r: r["round_wins"].__setitem__(1, -1),
    "round score written ahead": lambda r: r["round_scores"].__setitem__((int(r["rounds_done"]), 0), 5),
    "winner while live": lambda r: r.__setitem__("winner", 0),
    "reward while live": lambda r: r["rewards"].__setitem__(0, 1.0),
    "reward nan": lambda r: r["rewards"].__setitem__(0, np.nan),
    "rng 0": lambda r: r.__setitem__("rng", 0),
    "info_version ahead": lambda r: r.__setitem__("info_version", int(r["info_version"]) + 1),
    "info_version huge": lambda r: r.__setitem__("info_version", 2**31 - 1),
    "config changed": lambda r: r.__setitem__("subtract_points", 4),
    "done without an end": lambda r: (r.__setitem__("done", 1), r.__setitem__("current", -1)),
}

FINISHED_CORRUPTIONS = {
    "rounds_done beyond max_rounds": lambda r: r.__setitem__("rounds_done", int(r["max_rounds"]) + 1),
    "rounds_done 0": lambda r: r.__setitem__("rounds_done", 0),
    "winner -1": lambda r: r.__setitem__("winner", -1),
    "winner changed": lambda r: r.__setitem__("winner", 1 - int(r["winner"]) if r["winner"] < 2 else 0),
    "rewards swapped": lambda r: r["rewards"].__setitem__(slice(None), r["rewards"][::-1].copy() + 0.5),
    "live again": lambda r: (r.__setitem__("done", 0), r.__setitem__("current", 0)),
    "turn 300": lambda r: r.__setitem__("turn", 300),
    "seg_num 6": lambda r: r["seg_num"].__setitem__((0, 0), 6),
    "deck card 40 on top": lambda r: (r.__setitem__("deck_pos", int(r["deck_len"]) - 1), r["deck"].__setitem__(-1, 40)),
    "river card -1": lambda r: r["river_card"].__setitem__(2, -1),
    "round score 5000": lambda r: r["round_scores"].__setitem__((0, 0), 5000),
    "round wins -1": lambda r: r["round_wins"].__setitem__(1, -1),
}


@pytest.mark.parametrize("name", sorted(LIVE_CORRUPTIONS))
@pytest.mark.parametrize("config", [{}, {"max_rounds": 64, "wins_needed": 5}])
def test_corrupted_live_states_are_refused(name, config):
    env = _played(config, steps=5)
    assert not env.core_state.done
    with pytest.raises(ValueError, match=STATE_ERROR):
        capivari_v0.raw_env(**config).deserialize(_forged(env, LIVE_CORRUPTIONS[name]))


@pytest.mark.parametrize("name", sorted(FINISHED_CORRUPTIONS))
def test_corrupted_finished_states_are_refused(name):
    env = _finished()
    with pytest.raises(ValueError, match=STATE_ERROR):
        capivari_v0.raw_env().deserialize(_forged(env, FINISHED_CORRUPTIONS[name]))


def test_rounds_done_at_max_rounds_no_longer_overruns_the_score_history():
    """With max_rounds=64 a live state with rounds_done=64 is refused (its round end would write
    round_scores[64] over the fields after it); from 63 the last round ends the match."""
    config = {"max_rounds": 64, "wins_needed": 5}
    env = _played(config, steps=3)

    def at(rounds):
        def edit(r):
            r["rounds_done"] = rounds
            r["info_version"] = rounds

        return edit

    with pytest.raises(ValueError, match=r"a live match with rounds_done=64 \(0..63\)"):
        capivari_v0.raw_env(**config).deserialize(_forged(env, at(64)))
    last = capivari_v0.raw_env(**config)
    last.deserialize(_forged(env, at(63)))  # the last round: it ends the match
    play_to_the_end(last)
    s = last.core_state
    assert s.done and s.rounds_done == 64 and s.winner == 2  # nobody has 5 wins: a draw
    last.game.validate_state(last._rec)


def test_unforged_states_pass_in_every_phase():
    for config in ({}, {"max_rounds": 64, "wins_needed": 5}, {"max_rounds": 1}):
        for seed in range(4):
            for env in (_played(config, steps=0, seed=seed), _played(config, 17, seed), _finished(config, seed)):
                env.game.validate_state(env._rec)
                capivari_v0.raw_env(**config).deserialize(env.serialize())


def _outside_scores() -> np.ndarray:
    dtype = capivari_v0.raw_env().game.new_state().dtype
    sub, start = dtype.fields["round_scores"][:2]
    return np.setdiff1d(np.arange(dtype.itemsize), np.arange(start, start + sub.itemsize))


OUTSIDE_SCORES = _outside_scores()  # the score history is most of the record: flip the rest


def test_random_byte_flips_are_refused_or_play_to_the_end():
    rng = np.random.default_rng(11)
    accepted = refused = 0
    for trial in range(300):
        env = _played(steps=int(rng.integers(0, 40)), seed=trial % 5)
        raw = bytearray(env._states.tobytes())
        for _ in range(int(rng.integers(1, 3))):
            raw[int(rng.choice(OUTSIDE_SCORES))] = int(rng.integers(256))
        fresh = capivari_v0.raw_env()
        try:
            fresh.deserialize(with_record(env.serialize(), bytes(raw)))
        except ValueError:
            refused += 1
            continue
        accepted += 1
        play_to_the_end(fresh, rng_seed=trial)
        fresh.game.validate_state(fresh._rec)
    assert accepted > 10 and refused > 100
