"""Agents by name: specs, options and clear errors."""

import pytest

from agents.ismcts import ISMCTSAgent
from agents.random_agent import RandomAgent
from agents.registry import AGENTS, make_agent, parse_spec


def test_names_and_options_build_the_right_agents():
    assert isinstance(make_agent("random", "capivari_v0", seed=1), RandomAgent)
    assert make_agent("heuristic", "capivari").name == "heuristic"
    a = make_agent("ismcts:iterations=123", "capivari_v0")
    assert isinstance(a, ISMCTSAgent) and a.iterations == 123 and a.seconds is None
    b = make_agent("ismcts:seconds=0.25,exploration=1.5", "capivari_v0")
    assert b.seconds == 0.25 and b.iterations is None and b.exploration == 1.5
    assert set(AGENTS) >= {"random", "heuristic", "ismcts", "rllib"}


def test_parse_spec_splits_rllib_paths_from_options():
    assert parse_spec("rllib:/tmp/ckpt,deterministic=true") == ("rllib", "/tmp/ckpt", {"deterministic": "true"})
    assert parse_spec("ismcts") == ("ismcts", "", {})


@pytest.mark.parametrize(
    "spec, match",
    [
        ("alphazero", "unknown agent 'alphazero'"),
        ("ismcts:depth=3", r"unknown ismcts option\(s\) \['depth'\]"),
        ("ismcts:iterations=lots", "iterations='lots' must be a int"),
        ("ismcts:iterations=0", "iterations must be a positive int"),
        ("ismcts:iterations=10,seconds=1", "not both"),
        ("ismcts:seconds=-1", "seconds must be > 0"),
        ("ismcts:iterations", "must look like key=value"),
        ("random:seed=3", "takes no options"),
        ("heuristic:depth=2", "takes no options"),
        ("rllib", "needs a checkpoint"),
        ("", "non-empty"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, match):
    with pytest.raises(ValueError, match=match):
        make_agent(spec, "capivari_v0")


def test_unknown_game_is_named():
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random", "chess")


def test_iterations_per_second_reports_a_rate():
    from agents.ismcts import iterations_per_second

    rate = iterations_per_second("capivari_v0", seconds=0.05)
    assert rate > 0 and rate == rate  # a positive, finite figure; its size belongs to the bench
