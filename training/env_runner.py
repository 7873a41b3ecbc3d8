"""RLlib's single-agent env runner over ``GameVectorEnv``, with the opponent pool's outside policies and honest timers.

``PoolEnvRunner`` is RLlib's ``SingleAgentEnvRunner`` (the vector entry point steps all games in one call)
plus four things: it samples in batch (one forward pass and one env step per vector step, recorded as
arrays and cut into episode chunks at the end: ``training.episodes``; RLlib's own loop handles every game
of every step in Python), the pool's ``self`` opponent acts with the runner's current module, snapshots
of the learner are installed (``install_snapshot``) as compiled policies the kernel plays itself
(``training.policy_bank``; env_config ``compiled_snapshots``, off by default) or as outside policies (always for
a module the compiled forward pass does not evaluate: a conv stack, the cell head), which all (dropped ones
still being played included) act through one ``training.snapshot_group.SnapshotGroup`` (rebuilt on each
install and drop: ``regroup``; one batched forward pass per kernel stop for all snapshots of an MLP module,
one per snapshot for a conv module), and each ``sample()`` logs, as sums under ``selfplay/``, the wall-clock
seconds it took, the learner's and every seat's decisions, and the games, wins and score per opponent kind
(``GameVectorEnv.pop_stats``).
"""

import copy
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.utils.metrics import EPISODE_LEN_MEAN, EPISODE_RETURN_MEAN

from agents.compiled_policy import CompiledPolicy, game_config_of
from training.episodes import GameThread, Recording, cut_episodes
from training.export import UnsupportedPolicy, module_arrays
from training.masking_module import sample_actions
from training.snapshot_group import SnapshotGroup, module_logits, sample_legal
from training.vector_env import CRITIC_KEY, MASK_KEY, OBS_KEY, GameVectorEnv, Policy

METRIC_ROOT = "selfplay"
SNAPSHOT_GROUP_SALT = 0x5EED_6A0B  # the snapshot group's generator: (runner seed, this)


def module_policy(module: Callable[[], Any], seed: int) -> Policy:
    """An outside policy sampling from an RLModule's masked logits, all waiting games in one forward pass."""
    rng = np.random.default_rng(seed)

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return sample_legal(module_logits(module(), obs, masks), masks, rng)

    return act


