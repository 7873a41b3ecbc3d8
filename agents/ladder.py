"""A standing ladder: a fixed roster of agents plays round robin, every table of ``players`` distinct agents from
the roster one seat-rotated arena (``agents.arena.run_arena``), and one OpenSkill rating is computed over all the
games (``agents.results.summarize``; for two-player games also Elo, ``agents.elo``), so a new agent is placed by
adding it to the roster.
"""

import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import envs
from agents.arena import run_arena
from agents.compiled_policy import game_config_of, load_policy, observer_for
from agents.elo import elo_ratings, game_results
from agents.registry import check_spec, make_agent
from agents.results import places, summarize

# IS-MCTS at three fixed times per move, OpenSpiel's IS-MCTS at a fixed number of simulations (it has no clock)
ROSTER = (
    "random",
    "heuristic",
    "ismcts:seconds=0.01",
    "ismcts:seconds=0.04",
    "ismcts:seconds=0.16",
    "openspiel-ismcts:iterations=100",
)


# the shipped reference policy, alone and guiding search, join where the game's file fits the ladder's config
REFERENCE_ROSTER = ("policy:reference", "guided:reference,seconds=0.04")


def reference_fits(game: str, config: dict[str, Any] | None = None) -> bool:
    """Whether a reference policy is shipped for ``game`` and plays the config ``config`` makes (the file's own, or
    one that differs from it in observation options only)."""
    try:
        policy = load_policy("reference", game)
        observer_for(policy, envs.make(game, **(config or {})).game, "reference")
    except ValueError:
        return False
    return True


def roster_for(
    game: str,
    added: list[str] | None = None,
    config: dict[str, Any] | None = None,
    dropped: list[str] | None = None,
) -> list[str]:
    """The fixed roster, the reference agents where they fit (``reference_fits``), less each ``dropped`` spec (one
    not in them is a ValueError), then each added spec (checked; one already in the roster is not added twice)."""
    out = list(ROSTER) + (list(REFERENCE_ROSTER) if reference_fits(game, config) else [])
    for spec in dropped or []:
        if spec.strip() not in out:
            raise ValueError(f"--drop {spec!r}: not in the roster {out}")
        out.remove(spec.strip())
    for spec in added or []:
        check_spec(spec)
        if spec.strip() not in out:
            out.append(spec.strip())
    return out


def tables(roster: list[str], players: int) -> list[tuple[int, ...]]:
    """Every table of ``players`` distinct roster entries (indices), or the whole roster if it is smaller."""
    if len(roster) < players:
        raise ValueError(f"a ladder at {players} seats needs at least {players} agents, got {len(roster)}")
    return list(itertools.combinations(range(len(roster)), players))


def run_ladder(
    game: str,
    roster: list[str],
    games: int,
    players: int | None = None,
    seed: int = 0,
    workers: int = 1,
    config: dict[str, Any] | None = None,
    echo: Callable[[str], None] = print,
) -> dict[str, Any]:
    """``games`` games at every table of the round robin; the ratings, win rates and head-to-head over all of
    them. Ctrl-C or SIGTERM stops it: the report then holds the tables finished and ``interrupted``."""
    gid = envs.game_name(game)
    config = dict(config or {})
    env = envs.make(gid, **config)
    n = players or len(env.possible_agents)
    for spec in roster:  # an unknown agent, a bad budget, a missing policy file or one of another game: now
        agent = make_agent(spec, gid, seed)
        env.reset(seed=seed)
        agent.act(env.observe(env.agent_selection), env)
    records: list[dict[str, Any]] = []
    seconds = [0.0] * len(roster)
    moves = [0.0] * len(roster)
    done: list[list[str]] = []
    interrupted = None
    for t, table in enumerate(tables(roster, n)):
        specs = [roster[i] for i in table]
        echo(f"table {t + 1}: {', '.join(specs)}")
        try:
            r = run_arena(gid, specs, games, players=n, seed=seed + 1000 * t, workers=workers, config=config,
                          progress=False)  # fmt: skip
        except KeyboardInterrupt as exc:
            interrupted = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
            break
        for rec in r["records"]:
            records.append(rec | {"lineup": [table[who] for who in rec["lineup"]], "index": len(records)})
        for who, row in zip(table, r["agents"], strict=True):
            seconds[who] += row["seconds_per_move"] * row["games"]
            moves[who] += row["games"]
        done.append(specs)
    report = summarize(gid, roster, records) if records else {"agents": [], "head_to_head": []}
    elo = elo_of(gid, roster, records) if n == 2 and records else None
    for i, row in enumerate(report["agents"]):
        row["seconds_per_move"] = seconds[i] / moves[i] if moves[i] else None
        mu, sigma = row["rating"]["mu"], row["rating"]["sigma"]
        row["rating"]["ci95"] = [mu - 1.96 * sigma, mu + 1.96 * sigma]
        if elo is not None:
            row["elo"] = elo[i]
    return report | {
        "game": gid,
        "config": config,
        "players": n,
        "roster": roster,
        "games_per_table": games,
        "tables": done,
        "games": len(records),
        "seed": seed,
        "interrupted": interrupted,
    }


