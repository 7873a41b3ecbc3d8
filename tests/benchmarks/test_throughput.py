"""The bench's --quick path runs end to end and writes its table, JSON and chart (speed is not asserted)."""

import json

import pytest

from benchmarks import throughput
from tabuleiro.cli import main


def test_quick_bench_writes_table_json_and_png(tmp_path, capsys):
    out_json = tmp_path / "bench.json"
    out_png = tmp_path / "bench.png"
    code = main(
        ["bench", "--games", "capivari", "--quick", "--seconds", "0.01", "--no-startup",
         "--json", str(out_json), "--png", str(out_png)]
    )  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "capivari_v0 raw kernel, 1 thread(s), 16 games" in text
    assert "AEC env() loop" in text
    data = json.loads(out_json.read_text())
    raw = data["games"]["capivari_v0"]["raw"]
    assert set(raw) >= {"1x16", "1x256"} and all(steps > 0 for steps, _ in raw.values())
    assert data["games"]["capivari_v0"]["bytes_per_state"] > 0
    spiel, pz, why = throughput.peers_available()
    if spiel and pz:
        assert "pyspiel oh_hell" in data["peers"] and "pettingzoo connect_four_v3" in data["peers"]
        assert any("connect_four" in k for k in data["ratios"])
        assert set(data["games"]["capivari_v0"]["openspiel"]) == {
            "capivari_v0 through OpenSpiel",
            "capivari_v0 through OpenSpiel +tensors",
        }
    else:
        assert why and why in data["skipped"]
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_pgx_peer_plays_random_games_with_observations():
    pytest.importorskip("pgx")
    from benchmarks.pgx_peer import CHUNK, observation_size, pgx_runner

    assert pgx_runner("kuhn_poker", 8)() == 8 * CHUNK
    assert observation_size("hex") == 11 * 11 * 4  # Pgx's hex observation: 11 x 11 board, 4 planes


def test_ratios_compare_our_batch_api_with_the_pgx_peer_at_the_same_batch():
    results = {
        "peers": {},
        "pgx": {"hex": {"4096": 100.0}},
        "games": {
            "dorfromantik_duel_v0": {
                "raw": {"2x4096": (300.0, 1.0)},
                "batch_api": {"1x256": 10.0, "2x4096": 50.0},
                "aec": 1.0,
            }
        },
    }
    r = throughput.ratios(results)
    assert r == {
        "dorfromantik_duel_v0 batch API 2T x4096 / pgx hex x4096": pytest.approx(0.5),
        "dorfromantik_duel_v0 raw 2T x4096 / pgx hex x4096": pytest.approx(3.0),
    }


def test_bench_rejects_unknown_games_and_bad_numbers(capsys):
    assert main(["bench", "--games", "chess", "--quick"]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["bench", "--repeats", "0"]) == 2


def test_ratios_use_the_right_peer():
    results = {
        "peers": {"pyspiel oh_hell": 100.0, "pyspiel hex": 10.0, "pettingzoo connect_four_v3": 50.0},
        "games": {
            "capivari_v0": {"raw": {"1x16": (1000.0, 1.0), "2x16": (5000.0, 1.0)}, "aec": 500.0},
            "dorfromantik_duel_v0": {"raw": {"1x16": (100.0, 1.0)}, "aec": 100.0},
        },
    }
    r = throughput.ratios(results)
    assert r["capivari_v0 raw 1 thread / pyspiel oh_hell"] == pytest.approx(10.0)
    assert r["dorfromantik_duel_v0 raw 1 thread / pyspiel hex"] == pytest.approx(10.0)
    assert r["capivari_v0 AEC / pettingzoo connect_four_v3"] == pytest.approx(10.0)
