"""Horizonte rules from the manual's examples and sentences, through scenarios and action names.

Seats are clockwise: in the 4-player examples North = player_0, East = player_1,
South = player_2, West = player_3.
"""

import numpy as np
import pytest

from envs import IllegalActionError, horizonte_v0
from envs.horizonte import core
from envs.horizonte.observation import layout
from envs.horizonte.rules import (
    CARD_NAMES,
    PHASE_PLAY,
    PHASE_PREDICT,
    TRICK_DOG,
    TRICK_DRAGON,
    card_from_name,
)

N, E, S, W = range(4)


def table(n=4, seed=0, config=None, **scenario):
    """A strict env set up with a scenario (seeds/horizonte.md, "Scenarios")."""
    env = horizonte_v0.raw_env(num_players=n, **(config or {}))
    env.reset(seed=seed, options={"scenario": scenario})
    return env


def seat(env) -> int:
    return env.possible_agents.index(env.agent_selection)


def play(env, *names):
    """Play cards (or predictions) by name, in turn order."""
    for name in names:
        env.step(env.action_from_name(name))


def plays(env, *moves):
    """Play (seat, card) pairs, checking that each seat is really the one to act."""
    for who, name in moves:
        assert seat(env) == who, f"expected player_{who} to play {name}, player_{seat(env)} is to act"
        play(env, name)


def legal(env) -> set[str]:
    return {env.action_name(a) for a in env.legal_actions()}


def trick(env, t) -> list[tuple[int, str]]:
    s = env.core_state
    return [(int(s.trick_seat[t, k]), CARD_NAMES[s.trick_card[t, k]]) for k in range(s.trick_count[t])]


def tricks_won(env) -> tuple[list[int], list[int]]:
    s = env.core_state
    n = env.game.num_players
    return s.dragon_tricks[:n].tolist(), s.dog_tricks[:n].tolist()


# -- the manual's worked example -----------------------------------------------------------------

EXAMPLE_HANDS = [
    ["O8", "C13", "C20", "D9"],  # North: no Mountain
    ["C14", "M6", "D5", "C16"],  # East: no Ocean
    ["M2", "O5", "D6", "M9"],  # South: holds the Dog initiative
    ["D2", "O4", "D10", "C18"],  # West: no Mountain
]


def worked_example(**extra):
    return table(hands=EXAMPLE_HANDS, dragon=N, dog=S, predictions=[0, 0, 0, 0], **extra)


def test_worked_example_plays_and_resolves_as_in_the_manual():
    env = worked_example()
    plays(env, (N, "O8"))  # North leads the Dragon trick
    assert env.core_state.active == TRICK_DRAGON
    assert legal(env) == {"C14", "M6", "D5", "C16"}  # East has no Ocean: anything
    plays(env, (E, "C14"))
    assert seat(env) == S and env.core_state.active == TRICK_DOG  # South interrupts with the Dog trick
    assert legal(env) == {"M2", "O5", "D6", "M9"}  # the Dog trick's leader plays anything
    plays(env, (S, "M2"))
    assert legal(env) == {"D2", "O4", "D10", "C18"}  # West has no Mountain
    plays(env, (W, "D2"))
    assert legal(env) == {"C13", "C20", "D9"}  # North has no Mountain
    plays(env, (N, "C13"))
    assert legal(env) == {"M6"}  # East must follow Mountain in the Dog trick
    plays(env, (E, "M6"))
    assert trick(env, TRICK_DOG) == [(S, "M2"), (W, "D2"), (N, "C13"), (E, "M6")]
    assert seat(env) == S and env.core_state.active == TRICK_DRAGON  # the Dragon trick resumes with South
    assert legal(env) == {"O5"}  # South must follow Ocean in the Dragon trick
    plays(env, (S, "O5"))
    assert legal(env) == {"O4"}
    plays(env, (W, "O4"))
    s = env.core_state
    assert (s.dragon, s.dog) == (E, W)  # East's C14 wins the Dragon trick; West's D2 ties South's M2, played later
    assert tricks_won(env) == ([0, 1, 0, 0], [0, 0, 0, 1])
    assert (CARD_NAMES[s.last_card[0]], CARD_NAMES[s.last_card[1]]) == ("C14", "D2")
    assert trick(env, TRICK_DRAGON) == [] and trick(env, TRICK_DOG) == []
    assert seat(env) == E and env.core_state.active == TRICK_DRAGON  # East leads the next Dragon trick


