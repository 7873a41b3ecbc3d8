"""Tournaments between agents, on local cores or a Ray cluster (the command: ``tabuleiro.commands.arena``).

Seats rotate evenly: game g seats the lineup rotated by g mod K (K players), so over every
K consecutive games each participant sits in each seat once, and those K games replay the
same deal (the same reset seed), which cancels most of the luck of the cards. Every game
depends only on (seed, g): results are the same for the same seed whatever the number of
workers (time-budgeted agents aside: how far they search depends on the machine).
"""

import contextlib
import itertools
import json
import os
import signal
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
from tqdm import tqdm

import envs
from agents.match import play_game
from agents.registry import check_spec, make_agent, parse_spec
from agents.results import summarize
from agents.worker_pool import LocalGames
from envs.files import write_atomic
from envs.replay import MAX_SEATS, record

MAX_GAMES = 1_000_000  # games in one tournament (the command's --games; the demo's too)
MAX_WORKERS = 256  # local worker processes
MAX_PLAYERS = MAX_SEATS  # seats at a table: as many as a replay holds (each game checks its own range too)

# -- the lineup -----------------------------------------------------------------------------------


def parse_agents(text: str) -> list[str]:
    """Agent specs from ``--agents``: comma-separated, ``spec*n`` repeats one, and ``key=value``
    pieces after a spec with options belong to it (``ismcts:iterations=500,exploration=1,random``)."""
    entries: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise ValueError(f"empty agent in --agents {text!r}")
        if entries and "=" in piece and ":" not in piece and ":" in entries[-1]:
            entries[-1] += "," + piece
        else:
            entries.append(piece)
    out: list[str] = []
    for entry in entries:
        spec, star, count = entry.rpartition("*") if "*" in entry else (entry, "", "")
        if star:
            if not count.isdigit() or not 1 <= int(count) <= MAX_PLAYERS:
                raise ValueError(
                    f"agent {entry!r}: repeat count after '*' must be a positive int, at most {MAX_PLAYERS}"
                )
            out.extend([spec] * int(count))
        else:
            out.append(entry)
    return out


def checked_agents(text: str) -> list[str]:
    """``parse_agents`` and every spec checked (known agent, options well-formed and in range): what the
    command line accepts for ``--agents``, before any game starts."""
    specs = parse_agents(text)
    for spec in specs:
        check_spec(spec)
    return specs


def lineup_for(specs: list[str], players: int | None) -> list[str]:
    """One spec per seat: with fewer specs than ``players``, the last one fills the remaining seats."""
    if players is None:
        return list(specs)
    if players < len(specs):
        raise ValueError(f"{len(specs)} agents do not fit at a table of {players} players")
    return list(specs) + [specs[-1]] * (players - len(specs))


def participant_names(specs: list[str]) -> list[str]:
    """Display names; a spec seated more than once is numbered (``random#1``, ``random#2``)."""
    counts = {s: specs.count(s) for s in specs}
    seen: dict[str, int] = {}
    names = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        names.append(f"{s}#{seen[s]}" if counts[s] > 1 else s)
    return names


def rotation(game_index: int, players: int) -> list[int]:
    """Participant in each seat for game ``game_index``: the lineup rotated by ``game_index mod players``."""
    r = game_index % players
    return [(seat + r) % players for seat in range(players)]


def game_seed(seed: int, game_index: int, players: int) -> int:
    """Reset seed of a game: one deal per block of ``players`` rotations, derived from the tournament seed."""
    deal = game_index // players
    return int(np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF, deal]).generate_state(1)[0])


# -- playing ----------------------------------------------------------------------------------------

_WORKER_CACHE: dict[Any, Any] = {}


