"""Capivari rules, sentence by sentence from the rules document, through scenarios and action names."""

import numpy as np
import pytest

from envs import capivari_v0
from envs.capivari.rules import (
    EFFECTS,
    HERDS,
    LOC_DISCARD,
    LOC_TUCKED,
    RIVER_SIDE,
    SELECTORS,
    card_from_name,
)

# zero oxes / zero tches / zero crias: segment 1 leaves crias and tches alone, segment 2 crias and oxes
QUIET_RIVER = ["crias2", "oxes3", "tches3"]
SPARE = ["onca1", "onca2", "onca3", "tches5", "oxes5", "crias5", "tches1", "oxes1", "crias1", "oxes4"]


def unused(scenario, k):
    taken = set(scenario.get("river", [])) | set(scenario.get("available", [])) | set(scenario.get("deck", []))
    taken |= {c[1] for c in scenario.get("capybaras", [])}
    return [c for c in SPARE if c not in taken][:k]


def table(seat_to_act=0, **scenario):
    """A strict env set up with a scenario (seeds/capivari.md, "Scenarios"); unnamed parts get spare cards."""
    scenario.setdefault("current", seat_to_act)
    scenario.setdefault("available", unused(scenario, 2))
    scenario.setdefault("river", unused(scenario, 3))
    scenario.setdefault("deck", unused(scenario, 2))
    env = capivari_v0.raw_env()
    env.reset(seed=0, options={"scenario": scenario})
    return env


def play(env, *names):
    for name in names:
        env.step(env.action_from_name(name))


def capybara(env, segment, herd):
    """(number, seat) of a herd's capybara in a segment (1-based), or None."""
    s = env.core_state
    h = HERDS.index(herd)
    n = int(s.seg_num[segment - 1, h])
    return None if n == 0 else (n, int(s.seg_side[segment - 1, h]))


def legal_names(env):
    return {env.action_name(a) for a in env.legal_actions()}


# -- entering the river and pushing --------------------------------------------------------


def test_herd_card_enters_segment_one_on_my_side():
    env = table(seat_to_act=1, available=["oxes3", "crias2"])
    play(env, "oxes3")
    assert capybara(env, 1, "oxes") == (3, 1)


def test_lower_number_is_pushed_to_the_next_segment_keeping_its_side():
    env = table(available=["tches4", "crias2"], capybaras=[[1, "tches2", 1]])
    play(env, "tches4")
    assert capybara(env, 1, "tches") == (4, 0)
    assert capybara(env, 2, "tches") == (2, 1)


def test_a_one_pushes_a_five():
    env = table(available=["oxes1", "crias2"], capybaras=[[1, "oxes5", 1]])
    play(env, "oxes1")
    assert capybara(env, 1, "oxes") == (1, 0)
    assert capybara(env, 2, "oxes") == (5, 1)


def test_a_five_entering_next_to_a_one_moves_on_itself():
    env = table(available=["crias5", "oxes2"], capybaras=[[1, "crias1", 1]])
    play(env, "crias5")
    assert capybara(env, 1, "crias") == (1, 1)
    assert capybara(env, 2, "crias") == (5, 0)


def test_a_one_is_pushed_by_any_other_card_of_its_herd():
    env = table(available=["tches2", "oxes2"], capybaras=[[1, "tches1", 1]])
    play(env, "tches2")
    assert capybara(env, 1, "tches") == (2, 0)
    assert capybara(env, 2, "tches") == (1, 1)


def test_pushes_chain_down_the_river_and_off_segment_three():
    env = table(
        available=["oxes4", "crias2"],
        capybaras=[[1, "oxes3", 1], [2, "oxes2", 0], [3, "oxes1", 1]],
    )
    play(env, "oxes4")
    assert capybara(env, 1, "oxes") == (4, 0)
    assert capybara(env, 2, "oxes") == (3, 1)
    assert capybara(env, 3, "oxes") == (2, 0)
    assert env.core_state.loc[card_from_name("oxes1")] == LOC_DISCARD


