"""A best response to a frozen agent, trained by PPO in one seat of the compiled vector env: one seat's share of
exploitability's lower bound (Timbers et al. 2020, "approximate best responses").

The agent holds every other seat. ``random``, ``heuristic`` and ``policy:`` files play inside the compiled kernel
(the opponent pool's own slots); any other agent (IS-MCTS, ``guided:``, ``rllib:`` files, OpenSpiel's IS-MCTS) is
an outside opponent of the vector env, decided in Python by ``AgentPolicy`` from each waiting game's record. The
learner is ``tabuleiro train``'s (``training.config.build_config``) with the game's best-response preset
(``BR_PRESETS``) and no snapshots of itself. Its greedy (argmax) play is then measured against the agent in the
same vector env. ``warm_start`` and ``load_weights`` start the learner from a policy file instead of from scratch.
"""

import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

import envs
from agents.compiled_policy import check_arrays, game_config_of, plays_game, policy_path, read_arrays
from agents.registry import make_agent, parse_spec, pop_solve
from agents.results import wilson_interval
from agents.table_view import TableView
from training.opponents import PoolWeights
from training.vector_env import GameVectorEnv

BR_ENV = "tabuleiro_best_response"
AGENT = "agent"  # the outside agent's name in the vector env's pool (a snapshot slot)
IN_KERNEL = ("random", "heuristic", "policy")  # agents the compiled kernel plays itself (policy: any file)
EVAL_SALT = 0x0E7A_15EED  # the evaluation's games: seeds apart from training's
Z95 = 1.959963984540054

# per game, the learner's settings over the training preset: a best response to a fixed opponent needs no
# league, and a tiny game learns faster with many games an iteration, a higher rate and no entropy bonus
BR_PRESETS: dict[str, dict[str, Any]] = {
    "kuhn_poker_v0": {
        "num_envs_per_env_runner": 1024,
        "train_batch_size": 4096,
        "minibatch_size": 1024,
        "num_epochs": 4,
        "lr": 3e-3,
        "entropy_coeff": 0.0,
        "gamma": 1.0,
        "lambda_": 1.0,
        "hiddens": (64, 64),
    },
}


def in_kernel(spec: str) -> bool:
    """Whether the compiled kernel plays the agent itself: ``random``, ``heuristic`` (no options) or ``policy:``
    (not with ``solve=true``: the solver runs outside the kernel)."""
    name, _, options = parse_spec(spec)
    if pop_solve(options):
        return False
    return name in IN_KERNEL and (name == "policy" or not options)


def pool_for(spec: str, outside: bool = False) -> PoolWeights:
    """The vector env's pool for the agent: its in-kernel slot, or the outside (snapshot) slot."""
    name = parse_spec(spec)[0]
    if in_kernel(spec) and not outside:
        return PoolWeights(**{k: float(k == name) for k in ("random", "heuristic", "policy", "snapshot", "self")})
    return PoolWeights(random=0.0, heuristic=0.0, snapshot=1.0, self=0.0)


def br_settings(
    game: str, game_config: dict[str, Any], spec: str, seed: int, overrides: dict[str, Any] | None = None
) -> Any:
    """``TrainSettings`` of the best response: the game's training preset, its ``BR_PRESETS`` entry, then
    ``overrides``; the pool is the agent alone and the snapshot gate is out of reach (no snapshots)."""
    from training.config import settings_for  # optional heavy: ray

    gid = envs.game_name(game)
    preset = {**BR_PRESETS.get(gid, {}), **(overrides or {})}
    settings = settings_for(gid, game_config=game_config, seed=seed, **{k: v for k, v in preset.items() if k != "pool"})
    name, path, _ = parse_spec(spec)
    policy_file = path if name == "policy" and in_kernel(spec) else None  # the kernel's policy slot plays it
    return replace(settings, pool=pool_for(spec), opponent_policy=policy_file, snapshot_threshold=2.0, shaping=None)


