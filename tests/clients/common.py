"""What the client tests share: the games and config families they run on, and checks of a finished game.

Every list here is made from the registry (``envs.specs()``), so a new game gets the whole suite without a
line of its own; the config families are those of ``tests/generic/test_infos.py`` (seat counts, switches,
choices), since the infos the tensor libraries read change with the config.
"""

import math

import numpy as np

import envs
from envs.engine import Game
from tests.generic.test_infos import config_families

STEPS = 300  # AEC turns (or learner steps) each client plays per case, and on until a game has finished
MAX_STEPS = 20 * STEPS  # no registered game takes this long
SPECS = envs.specs()
GAMES = [(spec, dict(spec.quick_config)) for spec in SPECS]
GAME_IDS = [spec.short_name for spec in SPECS]
FAMILIES = [(spec, cfg) for spec in SPECS for cfg in config_families(spec)]
FAMILY_IDS = [
    f"{spec.short_name}-{'-'.join(f'{k}={v}' for k, v in cfg.items()) or 'default'}" for spec, cfg in FAMILIES
]
PARALLEL = [(spec, cfg) for spec, cfg in FAMILIES if spec.parallel]
PARALLEL_IDS = [i for i, (spec, _) in zip(FAMILY_IDS, FAMILIES, strict=True) if spec.parallel]


def check_returns(game: Game, returns: list[float]) -> None:
    """One finished game's total rewards per seat: finite, within the game's declared range and sum."""
    assert all(math.isfinite(r) for r in returns), returns
    bounds = game.returns_range()
    if bounds is not None:
        assert all(bounds[0] - 1e-6 <= r <= bounds[1] + 1e-6 for r in returns), (returns, bounds)
    total = game.returns_sum()
    if total is not None:
        assert abs(sum(returns) - total) < 1e-6, (returns, total)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action of one mask (any numeric dtype, nonzero = legal)."""
    legal = np.flatnonzero(np.asarray(mask))
    assert legal.size > 0, "no legal action where one is to act"
    return int(legal[rng.integers(legal.size)])
