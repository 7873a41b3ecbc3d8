"""Forged states with valid checksums: each is refused with ValueError or plays to a valid end.

The same campaign at 100,000 states per game against a bounds-checked build is a script:
``python -m tests.fuzz.campaign --states 100000 --boundscheck`` (see tests/fuzz/campaign.py).
"""

import numpy as np
import pytest

from tests.fuzz.forge import FAMILIES, campaign, raw_env_of, reachable_states, try_forgery

FORGED_PER_FAMILY = 1000


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_forged_states_are_refused_or_play_to_a_valid_end(family):
    kinds: dict[str, int] = {}
    defects = []
    for what, outcome in campaign(family, FORGED_PER_FAMILY, seed=12345, start_states=40):
        kinds[outcome.kind] = kinds.get(outcome.kind, 0) + 1
        if outcome.defect:
            defects.append(f"{what}: {outcome.kind} {outcome.detail}")
    assert not defects, f"{len(defects)} defects, first: {defects[:3]}"
    assert kinds.get("refused", 0) > 0 and kinds.get("played", 0) > 0  # both outcomes occur: the test can fail


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_unforged_states_play_to_a_valid_end(family):
    rng = np.random.default_rng(7)
    env = raw_env_of(family)
    for data in reachable_states(family, rng, 12):
        outcome = try_forgery(env, data, rng)
        assert outcome.kind == "played", outcome