class AgentPolicy:
    """An arena agent as the vector env's outside policy: one ``act`` per waiting game, on that game's record."""

    def __init__(self, env: "SeatVectorEnv", agent: Any) -> None:
        self.env = env
        self.agent = agent
        self.view = TableView(env.game, [f"player_{i}" for i in range(env.num_players)])

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        rows, game_masks = self.env.acting, self.env.acting_masks  # the agent plays the game's own actions
        out = np.empty(rows.size, np.int64)
        for j, i in enumerate(rows):
            self.view.core_state = self.env.batch.states[i]
            observation = {"observation": obs[j], "action_mask": game_masks[j].astype(np.int8)}
            out[j] = self.agent.act(observation, self.view)
        candidates = self.env.candidates
        return out if candidates is None else candidates.choices(game_masks, out)


class SeatVectorEnv(GameVectorEnv):
    """``GameVectorEnv`` with the learner in seat ``seat`` of every game and the agent ``spec`` in the others
    (inside the kernel when it can be, else, or with ``outside=True``, as the outside opponent ``AGENT``).
    ``keep_results()`` then ``results()``: the learner's return and win (strictly first) in each game finished
    since."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        seat: int,
        spec: str,
        agent_seed: int = 0,
        outside: bool = False,
        **kwargs: Any,
    ) -> None:
        pool = {k: v for k, v in vars(pool_for(spec, outside)).items() if v > 0}
        if "policy" in pool:  # the file's own argmax or sample, as the arena plays it
            agent = make_agent(spec, envs.game_name(game), seed=agent_seed)
            kwargs |= {"opponent_policy": agent.policy, "opponent_greedy": not agent.sample}
        super().__init__(game, num_envs, opponents=pool, **kwargs)
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be in 0..{self.num_players - 1}, got {seat}")
        self.learner_seats[:] = seat
        self.acting = np.zeros(0, np.int64)  # the games an outside policy is acting in (rows of its batch)
        self._kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
        self.acting_masks = np.zeros((0, self.game.num_actions), np.int8)  # their game masks
        if outside or not in_kernel(spec):
            self.add_snapshot(AGENT, AgentPolicy(self, make_agent(spec, self.game.name, seed=agent_seed)))

    def _act(self, sel: np.ndarray, outside: np.ndarray, policy: Any, who: str) -> None:
        self.acting, self.acting_masks = np.flatnonzero(sel), self._outside_masks[sel]
        super()._act(sel, outside, policy, who)

    def keep_results(self) -> None:
        self._kept = []

    def results(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(game indices, learner returns, wins) of each step since ``keep_results``."""
        return list(self._kept or [])

    def _count_finished(self, finished: np.ndarray) -> None:
        if self._kept is not None and finished.any():
            idx = np.flatnonzero(finished)
            seats = self.learner_seats[idx]
            mine = self._returns[idx, seats]
            others = self._returns[idx, : self.num_players].copy()
            others[np.arange(idx.size), seats] = -np.inf
            self._kept.append((idx, mine.copy(), mine > others.max(axis=1)))
        super()._count_finished(finished)


def make_br_env(env_config: dict[str, Any]) -> SeatVectorEnv:
    """RLlib's env factory for ``BR_ENV`` (``env_config`` of ``br_config`` plus the game's)."""
    return SeatVectorEnv(
        env_config["game"],
        int(env_config.get("num_envs", 1)),
        seat=int(env_config["seat"]),
        spec=env_config["agent"],
        agent_seed=int(env_config.get("agent_seed", 0)),
        threads=int(env_config.get("threads", 1)),
        candidate_actions=env_config.get("candidate_actions"),
        **dict(env_config.get("game_config") or {}),
    )


