"""Self-play bookkeeping: per-opponent win rates and scores, and the pool of frozen snapshots of "main".

The env runners (``training.env_runner.PoolEnvRunner``) count games, wins and score per opponent kind
as sums, so several env runners add up exactly; ``SelfPlayCallbacks`` runs in the driver
(``on_train_result``: turn the sums into ``result["selfplay"][kind]`` = games, win_rate, mean_score,
and freeze a snapshot of main when it beats the current gate often enough). Win rate, not
``episode_return_mean``: in a zero-sum game the latter sums to about zero whatever happens.
"""

import json
import math
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import DEFAULT_MODULE_ID

from training.env_runner import METRIC_ROOT

GATE_WINDOW = 400  # games per gate kind the snapshot decision looks back over


def _count(x: Any) -> float:
    """A summed metric as a float; an iteration without the event reports None or NaN, which is 0 here."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(x) else x


class League:
    """The driver's view of the pool: snapshot weights, the snapshot rule, and game counts for the gate."""

    def __init__(self, threshold: float = 0.6, min_games: int = 200, max_snapshots: int = 6) -> None:
        self.threshold = threshold
        self.min_games = min_games
        self.max_snapshots = max_snapshots
        self.snapshots: dict[str, dict[str, np.ndarray]] = {}
        self.next_id = 1
        self.history: list[dict[str, Any]] = []  # one entry per snapshot taken: iteration, gate win rates
        self._recent: dict[str, deque] = {}  # gate kind -> recent per-iteration (games, wins)

    # counting -------------------------------------------------------------------
    def record(self, per_kind: dict[str, dict[str, float]]) -> None:
        for kind, m in per_kind.items():
            self._recent.setdefault(kind, deque(maxlen=64)).append((m["games"], m["wins"]))

    def recent_win_rate(self, kind: str) -> tuple[float, int]:
        """Win rate vs ``kind`` over about the last ``GATE_WINDOW`` games (and how many games that is)."""
        games = wins = 0.0
        for g, w in reversed(self._recent.get(kind, ())):
            games, wins = games + g, wins + w
            if games >= GATE_WINDOW:
                break
        return (wins / games if games else 0.0), int(games)

    def gate_kinds(self, available: set[str]) -> list[str]:
        """Who main must beat before the next snapshot: the heuristic and the snapshots, else random."""
        gates = [k for k in ("heuristic", "snapshot") if k in available]
        return gates or ["random"]

    def ready(self, available: set[str]) -> bool:
        for kind in self.gate_kinds(available):
            rate, games = self.recent_win_rate(kind)
            if games < self.min_games or rate < self.threshold:
                return False
        return True

    # snapshots ------------------------------------------------------------------
    def add(self, weights: dict[str, np.ndarray], iteration: int) -> tuple[str, str | None]:
        """Keep a snapshot; returns (its name, the name of the oldest one dropped to stay under the cap)."""
        name = f"main_v{self.next_id}"
        self.next_id += 1
        self.snapshots[name] = {k: np.array(v, copy=True) for k, v in weights.items()}
        gates = {k: self.recent_win_rate(k)[0] for k in self._recent}
        self.history.append({"name": name, "iteration": iteration, "win_rates": gates})
        self._recent.pop("snapshot", None)  # the new snapshot resets the gate against snapshots
        dropped = None
        if len(self.snapshots) > self.max_snapshots:
            dropped = next(iter(self.snapshots))
            del self.snapshots[dropped]
        return name, dropped

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name, w in self.snapshots.items():
            np.savez(folder / f"{name}.npz", **w)
        meta = {
            "threshold": self.threshold,
            "min_games": self.min_games,
            "max_snapshots": self.max_snapshots,
            "next_id": self.next_id,
            "snapshots": list(self.snapshots),
            "history": self.history,
        }
        (folder / "pool.json").write_text(json.dumps(meta, indent=1))

    def load(self, folder: str | Path) -> None:
        folder = Path(folder)
        meta = json.loads((folder / "pool.json").read_text())
        self.next_id = int(meta["next_id"])
        self.history = list(meta["history"])
        self.snapshots = {}
        for name in meta["snapshots"]:
            with np.load(folder / f"{name}.npz") as z:
                self.snapshots[name] = {k: z[k] for k in z.files}


class SelfPlayCallbacks(RLlibCallback):
    """Counts results per opponent kind (env runners) and runs the snapshot league (driver)."""

    def __init__(self) -> None:
        super().__init__()
        self.league = League()

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        """Driver: the snapshot rule's settings come from ``env_config["league"]``."""
        self.league = League(**dict(algorithm.config.env_config.get("league") or {}))

    # driver ---------------------------------------------------------------------
    def on_train_result(self, *, algorithm: Any, result: dict, metrics_logger: Any = None, **kwargs: Any) -> None:
        raw = result.get("env_runners", {}).get(METRIC_ROOT, {})
        summary: dict[str, dict[str, float]] = {}
        for kind, m in raw.items():
            if not isinstance(m, dict):
                continue
            games = _count(m.get("games"))
            if not games:
                continue
            row = {"games": games}
            if "wins" in m:
                wins, score = _count(m["wins"]), _count(m.get("score"))
                row |= {"wins": wins, "win_rate": wins / games, "mean_score": score / games}
            summary[kind] = row
        self.league.record({k: v for k, v in summary.items() if "wins" in v})
        available = set(summary)
        snapshot = None
        if self.league.ready(available):
            snapshot = self.take_snapshot(algorithm)
        rated = [v for v in summary.values() if "wins" in v]
        games = sum(v["games"] for v in rated)
        result[METRIC_ROOT] = {
            # over every game of the iteration: the one number a sweep can rank by
            "win_rate": sum(v["wins"] for v in rated) / games if games else 0.0,
            "opponents": summary,
            "learner_decisions": _count(raw.get("learner_decisions")),
            "decisions": _count(raw.get("decisions")),
            "outside_decisions": _count(raw.get("outside_decisions")),
            "sample_s": _count(raw.get("sample_s")),
            "snapshots": list(self.league.snapshots),
            "new_snapshot": snapshot,
        }

    def take_snapshot(self, algorithm: Any) -> str:
        """Freeze main's current weights into the pool of every env runner."""
        weights = algorithm.learner_group.get_weights(module_ids=[DEFAULT_MODULE_ID])[DEFAULT_MODULE_ID]
        name, dropped = self.league.add(weights, int(algorithm.iteration))
        self.broadcast(algorithm, name, dropped)
        return name

    def broadcast(self, algorithm: Any, name: str, dropped: str | None = None) -> None:
        weights = self.league.snapshots[name]
        group = algorithm.env_runner_group
        group.foreach_env_runner(lambda r: r.install_snapshot(name, weights))
        if dropped:
            group.foreach_env_runner(lambda r: r.drop_snapshot(dropped))

    def restore_pool(self, algorithm: Any, folder: str | Path) -> None:
        """After a resume: reload the saved pool and hand every snapshot to the env runners again."""
        if (Path(folder) / "pool.json").is_file():
            self.league.load(folder)
            for name in self.league.snapshots:
                self.broadcast(algorithm, name)


def selfplay_callbacks(algorithm: Any) -> SelfPlayCallbacks:
    """The algorithm's ``SelfPlayCallbacks`` instance (driver side)."""
    cbs = algorithm.callbacks if isinstance(algorithm.callbacks, list) else [algorithm.callbacks]
    for cb in cbs:
        if isinstance(cb, SelfPlayCallbacks):
            return cb
    raise ValueError("this algorithm was not built with SelfPlayCallbacks")
