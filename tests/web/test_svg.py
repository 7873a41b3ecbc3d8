"""Every game draws itself as SVG (render_mode="svg"): well-formed, from a seat's view, legal moves marked."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from pettingzoo.test import render_test

import envs

GAMES = list(envs.GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_render_test_with_svg(game):
    module = envs.game_module(game)
    assert "svg" in module.env().metadata["render_modes"]
    render_test(
        lambda render_mode=None: module.env(render_mode=render_mode), {"svg": lambda res: res.startswith("<svg")}
    )


@pytest.mark.parametrize("game", GAMES)
def test_every_position_of_a_game_is_well_formed_svg_with_its_legal_moves_clickable(game):
    env = envs.make(game, render_mode="svg")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not env.core_state["done"]:
        legal = [env.game.action_name(a) for a in env.legal_actions()]
        seat = env.possible_agents.index(env.agent_selection)
        svg = ET.fromstring(env.game.render_svg(env.core_state, seat, legal))
        marked = {el.get("data-move") for el in svg.iter() if el.get("data-move")}
        marked |= {m for el in svg.iter() if el.get("data-moves") for m in el.get("data-moves").split("|")}
        assert marked <= set(legal)  # nothing illegal is ever offered
        env.render_seat = None
        ET.fromstring(env.render())
        env.step(env.game.action_from_name(legal[int(rng.integers(len(legal)))]))