def regroup(env: GameVectorEnv, frozen: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Hand ``env`` one ``SnapshotGroup`` of the frozen modules it may still play (live or retired); returns
    those (the others are let go). Rebuilt on every change of the pool: that happens rarely."""
    playing = set(env.playing_snapshots())
    kept = {name: module for name, module in frozen.items() if name in playing}
    env.set_snapshot_group(SnapshotGroup(list(kept.values()), rng) if kept else None, list(kept))
    return kept


def first_game_seed(seed: int | None, worker_index: int | None, num_envs: int) -> int | None:
    """The seed of game 0 of env runner ``worker_index``: runners' games start from disjoint seed ranges.

    (RLlib offsets each runner's seed by its index only, so game i of runner k would replay game i + k of
    runner 0.)
    """
    return None if seed is None else int(seed) + (worker_index or 0) * num_envs


class ObservationRows:
    """A sample's observations, step by game, in arrays the vector env writes into (``observe_into``): no copy
    per step and none to stack them (97 KB a game and step for the Duel). Row 0 is the sample's first
    observation; ``steps`` more rows are made ready, twice as many again when a sample runs longer."""

    def __init__(self, first: dict[str, np.ndarray], steps: int) -> None:
        self.arrays = {k: np.empty((steps + 1, *v.shape), v.dtype) for k, v in first.items()}
        for k, v in first.items():
            self.arrays[k][0] = v
        self.filled = 1

    def next_row(self) -> tuple[np.ndarray, ...]:
        """The (observations, action masks[, critic observations]) arrays of the next step, for ``observe_into``."""
        if self.filled == len(self.arrays[OBS_KEY]):
            self.arrays = {k: np.concatenate([v, np.empty_like(v)]) for k, v in self.arrays.items()}
        self.filled += 1
        keys = (OBS_KEY, MASK_KEY, CRITIC_KEY) if CRITIC_KEY in self.arrays else (OBS_KEY, MASK_KEY)
        return tuple(self.arrays[k][self.filled - 1] for k in keys)

    def recorded(self) -> dict[str, np.ndarray]:
        """Every key's rows so far: ``(steps + 1, num_envs, ...)``."""
        return {k: v[: self.filled] for k, v in self.arrays.items()}


def vector_env(env_runner: Any) -> GameVectorEnv:
    """The ``GameVectorEnv`` under an env runner's wrappers."""
    return env_runner.env.unwrapped


class PoolEnvRunner(SingleAgentEnvRunner):
    """``SingleAgentEnvRunner`` with the pool's outside policies and per-sample counts (module docstring)."""

    def make_env(self) -> None:
        super().make_env()
        seed = 0 if self._seed is None else int(self._seed)
        vector_env(self).set_policy("self", module_policy(lambda: self.module, seed))
        self._frozen: dict[str, Any] = {}  # snapshot name -> frozen module, in the env's group
        self._exporter: Any = None  # a full module (value head included) that snapshots are exported from
        self._group_rng = np.random.default_rng([seed, SNAPSHOT_GROUP_SALT])

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[Any]:
        """At least ``num_timesteps`` learner decisions, as episode chunks built in batch (module docstring)."""
        if num_timesteps is None or random_actions:
            raise ValueError(
                "PoolEnvRunner samples a number of timesteps with its module (batch_mode='truncate_episodes'), "
                f"got num_episodes={num_episodes}, random_actions={random_actions}"
            )
        n = self.num_envs
        if force_reset or self._needs_initial_reset:
            seed = first_game_seed(self.config.seed, self.worker_index, n) if self._needs_initial_reset else None
            self._obs, _ = self.env.reset(seed=seed)
            self._needs_initial_reset = False
            self._restarting = np.zeros(n, bool)
            self._thread = GameThread.fresh(n)
            self._gen = torch.Generator().manual_seed((0 if self._seed is None else int(self._seed)) + 7919)
        rows = ObservationRows(self._obs, steps=-(-num_timesteps // n) + 2)
        cols: dict[str, list[np.ndarray]] = {k: [] for k in ("a", "r", "term", "trunc", "reset", "logp", "dist")}
        ts = 0
        while ts < num_timesteps:
            batch = {Columns.OBS: {k: torch.from_numpy(v) for k, v in self._obs.items()}}
            with torch.no_grad():
                if explore:
                    t = self.num_env_steps_sampled_lifetime + ts
                    logits = self.module.forward_exploration(batch, t=t)[Columns.ACTION_DIST_INPUTS]
                    actions = sample_actions(logits, torch.rand(logits.shape[0], generator=self._gen))
                else:
                    logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
                    actions = torch.argmax(logits, dim=1)
                logp = torch.log_softmax(logits, dim=1).gather(1, actions[:, None])[:, 0]
            a = actions.numpy()
            vector_env(self).observe_into(*rows.next_row())
            self._obs, rewards, terminated, truncated, _ = self.env.step(a)
            cols["a"].append(a)
            cols["r"].append(rewards)
            cols["term"].append(terminated)
            cols["trunc"].append(truncated)
            cols["reset"].append(self._restarting)
            cols["logp"].append(logp.numpy())
            cols["dist"].append(logits.numpy())
            ts += int(n - self._restarting.sum())
            self._restarting = np.asarray(terminated | truncated, bool)
        rec = Recording(
            observations=rows.recorded(),
            actions=np.stack(cols["a"]),
            rewards=np.stack(cols["r"]),
            terminated=np.stack(cols["term"]),
            truncated=np.stack(cols["trunc"]),
            reset_step=np.stack(cols["reset"]),
            extra={Columns.ACTION_LOGP: np.stack(cols["logp"]), Columns.ACTION_DIST_INPUTS: np.stack(cols["dist"])},
        )
        episodes, self.chunk_games, finished = cut_episodes(rec, self._thread)
        for length, ret in finished:
            self.metrics.log_value(EPISODE_LEN_MEAN, length, window=100)
            self.metrics.log_value(EPISODE_RETURN_MEAN, ret, window=100)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(finished))
        return episodes

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        episodes = super().sample(*args, **kwargs)
        seconds = time.perf_counter() - t0
        stats = vector_env(self).pop_stats()
        log = self.metrics.log_value
        log((METRIC_ROOT, "sample_s"), seconds, reduce="sum")
        log((METRIC_ROOT, "learner_decisions"), stats["learner_decisions"], reduce="sum")
        log((METRIC_ROOT, "decisions"), stats["decisions"], reduce="sum")
        log((METRIC_ROOT, "outside_decisions"), stats["outside_decisions"], reduce="sum")
        for kind, row in stats["opponents"].items():
            for key, value in row.items():
                log((METRIC_ROOT, kind, key), value, reduce="sum")
        return episodes

    def install_snapshot(self, name: str, weights: dict[str, np.ndarray]) -> None:
        """A frozen copy of this runner's module with ``weights``, playing as snapshot ``name``."""
        if self.env is None:  # the driver's runner when remote runners sample: no games here
            return
        frozen = copy.deepcopy(self.module)
        frozen.set_state(weights)
        frozen.eval()
        env = vector_env(self)
        seed = (0 if self._seed is None else int(self._seed)) + len(env.snapshots) + 1
        compiled = self._compiled(weights) if self.config.env_config.get("compiled_snapshots", False) else None
        env.add_snapshot(name, module_policy(lambda: frozen, seed), compiled=compiled)
        self._frozen.pop(name, None)
        if compiled is None:
            self._frozen[name] = frozen  # played outside: the group stands in for its policy
        self._frozen = regroup(env, self._frozen, self._group_rng)

    def _compiled(self, weights: dict[str, np.ndarray]) -> CompiledPolicy | None:
        """The snapshot's weights as a policy the kernel evaluates (None for a module the compiled pass does not),
        exported from a full module (this runner's is inference only: no value head, which a policy file holds)."""
        if self._exporter is None:
            env, spaces = self.env.unwrapped, self.get_spaces()
            spec = self.config.get_rl_module_spec(env=env, spaces=spaces, inference_only=False)
            self._exporter = spec.build()
        self._exporter.set_state(weights)
        game = vector_env(self).game
        try:
            return CompiledPolicy(module_arrays(self._exporter, game.name, game_config_of(game)), "a snapshot")
        except UnsupportedPolicy:
            return None

    def drop_snapshot(self, name: str) -> None:
        """Snapshot ``name`` leaves the pool; games still playing it finish against it (in the group)."""
        if self.env is not None:
            vector_env(self).drop_snapshot(name)
            self._frozen = regroup(vector_env(self), self._frozen, self._group_rng)
