"""Every time/size option is a finite, bounded number, refused with argparse's message naming it (exit 2)."""

import math
import subprocess
import sys
from pathlib import Path

import pytest

from agents.registry import check_spec
from tabuleiro.cli import main
from tabuleiro.options import float_option, int_option

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["arena", "capivari", "--agents", "ismcts:seconds=inf,random"], "argument --agents: ismcts seconds must be"),
        (["arena", "capivari", "--agents", "ismcts:seconds=1e300,random"], "at most 600"),
        (["arena", "capivari", "--agents", "ismcts:seconds=nan,random"], "argument --agents: ismcts seconds"),
        (["arena", "capivari", "--agents", "ismcts:iterations=10000000,random"], "at most 1,000,000"),
        (["arena", "capivari", "--agents", "ismcts:exploration=inf,random"], "ismcts exploration must be"),
        (["arena", "capivari", "--agents", "random*1000000000"], "repeat count after '*'"),
        (["arena", "capivari", "--agents", "nobody,random"], "argument --agents: unknown agent 'nobody'"),
        (["arena", "capivari", "--agents", "random,random", "--games", "0"], "argument --games: must be an integer"),
        (["arena", "capivari", "--agents", "random,random", "--games", "nan"], "argument --games"),
        (["arena", "capivari", "--agents", "random,random", "--games", "10000001"], "argument --games"),
        (["arena", "capivari", "--agents", "random,random", "--workers", "0"], "argument --workers"),
        (["arena", "capivari", "--agents", "random,random", "--workers", "100000"], "argument --workers"),
        (["arena", "capivari", "--agents", "random,random", "--players", "1000000000"], "argument --players"),
        (["arena", "capivari", "--agents", "random,random", "--seed", "-1"], "argument --seed"),
        (["bench", "--seconds", "nan"], "argument --seconds: must be a finite number in (0, 60]"),
        (["bench", "--seconds", "inf"], "argument --seconds"),
        (["bench", "--seconds", "0"], "argument --seconds"),
        (["bench", "--repeats", "0"], "argument --repeats: must be an integer in 1..100"),
        (["bench", "--repeats", "1e9"], "argument --repeats"),
        (["train", "capivari", "--minutes", "nan"], "argument --minutes: must be a finite number"),
        (["train", "capivari", "--minutes", "inf"], "argument --minutes"),
        (["train", "capivari", "--minutes", "-1"], "argument --minutes"),
        (["train", "capivari", "--iterations", "0"], "argument --iterations"),
        (["train", "capivari", "--checkpoint-every", "0"], "argument --checkpoint-every"),
        (["train", "capivari", "--eval-games", "-1"], "argument --eval-games"),
        (["train", "capivari", "--torch-threads", "0"], "argument --torch-threads"),
        (["train", "capivari", "--envs-per-runner", "0"], "argument --envs-per-runner"),
        (["train", "capivari", "--seed", "-3"], "argument --seed"),
        (["train", "capivari", "--pool", "random=inf"], "argument --pool: pool weights must be finite"),
        (["train", "capivari", "--pool", "random=nan"], "argument --pool"),
        (["train", "capivari", "--set", "lr"], "argument --set: expected KEY=VALUE with KEY a name, got 'lr'"),
        (["train", "capivari", "--config", "=3"], "argument --config: expected KEY=VALUE"),
        (["train", "capivari", "--set", "lr=1", "--set", "lr=2"], "--set lr given twice (1 and 2)"),
        (["train", "capivari", "--config", "turbo=true"], "unknown config key(s) ['turbo']"),
        (["arena", "capivari", "--agents", "random,random", "--config", "turbo=1"], "unknown config key(s) ['turbo']"),
        (["play", "capivari", "--seed", "-5"], "argument --seed: must be an integer in 0..4294967295, got '-5'"),
        (["play", "capivari", "--seed", "5.5"], "argument --seed"),
        (["play", "capivari", "--seat", "-1"], "argument --seat"),
        (["play", "capivari", "--players", "0"], "argument --players"),
        (["play", "capivari", "--opponents", "ismcts:seconds=inf"], "argument --opponents: ismcts seconds"),
        (["play", "capivari", "--hint", "nobody"], "argument --hint: unknown agent 'nobody'"),
        (["replay", "x.json", "--seat", "-3"], "argument --seat"),
        (["demo", "--games", "0"], "argument --games"),
        (["demo", "--arena-games", "-1"], "argument --arena-games"),
        (["demo", "--seed", "99999999999"], "argument --seed"),
        (["train", "capivari", "--set", "lr=" + "[" * 20000 + "]" * 20000], "nests too deeply"),
        (["arena", "capivari", "--config", "max_rounds=" + "[" * 20000], "nests too deeply"),
    ],
)
def test_bad_values_are_refused_naming_the_option(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err


def test_play_with_bad_seat_for_the_game_names_the_option(capsys):
    assert main(["play", "capivari", "--seat", "2"]) == 2
    assert "--seat must be 0..1" in capsys.readouterr().err


def test_option_types_refuse_non_finite_and_out_of_range_values():
    import argparse

    minutes = float_option(0, 10)
    assert minutes("2.5") == 2.5 and minutes("10") == 10
    for bad in ("nan", "inf", "-inf", "0", "10.001", "1e400", "ten", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            minutes(bad)
    games = int_option(1, 5)
    assert games("5") == 5
    for bad in ("0", "6", "2.0", "1e3", "nan", "9" * 5000):
        with pytest.raises(argparse.ArgumentTypeError):
            games(bad)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("ismcts:seconds=inf", "seconds must be > 0 and at most 600"),
        ("ismcts:seconds=nan", "seconds must be > 0"),
        ("ismcts:seconds=601", "at most 600"),
        ("ismcts:iterations=1000001", "at most 1,000,000"),
        ("ismcts:exploration=nan", "exploration must be >= 0"),
        ("ismcts:iterations=5,seconds=1", "not both"),
        ("random:x=1", "takes no options"),
    ],
)
def test_agent_specs_are_checked_without_a_game(spec, message):
    with pytest.raises(ValueError, match=message):
        check_spec(spec)


