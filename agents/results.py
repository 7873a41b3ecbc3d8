"""Tournament statistics: win rates with Wilson intervals, scores, margins, head-to-head, OpenSkill ratings.

Input is a list of finished games, each a dict with ``lineup`` (participant index in each
seat), ``returns`` (each seat's total reward) and ``scores`` (each seat's final score from
the game's own pad: ``Game.final_scores``, or None). Places come from the returns (the game's own outcome), then
the final scores (which order the players a rank reward leaves tied); a participant
*wins* a game when it alone has the best place, and *shares first* when others tie with it.
"""

import math
from collections.abc import Sequence
from typing import Any

from openskill.models import PlackettLuce

import envs


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% for the default z); (0, 1) for no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends (rounding would miss them)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return (lo, hi)


def places(returns: Sequence[float], scores: Sequence[float] | None = None, higher_is_better: bool = True) -> list[int]:
    """Competition ranking, 1 = best: by return, then by final score; equal keys share a place (1, 1, 3)."""
    sign = 1.0 if higher_is_better else -1.0
    keys = [(r, 0.0 if scores is None else sign * s) for r, s in zip(returns, scores or returns, strict=True)]
    return [1 + sum(k > mine for k in keys) for mine in keys]


def margins(scores: Sequence[float], higher_is_better: bool) -> list[float]:
    """Each seat's score minus the best other seat's score, signed so that positive means ahead."""
    out = []
    for i, mine in enumerate(scores):
        others = [s for j, s in enumerate(scores) if j != i]
        if higher_is_better:
            out.append(mine - max(others))
        else:
            out.append(min(others) - mine)
    return out


def summarize(game: str, participants: Sequence[str], games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-participant results, the head-to-head matrix and OpenSkill ratings of a finished tournament."""
    n = len(participants)
    higher = envs.spec(game).game.higher_score_wins
    played = [0] * n
    wins = [0] * n
    shared = [0] * n
    score_sum = [0.0] * n
    margin_sum = [0.0] * n
    scored = [0] * n
    place_sum = [0.0] * n
    ahead = [[0.0] * n for _ in range(n)]
    met = [[0] * n for _ in range(n)]
    for g in games:
        lineup, returns = g["lineup"], g["returns"]
        place = places(returns, g.get("scores"), higher)
        firsts = place.count(1)
        for seat, who in enumerate(lineup):
            played[who] += 1
            place_sum[who] += place[seat]
            if place[seat] == 1:
                if firsts == 1:
                    wins[who] += 1
                else:
                    shared[who] += 1
        if g.get("scores") is not None:
            for seat, m in enumerate(margins(g["scores"], higher)):
                who = lineup[seat]
                scored[who] += 1
                score_sum[who] += g["scores"][seat]
                margin_sum[who] += m
        for a, pa in enumerate(lineup):
            for b, pb in enumerate(lineup):
                if a != b and pa != pb:
                    met[pa][pb] += 1
                    ahead[pa][pb] += 1.0 if place[a] < place[b] else 0.5 if place[a] == place[b] else 0.0
    ratings = openskill_ratings(n, games, higher)
    table = []
    for i, name in enumerate(participants):
        lo, hi = wilson_interval(wins[i], played[i])
        table.append(
            {
                "agent": name,
                "games": played[i],
                "wins": wins[i],
                "shared_first": shared[i],
                "win_rate": wins[i] / played[i] if played[i] else 0.0,
                "win_rate_ci95": [lo, hi],
                "mean_place": place_sum[i] / played[i] if played[i] else None,
                "mean_score": score_sum[i] / scored[i] if scored[i] else None,
                "mean_margin": margin_sum[i] / scored[i] if scored[i] else None,
                "rating": ratings[i],
            }
        )
    matrix = [[ahead[i][j] / met[i][j] if met[i][j] else None for j in range(n)] for i in range(n)]
    return {"agents": table, "head_to_head": matrix, "score_higher_is_better": higher}


def openskill_ratings(n: int, games: Sequence[dict[str, Any]], higher_is_better: bool = True) -> list[dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings after every game in order; each participant's mu, sigma, ordinal."""
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(n)]
    for g in games:
        lineup = g["lineup"]
        if len(set(lineup)) < len(lineup):  # one participant in two seats: no rating information
            continue
        ranks = places(g["returns"], g.get("scores"), higher_is_better)
        updated = model.rate([[ratings[who]] for who in lineup], ranks=ranks)
        for who, team in zip(lineup, updated, strict=True):
            ratings[who] = team[0]
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for r in ratings]
