"""A search agent's budget per move: iterations (reproducible) or seconds (not), checked before any search, and
spent in compiled calls, one clock check each under a time budget.

Both bounds keep a runaway setting from filling the memory (a search tree grows with every iteration) while fitting
any practical search. The messages name the agent (``ismcts``, ``guided``, ...), as its spec is written.
"""

import math
import time
from collections.abc import Callable
from typing import Any

MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 600.0


def check_iterations(agent: str, iterations: Any) -> None:
    """ValueError naming ``agent`` unless ``iterations`` is None or an int in 1..MAX_ITERATIONS."""
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS
    ):
        raise ValueError(f"{agent} iterations must be a positive int, at most {MAX_ITERATIONS:,}; got {iterations!r}")


def check_budget(agent: str, iterations: Any = None, seconds: Any = None) -> None:
    """ValueError naming ``agent`` unless the budget is iterations in 1..MAX_ITERATIONS or seconds in
    (0, MAX_SECONDS] (finite), not both."""
    if iterations is not None and seconds is not None:
        raise ValueError(f"{agent} takes a budget of iterations or of seconds, not both")
    check_iterations(agent, iterations)
    if seconds is not None and not (
        isinstance(seconds, (int, float)) and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS
    ):
        raise ValueError(f"{agent} seconds must be > 0 and at most {MAX_SECONDS:g} (finite), got {seconds!r}")


def check_bounded(agent: str, name: str, value: Any, hi: float) -> None:
    """ValueError naming ``agent`` and the option ``name`` unless ``value`` is None or finite in [0, hi]."""
    if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= hi):
        raise ValueError(f"{agent} {name} must be >= 0 and at most {hi:g} (finite), got {value!r}")


CALL_SECONDS = 0.001  # under a time budget, each compiled call is sized to run about this long (or what is left)


def spend(iterations: int | None, seconds: float | None, chunk: int, run: Callable[[int, int], int]) -> int:
    """Spend a budget: ``run(done, count)`` runs up to ``count`` iterations after the ``done`` ones and returns how
    many it ran; it is called until ``iterations`` are done, or with ``seconds`` until that many seconds have
    passed: ``chunk`` iterations first, then as many as the rate so far fits in ``CALL_SECONDS`` or in the time
    left, whichever is shorter (few calls, each a clock check, and little time past the deadline). Returns the
    iterations done."""
    if seconds is None:
        done = 0
        while done < iterations:
            done += run(done, iterations - done)
        return done
    start = time.perf_counter()
    deadline = start + seconds
    done = 0
    count = chunk
    while True:
        done += run(done, count)
        now = time.perf_counter()
        if now >= deadline:
            return done
        rate = done / (now - start) if now > start else 0.0
        count = max(1, int(rate * min(CALL_SECONDS, deadline - now))) if done > 0 else chunk
