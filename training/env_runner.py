"""RLlib's single-agent env runner over ``GameVectorEnv``, with the opponent pool's outside policies and honest timers.

``PoolEnvRunner`` is RLlib's ``SingleAgentEnvRunner`` (the vector entry point steps all games in one call)
plus three things: the pool's ``self`` opponent acts with the runner's current module, snapshots of the
learner are installed as outside policies (``install_snapshot``), and each ``sample()`` logs, as sums
under ``selfplay/``, the wall-clock seconds it took, the learner's and every seat's decisions, and the
games, wins and score per opponent kind (``GameVectorEnv.pop_stats``).
"""

import copy
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv, Policy

METRIC_ROOT = "selfplay"


def module_policy(module: Callable[[], Any], seed: int) -> Policy:
    """An outside policy sampling from an RLModule's masked logits, all waiting games in one forward pass."""
    rng = np.random.default_rng(seed)

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = {"obs": {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(masks)}}
        with torch.no_grad():
            out = module().forward_inference(batch)
        logits = out["action_dist_inputs"].numpy().astype(np.float64)
        logits[masks <= 0] = -np.inf
        return np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)  # Gumbel-max: a sample of softmax(logits)

    return act


def vector_env(env_runner: Any) -> GameVectorEnv:
    """The ``GameVectorEnv`` under an env runner's wrappers."""
    return env_runner.env.unwrapped


class PoolEnvRunner(SingleAgentEnvRunner):
    """``SingleAgentEnvRunner`` with the pool's outside policies and per-sample counts (module docstring)."""

    def make_env(self) -> None:
        super().make_env()
        seed = 0 if self._seed is None else int(self._seed)
        vector_env(self).set_policy("self", module_policy(lambda: self.module, seed))

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        episodes = super().sample(*args, **kwargs)
        seconds = time.perf_counter() - t0
        stats = vector_env(self).pop_stats()
        log = self.metrics.log_value
        log((METRIC_ROOT, "sample_s"), seconds, reduce="sum")
        log((METRIC_ROOT, "learner_decisions"), stats["learner_decisions"], reduce="sum")
        log((METRIC_ROOT, "decisions"), stats["decisions"], reduce="sum")
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
        seed = (0 if self._seed is None else int(self._seed)) + len(vector_env(self).snapshots) + 1
        vector_env(self).add_snapshot(name, module_policy(lambda: frozen, seed))

    def drop_snapshot(self, name: str) -> None:
        if self.env is not None:
            vector_env(self).drop_snapshot(name)
