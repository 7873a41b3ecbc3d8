"""Kuhn poker's rules as a player would recognise them (seeds/kuhn_poker.md), through scenarios and names."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from envs import kuhn_poker_v0
from envs.kuhn_poker.rules import CARD_NAMES

LAYOUT = kuhn_poker_v0.raw_env().game.observation_layout()  # the layout the game declares (core.LAYOUT)
DEALS = list(itertools.permutations(CARD_NAMES, 2))  # (seat 0's card, seat 1's card): 6 deals


def table(cards, history=(), render_mode=None, **config):
    """A strict env dealt ``cards`` (seat 0's, seat 1's) with ``history`` already played."""
    env = kuhn_poker_v0.raw_env(render_mode=render_mode, **config)
    env.reset(seed=0, options={"scenario": {"cards": list(cards), "history": list(history)}})
    return env


def play(env, *names):
    for name in names:
        env.step(env.action_from_name(name))


def payoff(env):
    """Each seat's chips won at the end of the hand (the rewards of the last move)."""
    assert all(env.terminations.values()), "the hand is not over"
    return [env.rewards["player_0"], env.rewards["player_1"]]


# -- actions and turns ----------------------------------------------------------------------------


def test_two_actions_named_as_in_openspiel():
    env = kuhn_poker_v0.raw_env()
    assert env.action_space("player_0").n == 2
    assert [env.action_name(0), env.action_name(1)] == ["pass", "bet"]
    assert env.action_from_name("pass") == 0 and env.action_from_name("bet") == 1


def test_player_0_acts_first_and_turns_alternate():
    env = table(["J", "Q"])
    assert env.agent_selection == "player_0"
    assert env.legal_actions() == [0, 1]
    play(env, "pass")
    assert env.agent_selection == "player_1"
    play(env, "bet")
    assert env.agent_selection == "player_0"


# -- the five ways a hand ends ----------------------------------------------------------------------


@pytest.mark.parametrize("cards", DEALS)
def test_pass_pass_is_a_showdown_for_the_antes(cards):
    env = table(cards)
    play(env, "pass", "pass")
    high = 0 if CARD_NAMES.index(cards[0]) > CARD_NAMES.index(cards[1]) else 1
    assert payoff(env) == ([1.0, -1.0] if high == 0 else [-1.0, 1.0])


@pytest.mark.parametrize("cards", DEALS)
def test_bet_pass_the_bettor_takes_the_antes_whatever_the_cards(cards):
    env = table(cards)
    play(env, "bet", "pass")
    assert payoff(env) == [1.0, -1.0]


@pytest.mark.parametrize("cards", DEALS)
def test_bet_bet_is_a_showdown_for_two(cards):
    env = table(cards)
    play(env, "bet", "bet")
    high = 0 if CARD_NAMES.index(cards[0]) > CARD_NAMES.index(cards[1]) else 1
    assert payoff(env) == ([2.0, -2.0] if high == 0 else [-2.0, 2.0])


@pytest.mark.parametrize("cards", DEALS)
def test_pass_bet_pass_player_1_takes_the_antes(cards):
    env = table(cards)
    play(env, "pass", "bet", "pass")
    assert payoff(env) == [-1.0, 1.0]


@pytest.mark.parametrize("cards", DEALS)
def test_pass_bet_bet_is_a_showdown_for_two(cards):
    env = table(cards)
    play(env, "pass", "bet", "bet")
    high = 0 if CARD_NAMES.index(cards[0]) > CARD_NAMES.index(cards[1]) else 1
    assert payoff(env) == ([2.0, -2.0] if high == 0 else [-2.0, 2.0])


def test_a_scenario_history_is_played_before_the_hand_goes_on():
    env = table(["K", "J"], history=["pass"])
    assert env.agent_selection == "player_1"
    play(env, "bet")
    assert env.agent_selection == "player_0"
    play(env, "bet")
    assert payoff(env) == [2.0, -2.0]


def test_nothing_is_paid_before_the_end():
    env = table(["K", "J"])
    for name in ("pass", "bet"):
        play(env, name)
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    play(env, "bet")
    assert payoff(env) == [2.0, -2.0]
    assert env.infos["player_0"]["chips"] == 2.0 and env.infos["player_1"]["winner"] == 0


def test_first_player_knob_seats_the_first_mover():
    env = table(["K", "J"], first_player=1)
    assert env.agent_selection == "player_1"
    play(env, "pass", "bet", "pass")  # player_1 checks, player_0 bets, player_1 folds
    assert payoff(env) == [1.0, -1.0]
    env = table(["K", "J"], first_player=1)
    play(env, "bet", "pass")  # player_1 bets, player_0 folds
    assert payoff(env) == [-1.0, 1.0]


# -- the observation and what stays hidden ----------------------------------------------------------


def test_observation_layout_my_card_history_turn_pot():
    env = table(["Q", "K"], history=["pass", "bet"])
    obs = LAYOUT.split(env.observe("player_0")["observation"])
    assert obs["my_card"].tolist() == [0, 1, 0]
    assert obs["history"].tolist() == [[1, 0], [0, 1], [0, 0]]
    assert obs["turn"].tolist() == [1, 0]  # my turn
    assert obs["pot"].tolist() == [0.5, 1.0]  # me 1 chip, the opponent 2 (of at most 2)
    theirs = LAYOUT.split(env.observe("player_1")["observation"])
    assert theirs["my_card"].tolist() == [0, 0, 1]
    assert theirs["turn"].tolist() == [0, 1] and theirs["pot"].tolist() == [1.0, 0.5]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]