class _Timed:
    """Wraps an agent to measure its thinking time per decision."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.seconds = 0.0
        self.slowest = 0.0
        self.decisions = 0

    def reset(self, seed: int | None = None) -> None:
        self.seconds = self.slowest = 0.0
        self.decisions = 0
        self.agent.reset(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        start = time.perf_counter()
        a = self.agent.act(observation, env)
        took = time.perf_counter() - start
        self.seconds += took
        self.slowest = max(self.slowest, took)
        self.decisions += 1
        return a


def _cached(key: tuple, build: Any) -> Any:
    if key not in _WORKER_CACHE:
        _WORKER_CACHE[key] = build()
    return _WORKER_CACHE[key]


def _warmed_up(agent: Any, env: Any) -> Any:
    """The agent after one move in a fresh game: compiled code loads before any move is timed."""
    env.reset(seed=0)
    agent.act(env.observe(env.agent_selection), env)
    return agent


def play_one(task: dict[str, Any]) -> dict[str, Any]:
    """Play the game described by ``task`` (game, config, specs, index, seed, players) and record it."""
    game, config = task["game"], task["config"]
    env = _cached(("env", game, json.dumps(config, sort_keys=True)), lambda: envs.make(game, **config))
    lineup = rotation(task["index"], task["players"])
    seated = [
        _cached(("agent", game, json.dumps(config, sort_keys=True), task["specs"][who], seat),
                lambda who=who: _Timed(_warmed_up(make_agent(task["specs"][who], game), env)))
        for seat, who in enumerate(lineup)
    ]  # fmt: skip
    result = play_game(env, seated, seed=task["seed"], record_actions=bool(task.get("replays")))
    out: dict[str, Any] = {}
    if task.get("replays"):  # the text only: the tournament's process writes the file when it takes the result
        out["replay"] = record(env.game, result, [task["specs"][who] for who in lineup]).to_json()
    return out | {
        "index": task["index"],
        "seed": task["seed"],
        "lineup": lineup,
        "returns": result.returns,
        "scores": result.scores,
        "steps": result.steps,
        "illegal": [bool(info.get("illegal_move", False)) for info in result.infos],
        "think_seconds": [a.seconds for a in seated],
        "slowest_move": [a.slowest for a in seated],
        "decisions": [a.decisions for a in seated],
    }


class RayGames:
    """Results of the tasks played as Ray tasks (``address``: ``auto``, ``ray://host:port``, or ``local``), one
    game per task, at most a few per CPU queued at a time; ``drain()`` and ``close()`` as in ``LocalGames``."""

    def __init__(self, tasks: list[dict[str, Any]], address: str) -> None:
        try:
            import ray  # optional: the rl extra
        except ImportError as exc:
            raise ValueError(f"--ray-address needs ray (the rl extra): {exc}") from None
        if not ray.is_initialized():
            ray.init(address=None if address == "local" else address, log_to_driver=False)
        self.ray, self.tasks = ray, tasks
        self._pending: list[Any] = []

    def __iter__(self) -> Iterator[dict[str, Any]]:
        ray = self.ray
        queued = 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=1)(play_one)
        todo = iter(self.tasks)
        try:
            while True:
                self._pending += [remote.remote(t) for t in itertools.islice(todo, queued - len(self._pending))]
                if not self._pending:
                    return
                done, self._pending = ray.wait(self._pending, num_returns=1)
                yield from ray.get(done)
        finally:
            self.close()

    def drain(self) -> list[dict[str, Any]]:
        if not self._pending:
            return []
        done, self._pending = self.ray.wait(self._pending, num_returns=len(self._pending), timeout=0)
        out = []
        for ref in done:
            try:
                out.append(self.ray.get(ref))
            except Exception:  # a game that failed: the others are still worth keeping
                continue
        return out

    def close(self) -> None:
        """Cancel the tasks still queued or running (idempotent)."""
        pending, self._pending = self._pending, []
        for ref in pending:
            self.ray.cancel(ref, force=True)


def run_local(tasks: list[dict[str, Any]], workers: int) -> LocalGames:
    """The tasks' results as they finish, in this process (1 worker) or a pool of spawned processes."""
    return LocalGames(tasks, workers, play_one)


def run_ray(tasks: list[dict[str, Any]], address: str) -> RayGames:
    """The tasks' results as they finish, played as Ray tasks."""
    return RayGames(tasks, address)


# -- the tournament ---------------------------------------------------------------------------------


def run_arena(
    game: str,
    agents: list[str],
    games: int,
    players: int | None = None,
    seed: int = 0,
    workers: int = 1,
    ray_address: str | None = None,
    config: dict[str, Any] | None = None,
    progress: bool = True,
    replays: str | None = None,
) -> dict[str, Any]:
    """Play a tournament and return its report (see ``agents.results.summarize``).

    ``replays``: a folder to write every game into as a replay (``game_00000.json``, ...), each written by
    this process when the game's result arrives (so the replays on disk are exactly the games reported).

    Workers report each game as it ends. Ctrl-C or SIGTERM (which the command raises as
    ``tabuleiro.options.Terminated``, a KeyboardInterrupt) stops the worker processes at once; the interrupt
    is raised again with ``partial_report``, the report of every game finished so far (its ``interrupted``
    says ``"SIGTERM"`` or ``"Ctrl-C"``; None if no game finished)."""
    game = envs.game_name(game)
    for key, value, hi in (("games", games, MAX_GAMES), ("workers", workers, MAX_WORKERS)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
            raise ValueError(f"{key} must be an int in 1..{hi}, got {value!r}")
    if players is not None and (
        isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= MAX_PLAYERS
    ):
        raise ValueError(f"players must be an int in 1..{MAX_PLAYERS}, got {players!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    config = dict(config or {})
    default_players = len(envs.make(game, **config).possible_agents)
    specs = lineup_for(agents, players if players is not None else max(default_players, len(agents)))
    k = len(specs)
    if "num_players" in envs.make(game).game.config_cls.__dataclass_fields__:
        config["num_players"] = k
    elif k != default_players:
        raise ValueError(f"{game} seats {default_players} players, got {k} agents")
    for s in specs:
        parse_spec(s)  # unknown names and malformed options fail here, before any process starts
    for s in set(specs):
        make_agent(s, game)  # and unknown options or games without a heuristic too
    if games % k:
        warnings.warn(f"{games} games is not a multiple of {k} players: seats are not rotated evenly", stacklevel=2)
    tasks = [
        {"game": game, "config": config, "specs": specs, "players": k, "index": g, "seed": game_seed(seed, g, k)}
        for g in range(games)
    ]
    if replays:
        replays = _writable_folder(replays, "replays")
        for t in tasks:
            t["replays"] = True
    names = participant_names(specs)
    start = time.perf_counter()
    stream = run_ray(tasks, ray_address) if ray_address else run_local(tasks, workers)
    records: list[dict[str, Any]] = []
    bar = tqdm(total=games, desc=f"arena {game}", unit="game", disable=not progress)

    def take(r: dict[str, Any]) -> None:
        text = r.pop("replay", None)
        with _interrupts_held():  # a game's replay and its record together: never a replay of an unreported game
            if replays and text is not None:
                write_atomic(os.path.join(replays, f"game_{r['index']:05d}.json"), text)
            records.append(r)
        bar.update()

    try:
        for r in stream:
            take(r)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: report every finished game
        try:
            for r in stream.drain():  # results that reached this process before the workers stop
                take(r)
        finally:
            stream.close()  # the worker processes are terminated here, whatever frame the interrupt hit
            bar.close()
        partial = None
        if records:
            stopped = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
            try:
                partial = _report(
                    game, config, names, specs, records, games, seed, workers, ray_address, start, stopped
                )
            except Exception:  # noqa: BLE001 - the interrupt is what matters; a report is a bonus
                partial = None
        exc.partial_report = partial  # type: ignore[attr-defined]
        raise
    finally:
        stream.close()
        bar.close()
    return _report(game, config, names, specs, records, games, seed, workers, ray_address, start)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C or SIGTERM arriving inside the block is delivered again when it ends, to the handler it would have
    met (in the main thread only: Python runs signal handlers there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if held:
            signal.raise_signal(held[0])  # now met by the handler it would have met (or the default action)


def _writable_folder(path: str, name: str) -> str:
    """``path`` created if need be and a probe file written into it and removed, before any game starts:
    ValueError naming ``name`` if not (the command checks its ``--replays`` the same way, earlier)."""
    try:
        os.makedirs(path, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".tabuleiro-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{name}: cannot write into {str(path)!r}: {exc.strerror or exc}") from None
    return str(path)


def _report(
    game: str,
    config: dict[str, Any],
    names: list[str],
    specs: list[str],
    records: list[dict[str, Any]],
    games: int,
    seed: int,
    workers: int,
    ray_address: str | None,
    start: float,
    interrupted: str | None = None,
) -> dict[str, Any]:
    """The tournament's report from its finished games (all of them, or those finished before a stop:
    ``interrupted`` names the signal, ``"SIGTERM"`` or ``"Ctrl-C"``)."""
    k = len(specs)
    elapsed = time.perf_counter() - start
    records = sorted(records, key=lambda r: r["index"])
    report = summarize(game, names, records)
    think = np.zeros(k)
    slowest = np.zeros(k)
    decisions = np.zeros(k)
    illegal = np.zeros(k, int)
    for r in records:
        for seat, who in enumerate(r["lineup"]):
            think[who] += r["think_seconds"][seat]
            slowest[who] = max(slowest[who], r["slowest_move"][seat])
            decisions[who] += r["decisions"][seat]
            illegal[who] += r["illegal"][seat]
    for i, row in enumerate(report["agents"]):
        row["spec"] = specs[i]
        row["seconds_per_move"] = float(think[i] / decisions[i]) if decisions[i] else 0.0
        row["slowest_move"] = float(slowest[i])
        row["illegal_moves"] = int(illegal[i])
    seat_counts = [[0] * k for _ in range(k)]
    for r in records:
        for seat, who in enumerate(r["lineup"]):
            seat_counts[who][seat] += 1
    report.update(
        game=game,
        config=config,
        players=k,
        games=len(records),
        games_requested=games,
        seed=seed,
        workers=workers,
        ray_address=ray_address,
        seconds=elapsed,
        interrupted=interrupted,
        seat_counts=seat_counts,
        records=[{key: r[key] for key in ("index", "seed", "lineup", "returns", "scores", "steps")} for r in records],
    )
    return report


def format_report(r: dict[str, Any]) -> str:
    """The tournament's tables as text."""
    where = f"ray {r['ray_address']}" if r["ray_address"] else f"{r['workers']} worker(s)"
    asked = r.get("games_requested", r["games"])
    stopped = "" if asked == r["games"] else f" of {asked} (stopped early)"
    name = max([26, *(len(a["agent"]) + 2 for a in r["agents"])])  # long agent specs widen the column
    lines = [
        f"{r['game']}: {r['games']} games{stopped}, {r['players']} players, seed {r['seed']}, {where}, "
        f"{r['seconds']:.1f} s",
        "",
        f"{'agent':<{name}}{'games':>6}{'wins':>6}{'shared':>7}{'win rate':>9}  {'95% CI':<14}{'place':>6}"
        f"{'score':>7}{'margin':>8}{'rating':>8}{'s/move':>8}",
    ]
    for a in r["agents"]:
        lo, hi = a["win_rate_ci95"]
        ci = f"[{lo:.1%}, {hi:.1%}]"
        score = "-" if a["mean_score"] is None else f"{a['mean_score']:.2f}"
        margin = "-" if a["mean_margin"] is None else f"{a['mean_margin']:+.2f}"
        lines.append(
            f"{a['agent']:<{name}}{a['games']:>6}{a['wins']:>6}{a['shared_first']:>7}{a['win_rate']:>9.1%}  {ci:<14}"
            f"{a['mean_place']:>6.2f}{score:>7}{margin:>8}{a['rating']['ordinal']:>8.1f}{a['seconds_per_move']:>8.3f}"
        )
    illegal = sum(a["illegal_moves"] for a in r["agents"])
    lines += ["", "head to head (row finishes ahead of column; ties count half):"]
    width = max(10, *(len(a["agent"]) + 2 for a in r["agents"]))
    lines.append(" " * width + "".join(f"{i:>8}" for i in range(len(r["agents"]))))
    for i, a in enumerate(r["agents"]):
        cells = "".join("       -" if v is None else f"{v:>8.1%}" for v in r["head_to_head"][i])
        lines.append(f"{i} {a['agent']}".ljust(width) + cells)
    lines.append("")
    lines.append(f"illegal moves: {illegal}; rating: OpenSkill Plackett-Luce ordinal (mu - 3 sigma)")
    return "\n".join(lines)
