"""The fault-injection campaign: kills, full disks, damaged files, forged headers and pickle payloads
against every run and loader, each case checked to end with the old or the new complete file, a clear error
(exit 2 and a message, no traceback) and nothing else lost.

``python -m tests.tools.faults --long [--json FILE]`` runs the long campaign: real ``tabuleiro train`` runs
killed (SIGKILL) at random moments and killed again while resuming, then resumed to the end (progress rows
exactly 1..N, the checkpoint passing its manifest, no Ray process left); ``arena`` and ``play`` killed at random
moments; many random kills and full disks inside checkpoint saves; random damage to a trained checkpoint
given to each loader; forged parallel-env headers; pickle payloads given to each loader. Without ``--long``, a
short campaign (no training). ``make test`` runs the short suite in ``tests/faults/``. Figures: docs/reliability.md.
"""

import argparse
import base64
import contextlib
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 900.0  # seconds a command may take to show progress on a busy machine (numba, torch and Ray start)
HELPERS_GONE = 30.0  # seconds Ray's processes may take to end after train was killed


class Campaign:
    """Counts cases and their outcomes; a case whose outcome is not among the expected ones is a failure."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.outcomes: Counter = Counter()
        self.failures: list[str] = []
        self.kills = 0

    def record(self, kind: str, outcome: str, ok: bool, detail: str = "") -> None:
        self.outcomes[f"{kind}: {outcome}"] += 1
        if not ok:
            self.failures.append(f"{kind}: {outcome} {detail}".strip())
            print(f"FAILED {kind}: {outcome} {detail}", flush=True)

    def summary(self) -> dict[str, Any]:
        return {
            "cases": sum(self.outcomes.values()),
            "kills": self.kills,
            "failures": self.failures,
            "outcomes": dict(sorted(self.outcomes.items())),
        }


def _env() -> dict[str, str]:
    return dict(os.environ, RAY_AUTH_MODE="disabled", PYTHONPATH=str(ROOT))


def _command(
    args: list[str], cwd: Path, stdin: Any = subprocess.DEVNULL, out: Any = subprocess.PIPE
) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tabuleiro", *args],
        stdin=stdin,
        stdout=out,
        stderr=subprocess.STDOUT,
        cwd=cwd,
        env=_env(),
        text=True,
        start_new_session=True,
    )


def _descendants(root: int) -> dict[int, int]:
    from training.ray_watchdog import descendants

    return descendants(root)


def _alive(processes: dict[int, int]) -> list[int]:
    from training.ray_watchdog import _start_time

    return [pid for pid, start in processes.items() if _start_time(pid) == start]


# -- train ------------------------------------------------------------------------------------------------


def _train_until_killed(
    c: Campaign, argv: list[str], cwd: Path, lines_before_kill: int, delay_s: float = 0.0
) -> tuple[str, list[int]]:
    """Run ``tabuleiro train`` and SIGKILL it ``delay_s`` after it has printed ``lines_before_kill`` iteration
    lines (a checkpoint save follows each line), or let it end; returns what happened and the Ray processes it
    left alive ``HELPERS_GONE`` seconds later."""
    proc = _command(argv, cwd)
    seen: dict[int, int] = {}
    iterations = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.update(_descendants(proc.pid))
        if line.startswith("iter"):
            iterations += 1
            if iterations >= lines_before_kill:
                time.sleep(delay_s)  # a random moment of the save that follows, or of the next iteration
                seen.update(_descendants(proc.pid))
                os.kill(proc.pid, signal.SIGKILL)
                c.kills += 1
                break
    proc.wait()
    deadline = time.monotonic() + HELPERS_GONE
    while _alive(seen) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = _alive(seen)
    for pid in left:  # never leave them behind, then report them
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return ("killed" if proc.returncode == -signal.SIGKILL else f"exit {proc.returncode}"), left


def train_cases(c: Campaign, work: Path, runs: int, iterations: int) -> None:
    """Each run: killed at a random iteration, resumed and killed again, then resumed to the end."""
    from agents.manifest import verify_checkpoint
    from training.loop import PROGRESS, find_checkpoint

    base = ["train", "kuhn_poker", "--iterations", str(iterations), "--eval-games", "0", "--envs-per-runner", "16"]
    for r in range(runs):
        out = work / f"train{r}"
        first = ["--out", str(out), "--checkpoint-every", "1", "--seed", str(r)]
        for stage, argv in enumerate([base + first, base + ["--resume", str(out)], base + ["--resume", str(out)]]):
            # the first kill after the second iteration line: the first checkpoint is saved by then
            kill_after = int(c.rng.integers(2 - min(stage, 1), max(3, iterations // 2))) if stage < 2 else 10**9
            what, left = _train_until_killed(c, argv, work, kill_after, float(c.rng.uniform(0, 3)))
            c.record("train Ray processes after the end", "none left" if not left else f"{len(left)} left", not left)
            try:
                verify_checkpoint(find_checkpoint(out))
                c.record(f"train stage {stage} ({what})", "complete checkpoint passing its manifest", True)
            except ValueError as exc:
                c.record(f"train stage {stage} ({what})", "no complete checkpoint", False, str(exc))
                break
        rows = [json.loads(line)["iteration"] for line in (out / PROGRESS).read_text().splitlines() if line.strip()]
        ok = rows == list(range(1, iterations + 1))
        c.record(
            "train after two kills and a resume", "progress rows exactly 1..N" if ok else "rows lost", ok, str(rows)
        )
        damaged_checkpoints(c, out, work)


# -- a trained checkpoint, damaged -------------------------------------------------------------------------


def damaged_checkpoints(c: Campaign, run: Path, work: Path, cases: int = 12) -> None:
    """Random damage to a copy of a real checkpoint: every loader refuses it with exit 2 and a message."""
    from tabuleiro.cli import main

    for k in range(cases):
        copy = work / f"damaged{k}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(run / "checkpoint", copy / "checkpoint")
        files = sorted(
            p for p in (copy / "checkpoint").rglob("*") if p.is_file() and p.name != "tabuleiro_complete.json"
        )
        target = files[int(c.rng.integers(len(files)))]
        how = str(c.rng.choice(["flip a byte", "truncate", "delete", "add a file"]))
        data = target.read_bytes()
        if how == "flip a byte" and data:
            at = int(c.rng.integers(len(data)))
            target.write_bytes(data[:at] + bytes([data[at] ^ 0x5A]) + data[at + 1 :])
        elif how == "truncate":
            target.write_bytes(data[: int(c.rng.integers(len(data) + 1)) - 1 if data else 0])
        elif how == "delete":
            target.unlink()
        else:
            (target.parent / "added.pkl").write_bytes(data)
        for argv in (
            ["arena", "kuhn_poker", "--agents", f"rllib:{copy},random", "--games", "2"],
            ["export", str(copy), str(work / f"damaged{k}.npz")],
            ["train", "kuhn_poker", "--resume", str(copy), "--iterations", "99", "--eval-games", "0"],
        ):
            with _captured() as err:
                code = main(argv)
            ok = code == 2 and "Traceback" not in err.getvalue()
            c.record(f"damaged checkpoint ({how}) -> {argv[0]}", f"exit {code}", ok, err.getvalue()[-300:])
        shutil.rmtree(copy)


@contextlib.contextmanager
def _captured():
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        yield err


# -- arena and play ------------------------------------------------------------------------------------------


def arena_cases(c: Campaign, work: Path, cases: int) -> None:
    """SIGKILL (or SIGTERM) at a random number of finished games: the report is the old one or a whole one,
    every replay on disk is whole and re-simulates, and after SIGTERM the report holds every replay's game."""
    from envs.replay import load, verify

    for k in range(cases):
        folder = work / f"arena{k}"
        folder.mkdir()
        report, replays = folder / "a.json", folder / "games"
        report.write_text('{"old": true}')
        how = "SIGKILL" if k % 2 == 0 else "SIGTERM"
        argv = ["arena", "kuhn_poker", "--agents", "heuristic,random", "--games", "100000", "--workers", "2"]
        log = open(folder / "log.txt", "w")  # not a pipe: nobody reads it while the arena runs
        proc = _command([*argv, "--seed", str(k), "--json", str(report), "--replays", str(replays)], folder, out=log)
        target = int(c.rng.integers(1, 400))
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline and len(list(replays.glob("*.json"))) < target and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL if how == "SIGKILL" else signal.SIGTERM)
        c.kills += 1
        try:
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            c.record(f"arena {how}", "still running 300 s after the signal", False)
        log.close()
        games = sorted(replays.glob("*.json"))
        whole = 0
        for g in games:
            try:
                verify(load(g))
                whole += 1
            except ValueError as exc:
                c.record("arena replay after a kill", "partial replay", False, f"{g}: {exc}")
        c.record(f"arena {how}", "every replay on disk whole", whole == len(games), f"{whole}/{len(games)}")
        try:
            saved = json.loads(report.read_text())
        except ValueError:
            c.record(f"arena {how}", "partial report", False)
            continue
        if how == "SIGKILL":
            c.record("arena SIGKILL", "old report kept" if saved == {"old": True} else "a whole report", True)
        else:
            ok = saved.get("interrupted") == "SIGTERM" and saved.get("games") == len(games)
            c.record("arena SIGTERM", "report of exactly the finished games", ok, f"{saved.get('games')} {len(games)}")
        shutil.rmtree(folder)


