"""Hidden information: secret predictions in sequential AEC turns, hands, determinization, render views."""

import numpy as np
import pytest

from envs import horizonte_v0
from envs.horizonte.observation import layout
from envs.horizonte.rules import CLOUD, PREDICT_BASE, card_from_name
from envs.horizonte.text import card_label


@pytest.mark.parametrize("n", [3, 4, 5])
def test_a_later_player_never_sees_an_earlier_prediction_before_the_reveal(n):
    seen = []
    for first_choice in (0, 7):
        env = horizonte_v0.raw_env(num_players=n)
        env.reset(seed=11)
        first = env.agent_selection
        env.step(PREDICT_BASE + first_choice)
        views = []
        while env.core_state.predicted < n:
            agent = env.agent_selection
            views.append({a: env.observe(a)["observation"].copy() for a in env.possible_agents if a != first})
            env.step(PREDICT_BASE + 3)
        seen.append((views, env.observe(env.possible_agents[1])["observation"].copy()))
    (views_0, revealed_0), (views_7, revealed_7) = seen
    for before_0, before_7 in zip(views_0, views_7, strict=True):
        for agent in before_0:
            np.testing.assert_array_equal(before_0[agent], before_7[agent])
    assert not np.array_equal(revealed_0, revealed_7)  # once everyone has chosen, all predictions show


def test_my_own_prediction_is_in_my_observation_before_the_reveal():
    env = horizonte_v0.raw_env(num_players=4)
    env.reset(seed=2)
    me = env.agent_selection
    env.step(PREDICT_BASE + 5)
    start = layout(4, 7, 3).offset("predictions")
    mine = env.observe(me)["observation"][start : start + 8]
    assert mine.tolist() == [0, 0, 0, 0, 0, 1, 0, 0]
    other = env.observe(env.agent_selection)["observation"]
    assert other[start : start + 4 * 8].sum() == 0


def _rows(text: str) -> dict[str, list[str]]:
    """Scoreboard rows by seat name: [seat, cards, prediction, dragon, dog, score, ...]."""
    rows = [line.split() for line in text.splitlines() if line.startswith("player_")]
    return {row[0]: row for row in rows if row[1].isdigit()}


def test_render_hides_other_hands_and_unrevealed_predictions():
    env = horizonte_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=3)
    first = env.possible_agents.index(env.agent_selection)
    env.step(PREDICT_BASE + 6)
    second = env.possible_agents.index(env.agent_selection)
    s = env.core_state
    env.render_seat = second
    text = env.render()
    mine = " ".join(card_label(int(c)) for c in np.flatnonzero(s.hand[second]))
    assert [line for line in text.splitlines() if "hand" in line and "star card" not in line] == [
        f"your hand      {mine}"
    ]
    assert _rows(text)[f"player_{first}"][2] == "?"  # chosen, not yet revealed
    assert _rows(text)[f"player_{second}"][2] == "-"  # not chosen yet
    env.render_seat = first
    assert _rows(env.render())[f"player_{first}"][2] == "6"  # my own prediction is no secret to me
    env.render_seat = None
    spectator = env.render()
    assert _rows(spectator)[f"player_{first}"][2] == "6"
    for p in range(3):
        cards = " ".join(card_label(int(c)) for c in np.flatnonzero(s.hand[p]))
        assert f"player_{p} hand" in spectator and cards in spectator


def test_determinize_respects_known_voids_and_keeps_my_view():
    hands = [
        ["O3", "M4", "C15", "C16"],
        ["O6", "M7", "D3", "C18"],
        ["O9", "M2", "M10", "D5"],
        ["D2", "O2", "M5", "C22"],
    ]
    env = horizonte_v0.raw_env(num_players=4)
    env.reset(seed=0, options={"scenario": {"hands": hands, "dragon": 0, "dog": 1, "predictions": [0] * 4}})
    for name in ("C15", "D3", "D5", "D2", "O3", "C18", "M2"):  # player_2 shows it has no Cloud
        env.step(env.action_from_name(name))
    assert env.core_state.void[2, CLOUD] == 1
    me = 3
    before = env.observe(f"player_{me}")["observation"]
    owners = set()
    for seed in range(200):
        probe = env.clone()
        rec = probe.core_state
        env.game.determinize_fn(probe._rec, me, np.uint64(seed))
        env.game.validate_state(probe._rec)
        np.testing.assert_array_equal(probe.observe(f"player_{me}")["observation"], before)
        assert rec.hand[me].tolist() == env.core_state.hand[me].tolist()
        owners.add(int(np.flatnonzero(rec.hand[:4, card_from_name("C16")])[0]))
    assert owners == {0, 1}  # the hidden Cloud goes to either hand that may hold one, never to player_2
