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
    else:
        assert why and data["skipped"] == why
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


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
