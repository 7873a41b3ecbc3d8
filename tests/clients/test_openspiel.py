"""OpenSpiel's own ``random_sim_test`` on every game and config family, loaded by name as a user would
(``pyspiel.load_game("tabuleiro_<game>", parameters)`` after ``import envs.openspiel``). Its serialization check
needs a generator state OpenSpiel's Python game API cannot give for sampled chance: explicit-chance games only."""

import pytest

from tests.clients.common import FAMILIES, FAMILY_IDS

pyspiel = pytest.importorskip("pyspiel", reason="needs the peers extra (open-spiel)")

import envs.openspiel as eo  # noqa: E402


@pytest.mark.parametrize(("spec", "config"), FAMILIES, ids=FAMILY_IDS)
def test_random_sim_test(spec, config):
    game = pyspiel.load_game(eo.openspiel_name(spec.name), eo.parameters(spec.name, **config))
    explicit = game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=1, serialize=explicit, verbose=False)