def test_a_star_card_played_but_not_winning_counts_nothing():
    env = worked_example()
    plays(env, (N, "O8"), (E, "C14"), (S, "M2"), (W, "D2"), (N, "C13"), (E, "M6"), (S, "O5"), (W, "O4"))
    assert sum(tricks_won(env)[0]) + sum(tricks_won(env)[1]) == 2  # North's C13 (a star) lost the Dog trick


# -- turn order ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, dragon, dog, order",
    [
        # Dragon trick up to the Dog holder; whole Dog trick from them; the Dragon trick resumes with them
        (4, 0, 2, [(0, "G"), (1, "G"), (2, "D"), (3, "D"), (0, "D"), (1, "D"), (2, "G"), (3, "G")]),
        (4, 0, 1, [(0, "G"), (1, "D"), (2, "D"), (3, "D"), (0, "D"), (1, "G"), (2, "G"), (3, "G")]),
        (4, 1, 0, [(1, "G"), (2, "G"), (3, "G"), (0, "D"), (1, "D"), (2, "D"), (3, "D"), (0, "G")]),
        (5, 3, 1, [(3, "G"), (4, "G"), (0, "G"), (1, "D"), (2, "D"), (3, "D"), (4, "D"), (0, "D"), (1, "G"), (2, "G")]),
        (3, 2, 1, [(2, "G"), (0, "G"), (1, "D"), (2, "D"), (0, "D"), (1, "G")]),
        (3, 1, 1, [(1, "M"), (2, "M"), (0, "M")]),  # merged: one trick from the holder of both
    ],
)
def test_interruption_order(n, dragon, dog, order):
    """G: plays into the Dragon trick, D: into the Dog trick, M: into the merged trick."""
    env = table(n=n, seed=5, dragon=dragon, dog=dog, predictions=[0] * n)
    seen = []
    for _ in order:
        s = env.core_state
        kind = "M" if s.dragon == s.dog else ("G" if s.active == TRICK_DRAGON else "D")
        seen.append((seat(env), kind))
        env.step(env.legal_actions()[0])
    assert seen == order
    assert env.core_state.resolutions == 1


def test_predictions_go_clockwise_from_the_dragon_holder_then_the_dragon_holder_leads():
    env = table(n=5, seed=1, dragon=3, dog=0)
    order = []
    for k in range(5):
        order.append(seat(env))
        play(env, f"predict {k}")
    assert order == [3, 4, 0, 1, 2]
    assert env.core_state.phase == PHASE_PLAY and seat(env) == 3
    assert env.core_state.prediction[:5].tolist() == [2, 3, 4, 0, 1]


# -- follow suit ---------------------------------------------------------------------------------


def test_follow_suit_in_each_trick_separately():
    hands = [["O3", "M4", "C15", "D8"], ["O6", "M7", "D3", "C18"], ["O9", "M2", "M10", "D5"], ["D2", "O2", "M5", "C22"]]
    env = table(hands=hands, dragon=0, dog=2, predictions=[0] * 4)
    assert legal(env) == set(hands[0])  # the leader plays anything
    plays(env, (0, "M4"))
    assert legal(env) == {"M7"}  # Dragon trick led Mountain
    plays(env, (1, "M7"))
    assert legal(env) == set(hands[2])  # the Dog trick is new: its leader plays anything
    plays(env, (2, "O9"))
    assert legal(env) == {"O2"}  # Dog trick led Ocean
    plays(env, (3, "O2"), (0, "O3"))
    assert legal(env) == {"O6"}
    plays(env, (1, "O6"))
    assert legal(env) == {"M2", "M10"}  # back in the Dragon trick: Mountain again
    plays(env, (2, "M10"))
    assert legal(env) == {"M5"}
    with pytest.raises(IllegalActionError, match="M5"):
        play(env, "C22")


