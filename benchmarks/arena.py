"""`tabuleiro arena`: tournaments between agents, on local cores or a Ray cluster.

Seats rotate evenly: game g seats the lineup rotated by g mod K (K players), so over every
K consecutive games each participant sits in each seat once, and those K games replay the
same deal (the same reset seed), which cancels most of the luck of the cards. Every game
depends only on (seed, g): results are the same for the same seed whatever the number of
workers (time-budgeted agents aside: how far they search depends on the machine).
"""

import json
import os
import time
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.arena_stats import final_scores, summarize

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
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"agent {entry!r}: repeat count after '*' must be a positive int")
            out.extend([spec] * int(count))
        else:
            out.append(entry)
    return out


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
    import envs
    from agents.registry import make_agent
    from benchmarks.match import play_game

    game, config = task["game"], task["config"]
    env = _cached(("env", game, json.dumps(config, sort_keys=True)), lambda: envs.make(game, **config))
    lineup = rotation(task["index"], task["players"])
    seated = [
        _cached(("agent", game, json.dumps(config, sort_keys=True), task["specs"][who], seat),
                lambda who=who: _Timed(_warmed_up(make_agent(task["specs"][who], game), env)))
        for seat, who in enumerate(lineup)
    ]  # fmt: skip
    result = play_game(env, seated, seed=task["seed"], record_actions=bool(task.get("replays")))
    if task.get("replays"):
        from benchmarks.replay import record, save

        specs = [task["specs"][who] for who in lineup]
        save(record(env.game, result, specs), os.path.join(task["replays"], f"game_{task['index']:05d}.json"))
    return {
        "index": task["index"],
        "seed": task["seed"],
        "lineup": lineup,
        "returns": result.returns,
        "scores": final_scores(env.game.name, result.infos),
        "steps": result.steps,
        "illegal": [bool(info.get("illegal_move", False)) for info in result.infos],
        "think_seconds": [a.seconds for a in seated],
        "slowest_move": [a.slowest for a in seated],
        "decisions": [a.decisions for a in seated],
    }


def _play_many(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [play_one(t) for t in tasks]


def _chunks(tasks: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def run_local(tasks: list[dict[str, Any]], workers: int) -> Iterator[dict[str, Any]]:
    """Results of the tasks, played in this process (1 worker) or a pool of spawned processes."""
    if workers <= 1:
        for t in tasks:
            yield play_one(t)
        return
    import multiprocessing as mp

    size = max(1, min(8, len(tasks) // (workers * 4)))
    with mp.get_context("spawn").Pool(workers) as pool:
        for batch in pool.imap_unordered(_play_many, _chunks(tasks, size)):
            yield from batch


def run_ray(tasks: list[dict[str, Any]], address: str) -> Iterator[dict[str, Any]]:
    """Results of the tasks played as Ray tasks (``address``: ``auto``, ``ray://host:port``, or ``local``)."""
    try:
        import ray
    except ImportError as exc:
        raise ValueError(f"--ray-address needs ray (the rl extra): {exc}") from None
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, log_to_driver=False)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    remote = ray.remote(num_cpus=1)(_play_many)
    pending = [remote.remote(c) for c in _chunks(tasks, max(1, min(8, len(tasks) // (cpus * 4))))]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            yield from ray.get(ref)


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
    """Play a tournament and return its report (see ``benchmarks.arena_stats.summarize``).

    ``replays``: a folder to write every game into as a replay (``game_00000.json``, ...)."""
    import envs
    from agents.registry import game_name, parse_spec

    game = game_name(game)
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
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
    from agents.registry import make_agent

    for s in set(specs):
        make_agent(s, game)  # and unknown options or games without a heuristic too
    if games % k:
        warnings.warn(f"{games} games is not a multiple of {k} players: seats are not rotated evenly", stacklevel=2)
    tasks = [
        {"game": game, "config": config, "specs": specs, "players": k, "index": g, "seed": game_seed(seed, g, k)}
        for g in range(games)
    ]
    if replays:
        for t in tasks:
            t["replays"] = replays
    names = participant_names(specs)
    start = time.perf_counter()
    stream: Iterable[dict[str, Any]] = run_ray(tasks, ray_address) if ray_address else run_local(tasks, workers)
    records = list(tqdm(stream, total=games, desc=f"arena {game}", unit="game", disable=not progress))
    elapsed = time.perf_counter() - start
    records.sort(key=lambda r: r["index"])
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
        games=games,
        seed=seed,
        workers=workers,
        ray_address=ray_address,
        seconds=elapsed,
        seat_counts=seat_counts,
        records=[{key: r[key] for key in ("index", "seed", "lineup", "returns", "scores", "steps")} for r in records],
    )
    return report


def format_report(r: dict[str, Any]) -> str:
    """The tournament's tables as text."""
    where = f"ray {r['ray_address']}" if r["ray_address"] else f"{r['workers']} worker(s)"
    lines = [
        f"{r['game']}: {r['games']} games, {r['players']} players, seed {r['seed']}, {where}, {r['seconds']:.1f} s",
        "",
        f"{'agent':<26}{'games':>6}{'wins':>6}{'shared':>7}{'win rate':>9}  {'95% CI':<14}{'place':>6}"
        f"{'score':>7}{'margin':>8}{'rating':>8}{'s/move':>8}",
    ]
    for a in r["agents"]:
        lo, hi = a["win_rate_ci95"]
        ci = f"[{lo:.1%}, {hi:.1%}]"
        score = "-" if a["mean_score"] is None else f"{a['mean_score']:.2f}"
        margin = "-" if a["mean_margin"] is None else f"{a['mean_margin']:+.2f}"
        lines.append(
            f"{a['agent']:<26}{a['games']:>6}{a['wins']:>6}{a['shared_first']:>7}{a['win_rate']:>9.1%}  {ci:<14}"
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


# -- the command ------------------------------------------------------------------------------------


def add_arguments(parser) -> None:  # noqa: ANN001
    """Arguments of `tabuleiro arena`."""
    parser.add_argument("game", help="game name, e.g. capivari_v0 (or capivari)")
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent specs, one per seat: random, heuristic, ismcts[:iterations=N|seconds=S], "
        "rllib:<checkpoint>; spec*n repeats one; with fewer than --players, the last fills the table",
    )
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--players", type=int, default=None, help="seats at the table (default: one per agent)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local processes (default: cores)")
    parser.add_argument("--ray-address", default=None, help="play as Ray tasks: auto, ray://host:port, or local")
    parser.add_argument("--json", default=None, metavar="FILE", help="write the full report as JSON")
    parser.add_argument("--png", default=None, metavar="FILE", help="write a chart of win rates and head-to-head")
    parser.add_argument("--replays", default=None, metavar="DIR", help="save every game as a replay in DIR")


def run(args) -> int:  # noqa: ANN001
    """`tabuleiro arena`."""
    import signal
    import sys

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind, so the worker pool is terminated too
    report = run_arena(
        args.game,
        parse_agents(args.agents),
        games=args.games,
        players=args.players,
        seed=args.seed,
        workers=args.workers,
        ray_address=args.ray_address,
        replays=args.replays,
    )
    print(format_report(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"report: {args.json}")
    if args.png:
        from benchmarks.arena_plot import plot_report

        plot_report(report, args.png)
        print(f"chart: {args.png}")
    return 0