def test_other_herds_are_not_pushed():
    env = table(available=["crias3", "oxes2"], capybaras=[[1, "oxes1", 1], [1, "tches2", 1]])
    play(env, "crias3")
    assert capybara(env, 1, "oxes") == (1, 1)
    assert capybara(env, 1, "tches") == (2, 1)
    assert capybara(env, 1, "crias") == (3, 0)


# -- Capionças --------------------------------------------------------------------------------


def test_onca_push_starts_a_chain():
    env = table(
        available=["onca1", "crias2"],
        river=["crias1", "crias3", "crias4"],
        capybaras=[[1, "oxes2", 0], [2, "oxes1", 1]],
    )
    play(env, "onca s1 push oxes")
    assert capybara(env, 1, "oxes") is None
    assert capybara(env, 2, "oxes") == (2, 0)
    assert capybara(env, 3, "oxes") == (1, 1)
    assert env.core_state.onca_in.tolist() == [1, 0, 0]
    assert env.core_state.loc[card_from_name("onca1")] == LOC_TUCKED


def test_onca_push_off_segment_three_discards():
    env = table(available=["onca2", "crias2"], river=["crias1", "crias3", "crias4"], capybaras=[[3, "tches5", 1]])
    play(env, "onca s3 push tches")
    assert capybara(env, 3, "tches") is None
    assert env.core_state.loc[card_from_name("tches5")] == LOC_DISCARD


def test_onca_flips_one_capybara():
    env = table(
        available=["onca1", "crias2"],
        river=["crias1", "crias3", "crias4"],
        capybaras=[[2, "tches4", 1], [2, "oxes1", 0]],
    )
    play(env, "onca s2 flip tches")
    assert capybara(env, 2, "tches") == (4, 0)
    assert capybara(env, 2, "oxes") == (1, 0)


def test_onca_swaps_every_side_in_the_segment():
    env = table(
        available=["onca1", "crias2"],
        river=["crias1", "crias3", "crias4"],
        capybaras=[[2, "tches4", 1], [2, "oxes1", 0], [1, "crias5", 0]],
    )
    play(env, "onca s2 swap")
    assert capybara(env, 2, "tches") == (4, 0)
    assert capybara(env, 2, "oxes") == (1, 1)
    assert capybara(env, 1, "crias") == (5, 0)


def test_onca_targets_must_exist_and_one_onca_per_segment():
    env = table(
        available=["onca1", "crias2"], river=["crias1", "crias3", "crias4"], capybaras=[[1, "oxes2", 1]], oncas_in=[2]
    )
    names = legal_names(env)
    assert "onca s1 push oxes" in names and "onca s1 flip oxes" in names
    assert "onca s1 push crias" not in names and "onca s1 flip tches" not in names
    assert not any(n.startswith("onca s2") for n in names)
    # an empty segment still takes a Capionça, with no effect
    assert "onca s3 swap" in names and "onca s3 push oxes" not in names
    before = env.state().copy()
    play(env, "onca s3 swap")
    assert env.core_state.onca_in.tolist() == [0, 1, 1]
    assert capybara(env, 1, "oxes") == (2, 1)
    assert before.shape == env.state().shape


# -- modifiers -------------------------------------------------------------------------------


def card_with(selector, effect):
    for c, (sel, eff) in enumerate(RIVER_SIDE):
        if SELECTORS[sel] == selector and EFFECTS[eff] == effect:
            from envs.capivari.rules import CARD_NAMES

            return CARD_NAMES[c]
    raise AssertionError(f"no card carries {selector}/{effect}")


def scores(env):
    from envs.capivari.core import river_score

    s = env.core_state
    return river_score(s, 0), river_score(s, 1)


