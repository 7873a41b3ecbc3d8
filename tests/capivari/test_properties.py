"""Properties over 10,000 random Capivari games, checked after every turn against slow references."""

import numpy as np
import pytest

from envs import capivari_v0
from envs.capivari import core, observation
from envs.capivari.game import Capivari
from envs.capivari.rules import (
    EFFECTS,
    LOC_AVAILABLE,
    LOC_DECK,
    LOC_IN_RIVER,
    LOC_RIVER_CARD,
    LOC_TUCKED,
    NUM_ACTIONS,
    NUM_CARDS,
    ONCA_BASE,
    ONCA_EFFECTS,
    RIVER_SIDE,
    SELECTORS,
    CapivariConfig,
    card_from_name,
)

NUM_GAMES = 10_000


def reference_score(rec, side: int, subtract: int) -> int:
    """Round score recounted from the rules' words, independently of the core."""
    total = 0
    for seg in range(3):
        numbers = [int(n) for n in rec["seg_num"][seg] if n > 0]
        sel = SELECTORS[RIVER_SIDE[rec["river_card"][seg], 0]]
        eff = EFFECTS[RIVER_SIDE[rec["river_card"][seg], 1]]
        for herd, herd_name in enumerate(("crias", "oxes", "tches")):
            n = int(rec["seg_num"][seg, herd])
            if n == 0 or rec["seg_side"][seg, herd] != side:
                continue
            hit = {
                "all": True,
                "even": n % 2 == 0,
                "odd": n % 2 == 1,
                "highest": n == max(numbers),
                "lowest": n == min(numbers),
            }.get(sel, sel == herd_name)
            if hit:
                n = {"zero": 0, "double": 2 * n, "subtract": n - subtract}[eff]
            total += n
    return total


def check_cards_accounted_for(rec) -> None:
    """All 18 cards are in exactly one place, and the river holds at most one capybara per herd per segment."""
    loc = rec["loc"].tolist()
    assert sorted(c for c in range(NUM_CARDS) if loc[c] == LOC_RIVER_CARD) == sorted(rec["river_card"].tolist())
    in_river = sorted(
        h * 5 + int(rec["seg_num"][g, h]) - 1 for g in range(3) for h in range(3) if rec["seg_num"][g, h] > 0
    )
    assert in_river == sorted(c for c in range(NUM_CARDS) if loc[c] == LOC_IN_RIVER), "a capybara was lost or doubled"
    deck = rec["deck"][rec["deck_pos"] : rec["deck_len"]].tolist()
    assert sorted(deck) == sorted(c for c in range(NUM_CARDS) if loc[c] == LOC_DECK)
    assert sum(1 for c in range(NUM_CARDS) if loc[c] == LOC_TUCKED) == int(rec["onca_in"].sum())
    assert 1 <= sum(1 for c in range(NUM_CARDS) if loc[c] == LOC_AVAILABLE) <= 4 or rec["done"]


def expected_winner(round_scores: list[tuple[int, int]]) -> int:
    """Match winner from the round scores: 2 round wins, ties count for both, a shared win plays on."""
    wins = [0, 0]
    for a, b in round_scores:
        wins[0] += a >= b
        wins[1] += b >= a
        if max(wins) >= 2 and wins[0] != wins[1]:
            return 0 if wins[0] > wins[1] else 1
    return core.DRAW