def test_a_player_without_the_led_suit_may_play_anything_and_shows_a_void():
    hands = [["O3", "M4", "C15", "D8"], ["O6", "M7", "D3", "C18"], ["O9", "M2", "M10", "D5"], ["D2", "O2", "M5", "C22"]]
    env = table(hands=hands, dragon=0, dog=1, predictions=[0] * 4)
    plays(env, (0, "C15"))  # Dragon led Cloud
    plays(env, (1, "D3"), (2, "D5"), (3, "D2"), (0, "D8"))  # the Dog trick, led Desert
    assert legal(env) == {"C18"}
    plays(env, (1, "C18"))
    assert legal(env) == {"O9", "M2", "M10"}  # player_2 has no Cloud
    plays(env, (2, "M2"))
    assert env.core_state.void[:4].tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    voids = layout(4, 7, 3).offset("voids")
    obs = env.observe("player_1")["observation"]  # player_2 is the next seat after player_1
    assert obs[voids : voids + 16].tolist() == [0, 0, 0, 0, 0, 0, 0, 1] + [0] * 8


# -- resolution ------------------------------------------------------------------------------------


def test_dragon_without_cloud_goes_to_the_highest_of_the_led_suit_not_a_higher_offsuit_card():
    hands = [
        ["O5", "D12", "M3", "O9"],
        ["O4", "D11", "M4", "O10"],
        ["D10", "M12", "D4", "M8"],
        ["O2", "M11", "D9", "M9"],
    ]
    env = table(hands=hands, dragon=0, dog=3, predictions=[0] * 4)
    plays(env, (0, "O5"), (1, "O4"), (2, "D10"))  # Dragon: player_2 has no Ocean
    plays(env, (3, "O2"), (0, "O9"), (1, "O10"), (2, "M12"))  # Dog, led Ocean
    plays(env, (3, "M11"))  # Dragon resumes: player_3 has no Ocean left
    s = env.core_state
    assert (s.dragon, s.dog) == (0, 3)  # O5 beats O4; D10 and M11 are off-suit; O2 is the lowest
    assert tricks_won(env) == ([1, 0, 0, 0], [0, 0, 0, 1])


def test_dog_tie_goes_to_the_card_played_last():
    hands = [
        ["O6", "C20", "M8", "O11"],
        ["D6", "C21", "M9", "D11"],
        ["M6", "C22", "D9", "D10"],
        ["O7", "C23", "D8", "M10"],
    ]
    env = table(hands=hands, dragon=3, dog=0, predictions=[0] * 4)
    plays(env, (3, "C23"), (0, "O6"), (1, "D6"), (2, "M6"), (3, "O7"), (0, "C20"), (1, "C21"), (2, "C22"))
    s = env.core_state
    assert (s.dragon, s.dog) == (3, 2)  # three 6s in the Dog trick: player_2's M6 was played last


@pytest.mark.parametrize("star, other", [("C17", "C16"), ("C13", "M11")])
def test_a_dragon_trick_won_with_a_star_counts_twice(star, other):
    hands = [[star, "O8", "O9", "O10"], [other, "M8", "M9", "M10"], ["D5", "D8", "D9", "D10"], ["D4", "M4", "M5", "M6"]]
    env = table(hands=hands, dragon=0, dog=2, predictions=[0] * 4)
    plays(env, (0, star), (1, other), (2, "D5"), (3, "D4"), (0, "O8"), (1, "M8"), (2, "D8"), (3, "M4"))
    assert env.core_state.dragon == 0 and env.core_state.dog == 3
    assert tricks_won(env) == ([2, 0, 0, 0], [0, 0, 0, 1])


@pytest.mark.parametrize("star", ["O3", "D3", "M3", "O7", "D7", "M7"])
def test_a_dog_trick_won_with_a_star_counts_twice(star):
    hands = [
        ["C20", "O9", "O10", "O11"],
        ["C14", "D9", "D10", "D11"],
        [star, "M9", "M10", "M11"],
        ["C15", "C16", "C18", "C19"],
    ]
    if star[0] == "M":
        hands[2] = [star, "O12", "D12", "M11"][:1] + ["M9", "M10", "M11"]
    env = table(hands=hands, dragon=0, dog=2, predictions=[0] * 4)
    plays(env, (0, "C20"), (1, "C14"), (2, star), (3, "C15"), (0, "O9"), (1, "D9"), (2, "M9"), (3, "C16"))
    assert env.core_state.dog == 2
    assert tricks_won(env)[1] == [0, 0, 2, 0]


# -- merged mode ---------------------------------------------------------------------------------