@pytest.mark.parametrize(
    "selector, effect, placed, expected",
    [
        ("all", "double", [["oxes3", 0], ["tches2", 1]], (6, 4)),
        ("all", "zero", [["oxes3", 0], ["tches2", 1]], (0, 0)),
        ("all", "subtract", [["oxes2", 0], ["tches5", 1]], (2 - 3, 5 - 3)),  # a card may go below zero
        ("even", "double", [["oxes3", 0], ["tches2", 1]], (3, 4)),
        ("even", "subtract", [["oxes4", 0], ["tches3", 1]], (1, 3)),
        ("odd", "double", [["oxes3", 0], ["tches4", 1]], (6, 4)),
        ("odd", "subtract", [["oxes3", 0], ["tches2", 0]], (0 + 2, 0)),
        ("crias", "double", [["crias4", 0], ["oxes4", 1]], (8, 4)),
        ("oxes", "zero", [["crias4", 0], ["oxes4", 1]], (4, 0)),
        ("tches", "double", [["tches2", 1], ["oxes4", 0]], (4, 4)),
        ("highest", "double", [["oxes4", 0], ["tches4", 1], ["crias2", 0]], (8 + 2, 8)),  # ties: all highest
        ("highest", "zero", [["oxes5", 0], ["tches1", 1]], (0, 1)),
        ("highest", "subtract", [["oxes5", 0], ["tches1", 1]], (2, 1)),
        ("lowest", "zero", [["oxes5", 0], ["tches1", 1]], (5, 0)),
        ("lowest", "double", [["oxes5", 0], ["tches1", 1], ["crias1", 0]], (5 + 2, 2)),
    ],
)
def test_each_modifier_kind(selector, effect, placed, expected):
    river_card = card_with(selector, effect)
    used = {name for name, _ in placed} | {river_card}
    others = [c for c in ("onca1", "onca2", "onca3", "crias1", "crias2") if c not in used][:2]
    caps = [[1, name, seat] for name, seat in placed]
    env = table(river=[river_card, *others], capybaras=caps)
    assert scores(env) == expected


def test_modifier_applies_only_in_its_own_segment():
    env = table(river=[card_with("all", "zero"), card_with("tches", "zero"), "onca2"], capybaras=[[2, "oxes4", 0]])
    assert scores(env) == (4, 0)


def test_subtract_points_is_a_knob():
    env = capivari_v0.raw_env(subtract_points=5)
    env.reset(
        seed=0,
        options={
            "scenario": {
                "river": [card_with("all", "subtract"), "onca1", "onca2"],
                "available": ["crias3", "oxes2"],
                "capybaras": [[1, "oxes4", 0]],
            }
        },
    )
    assert scores(env) == (-1, 0)


# -- refill, round end, winning ------------------------------------------------------------------


def test_refill_reveals_up_to_four_when_one_card_is_left():
    env = table(available=["crias1", "crias2"], deck=["oxes1", "oxes2", "oxes3", "oxes4", "oxes5"])
    play(env, "crias1")
    s = env.core_state
    assert {env.action_name(a) for a in env.legal_actions() if a < 15} == {"crias2", "oxes1", "oxes2", "oxes3"}
    assert s.deck_len - s.deck_pos == 2


def test_no_refill_while_two_cards_remain():
    env = table(available=["crias1", "crias2", "crias3"], deck=["oxes1", "oxes2"])
    play(env, "crias1")
    assert legal_names(env) & {"oxes1", "oxes2"} == set()
    assert env.core_state.deck_len - env.core_state.deck_pos == 2


def test_refill_stops_when_the_deck_runs_out():
    env = table(available=["crias1", "crias2"], deck=["oxes1"])
    play(env, "crias1")
    assert {n for n in legal_names(env) if not n.startswith("onca")} == {"crias2", "oxes1"}