def warm_start(path: str, game: str, game_config: dict[str, Any]) -> tuple[dict[str, np.ndarray], str]:
    """A policy file's checked arrays (``reference``, a run folder or a file) to start the best response from,
    with its path; ValueError if it was exported for another game or config."""
    p = policy_path(path, game)
    source = repr(str(p))
    arrays = read_arrays(p)
    info = check_arrays(arrays, source)
    played = envs.make(envs.game_name(game), **game_config).game
    if not plays_game(info, played):
        raise ValueError(
            f"{source} was exported for {info.game} with config {info.game_config}; the best response plays "
            f"{played.name} with config {game_config_of(played)} (give the same --config)"
        )
    return arrays, str(p)


def load_weights(algo: Any, arrays: dict[str, np.ndarray], path: str) -> None:
    """Start ``algo``'s learner and its sampling module from a policy file's weights (``warm_start``)."""
    source = repr(path)
    from ray.rllib.core import DEFAULT_MODULE_ID  # optional heavy: ray

    from training.export import load_module_arrays

    algo.learner_group.foreach_learner(
        lambda learner: load_module_arrays(learner.module[DEFAULT_MODULE_ID], arrays, source)
    )
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)


def br_config(settings: Any, spec: str, seat: int) -> Any:
    """The PPOConfig of ``tabuleiro train`` for ``settings``, sampling from ``SeatVectorEnv`` in ``seat``."""
    from ray.tune.registry import register_env  # optional heavy: ray

    from training.config import build_config

    register_env(BR_ENV, make_br_env)
    config = build_config(settings)
    env_config = dict(config.env_config) | {"seat": seat, "agent": spec, "agent_seed": settings.seed + 17 * seat}
    return config.environment(BR_ENV, env_config=env_config)


