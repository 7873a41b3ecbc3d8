"""benchmarks/solved_fit.py: solved positions of a policy's self-play, and its network fitted to their best moves."""

import json

import numpy as np
import pytest

from agents.compiled_policy import load_policy
from benchmarks import solved_fit


@pytest.fixture(scope="module")
def positions() -> dict[str, np.ndarray]:
    return solved_fit.collect("capivari", "reference", 12, seed=3, workers=2)


def test_each_position_holds_the_worth_of_exactly_its_legal_moves_and_both_kinds_appear(positions):
    legal = positions["mask"] > 0
    assert np.array_equal(np.isfinite(positions["values"]), legal)
    assert (legal.sum(axis=1) >= 2).all()  # a forced move teaches nothing
    assert set(np.unique(positions["kind"])) == {0, 1}
    assert set(np.unique(positions["game"])) <= set(range(12)) and positions["game"].min() == 0


def test_the_same_seed_gathers_the_same_positions(positions):
    again = solved_fit.collect("capivari", "reference", 12, seed=3, workers=1)
    assert all(np.array_equal(positions[k], again[k]) for k in ("obs", "values", "kind", "game"))


def test_before_training_the_held_out_share_is_the_policy_files_own_argmax(positions):
    policy = load_policy("reference", "capivari")
    test = positions["game"] % solved_fit.HELD_OUT == 0
    logits, _ = policy.forward(positions["obs"][test], positions["mask"][test])
    moves = np.argmax(np.where(positions["mask"][test] > 0, logits, -np.inf), axis=1)
    values = positions["values"][test]
    best = values[np.arange(len(moves)), moves] >= values.max(axis=1) - 1e-9
    row = solved_fit.fit(positions, "reference", epochs=0, progress=False)[0]
    for k, kind in enumerate(solved_fit.KINDS):
        sel = positions["kind"][test] == k
        assert row[kind]["positions"] == sel.sum()
        assert row[kind]["best_share"] == pytest.approx(best[sel].mean())


def test_training_from_scratch_lowers_the_loss_and_reports_every_epoch(positions):
    rows = solved_fit.fit(positions, "reference", epochs=3, scratch=True, lr=1e-3, progress=False)
    assert [r["epoch"] for r in rows] == [0, 1, 2, 3] and rows[0]["loss"] is None
    assert rows[3]["loss"] < rows[1]["loss"]
    half = solved_fit.fit(positions, "reference", epochs=0, share=0.5, progress=False)[0]
    assert 0 < half["train_positions"] < rows[0]["train_positions"]


def test_the_file_round_trip_and_the_command_line(positions, tmp_path, capsys):
    path = tmp_path / "positions.npz"
    solved_fit.save_positions(positions, str(path))
    back = solved_fit.load_positions(str(path))
    assert all(np.array_equal(positions[k], back[k]) for k in positions)
    solved_fit.main(["fit", str(path), "--epochs", "1", "--json", str(tmp_path / "rows.json")])
    assert "epoch   1" in capsys.readouterr().out
    assert [r["epoch"] for r in json.loads((tmp_path / "rows.json").read_text())] == [0, 1]


def test_the_network_written_untrained_is_the_policy_it_was_read_from(positions, tmp_path):
    solved_fit.fit(positions, "reference", epochs=0, progress=False, out=str(tmp_path / "same.npz"))
    mine, theirs = load_policy(str(tmp_path / "same.npz"), "capivari"), load_policy("reference", "capivari")
    for obs, mask in zip(positions["obs"][:50], positions["mask"][:50], strict=True):
        legal = mask > 0  # the file written scores the candidate rows, the reference the game's actions: the same
        assert np.allclose(mine.game_logits(obs, mask)[0][legal], theirs.game_logits(obs, mask)[0][legal], atol=1e-4)


def test_two_collections_merge_with_distinct_games_each_keeping_its_held_out_ones(positions):
    merged = solved_fit.merge_positions([positions, positions])
    n = len(positions["game"])
    assert len(merged["obs"]) == 2 * n
    assert not set(merged["game"][:n]) & set(merged["game"][n:])
    assert np.array_equal(merged["game"][:n] % solved_fit.HELD_OUT, merged["game"][n:] % solved_fit.HELD_OUT)
    other = dict(positions, game_config=np.array("{}"))
    with pytest.raises(ValueError, match="different games or configs"):
        solved_fit.merge_positions([positions, other])


def test_a_game_that_solves_nothing_or_a_file_of_other_positions_is_refused(positions, tmp_path):
    with pytest.raises(ValueError, match="solves no position"):
        solved_fit.collect("horizonte", "reference", 2, workers=1)
    other = dict(positions, game_config=np.array(json.dumps({"observe_replies": False})))
    with pytest.raises(ValueError, match="another game or config"):
        solved_fit.fit(other, "reference", epochs=0)
    np.savez(tmp_path / "x.npz", obs=np.zeros(3))
    with pytest.raises(ValueError, match="not a file of solved positions"):
        solved_fit.load_positions(str(tmp_path / "x.npz"))