def test_round_ends_with_one_card_left_and_an_empty_deck():
    env = table(seat_to_act=1, available=["crias4", "crias5"], deck=[], river=QUIET_RIVER)
    play(env, "crias4")  # player_1 takes a card; crias5 is left and the deck is empty
    info = env.details("player_0")
    assert info["round_scores"] == [[0, 4]]
    assert info["round_wins"] == [0, 1]
    s = env.core_state
    assert s.rounds_done == 1 and s.turn == 0
    assert env.agent_selection == "player_1", "who took the last card starts the next round"
    assert s.deck_len - s.deck_pos == 11 and s.seg_num.sum() == 0, "all 18 cards are reshuffled"


def test_a_tied_round_is_a_win_for_both():
    env = table(available=["crias4", "crias5"], deck=[], river=QUIET_RIVER, capybaras=[[2, "oxes4", 1]])
    play(env, "crias4")
    assert env.details("player_0")["round_wins"] == [1, 1]
    assert not any(env.terminations.values())


def test_two_round_wins_end_the_game():
    env = table(available=["crias4", "crias5"], deck=[], river=QUIET_RIVER, round_wins=[1, 0])
    play(env, "crias4")
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_reaching_two_wins_together_plays_on_until_an_untied_round():
    env = table(
        available=["crias4", "crias5"], deck=[], river=QUIET_RIVER, capybaras=[[2, "oxes4", 1]], round_wins=[1, 1]
    )
    play(env, "crias4")
    assert env.details("player_0")["round_wins"] == [2, 2]
    assert not any(env.terminations.values())


def test_after_a_shared_second_win_the_next_untied_round_decides():
    env = table(seat_to_act=1, available=["crias4", "crias5"], deck=[], river=QUIET_RIVER, round_wins=[2, 2])
    play(env, "crias4")
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_a_draw_after_max_rounds():
    env = capivari_v0.raw_env(max_rounds=1)
    env.reset(
        seed=0,
        options={"scenario": {"river": QUIET_RIVER, "available": ["crias4", "crias5"], "capybaras": [[2, "oxes4", 1]]}},
    )
    play(env, "crias4")
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


# -- scenarios are validated ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scenario, match",
    [
        ({"river": ["crias1", "crias2"]}, "'river' must be a list of 3..3"),
        ({"river": QUIET_RIVER, "available": ["crias9"]}, "unknown Capivari card"),
        ({"river": QUIET_RIVER, "available": ["crias2"]}, "appears twice"),
        ({"river": QUIET_RIVER, "available": []}, "'available' must be a list of 1..4"),
        ({"river": QUIET_RIVER, "available": ["crias1"], "capybaras": [[4, "oxes1", 0]]}, "segment must be 1..3"),
        (
            {"river": QUIET_RIVER, "available": ["crias1"], "capybaras": [[1, "oxes1", 0], [1, "oxes2", 1]]},
            "two capybaras of one herd",
        ),
        ({"river": QUIET_RIVER, "available": ["crias1"], "capybaras": [[1, "oxes1", 2]]}, "seat 0 or 1"),
        ({"river": QUIET_RIVER, "available": ["crias1"], "current": 5}, "'current' must be seat 0 or 1"),
        ({"river": QUIET_RIVER, "available": ["crias1"], "hand": []}, "unknown Capivari reset option"),
        (
            {"river": ["crias1", "crias2", "crias3"], "available": ["onca1"], "oncas_in": [1, 2, 3]},
            "without a legal action",
        ),
    ],
)
def test_bad_scenarios_are_rejected(scenario, match):
    env = capivari_v0.raw_env()
    with pytest.raises(ValueError, match=match):
        env.reset(seed=0, options={"scenario": scenario})


def test_scenario_position_is_what_the_player_sees():
    env = table(available=["crias1", "onca2"], capybaras=[[3, "tches2", 1]], river=QUIET_RIVER)
    assert legal_names(env) >= {"crias1", "onca s3 push tches"}
    assert np.count_nonzero(env.action_mask()) == len(legal_names(env))