def test_ten_thousand_random_games_keep_every_invariant():
    game = Capivari(CapivariConfig())
    rng = np.random.default_rng(2026)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    turns = 0
    for seed in range(NUM_GAMES):
        states = game.new_state()
        rec = states[0]
        core.reset(rec, np.uint64(seed))
        while not rec["done"]:
            n = core.legal_into(rec, mask)
            assert n > 0
            a = int(np.flatnonzero(mask)[rng.integers(n)])
            before = states.copy()
            rounds = int(rec["rounds_done"])
            assert core.step(rec, a) == 0
            turns += 1
            if rec["rounds_done"] != rounds:  # the round was scored: recount it on the final river
                final = before[0]
                if a < ONCA_BASE:
                    core.take_herd_card(final, a)
                else:
                    core.play_onca(final, (a - ONCA_BASE) // ONCA_EFFECTS, (a - ONCA_BASE) % ONCA_EFFECTS)
                check_cards_accounted_for(final)
                got = rec["round_scores"][rounds].tolist()
                assert got == [reference_score(final, p, 3) for p in (0, 1)]
            check_cards_accounted_for(rec)
        played = int(rec["rounds_done"])
        history = [tuple(r) for r in rec["round_scores"][:played].tolist()]
        assert int(rec["winner"]) == expected_winner(history)
        if rec["winner"] != core.DRAW:
            assert rec["rewards"][rec["winner"]] == 1.0 and rec["rewards"][1 - rec["winner"]] == -1.0
    assert turns > NUM_GAMES * 14


def reference_margin(rec, seat: int, a: int) -> float:
    """``move_margins`` for legal action ``a``, recounted: the river after the move alone (no refill, no round
    end) by ``reference_score``; a move that ends the match shows +-1 for its winner and loser."""
    after = rec.copy()
    if a < ONCA_BASE:
        core.take_herd_card(after, a)
    else:
        core.play_onca(after, (a - ONCA_BASE) // ONCA_EFFECTS, (a - ONCA_BASE) % ONCA_EFFECTS)
    played = rec.copy()
    core.step(played, a)
    if played["done"] and played["winner"] != core.DRAW:
        return 1.0 if played["winner"] == seat else -1.0
    margin = reference_score(after, seat, 3) - reference_score(after, 1 - seat, 3)
    return float(np.clip(margin / observation.MARGIN_SCALE, -1.0, 1.0))


def random_positions(game: Capivari, games: int, rng_seed: int):
    """Every decision of ``games`` random games, as (states holding the one record, the rng the moves come from)."""
    rng = np.random.default_rng(rng_seed)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in range(games):
        states = game.new_state()
        core.reset(states[0], np.uint64(seed))
        while not states[0]["done"]:
            yield states, rng
            n = core.legal_into(states[0], mask)
            core.step(states[0], int(np.flatnonzero(mask)[rng.integers(n)]))


def test_move_margins_show_each_legal_moves_river_margin_after_it():
    """With ``observe_margins`` the last 36 numbers are, for the seat to act, each legal move's margin (my river
    total minus theirs right after it, recounted independently); 0 for illegal moves and for the other seat."""
    game = Capivari(CapivariConfig(observe_margins=True))
    assert game.obs_size == core.OBS_SIZE + NUM_ACTIONS == Capivari(CapivariConfig()).obs_size + NUM_ACTIONS
    checked = ends = 0
    for states, _ in random_positions(game, 300, rng_seed=11):
        rec = states[0]
        seat = int(rec["current"])
        obs, legal = observation.observe(rec, seat)
        margins = obs[core.OBS_SIZE :]
        want = [reference_margin(rec, seat, a) if legal[a] else 0.0 for a in range(NUM_ACTIONS)]
        np.testing.assert_allclose(margins, want, atol=1e-6)
        ends += int(np.isin(margins[legal == 1], (-1.0, 1.0)).any())
        assert not observation.observe(rec, 1 - seat)[0][core.OBS_SIZE :].any()
        plain = states.copy()
        plain[0]["observe_margins"] = 0
        np.testing.assert_array_equal(obs[: core.OBS_SIZE], observation.observe(plain[0], seat)[0])
        checked += 1
    assert checked > 300 * 14 and ends > 100


def test_unseen_cards_are_the_deck_below_its_top_card():
    """With ``observe_unseen`` the last 18 numbers are, for both seats, the cards whose place is the deck, but its
    top card (recounted from each card's place, not from the deck's order); the pieces before are as without it."""
    game = Capivari(CapivariConfig(observe_margins=True, observe_unseen=True))
    assert game.obs_size == core.OBS_SIZE + NUM_ACTIONS + NUM_CARDS
    assert game.observation_layout().offset("unseen_cards") == core.OBS_SIZE + NUM_ACTIONS
    checked = 0
    for states, _ in random_positions(game, 300, rng_seed=5):
        rec = states[0]
        want = np.array([rec["loc"][c] == LOC_DECK for c in range(NUM_CARDS)], np.float32)
        if rec["deck_pos"] < rec["deck_len"]:
            want[rec["deck"][rec["deck_pos"]]] = 0.0
        plain = states.copy()
        plain[0]["observe_unseen"] = 0
        for seat in (0, 1):
            obs = observation.observe(rec, seat)[0]
            np.testing.assert_array_equal(obs[-NUM_CARDS:], want)
            np.testing.assert_array_equal(obs[:-NUM_CARDS], observation.observe(plain[0], seat)[0])
        assert want.sum() == max(0, int(rec["deck_len"]) - int(rec["deck_pos"]) - 1)
        checked += 1
    assert checked > 300 * 14


def test_unseen_cards_of_a_scenario_are_its_deck_but_the_top_card():
    """A scenario whose deck is oxes1 (top), tches4, onca2 shows tches4 and onca2 as unseen, to both seats."""
    env = capivari_v0.raw_env(observe_unseen=True)
    scenario = {"river": ["crias2", "oxes3", "tches3"], "available": ["crias1", "crias4"]}
    env.reset(seed=0, options={"scenario": scenario | {"deck": ["oxes1", "tches4", "onca2"]}})
    unseen = env.observe("player_0")["observation"][-NUM_CARDS:]
    assert sorted(np.flatnonzero(unseen).tolist()) == sorted(card_from_name(n) for n in ("tches4", "onca2"))
    np.testing.assert_array_equal(unseen, env.observe("player_1")["observation"][-NUM_CARDS:])


@pytest.mark.parametrize("options", [{}, {"observe_margins": True}, {"observe_unseen": True}])
def test_observations_ignore_what_the_observer_cannot_see(options):
    """Reordering the deck below its top card (the only hidden part) leaves both observations unchanged."""
    game = Capivari(CapivariConfig(**options))
    checked = 0
    for states, rng in random_positions(game, 1_000, rng_seed=7):
        rec = states[0]
        pos, end = int(rec["deck_pos"]), int(rec["deck_len"])
        if end - pos > 2:
            other = states.copy()
            rest = other[0]["deck"][pos + 1 : end].copy()
            rng.shuffle(rest)
            other[0]["deck"][pos + 1 : end] = rest
            other[0]["rng"] = rng.integers(1, 2**63)
            for seat in (0, 1):
                for x, y in zip(observation.observe(rec, seat), observation.observe(other[0], seat), strict=True):
                    np.testing.assert_array_equal(x, y)
            checked += 1
    assert checked > 10_000


def test_observation_shows_what_is_public():
    """Sanity of the ego-centric layout: my capybaras and theirs swap places between the two views."""
    game = Capivari(CapivariConfig())
    states = game.new_state()
    rec = states[0]
    core.reset(rec, np.uint64(3))
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rng = np.random.default_rng(0)
    for _ in range(6):
        n = core.legal_into(rec, mask)
        core.step(rec, int(np.flatnonzero(mask)[rng.integers(n)]))
    mine0 = observation.observe(rec, 0)[0][:90].reshape(9, 5, 2)
    mine1 = observation.observe(rec, 1)[0][:90].reshape(9, 5, 2)
    np.testing.assert_array_equal(mine0[..., 0], mine1[..., 1])
    assert mine0.sum() == (rec["seg_num"] > 0).sum()
