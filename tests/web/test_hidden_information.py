"""What the server sends for a seat carries nothing that seat cannot see: resampling everything hidden from it
(the game's determinization) leaves every byte sent to it the same, at every seat and many positions."""

import json

import numpy as np
import pytest

import envs
from tabuleiro.web.replays import ReplayView, parse_replay
from tabuleiro.web.tables import Table
from tabuleiro.web.views import legal_names, seat_of_turn

GAMES = [("kuhn_poker_v0", {}), ("capivari_v0", {}), ("horizonte_v0", {}), ("horizonte_v0", {"num_players": 5})]
GAMES += [
    ("dorfromantik_duel_v0", {}),
    ("dorfromantik_duel_v0", {"module_task_cards": True, "module_points_of_interest": True}),
]
STRIDE = {"kuhn_poker_v0": 1, "capivari_v0": 2, "horizonte_v0": 7, "dorfromantik_duel_v0": 9}  # plies between checks


def _sent(table: Table) -> str:
    return json.dumps(table.view(), sort_keys=True)


def _random_move(table: Table, rng: np.random.Generator) -> None:
    if seat_of_turn(table.env) == table.human:
        moves = legal_names(table.env, table.human)
        table.move(moves[int(rng.integers(len(moves)))], table.ply)
    else:
        table.advance(table.ply)


@pytest.mark.parametrize(("game", "config"), GAMES, ids=[f"{g}{c or ''}" for g, c in GAMES])
def test_a_seats_view_does_not_change_with_what_it_cannot_see(game, config):
    players = envs.make(game, **config).game.num_players
    checked = 0
    for seat in range(players):
        for seed in range(2 if STRIDE[game] < 3 else 1):
            table = Table(game, config, ["random" if p != seat else "human" for p in range(players)], seat, seed)
            rng = np.random.default_rng(seed)
            while seat_of_turn(table.env) is not None:
                if table.ply % STRIDE[game] == seat % STRIDE[game]:
                    sent = _sent(table)
                    real = table.env._states.copy()
                    for k in range(2):
                        twin = real.copy()
                        table.env.game.determinize_fn(twin[0], seat, np.uint64(1000 * seed + k))
                        table.env._states[:] = twin
                        assert _sent(table) == sent, f"player_{seat} at ply {table.ply} is sent something hidden"
                        checked += 1
                    table.env._states[:] = real
                _random_move(table, rng)
    assert checked > 4 * players


@pytest.mark.parametrize(("game", "config"), GAMES[:3] + GAMES[4:5], ids=[g for g, _ in GAMES[:3] + GAMES[4:5]])
def test_a_replay_seen_from_a_seat_shows_only_what_that_seat_saw(game, config):
    players = envs.make(game, **config).game.num_players
    table = Table(game, config, ["random"] * players, None, 11)
    while seat_of_turn(table.env) is not None:
        table.advance(table.ply)
    view = ReplayView(parse_replay(table.replay().to_json().encode()), "test")
    for index in range(0, len(view.states), 4):
        real = view.states[index]
        for seat in range(players):
            sent = json.dumps(view.view(index, seat), sort_keys=True)
            twin = real.copy()
            view.game.determinize_fn(twin[0], seat, np.uint64(index))
            view.states[index] = twin
            assert json.dumps(view.view(index, seat), sort_keys=True) == sent
            view.states[index] = real


def test_secret_moves_are_not_named_to_the_other_seats():
    # Horizonte's predictions are secret until everyone has chosen: the log names only your own
    table = Table("horizonte_v0", {"num_players": 3}, ["human", "random", "random"], 0, 5)
    while seat_of_turn(table.env) != 0:
        table.advance(table.ply)
    table.move(legal_names(table.env, 0)[0], table.ply)
    while seat_of_turn(table.env) != 0 and table.ply < 3:
        table.advance(table.ply)
    log = table.view()["log"][:3]
    assert sum(line.startswith("player_0 plays predict") for line in log) == 1
    assert sorted(log)[1:] == ["player_1 moves (hidden from you for now)", "player_2 moves (hidden from you for now)"]


def test_a_seat_is_sent_its_moves_only_on_its_turn():
    table = Table("capivari_v0", {}, ["random", "human"], 1, 2)
    view = table.view()
    assert not view["your_turn"] and view["moves"] == [] and "data-move" not in view["svg"]
    table.advance(0)
    view = table.view()
    assert view["your_turn"] and view["moves"] and "data-move" in view["svg"]