def argmax_policy(module: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The module's greedy choice (its masked logits' argmax) for a batch of observations and masks."""
    import torch  # optional heavy: the rl extra
    from ray.rllib.core.columns import Columns

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return torch.argmax(logits, dim=1).numpy().astype(np.int64)

    return act


def evaluate(policy: Callable[[np.ndarray, np.ndarray], np.ndarray], env: SeatVectorEnv, games: int, seed: int) -> dict:
    """``games`` games of ``policy`` in the env's seat (each of the env's games plays its equal share, so short
    games are not over-counted): mean return with a 95% normal interval, win rate with a 95% Wilson interval."""
    n = env.num_envs
    quota = np.full(n, games // n, np.int64)
    quota[: games % n] += 1
    obs, _ = env.reset(seed=seed)
    env.keep_results()
    got = np.zeros(n, np.int64)
    returns: list[np.ndarray] = []
    wins: list[np.ndarray] = []
    seen = 0
    while (got < quota).any():
        obs, *_ = env.step(policy(obs["observations"], obs["action_mask"]))
        for idx, mine, won in env.results()[seen:]:
            keep = got[idx] < quota[idx]
            got[idx[keep]] += 1
            returns.append(mine[keep])
            wins.append(won[keep])
        seen = len(env.results())
    return summary(np.concatenate(returns), np.concatenate(wins))


def summary(returns: np.ndarray, wins: np.ndarray) -> dict[str, Any]:
    """Mean return with its 95% interval (normal, from the sample's spread) and win rate with its Wilson interval."""
    k = int(returns.size)
    mean = float(returns.mean())
    half = Z95 * float(returns.std(ddof=1)) / math.sqrt(k) if k > 1 else math.inf
    lo, hi = wilson_interval(int(wins.sum()), k)
    return {
        "games": k,
        "mean_return": mean,
        "ci95": [mean - half, mean + half],
        "stderr": half / Z95,
        "win_rate": float(wins.mean()),
        "win_ci95": [lo, hi],
    }


def train_seat(
    settings: Any,
    spec: str,
    seat: int,
    seconds: float,
    eval_games: int,
    curve_points: int = 6,
    curve_games: int = 2000,
    echo: Callable[[str], None] = print,
    iterations: int | None = None,
    init: tuple[dict[str, np.ndarray], str] | None = None,
) -> dict[str, Any]:
    """Train a best response to ``spec`` in ``seat`` for ``seconds`` of PPO (or ``iterations``, whichever ends
    first), measuring its greedy play at ``curve_points`` moments (``curve_games`` games each) and at the end
    (``eval_games``). ``init``: a policy file's arrays and name (``warm_start``) to start from, measured before
    training too (``start``). Ctrl-C or SIGTERM ends the seat early: the result then holds what was measured
    and ``interrupted`` (the signal's name)."""
    from training.loop import progress_row  # optional heavy: ray

    algo = br_config(settings, spec, seat).build_algo()
    evaluation_env = SeatVectorEnv(
        settings.game,
        min(1024, max(eval_games, curve_games)),
        seat=seat,
        spec=spec,
        agent_seed=settings.seed + 31 * seat + 1,
        candidate_actions=settings.candidate_head if settings.candidate_actions else None,
        **settings.game_config,
    )
    eval_seed = (settings.seed ^ EVAL_SALT) + seat * 10_000_000
    out: dict[str, Any] = {"seat": seat, "iterations": 0, "train_seconds": 0.0, "curve": [], "final": None}
    marks = [(k + 1) / curve_points for k in range(curve_points - 1)]  # shares of the budget

    def spent() -> float:
        by_time = out["train_seconds"] / seconds if seconds > 0 else 0.0
        return max(by_time, out["iterations"] / iterations if iterations else 0.0)

    last_echo = -math.inf
    try:
        if init is not None:
            load_weights(algo, *init)
            out["start"] = evaluate(argmax_policy(algo.get_module()), evaluation_env, curve_games, eval_seed)
            echo(f"  seat {seat}  greedy from {init[1]} before training: {format_point(out['start'])}")
        while spent() < 1.0:
            t0 = time.perf_counter()
            result = algo.train()
            took = time.perf_counter() - t0
            out["iterations"] += 1
            out["train_seconds"] += took
            row = progress_row(result, out["iterations"], out["train_seconds"], took)  # raises without a loss
            if time.perf_counter() - last_echo >= 5.0:
                vs = next(iter(row["opponents"].values()), {})
                echo(
                    f"  seat {seat}  iter {row['iteration']:4d}  {out['train_seconds']:6.1f} s  "
                    f"loss {row['loss']:.3f}  training return {vs.get('mean_score', float('nan')):+.3f} "
                    f"({int(vs.get('games', 0))} games)"
                )
                last_echo = time.perf_counter()
            if marks and spent() >= marks[0] and spent() < 1.0:
                point = evaluate(argmax_policy(algo.get_module()), evaluation_env, curve_games, eval_seed)
                while marks and spent() >= marks[0]:  # one point for each mark passed: every seat has as many
                    marks.pop(0)
                    out["curve"].append({"seconds": round(out["train_seconds"], 2)} | point)
                echo(f"  seat {seat}  greedy after {out['train_seconds']:.0f} s: {format_point(point)}")
        final = evaluate(argmax_policy(algo.get_module()), evaluation_env, eval_games, eval_seed + 1)
        out["final"] = final
        point = {"seconds": round(out["train_seconds"], 2)} | final
        out["curve"].extend([point] * (1 + len(marks)))  # marks the last iteration passed too
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM as tabuleiro.options.Terminated
        out["interrupted"] = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
    finally:
        algo.stop()
    return out


def format_point(p: dict[str, Any]) -> str:
    """``mean return +0.412 [+0.395, +0.429]  wins 61.0% [60.0, 62.0]  (20000 games)``."""
    lo, hi = p["ci95"]
    wlo, whi = p["win_ci95"]
    return (
        f"mean return {p['mean_return']:+.4f} [{lo:+.4f}, {hi:+.4f}]  "
        f"wins {100 * p['win_rate']:.1f}% [{100 * wlo:.1f}, {100 * whi:.1f}]  ({p['games']} games)"
    )