MERGED_HANDS = [
    ["O3", "O9", "O10", "O11"],
    ["D5", "D8", "C20", "C22"],
    ["M7", "M8", "D9", "D10"],
    ["D4", "M9", "C21", "M10"],
]


def test_one_player_winning_both_tricks_plays_a_single_merged_trick_resolved_twice():
    env = table(hands=MERGED_HANDS, dragon=0, dog=0, predictions=[0] * 4)
    assert legal(env) == set(MERGED_HANDS[0])
    plays(env, (0, "O3"))
    assert env.core_state.active == TRICK_DRAGON and env.core_state.trick_count[TRICK_DOG] == 0
    assert legal(env) == {"D5", "D8", "C20", "C22"}  # follow the merged trick's led suit (none here)
    plays(env, (1, "D5"), (2, "M7"), (3, "D4"))
    s = env.core_state
    # Dragon rule: O3 is the only Ocean; Dog rule: O3 is the lowest. Both to player_0, each doubled (a star)
    assert (s.dragon, s.dog) == (0, 0)
    assert tricks_won(env) == ([2, 0, 0, 0], [2, 0, 0, 0])
    assert seat(env) == 0  # still merged: player_0 leads the next single trick
    plays(env, (0, "O9"), (1, "C20"), (2, "D9"), (3, "M9"))
    s = env.core_state
    # Dragon rule: C20 (a Cloud); Dog rule: three 9s, player_3's M9 played last
    assert (s.dragon, s.dog) == (1, 3)
    assert tricks_won(env) == ([2, 1, 0, 0], [2, 0, 0, 1])
    # the winners differ: separate tricks again, the Dragon from player_1 until player_3 interrupts
    plays(env, (1, "C22"), (2, "D10"))
    assert seat(env) == 3 and env.core_state.active == TRICK_DOG
    plays(env, (3, "M10"), (0, "O10"), (1, "D8"), (2, "M8"), (3, "C21"), (0, "O11"))
    assert env.core_state.rounds_done == 1  # hands were 4 cards: two merged tricks and one pair of tricks end it


# -- round end -----------------------------------------------------------------------------------


def test_round_ends_right_after_a_resolution_leaving_one_card_each():
    hands = [["O8", "C13", "D9"], ["C14", "M6", "D5"], ["M2", "O5", "D6"], ["D2", "O4", "D10"]]
    env = table(hands=hands, dragon=N, dog=S, predictions=[1, 1, 0, 1])
    plays(env, (N, "O8"), (E, "C14"), (S, "M2"), (W, "D2"), (N, "C13"), (E, "M6"), (S, "O5"), (W, "O4"))
    s = env.core_state
    assert s.rounds_done == 1 and s.phase == PHASE_PREDICT  # round 2 is dealt: the last cards were never played
    assert s.hand_count[:4].tolist() == [12] * 4
    info = env.details("player_1")["rounds"][0]
    assert info == {"prediction": 1, "dragon_tricks": 1, "dog_tricks": 0, "pairs": 0, "rest": 1, "points": 0}


def test_round_goes_on_while_a_player_holds_two_cards():
    env = worked_example()
    plays(env, (N, "O8"), (E, "C14"), (S, "M2"), (W, "D2"), (N, "C13"), (E, "M6"), (S, "O5"), (W, "O4"))
    assert env.core_state.rounds_done == 0 and env.core_state.hand_count[:4].tolist() == [2] * 4


def test_round_ends_after_a_merged_trick_leaving_one_card_each():
    hands = [["O3", "O9"], ["D5", "C20"], ["M7", "D9"], ["D4", "M9"]]
    env = table(hands=hands, dragon=0, dog=0, predictions=[0] * 4)
    plays(env, (0, "O3"), (1, "D5"), (2, "M7"), (3, "D4"))
    assert env.core_state.rounds_done == 1


# -- scoring ---------------------------------------------------------------------------------------


def test_the_manuals_two_scoring_examples():
    assert core.round_points(4, 1, 3, 5) == 1  # prediction 3, 4 Dragon and 1 Dog: one pair, 3 left = 3
    assert core.round_points(2, 2, 2, 5) == 12  # prediction 2, 2 and 2: two pairs, 0 left, 2 off
    assert core.round_points(2, 2, 2, 3) == 8  # Neblina: 3 points a unit