def test_ismcts_agent_refuses_unbounded_budgets():
    from agents.ismcts import ISMCTSAgent

    for kwargs in ({"seconds": math.inf}, {"seconds": math.nan}, {"iterations": 10**9}, {"exploration": math.inf}):
        with pytest.raises(ValueError, match="ismcts"):
            ISMCTSAgent("capivari_v0", **kwargs)
    check_spec("ismcts:seconds=0.5")  # in range: accepted
    check_spec("ismcts:iterations=1000000,exploration=1")


def test_arena_api_refuses_out_of_range_sizes():
    from agents.arena import run_arena

    for kwargs, message in (
        ({"games": 10**9}, "games must be an int in 1.."),
        ({"workers": 0}, "workers must be an int in 1.."),
        ({"players": 10**9}, "players must be an int in 1.."),
        ({"seed": -1}, "seed must be"),
    ):
        args = {"game": "capivari_v0", "agents": ["random", "random"], "games": 2, "progress": False} | kwargs
        with pytest.raises(ValueError, match=message):
            run_arena(**args)


def test_train_refuses_nan_minutes_and_a_bad_out_before_importing_ray(tmp_path):
    """`train --minutes nan` used to train nothing and write an untrained checkpoint, exit 0."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    code = (
        "import sys\n"
        "from tabuleiro.cli import main\n"
        "codes = [main(['train', 'capivari', '--minutes', 'nan']),\n"
        f"         main(['train', 'capivari', '--minutes', '1', '--out', {str(blocker / 'run')!r}])]\n"
        "heavy = sorted(m for m in ('ray', 'torch') if m in sys.modules)\n"
        "print(codes, heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[2, 2] []"
    assert "argument --minutes: must be a finite number in (0, 10080], got 'nan'" in proc.stderr
    assert "--out: cannot write into" in proc.stderr and "is a file, not a folder" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (blocker.parent / "run").exists()