@pytest.mark.parametrize("history", [(), ("pass",), ("bet",), ("pass", "bet")])
def test_the_opponents_card_never_reaches_my_observation(history):
    for mine in CARD_NAMES:
        for seat in (0, 1):
            seen = set()
            for theirs in CARD_NAMES:
                if theirs == mine:
                    continue
                cards = [mine, theirs] if seat == 0 else [theirs, mine]
                env = table(cards, history, render_mode="ansi")
                env.render_seat = seat
                seen.add((env.observe(f"player_{seat}")["observation"].tobytes(), env.render()))
            assert len(seen) == 1


def test_render_hides_the_other_card_until_a_showdown():
    env = table(["K", "J"], render_mode="ansi")
    env.render_seat = 0
    assert "you K" in env.render() and "player_1 ?" in env.render()
    env.render_seat = 1
    assert "player_0 ?" in env.render() and "you J" in env.render()
    play(env, "bet", "pass")  # a fold: nobody shows
    assert "player_0 ?" in env.render() and "you fold" in env.render()
    assert "cards" not in env.details("player_1")
    env = table(["K", "J"], render_mode="ansi")
    env.render_seat = 1
    play(env, "bet", "bet")
    assert "player_0 K" in env.render() and "player_0 wins 2" in env.render()
    assert env.details("player_1")["cards"] == ["K", "J"]


# -- random play -----------------------------------------------------------------------------------


def test_thousands_of_random_hands_are_zero_sum_and_the_higher_card_wins_a_showdown():
    env = kuhn_poker_v0.raw_env()
    rng = np.random.default_rng(0)
    deals = set()
    for seed in range(3000):
        env.reset(seed=seed)
        s = env.core_state
        cards = s.cards.tolist()
        deals.add(tuple(cards))
        names = []
        while env.agents and not all(env.terminations.values()):
            a = int(rng.integers(2))
            names.append(env.action_name(a))
            env.step(a)
        p0, p1 = payoff(env)
        assert p0 + p1 == 0 and abs(p0) in (1.0, 2.0)
        seq = "".join(n[0] for n in names)
        assert seq in ("pp", "bp", "bb", "pbp", "pbb")
        if seq in ("bp", "pbp"):  # a fold: the bettor takes the antes
            assert abs(p0) == 1.0 and (p0 > 0) == (seq == "bp")
        else:  # a showdown: the higher card wins what the loser put in
            assert (p0 > 0) == (cards[0] > cards[1])
            assert abs(p0) == (1.0 if seq == "pp" else 2.0)
    assert deals == {(a, b) for a in range(3) for b in range(3) if a != b}


# -- known values -------------------------------------------------------------------------------


def nash_policy(alpha):
    """Kuhn's equilibrium family (alpha in [0, 1/3]): P(bet) by seat, card and betting so far."""
    third = Fraction(1, 3)
    return {
        (0, "J", ""): alpha, (0, "Q", ""): 0, (0, "K", ""): 3 * alpha,
        (0, "J", "pb"): 0, (0, "Q", "pb"): alpha + third, (0, "K", "pb"): 1,
        (1, "J", "p"): third, (1, "Q", "p"): 0, (1, "K", "p"): 1,
        (1, "J", "b"): 0, (1, "Q", "b"): third, (1, "K", "b"): 1,
    }  # fmt: skip


def expected_value(policy, cards, history=()):
    """Player 0's exact expected chips from a live position, walking our engine's game tree."""
    env = table(cards, history)
    seat = env.possible_agents.index(env.agent_selection)
    seq = "".join(n[0] for n in history)
    p_bet = Fraction(policy[(seat, cards[seat], seq)])
    value = Fraction(0)
    for name, p in (("pass", 1 - p_bet), ("bet", p_bet)):
        if p:
            value += p * _value_after(policy, cards, [*history, name])
    return value


def _value_after(policy, cards, history):
    seq = "".join(n[0] for n in history)
    if seq in ("pp", "bp", "bb", "pbp", "pbb"):  # scenarios stop short of the end: play the last move
        env = table(cards, history[:-1])
        play(env, history[-1])
        return Fraction(env.rewards["player_0"])
    return expected_value(policy, cards, history)


@pytest.mark.parametrize("alpha", [Fraction(0), Fraction(1, 6), Fraction(1, 3)])
def test_the_game_value_under_equilibrium_play_is_minus_one_eighteenth(alpha):
    policy = nash_policy(alpha)
    value = sum(expected_value(policy, cards) for cards in DEALS) / len(DEALS)
    assert value == Fraction(-1, 18)


def test_every_deal_and_betting_sequence_pays_as_openspiel_kuhn_poker():
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("kuhn_poker")
    for cards in DEALS:
        for seq in ("pp", "bp", "bb", "pbp", "pbb"):
            state = game.new_initial_state()
            for c in cards:
                state.apply_action(CARD_NAMES.index(c))  # OpenSpiel deals card ids 0, 1, 2 = J, Q, K
            env = table(cards)
            for move in seq:
                assert env.possible_agents.index(env.agent_selection) == state.current_player()
                assert env.legal_actions() == state.legal_actions()
                a = "pb".index(move)
                state.apply_action(a)
                env.step(a)
            assert state.is_terminal()
            assert payoff(env) == state.returns(), (cards, seq)
