"""Pictures (render_mode="rgb_array"): PettingZoo's render_test, and a seat's picture shows nothing it may not see."""

import numpy as np
import pytest
from pettingzoo.test import render_test

import envs

GAMES = [("capivari_v0", {}), ("horizonte_v0", {"num_players": 5}), ("dorfromantik_duel_v0", {})]


@pytest.mark.parametrize("game, config", GAMES, ids=[g for g, _ in GAMES])
def test_render_test_with_rgb_array(game, config):
    module = envs.game_module(game)
    assert "rgb_array" in module.env(**config).metadata["render_modes"]
    render_test(lambda render_mode=None: module.env(render_mode=render_mode, **config))


def _midgame(game: str, config: dict, moves: int, seed: int = 2):
    env = envs.make(game, render_mode="rgb_array", **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        env.step(int(rng.choice(env.legal_actions())))
    return env


@pytest.mark.parametrize("game, config, moves", [(g, c, m) for (g, c), m in zip(GAMES, (9, 23, 21), strict=True)])
def test_a_seats_picture_does_not_change_with_what_it_cannot_see(game, config, moves):
    env = _midgame(game, config, moves)
    seat = env.possible_agents.index(env.agent_selection)
    viewer = (seat + 1) % len(env.possible_agents)  # not the seat to act: in the Duel, player_0's choice is pending
    picture = env.game.render_rgb(env.core_state, viewer)
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    other = env.game.new_state()
    other[0] = env.core_state
    env.game.determinize_fn(other[0], viewer, np.uint64(99))
    assert other[0].tobytes() != env.core_state.tobytes()  # something hidden did change
    assert np.array_equal(env.game.render_rgb(other[0], viewer), picture)
    assert not np.array_equal(env.game.render_rgb(env.core_state, None), picture)  # a spectator sees more


def test_replay_pictures_of_a_whole_game_have_one_size():
    env = _midgame("capivari_v0", {}, 0)
    sizes = set()
    while not all(env.terminations.values()):
        sizes.add(env.render().shape)
        env.step(env.legal_actions()[0])
    sizes.add(env.render().shape)
    assert len(sizes) == 1