EXAMPLE_1_HANDS = [
    ["C17", "O2", "C13", "O12"],
    ["D8", "M5", "O4", "M11"],
    ["D9", "M6", "O1", "M4"],
    ["D10", "M8", "O5", "M10"],
]


@pytest.mark.parametrize("reward", ["points", "rank"])
def test_scoring_example_1_played_out(reward):
    """player_0 predicts 3 and wins 4 Dragon tricks (C17 and C13, stars) and 1 Dog trick: 1 point."""
    env = table(hands=EXAMPLE_1_HANDS, dragon=0, dog=1, predictions=[3, 0, 1, 0], config={"reward": reward})
    plays(env, (0, "C17"), (1, "D8"), (2, "D9"), (3, "D10"), (0, "O2"), (1, "M5"), (2, "M6"), (3, "M8"))
    assert (env.core_state.dragon, env.core_state.dog) == (0, 0)  # merged next
    assert tricks_won(env) == ([2, 0, 0, 0], [1, 0, 0, 0])
    plays(env, (0, "C13"), (1, "O4"), (2, "O1"), (3, "O5"))
    rounds = [env.details(f"player_{p}")["rounds"][0] for p in range(4)]
    assert [(r["dragon_tricks"], r["dog_tricks"]) for r in rounds] == [(4, 1), (0, 0), (0, 1), (0, 0)]
    assert [r["points"] for r in rounds] == [1, 0, 0, 0]
    assert env.core_state.score[:4].tolist() == [1, 0, 0, 0]
    expected = [-1.0, 0.0, 0.0, 0.0] if reward == "points" else [0.0] * 4
    assert [env.rewards[f"player_{p}"] for p in range(4)] == expected


EXAMPLE_2_HANDS = [["O3", "O6", "O9"], ["D5", "C20", "D11"], ["M7", "M8", "M9"], ["D4", "D2", "D10"]]


@pytest.mark.parametrize("neblina, points", [(False, 12), (True, 8)])
def test_scoring_example_2_played_out(neblina, points):
    """player_0 predicts 2 and wins 2 Dragon and 2 Dog tricks (one merged trick with the star O3)."""
    env = table(hands=EXAMPLE_2_HANDS, dragon=0, dog=0, predictions=[2, 1, 0, 1], config={"neblina": neblina})
    plays(env, (0, "O3"), (1, "D5"), (2, "M7"), (3, "D4"))
    plays(env, (0, "O6"), (1, "C20"), (2, "M8"), (3, "D2"))
    info = env.details("player_0")["rounds"][0]
    assert info == {"prediction": 2, "dragon_tricks": 2, "dog_tricks": 2, "pairs": 2, "rest": 0, "points": points}


# -- removal lists, initiative, rounds, game end ------------------------------------------------------


@pytest.mark.parametrize(
    "n, removed, hand",
    [
        (5, [], 10),
        (4, ["O0", "C25"], 12),
        (3, ["O0", "C25", "O1", "O12", "D1", "D12", "M1", "M12"], 14),
    ],
)
def test_removal_lists_and_hand_sizes(n, removed, hand):
    env = horizonte_v0.raw_env(num_players=n)
    for seed in range(3):
        env.reset(seed=seed)
        s = env.core_state
        dealt = s.hand[:n].sum(axis=0)
        assert sorted(CARD_NAMES[c] for c in np.flatnonzero(dealt == 0)) == sorted(removed)
        assert dealt.max() == 1 and s.hand_count[:n].tolist() == [hand] * n


def test_removal_knob_takes_another_list():
    env = horizonte_v0.raw_env(num_players=4, removed=["C25", "C24", "O0", "O1", "O2", "O3"])
    env.reset(seed=0)
    s = env.core_state
    assert s.hand_count[:4].tolist() == [11] * 4
    assert all(s.hand[:4, card_from_name(c)].sum() == 0 for c in ("C24", "O3"))
    with pytest.raises(ValueError, match="not in the deck"):
        env.reset(seed=0, options={"scenario": {"hands": [["O3", "O4"], ["O5", "O6"], ["O7", "O8"], ["O9", "O10"]]}})


def test_initiative_draw_gives_the_two_cards_to_different_seats_fairly():
    env = horizonte_v0.raw_env(num_players=4)
    dragons = np.zeros(4, int)
    dogs = np.zeros(4, int)
    for seed in range(800):
        env.reset(seed=seed)
        s = env.core_state
        assert s.dragon != s.dog
        dragons[s.dragon] += 1
        dogs[s.dog] += 1
        assert seat(env) == s.dragon  # the Dragon holder predicts first and leads
    assert dragons.min() > 140 and dogs.min() > 140


