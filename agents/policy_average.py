"""Policy files averaged weight by weight: the mean of several policies of one layout, as one policy file.

Averaging the weights a run passes through late in training (stochastic weight averaging, Izmailov et al.
2018, "Averaging Weights Leads to Wider Optima and Better Generalization"; for reinforcement learning, Nikishin
et al. 2018) gives a policy that is often stronger than the last one (docs/reference-agents.md, "Averaged weights").
``tabuleiro average`` averages files; ``tabuleiro train --set average_after_minutes=M`` keeps a running mean of
the policy files it writes after M minutes of training (``add_to_average``). A file that is itself a mean
(``averaged`` = k) counts as k policies, so a running mean and a mean of all the files agree.
"""

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.compiled_policy import AVERAGED, HEADER, check_arrays, read_arrays, save_policy

AVERAGE_FILE = "policy-average.npz"  # the running mean `tabuleiro train` keeps beside policy.npz


def averaged_count(arrays: dict[str, np.ndarray]) -> int:
    """How many policies a file's weights are the mean of (1 for a plain policy file)."""
    return int(arrays[AVERAGED]) if AVERAGED in arrays else 1


def average_arrays(files: list[dict[str, np.ndarray]], sources: list[str]) -> dict[str, np.ndarray]:
    """The weighted mean (by ``averaged_count``) of checked policy arrays of one game, config, observation and
    model layout; ValueError naming the first file that differs from the first one, or has another key set."""
    if not files:
        raise ValueError("no policy files to average")
    for arrays, source in zip(files, sources, strict=True):
        check_arrays(arrays, source)
    first, first_source = files[0], sources[0]
    weights = set(first) - set(HEADER) - {AVERAGED}
    for arrays, source in zip(files[1:], sources[1:], strict=True):
        for key in HEADER:
            if str(arrays[key][()]) != str(first[key][()]):
                raise ValueError(f"cannot average {source} with {first_source}: their {key!r} differ")
        if set(arrays) - set(HEADER) - {AVERAGED} != weights:
            raise ValueError(f"cannot average {source} with {first_source}: their weights differ in name")
    counts = np.array([averaged_count(a) for a in files], np.float64)
    out = {key: first[key] for key in HEADER}
    for key in sorted(weights):
        stacked = np.stack([a[key].astype(np.float64) for a in files])  # same shapes: check_arrays checked the layout
        out[key] = (np.tensordot(counts, stacked, axes=1) / counts.sum()).astype(np.float32)
    out[AVERAGED] = np.array(int(counts.sum()), np.int64)
    return out


def write_average(paths: list[str | os.PathLike], out: str | os.PathLike) -> dict[str, np.ndarray]:
    """Write the mean of the policy files ``paths`` to ``out`` (a temporary file renamed into place); its arrays."""
    mean = average_arrays([read_arrays(p) for p in paths], [repr(str(p)) for p in paths])
    save_policy(mean, out)
    return mean


def add_to_average(average: str | os.PathLike, policy: str | os.PathLike) -> int:
    """Fold the policy file ``policy`` into the running mean ``average`` (created if missing); the number of
    policies the mean now holds."""
    return averaged_count(write_average([average, policy] if Path(average).is_file() else [policy], average))


def average_beside(exported: Path | None, after_minutes: float | None, elapsed_s: float, echo: Callable) -> None:
    """Fold the policy file just written (``exported``) into ``policy-average.npz`` beside it once ``after_minutes``
    of training have passed (``--set average_after_minutes``); a failure is said (``echo``), not raised: the run's
    checkpoint is saved either way."""
    if exported is None or after_minutes is None or elapsed_s < 60.0 * after_minutes:
        return
    try:
        count = add_to_average(exported.parent / AVERAGE_FILE, exported)
    except (ValueError, OSError) as exc:
        echo(f"{AVERAGE_FILE} not updated: {exc}")
        return
    echo(f"{AVERAGE_FILE}: the mean of {count} policies (since minute {after_minutes:g})")
