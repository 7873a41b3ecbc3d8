"""A lower bound on an agent's exploitability from a fixed challenger instead of a trained best response.

The challenger plays every seat in turn against the agent in the others, through the arena (each deal once
with the challenger in each seat). Any policy's expected return against the agent is at most the best
response's, so on OpenSpiel's scale the mean over seats of the challenger's returns, less the utility sum over
seats, bounds the exploitability from below, as a trained best response's does (``benchmarks.exploitability``).
"""

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import envs
from agents.arena import MAX_GAMES, run_arena
from benchmarks.exploitability import echoed_self_play, exact_if_asked, report
from training.best_response import Z95, summary


def seat_results(records: list[dict[str, Any]], players: int) -> tuple[list[dict[str, Any]], np.ndarray]:
    """From the arena's records (participant 0 the challenger), the deals every seat of which finished: each
    seat's summary of the challenger's returns there, and the challenger's mean return over seats per deal."""
    by_deal: dict[int, dict[int, tuple[float, bool]]] = {}
    for r in records:
        seat = r["lineup"].index(0)
        mine = float(r["returns"][seat])
        others = [float(x) for k, x in enumerate(r["returns"]) if k != seat]
        by_deal.setdefault(r["index"] // players, {})[seat] = (mine, mine > max(others))
    deals = [d for _, d in sorted(by_deal.items()) if len(d) == players]
    seats = []
    for seat in range(players):
        returns = np.array([d[seat][0] for d in deals], np.float64)
        wins = np.array([d[seat][1] for d in deals], bool)
        final = summary(returns, wins) if deals else None
        seats.append({"seat": seat, "iterations": 0, "train_seconds": 0.0, "curve": [], "final": final})
    per_deal = np.array([np.mean([d[s][0] for s in range(players)]) for d in deals], np.float64)
    return seats, per_deal


def paired_bound(per_deal: np.ndarray, utility_sum: float, players: int) -> dict[str, Any]:
    """The bound from the per-deal means over seats, its 95% interval from their spread: the seats of one
    deal share its cards or tiles, so they are not independent samples."""
    value = float(per_deal.mean()) - utility_sum / players
    k = per_deal.size
    half = Z95 * float(per_deal.std(ddof=1)) / math.sqrt(k) if k > 1 else math.inf
    return {"value": value, "ci95": [value - half, value + half], "scale": "OpenSpiel exploitability", "deals": k}


def challenge(
    game: str,
    spec: str,
    challenger: str,
    games: int,
    game_config: dict[str, Any] | None = None,
    seed: int = 0,
    workers: int = 1,
    selfplay_games: int = 0,
    with_exact: bool | None = None,
    echo: Callable[[str], None] = print,
    progress: bool = True,
) -> dict[str, Any]:
    """``games`` deals with ``challenger`` in each seat in turn and ``spec`` in the others: the report of
    ``benchmarks.exploitability.report`` with ``challenger`` set and the bound paired over deals (the exact value
    as ``benchmarks.exploitability.run`` computes it). Ctrl-C or SIGTERM stops the games: the report holds the
    deals every seat of which finished, and ``interrupted``."""
    gid = envs.game_name(game)
    game_config = dict(game_config or {})
    g = envs.make(gid, **game_config).game
    n = g.num_players
    if games * n > MAX_GAMES:
        raise ValueError(f"{games} deals x {n} seats is more games than the arena plays in one run ({MAX_GAMES:,})")
    t_start = time.perf_counter()
    selfplay = arena = interrupted = exact_value = None
    try:
        exact_value = exact_if_asked(spec, gid, game_config, seed, with_exact, echo)
        selfplay = echoed_self_play(spec, gid, game_config, selfplay_games, seed, echo)
        echo(f"{challenger} in each of {n} seats against {spec}: {games} deals, {games * n} games")
        lineup = [challenger] + [spec] * (n - 1)
        arena = run_arena(
            gid, lineup, games * n, players=n, seed=seed, workers=workers, config=game_config, progress=progress
        )
    except KeyboardInterrupt as exc:
        interrupted = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
        arena = getattr(exc, "partial_report", None)
    seats, per_deal = seat_results(arena["records"] if arena else [], n)
    out = report(gid, game_config, spec, seats, selfplay, exact_value)
    utility_sum = g.returns_sum()
    if "lower_bound" in out and utility_sum is not None:
        out["lower_bound"] = paired_bound(per_deal, utility_sum, n)
    out["challenger"] = challenger
    out["seconds_per_move"] = {a["agent"]: a["seconds_per_move"] for a in arena["agents"]} if arena else {}
    out["minutes"] = None
    out["seed"] = seed
    out["init"] = None
    out["wall_seconds"] = round(time.perf_counter() - t_start, 1)
    if interrupted:
        out["interrupted"] = interrupted
    return out