def test_initiative_is_carried_into_the_next_round_and_the_dragon_holder_leads():
    hands = [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4"]]
    env = table(hands=hands, dragon=N, dog=S, predictions=[0, 0, 0, 0])
    plays(env, (N, "O8"), (E, "C14"), (S, "M2"), (W, "D2"), (N, "C13"), (E, "M6"), (S, "O5"), (W, "O4"))
    s = env.core_state
    assert s.rounds_done == 1 and (s.dragon, s.dog) == (E, W)
    order = []
    for _ in range(4):
        order.append(seat(env))
        play(env, "predict 1")
    assert order == [E, S, W, N]
    assert seat(env) == E and s.active == TRICK_DRAGON
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert seat(env) == W and env.core_state.active == TRICK_DOG  # West interrupts with the Dog trick


def test_holding_both_initiatives_at_a_round_end_starts_the_next_round_merged():
    hands = [["O12", "O1"], ["O4", "M9"], ["D8", "M10"], ["D9", "M11"]]
    env = table(hands=hands, dragon=1, dog=2, predictions=[0] * 4)
    plays(env, (1, "O4"), (2, "D8"), (3, "D9"), (0, "O1"), (1, "M9"), (2, "M10"), (3, "M11"), (0, "O12"))
    s = env.core_state
    assert s.rounds_done == 1 and (s.dragon, s.dog) == (0, 0)  # O12 takes the Dragon trick, O1 the Dog trick
    for _ in range(4):
        play(env, "predict 0")
    merged = layout(4, 7, 3).offset("merged")
    assert env.observe("player_2")["observation"][merged] == 1.0
    assert seat(env) == 0
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert seat(env) == 2 and env.core_state.trick_count.tolist() == [2, 0]  # one trick, straight on clockwise


def test_final_round_ends_the_game_and_rank_rewards_share_the_win():
    hands = [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4"]]
    env = table(hands=hands, dragon=N, dog=S, predictions=[0, 1, 0, 0], round=3, scores=[10, 10, 20, 30])
    plays(env, (N, "O8"), (E, "C14"), (S, "M2"), (W, "D2"), (N, "C13"), (E, "M6"), (S, "O5"), (W, "O4"))
    s = env.core_state
    assert s.done and s.score[:4].tolist() == [10, 10, 20, 35]  # West predicted 0 but won a Dog trick: 5 points
    assert all(env.terminations.values())
    assert [env.rewards[f"player_{p}"] for p in range(4)] == [0.5, 0.5, -0.5, -0.5]
    assert env.infos["player_0"]["winner"] and env.infos["player_1"]["winner"]
    assert not env.infos["player_3"]["winner"]
    assert "game over: player_0 and player_1 win with 10" in env.game.render_ansi(s, None)


def test_everyone_tied_gets_zero():
    hands = [["O8", "C13"], ["C14", "M6"], ["M2", "O5"], ["D2", "O4"]]
    env = table(hands=hands, dragon=N, dog=S, predictions=[0, 1, 0, 1], round=3, scores=[4, 4, 4, 4])
    plays(env, (N, "O8"), (E, "C14"), (S, "M2"), (W, "D2"), (N, "C13"), (E, "M6"), (S, "O5"), (W, "O4"))
    assert env.core_state.done
    assert [env.rewards[f"player_{p}"] for p in range(4)] == [0.0] * 4


def test_initiative_ties_are_redrawn_even_when_the_deck_runs_out():
    """A deck of three 5s and three 6s: nearly every draw ties, and redraws exhaust and reshuffle the deck."""
    keep = {"O5", "D5", "M5", "O6", "D6", "M6"}
    env = horizonte_v0.raw_env(num_players=3, removed=[c for c in CARD_NAMES if c not in keep])
    holders = set()
    for seed in range(300):
        env.reset(seed=seed)
        s = env.core_state
        assert s.dragon != s.dog
        holders.add((int(s.dragon), int(s.dog)))
        assert s.hand_count[:3].tolist() == [2, 2, 2]
    assert len(holders) == 6  # every ordered pair of seats happens
