"""Search never reads hidden state: states a seat cannot tell apart give the very same search."""

import numpy as np
import pytest

import envs
from agents.ismcts import ISMCTSAgent

GAMES = [spec.name for spec in envs.specs() if spec.search is not None]


def _positions(game: str, cuts: tuple[int, ...] = (0, 3, 17)):
    """(game, root record array, seat to act) after some random moves, for a few seeds."""
    for seed in range(2):
        for cut in cuts:
            env = envs.make(game)
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            for _ in range(cut):
                if env.core_state.done:
                    break
                env.step(int(rng.choice(env.legal_actions())))
            if env.core_state.done:
                continue
            root = env.game.new_state()
            root[0] = env.core_state
            yield env.game, root, env.possible_agents.index(env.agent_selection)


def _twin(game, root: np.ndarray, seat: int, seed: int) -> np.ndarray:
    """Another state ``seat`` could be in: the hidden part (and the generator) resampled."""
    twin = root.copy()
    game.determinize_fn(twin[0], seat, np.uint64(seed))
    obs_a, mask_a = game.observe_fn(root[0], seat)
    obs_b, mask_b = game.observe_fn(twin[0], seat)
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(mask_a, mask_b)
    assert root.tobytes() != twin.tobytes(), "the twin should differ in hidden information"
    return twin


@pytest.mark.parametrize("game", GAMES)
def test_search_is_identical_on_states_differing_only_in_hidden_information(game):
    for g, root, seat in _positions(game):
        twin = _twin(g, root, seat, seed=12345)
        a = ISMCTSAgent(game, iterations=150)
        b = ISMCTSAgent(game, iterations=150)
        visits_a = a.search(root, seat, g, seed=7)
        visits_b = b.search(twin, seat, g, seed=7)
        np.testing.assert_array_equal(visits_a, visits_b)
        n = int(a._buffers[root.dtype].tree_f[0, 0])
        assert n == 150
        np.testing.assert_array_equal(a._buffers[root.dtype].tree_i[:n], b._buffers[root.dtype].tree_i[:n])
        np.testing.assert_array_equal(a._buffers[root.dtype].tree_f[:n], b._buffers[root.dtype].tree_f[:n])
        # and a different seed searches differently (the test would be vacuous otherwise): other
        # visits, or (a search allocating its visits uniformly) other values
        c = ISMCTSAgent(game, iterations=150)
        visits_c = c.search(root, seat, g, seed=8)
        values_differ = not np.array_equal(c._buffers[root.dtype].tree_f[:n], a._buffers[root.dtype].tree_f[:n])
        assert not np.array_equal(visits_c, visits_a) or values_differ or visits_a.max() == 150


@pytest.mark.parametrize("game", GAMES)
def test_search_determinization_keeps_what_the_seat_sees_and_forgets_the_rest(game):
    determinize = envs.spec(game).game.determinize_fn
    for g, root, seat in _positions(game):
        twin = _twin(g, root, seat, seed=99)
        a, b = root.copy(), twin.copy()
        determinize(a[0], seat, np.uint64(5))
        determinize(b[0], seat, np.uint64(5))
        assert a.tobytes() == b.tobytes()
        np.testing.assert_array_equal(g.observe_fn(a[0], seat)[0], g.observe_fn(root[0], seat)[0])
        np.testing.assert_array_equal(g.observe_fn(a[0], seat)[1], g.observe_fn(root[0], seat)[1])
        g.validate_state(a[0])
