"""An interrupted arena reports and saves every finished game: workers report each game as it ends, the
report (and ``--json``) holds exactly the finished games and says it was interrupted, and the replays on
disk are exactly the reported games. SIGTERM comes from inside a game (an agent's move), not a timer."""

import json
import os
import signal
import threading

import pytest

import agents.arena
from agents.arena import LocalGames
from envs.replay import load, verify
from tabuleiro.cli import main
from tabuleiro.options import sigterm_as_interrupt

SIGNAL_IN_GAME = 3  # the game during which SIGTERM arrives (games 0..2 are finished by then)


class _SignalOnFirstMove:
    """Wraps an agent: its first move sends SIGTERM to this process (the game never finishes)."""

    def __init__(self, agent) -> None:
        self.agent, self.name = agent, agent.name

    def reset(self, seed=None) -> None:
        self.agent.reset(seed)

    def act(self, observation, env) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        return self.agent.act(observation, env)


@pytest.fixture
def sigterm_in_game(monkeypatch):
    """SIGTERM during the arena's game ``SIGNAL_IN_GAME`` (played in this process: one worker)."""
    real = agents.arena.play_game
    played = []

    def play_game(env, seated, seed, record_actions=False):
        played.append(seed)
        if len(played) == SIGNAL_IN_GAME + 1:
            seated = [_SignalOnFirstMove(a) for a in seated]
        return real(env, seated, seed=seed, record_actions=record_actions)

    monkeypatch.setattr(agents.arena, "play_game", play_game)


def test_sigterm_in_a_game_reports_and_saves_exactly_the_finished_games(tmp_path, capsys, sigterm_in_game):
    report_path, games = tmp_path / "a.json", tmp_path / "games"
    report_path.write_text('{"old": "report"}')
    argv = ["arena", "capivari", "--agents", "heuristic,random", "--games", "10", "--workers", "1"]
    assert main([*argv, "--json", str(report_path), "--replays", str(games)]) == 143
    out, err = capsys.readouterr()
    assert "stopped (SIGTERM)" in err and "Traceback" not in err
    assert f"stopped after {SIGNAL_IN_GAME} of 10 games" in out
    report = json.loads(report_path.read_text())
    assert report["interrupted"] == "SIGTERM"
    assert report["games"] == SIGNAL_IN_GAME and report["games_requested"] == 10
    assert [r["index"] for r in report["records"]] == list(range(SIGNAL_IN_GAME))
    saved = sorted(p.name for p in games.iterdir())
    assert saved == [f"game_{i:05d}.json" for i in range(SIGNAL_IN_GAME)]  # no partial game, no temporary file
    for name, record in zip(saved, report["records"], strict=True):
        assert verify(load(games / name)) == record["returns"]


def test_a_finished_arena_says_it_was_not_interrupted(tmp_path):
    report = agents.arena.run_arena("capivari", ["random", "random"], games=2, workers=1, progress=False)
    assert report["interrupted"] is None and report["games"] == 2


BLOCKING = 3  # in the worker test, every game whose index is 3 mod 4 never ends


def _play_or_hang(task: dict) -> dict:
    """A stand-in for ``play_one`` in the worker processes: a game ends at once, or never."""
    if task["index"] % 4 == BLOCKING:
        threading.Event().wait()
    return {"index": task["index"]}


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX signals")
def test_workers_report_each_game_as_it_ends():
    """Two workers, games 0..23, games 3 and 7 hang: one worker hangs in game 3 while the other plays 4, 5
    and 6 and hangs in game 7. Batches would hold finished games back with a hanging one; one game per
    message reports exactly 0, 1, 2, 4, 5, 6. Then SIGTERM stops the arena and its workers."""
    games = LocalGames([{"index": i} for i in range(24)], workers=2, play=_play_or_hang)
    got = []
    with sigterm_as_interrupt(), pytest.raises(KeyboardInterrupt):
        try:
            for r in games:
                got.append(r["index"])
                if len(got) == 6:
                    os.kill(os.getpid(), signal.SIGTERM)
                    threading.Event().wait()  # the signal's handler raises here
        finally:
            got += [r["index"] for r in games.drain()]
            games.close()
    assert sorted(got) == [0, 1, 2, 4, 5, 6]


def _play_or_fail(task: dict) -> dict:
    """A stand-in for ``play_one``: game 2 raises, game 5 kills its worker, the others end at once."""
    if task["index"] == 2 and task.get("raise"):
        raise ValueError("no such move in game 2")
    if task["index"] == 5 and task.get("die"):
        os._exit(3)
    return {"index": task["index"]}


def test_a_game_that_raises_in_a_worker_raises_in_the_arena_with_the_workers_traceback():
    games = LocalGames([{"index": i, "raise": True} for i in range(8)], workers=2, play=_play_or_fail)
    with pytest.raises(ValueError, match="no such move in game 2") as caught:
        list(games)
    assert "_play_or_fail" in caught.value.__notes__[0]


def test_a_worker_that_dies_is_reported_not_waited_for():
    games = LocalGames([{"index": i, "die": True} for i in range(8)], workers=2, play=_play_or_fail)
    with pytest.raises(RuntimeError, match=r"died playing game 5 \(exit code 3\)"):
        list(games)
