"""``python -m benchmarks.maskable_ppo``: its evaluation rotates seats and counts wins as the env reports them,
a run prints its figure and writes its JSON, and bad arguments stop it before any training."""

import json

import numpy as np
import pytest

from benchmarks import maskable_ppo

pytest.importorskip("sb3_contrib", reason="needs the clients extra (sb3-contrib)")


class FirstLegal:
    """A stand-in for a trained model: the lowest legal action."""

    def predict(self, obs, action_masks, deterministic):
        return int(np.flatnonzero(action_masks)[0]), None


def test_evaluation_rotates_seats_and_counts_wins():
    result = maskable_ppo.evaluate(FirstLegal(), "kuhn_poker_v0", 40, seed=3, opponents="random")
    assert [row["games"] for row in result["per_seat"]] == [20, 20]
    assert result["wins"] == sum(row["wins"] for row in result["per_seat"])
    lo, hi = result["wilson95"]
    assert 0 <= lo <= result["win_rate"] <= hi <= 1
    again = maskable_ppo.evaluate(FirstLegal(), "kuhn_poker_v0", 40, seed=3, opponents="random")
    assert again == result


def test_a_run_prints_and_writes_its_result(tmp_path, capsys, monkeypatch):
    """The command's flow, with training stood in for (the sb3 tests train MaskablePPO itself)."""
    trained = []
    monkeypatch.setattr(maskable_ppo, "train", lambda *args: trained.append(args) or FirstLegal())
    out = tmp_path / "result.json"
    assert maskable_ppo.main(["kuhn_poker", "--steps", "64", "--games", "6", "--json", str(out)]) == 0
    assert trained == [("kuhn_poker_v0", 64, 0, "random")]
    record = json.loads(out.read_text())
    assert (record["game"], record["steps"], record["games"]) == ("kuhn_poker_v0", 64, 6)
    assert "95% Wilson" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chess"], "unknown game 'chess'"),
        (["capivari", "--steps", "0"], "--steps must be in"),
        (["capivari", "--games", "0"], "--games must be in"),
        (["capivari", "--seed", "-1"], "--seed must be in"),
        (["capivari", "--opponents", "snapshot"], "invalid choice"),
        (["capivari", "--json", "/nonexistent-folder/x.json"], "cannot write"),
    ],
)
def test_bad_arguments_stop_before_training(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        maskable_ppo.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
