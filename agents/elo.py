"""Elo ratings of a two-player tournament by maximum likelihood (the Bradley-Terry model on Elo's scale), with
95% intervals from the likelihood's curvature.

Each game scores 1 for a win, 1/2 for a draw, 0 for a loss. The anchor agent (random, where it plays) is fixed at
0; every pair that met gets one virtual draw (a weak prior that keeps an unbeaten agent's rating finite). An agent
that never lost has no upper end (``+inf``), one that never won no lower end (``-inf``): the data bound them on
one side only.
"""

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

ELO_PER_LOGIT = 400.0 / math.log(10.0)  # Elo's scale: 400 points is 10:1 odds
Z95 = 1.959963984540054
PRIOR_DRAWS = 1.0  # virtual draws between every pair that met


def pair_scores(n: int, results: Sequence[tuple[int, int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """From ``(a, b, score of a)`` games: games[a, b] between each pair and score[a, b], a's points against b."""
    games = np.zeros((n, n))
    score = np.zeros((n, n))
    for a, b, s in results:
        if a == b:
            continue  # an agent against itself says nothing about its rating
        if not 0.0 <= s <= 1.0:
            raise ValueError(f"a game's score must be in [0, 1], got {s}")
        games[a, b] += 1
        games[b, a] += 1
        score[a, b] += s
        score[b, a] += 1.0 - s
    return games, score


def elo_ratings(n: int, results: Sequence[tuple[int, int, float]], anchor: int = 0) -> list[dict[str, Any]]:
    """Each of ``n`` agents' Elo (``anchor`` at 0) with its 95% interval, from ``(a, b, score of a)`` games.
    An agent with no path of games to the anchor gets None."""
    if not 0 <= anchor < n:
        raise ValueError(f"anchor must be in 0..{n - 1}, got {anchor}")
    games, score = pair_scores(n, results)
    met = games > 0
    games = games + PRIOR_DRAWS * met
    score = score + 0.5 * PRIOR_DRAWS * met
    linked = _linked_to(anchor, met)
    free = [i for i in range(n) if i != anchor and linked[i]]
    r = np.zeros(n)
    cov = np.zeros((0, 0))
    for _ in range(100):  # Newton's method on the concave log-likelihood
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        grad = (score - games * p).sum(axis=1)
        w = games * p * (1.0 - p)
        hess = np.diag(w.sum(axis=1)) - w  # minus the Hessian
        if not free:
            break
        sub = hess[np.ix_(free, free)]
        cov = np.linalg.inv(sub)
        step = cov @ grad[free]
        r[free] += step
        if np.abs(step).max() < 1e-10:
            break
    wins = score - 0.5 * PRIOR_DRAWS * met  # the real points, without the prior
    real = games - PRIOR_DRAWS * met
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i == anchor:
            out.append({"elo": 0.0, "ci95": [0.0, 0.0], "games": int(real[i].sum())})
            continue
        if not linked[i]:
            out.append({"elo": None, "ci95": [None, None], "games": int(real[i].sum())})
            continue
        k = free.index(i)
        half = Z95 * math.sqrt(cov[k, k]) * ELO_PER_LOGIT
        elo = r[i] * ELO_PER_LOGIT
        lo = -math.inf if wins[i].sum() == 0 else elo - half
        hi = math.inf if wins[i].sum() == real[i].sum() else elo + half
        out.append({"elo": float(elo), "ci95": [float(lo), float(hi)], "games": int(real[i].sum())})
    return out


def _linked_to(anchor: int, met: np.ndarray) -> list[bool]:
    """Which agents a chain of games joins to the anchor."""
    seen = [False] * met.shape[0]
    seen[anchor] = True
    todo = [anchor]
    while todo:
        a = todo.pop()
        for b in np.flatnonzero(met[a]):
            if not seen[b]:
                seen[b] = True
                todo.append(int(b))
    return seen


def game_results(
    records: Sequence[dict[str, Any]], places_of: Callable[[dict[str, Any]], Sequence[int]]
) -> list[tuple[int, int, float]]:
    """``(seat 0's agent, seat 1's agent, seat 0's score)`` of each two-seat game record (``lineup``, ``returns``,
    ``scores``); ``places_of(record)`` gives the seats' places (1 = best, shared on a draw)."""
    out = []
    for g in records:
        a, b = g["lineup"]
        pa, pb = places_of(g)
        out.append((a, b, 1.0 if pa < pb else 0.5 if pa == pb else 0.0))
    return out