def play_cases(c: Campaign, work: Path, cases: int) -> None:
    """SIGKILL of `play --save` at a random point of its game: the file is the old one or the whole new replay."""
    from envs.replay import load, verify

    for k in range(cases):
        path = work / f"play{k}.json"
        path.write_text('{"old": true}')
        proc = _command(["play", "kuhn_poker", "--seed", str(k), "--save", str(path)], work, stdin=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        answers = int(c.rng.integers(0, 3))
        with contextlib.suppress(OSError):
            proc.stdin.write("1\n" * answers)
            proc.stdin.flush()
        proc.stdout.readline()  # it started
        os.killpg(proc.pid, signal.SIGKILL)
        c.kills += 1
        proc.communicate(timeout=120)
        text = path.read_text()
        if text == '{"old": true}':
            c.record("play SIGKILL", "old file kept", True)
            continue
        try:
            verify(load(path))
            c.record("play SIGKILL", "whole new replay", True)
        except ValueError as exc:
            c.record("play SIGKILL", "partial replay", False, str(exc))


# -- saves, headers, payloads (in this process) ----------------------------------------------------------------


def save_cases(c: Campaign, work: Path, cases: int) -> None:
    """A kill or a full disk at a random file operation of a checkpoint save, then another in the save after the
    resume: the newest complete checkpoint is found and passes its manifest."""
    import pytest

    from agents.manifest import verify_checkpoint
    from tests.faults.test_runs import _Faults, _iteration
    from tests.training import test_checkpoints as tc
    from training.loop import find_checkpoint

    with pytest.MonkeyPatch.context() as mp:
        tc.fake_league.__wrapped__(mp)
        kill_at = tc.kill_at.__wrapped__(mp)
        faults = _Faults(kill_at, mp)
        base = work / "save-base"
        tc._save(base, 10)
        kill_at(None)
        tc._save(work / "save-count", 10)
        kill_at(None)
        tc._save(work / "save-count", 20)
        steps = kill_at(None)
        for k in range(cases):
            run = work / f"save{k}"
            shutil.copytree(base, run)
            kinds = [str(c.rng.choice(["kill", "full disk"])) for _ in range(2)]
            # a kill at any file operation; a full disk at any os.write (a save makes 2: its info and its manifest)
            first = faults.save(run, 20, int(c.rng.integers(1, steps + 1 if kinds[0] == "kill" else 4)), kinds[0])
            before = _iteration(find_checkpoint(run))
            second = faults.save(run, 30, int(c.rng.integers(1, steps + 2 if kinds[1] == "kill" else 4)), kinds[1])
            final = find_checkpoint(run)
            try:
                verify_checkpoint(final)
                ok = before in (10, 20) and _iteration(final) in (before, 30)
            except ValueError:
                ok = False
            c.kills += (first == "killed") + (second == "killed")
            c.record("checkpoint save", f"{first} then {second}: newest complete checkpoint", ok)
            shutil.rmtree(run)


def header_cases(c: Campaign, cases: int) -> None:
    """Random forged agent lists in a Duel parallel env's bytes at random points of random games: refused unless
    they are the live agents the checked bytes give."""
    import envs

    env = envs.game_module("dorfromantik_duel").parallel_env(board_radius=9)
    names = ["player_0", "player_1"]
    for k in range(cases):
        obs, _ = env.reset(seed=k)
        for _ in range(int(c.rng.integers(0, 6))):
            if not env.agents:
                break
            obs, *_ = env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
        data = env.serialize()
        magic = data[: data.index(b"{")]
        rest = data[len(magic) + int.from_bytes(magic[-4:], "little") :]
        forged = [str(x) for x in c.rng.choice(names, size=int(c.rng.integers(0, 3)))]
        head = json.dumps({"agents": forged}).encode()
        try:
            env.deserialize(magic[:-4] + len(head).to_bytes(4, "little") + head + rest)
            accepted = True
        except ValueError:
            accepted = False
        live = list(env.agents)
        ok = accepted == (forged == live)
        c.record("forged parallel header", "accepted (the live agents)" if accepted else "refused", ok, str(forged))


def payload_cases(c: Campaign, work: Path) -> None:
    """A pickle payload in every loader: none runs."""
    from tabuleiro.cli import main
    from tests.faults.payload import Payload, forged_checkpoint, payload_bytes

    marker = work / "payload-ran"
    run = work / "forged-run"
    for sealed in (False, True):
        shutil.rmtree(run, ignore_errors=True)
        forged_checkpoint(run / "checkpoint", marker, manifest=False)
        if sealed:  # a manifest over the originals, then a pickle swapped in
            from agents.manifest import write_manifest

            (run / "checkpoint" / "algorithm_state.pkl").write_bytes(b"\x80\x05N.")
            write_manifest(run / "checkpoint", 3)
            (run / "checkpoint" / "algorithm_state.pkl").write_bytes(payload_bytes(marker))
        for argv in (
            ["arena", "capivari", "--agents", f"rllib:{run},random", "--games", "2"],
            ["export", str(run), str(work / "forged.npz")],
            ["train", "capivari", "--resume", str(run), "--iterations", "9", "--eval-games", "0"],
        ):
            with _captured():
                code = main(argv)
            what = f"payload in a checkpoint ({'manifest' if sealed else 'no manifest'}) -> {argv[0]}"
            c.record(what, f"exit {code}, did not run", code == 2 and not marker.exists())
    import pyspiel

    import envs.openspiel  # noqa: F401
    from agents.compiled_policy import load_policy
    from envs.replay import load

    text = "history=\nmove_number=0\n__dict__=" + base64.b64encode(payload_bytes(marker)).decode()
    npz = work / "forged-policy.npz"
    np.savez(npz, payload=np.array([Payload(marker)], dtype=object))
    replay = work / "forged-replay.json"
    replay.write_bytes(payload_bytes(marker))
    for what, load_it in (
        ("OpenSpiel state string", lambda: pyspiel.load_game("tabuleiro_kuhn_poker").deserialize_state(text)),
        ("policy file", lambda: load_policy(npz)),
        ("replay file", lambda: load(replay)),
    ):
        try:
            load_it()
            refused = False
        except ValueError:
            refused = True
        c.record(f"payload in a {what}", "refused, did not run", refused and not marker.exists())


def disk_cases(c: Campaign, work: Path, cases: int) -> None:
    """A full disk after a random number of bytes in each result writer: the earlier file stays whole."""
    from envs.files import write_atomic

    real = os.write
    for k in range(cases):
        path = work / "result.json"
        path.write_text('{"old": true}')
        budget = {"left": int(c.rng.integers(0, 20000))}  # bytes the disk takes before it is full (the file ~10 KB)

        def write(fd: int, data: Any, budget: dict = budget) -> int:
            if budget["left"] <= 0:
                raise OSError(errno.ENOSPC, "No space left on device")
            n = real(fd, bytes(data[: budget["left"]]))
            budget["left"] -= n
            return n

        os.write = write
        try:
            write_atomic(path, json.dumps({"rows": list(range(2000)), "case": k}))
            outcome = "new file whole"
        except OSError:
            outcome = "full disk: old file kept"
        finally:
            os.write = real
        text = path.read_text()
        ok = text == '{"old": true}' if outcome.startswith("full") else json.loads(text)["case"] == k
        leftovers = [p.name for p in work.iterdir() if p.name.startswith(".result.json")]
        c.record("write_atomic", outcome, ok and not leftovers, str(leftovers))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="the long campaign: real training, arena and play kills")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args(argv)
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    c = Campaign(args.seed)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tabuleiro-faults-") as tmp:
        work = Path(tmp)
        save_cases(c, work, 400 if args.long else 40)
        disk_cases(c, work, 200 if args.long else 20)
        header_cases(c, 100 if args.long else 10)
        payload_cases(c, work)
        if args.long:
            arena_cases(c, work, 6)
            play_cases(c, work, 6)
            train_cases(c, work, runs=2, iterations=6)
    summary = c.summary() | {"seconds": round(time.monotonic() - t0), "long": args.long, "seed": args.seed}
    print(json.dumps(summary, indent=1))
    if args.json:
        from envs.files import write_atomic

        write_atomic(args.json, json.dumps(summary, indent=1))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