def elo_of(game: str, roster: list[str], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each roster agent's Elo over the two-player games ``records``, anchored at ``random`` (else the first)."""
    higher = envs.spec(game).game.higher_score_wins
    results = game_results(records, lambda g: places(g["returns"], g.get("scores"), higher))
    anchor = roster.index("random") if "random" in roster else 0
    return elo_ratings(len(roster), results, anchor=anchor)


def _elo_cell(e: dict[str, Any] | None) -> str:
    if e is None or e["elo"] is None:
        return "-"
    lo, hi = (f"{x:+.0f}" if math.isfinite(x) else ("-inf" if x < 0 else "+inf") for x in e["ci95"])
    return f"{e['elo']:+.0f} [{lo}, {hi}]"


def exploit_bounds(directory: str | Path, game: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The exploitability lower bounds of ``tabuleiro exploit --json`` reports in ``directory`` for ``game`` with
    ``config``, by agent spec: ``{"value", "ci95", "report"}``, the highest where several bound one agent.
    Reports of other games, configs or unfinished runs are passed over; ValueError for a directory that is not
    one, or a JSON file that is not a report."""
    d = Path(directory)
    if not d.is_dir():
        raise ValueError(f"--bounds {str(directory)!r} is not a directory")
    gid = envs.game_name(game)
    here = game_config_of(envs.make(gid, **(config or {})).game)
    out: dict[str, Any] = {}
    for path in sorted(d.glob("*.json")):
        try:
            r = json.loads(path.read_text())
            name, agent, report_config = r["game"], r["agent"], r["game_config"]
        except (ValueError, KeyError, TypeError, OSError) as exc:
            raise ValueError(f"{path} is not a `tabuleiro exploit --json` report: {exc}") from None
        if envs.game_name(name) != gid or "lower_bound" not in r:
            continue
        if game_config_of(envs.make(gid, **report_config).game) != here:
            continue
        b = r["lower_bound"]
        if agent not in out or float(b["value"]) > out[agent]["value"]:  # the highest lower bound is the tightest
            out[agent] = {"value": float(b["value"]), "ci95": [float(x) for x in b["ci95"]], "report": path.name}
    return out


def _bound_cell(b: dict[str, Any] | None) -> str:
    return "-" if b is None else f"{b['value']:+.3f} [{b['ci95'][0]:+.3f}, {b['ci95'][1]:+.3f}]"


def format_ladder(r: dict[str, Any]) -> str:
    """The ladder's table, best rating first (with each agent's exploitability bound where one was given)."""
    bounds = any(a.get("exploitability") for a in r["agents"])
    name = max([34, *(len(a["agent"]) + 2 for a in r["agents"])])  # long agent specs widen the column
    lines = [
        f"{r['game']}: {r['games']} games, {len(r['tables'])} tables of {r['players']}, seed {r['seed']}",
        f"{'agent':<{name}}{'rating mu':>10}  {'95% (mu +- 1.96 sigma)':<22}{'games':>6}{'win rate':>9}  {'95% CI':<15}"
        f"{'s/move':>8}"
        + (f"  {'Elo [95%]':<20}" if r["players"] == 2 else "")
        + ("  exploitability bound [95%]" if bounds else ""),
    ]
    for a in sorted(r["agents"], key=lambda a: -a["rating"]["mu"]):
        lo, hi = a["rating"]["ci95"]
        wlo, whi = a["win_rate_ci95"]
        spm = "-" if a["seconds_per_move"] is None else f"{a['seconds_per_move']:.3f}"
        lines.append(
            f"{a['agent']:<{name}}{a['rating']['mu']:>10.1f}  {f'[{lo:.1f}, {hi:.1f}]':<22}{a['games']:>6}"
            f"{a['win_rate']:>9.1%}  {f'[{wlo:.1%}, {whi:.1%}]':<15}{spm:>8}"
            + (f"  {_elo_cell(a.get('elo')):<20}" if r["players"] == 2 else "")
            + (f"  {_bound_cell(a.get('exploitability'))}" if bounds else "")
        )
    if r.get("interrupted"):
        lines.append(f"stopped by {r['interrupted']} after {len(r['tables'])} table(s)")
    return "\n".join(lines)
