"""benchmarks/search_rate.py and benchmarks/prior_agreement.py: the figures they report, on tiny runs."""

import json

import numpy as np
import pytest

from agents.compiled_policy import save_policy
from benchmarks import prior_agreement, search_rate
from tests.agents.test_compiled_policy import mlp_arrays


def test_search_rate_times_each_spec_on_the_same_positions(tmp_path):
    out = tmp_path / "rate.json"
    code = search_rate.main(
        ["capivari", "--agents", "ismcts:iterations=300", "--agents", "ismcts:iterations=30", "--games", "1",
         "--every", "3", "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["agent"] for r in rows] == ["ismcts:iterations=300", "ismcts:iterations=30"]
    assert rows[0]["positions"] == rows[1]["positions"] >= 1
    assert all(r["iterations_per_second"] > 0 for r in rows)
    assert rows[0]["seconds_per_search"] > rows[1]["seconds_per_search"]  # ten times the iterations


def test_search_rate_refuses_an_agent_that_does_not_search(capsys):
    assert search_rate.main(["capivari", "--agents", "heuristic", "--games", "1"]) == 2
    assert "not a search agent" in capsys.readouterr().err


def test_prior_agreement_of_a_uniform_prior(tmp_path):
    arrays = mlp_arrays("capivari_v0")
    for key in list(arrays):
        if key.startswith("pi."):
            arrays[key] = np.zeros_like(arrays[key])
    path = save_policy(arrays, tmp_path / "uniform.npz")  # zero logits: a uniform prior
    result = prior_agreement.measure("capivari_v0", str(path), "ismcts:iterations=50", games=2)
    assert result["positions"] > 10
    assert result["median_normalised_entropy"] == pytest.approx(1.0)
    assert result["median_top_prior"] < 0.5
    # every legal move has the same prior, so the search's move has the largest one too
    assert result["median_prior_of_search_move"] == pytest.approx(result["median_top_prior"])
    assert prior_agreement.main(["capivari", "--policy", str(path), "--search", "ismcts:iterations=0"]) == 2
