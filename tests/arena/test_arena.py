"""The arena: seat rotation, replayed deals, agent lists, reproducibility, the command's outputs."""

import json

import pytest

from agents.arena import format_report, game_seed, lineup_for, parse_agents, participant_names, rotation, run_arena
from tabuleiro.cli import main


def test_rotation_puts_everyone_in_every_seat_once_per_block():
    for k in (2, 3, 4, 5):
        block = [rotation(g, k) for g in range(k)]
        for lineup in block:
            assert sorted(lineup) == list(range(k))
        for seat in range(k):
            assert sorted(lineup[seat] for lineup in block) == list(range(k))
        assert [rotation(g, k) for g in range(k, 2 * k)] == block
    assert rotation(0, 2) == [0, 1] and rotation(1, 2) == [1, 0]
    assert rotation(1, 3) == [1, 2, 0]


def test_each_deal_is_replayed_once_per_rotation():
    seeds = [game_seed(5, g, 2) for g in range(6)]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[4] == seeds[5]
    assert len(set(seeds)) == 3
    assert game_seed(6, 0, 2) != seeds[0]


def test_agent_lists():
    assert parse_agents("heuristic,random") == ["heuristic", "random"]
    assert parse_agents("ismcts:iterations=50,exploration=1,random*2") == [
        "ismcts:iterations=50,exploration=1",
        "random",
        "random",
    ]
    assert lineup_for(["heuristic", "random"], 4) == ["heuristic", "random", "random", "random"]
    assert participant_names(["heuristic", "random", "random"]) == ["heuristic", "random#1", "random#2"]
    with pytest.raises(ValueError, match="do not fit"):
        lineup_for(["a", "b", "c"], 2)
    with pytest.raises(ValueError, match="repeat count"):
        parse_agents("random*0")
    with pytest.raises(ValueError, match="empty agent"):
        parse_agents("random,,heuristic")


def test_arena_seats_and_counts_on_a_small_tournament():
    r = run_arena("capivari_v0", ["heuristic", "random"], games=6, seed=1, progress=False)
    assert r["seat_counts"] == [[3, 3], [3, 3]]
    assert [g["lineup"] for g in r["records"]] == [[0, 1], [1, 0]] * 3
    assert sum(a["wins"] + a["shared_first"] for a in r["agents"]) >= 6
    assert all(a["illegal_moves"] == 0 for a in r["agents"])
    assert r["agents"][0]["games"] == r["agents"][1]["games"] == 6


def test_the_table_columns_line_up_under_an_agent_spec_longer_than_the_name_column():
    r = run_arena("capivari_v0", ["ismcts:iterations=50,exploration=1.4", "random"], games=2, seed=1, progress=False)
    header, *rows = format_report(r).splitlines()[2:5]
    assert [row.index(" 2 ") for row in rows] == [header.index("games") + 3] * 2  # the games column, right-aligned


def test_arena_is_reproducible_for_a_seed_and_across_worker_counts():
    kwargs = dict(game="capivari_v0", agents=["ismcts:iterations=40", "random"], games=4, seed=3, progress=False)
    one = run_arena(workers=1, **kwargs)
    again = run_arena(workers=1, **kwargs)
    two = run_arena(workers=2, **kwargs)
    assert one["records"] == again["records"] == two["records"]
    other = run_arena(workers=1, **dict(kwargs, seed=4))
    assert other["records"] != one["records"]


def test_four_player_table_fills_with_the_last_agent():
    r = run_arena("horizonte_v0", ["heuristic", "random"], games=4, players=4, seed=0, progress=False)
    assert r["players"] == 4 and r["config"]["num_players"] == 4
    assert [a["agent"] for a in r["agents"]] == ["heuristic", "random#1", "random#2", "random#3"]
    assert r["seat_counts"] == [[1, 1, 1, 1]] * 4


def test_bad_arena_requests_fail_clearly():
    with pytest.raises(ValueError, match="seats 2 players"):
        run_arena("capivari_v0", ["random", "random", "random"], games=2, progress=False)
    with pytest.raises(ValueError, match="unknown agent"):
        run_arena("capivari_v0", ["random", "minimax"], games=2, progress=False)
    with pytest.raises(ValueError, match="games must be"):
        run_arena("capivari_v0", ["random", "random"], games=0, progress=False)


def test_command_writes_json_and_png(tmp_path, capsys):
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    code = main(
        ["arena", "capivari", "--agents", "heuristic,random", "--games", "4", "--workers", "1"]
        + ["--json", str(out_json), "--png", str(out_png)]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "head to head" in text
    report = json.loads(out_json.read_text())
    assert report["games"] == 4 and len(report["records"]) == 4
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["arena", "capivari", "--agents", "nobody,random", "--games", "2"]) == 2
