"""PPO's train batch from our episode chunks in one pass: values, GAE and tensors for all chunks at once.

RLlib's default learner pipeline for PPO walks the episodes piece by piece (add a bootstrap timestep
to every chunk, gather each column from each chunk, batch, convert, then GAE in a Python loop over
timesteps): per-episode and per-timestep Python work that cost as much as PPO's own update for
Capivari (docs/training.md). ``EpisodeBatchGAE`` replaces the whole pipeline for the numpy chunks
``training.episodes`` builds: the columns are concatenated once, the value function runs once over
every chunk's observations plus its last one (the bootstrap), and GAE is a compiled loop.

Same estimator as RLlib's ``GeneralAdvantageEstimation``: delta_t = r_t + gamma V(s_t+1) - V(s_t), with
V = 0 after a terminal step and V(s_T) bootstrapping a chunk that goes on; advantages standardized over
the batch (RLlib's also counts its artificial bootstrap rows in that mean; here only real steps are).
The bootstrap observations are not training rows, so the batch needs no loss mask. The chunks are
shuffled once here (PPO's minibatches then slice the batch in order: ``shuffle_batch_per_epoch=False``
saves a copy of the whole batch per epoch, 97 KB a row for the Duel).
"""

from typing import Any

import numpy as np
import torch
from numba import njit
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.evaluation.postprocessing import Postprocessing

STEP_COLUMNS = (Columns.ACTIONS, Columns.ACTION_LOGP, Columns.ACTION_DIST_INPUTS)


@njit(cache=True)
def gae_targets(
    rewards: np.ndarray,
    values: np.ndarray,
    lengths: np.ndarray,
    terminated: np.ndarray,
    gamma: float,
    lambda_: float,
    advantages: np.ndarray,
    targets: np.ndarray,
) -> None:
    """GAE of every chunk: ``values`` holds each chunk's L + 1 values (the last its bootstrap), ``rewards`` its L."""
    r0 = 0
    v0 = 0
    for e in range(lengths.shape[0]):
        n = lengths[e]
        following = 0.0 if terminated[e] else values[v0 + n]
        running = 0.0
        for t in range(n - 1, -1, -1):
            v = values[v0 + t]
            running = rewards[r0 + t] + gamma * following - v + gamma * lambda_ * running
            advantages[r0 + t] = running
            targets[r0 + t] = running + v
            following = v
        r0 += n
        v0 += n + 1


def _tensors(columns: dict[str, Any], device: torch.device) -> dict[str, Any]:
    """The same nesting with every numpy array as a tensor on ``device``."""
    return {
        k: _tensors(v, device) if isinstance(v, dict) else torch.from_numpy(v).to(device) for k, v in columns.items()
    }


def _data(buffer: Any, what: str) -> Any:
    if not buffer.finalized or buffer.lookback != 0:
        raise ValueError(f"EpisodeBatchGAE takes numpy episode chunks without lookback ({what}); see training.episodes")
    return buffer.data


class EpisodeBatchGAE(ConnectorV2):
    """The whole learner pipeline for PPO on ``training.episodes`` chunks (module docstring)."""

    def __init__(self, input_observation_space: Any = None, input_action_space: Any = None, *, gamma: float,
                 lambda_: float, seed: int = 0) -> None:  # fmt: skip
        super().__init__(input_observation_space, input_action_space)
        self.gamma = float(gamma)
        self.lambda_ = float(lambda_)
        self._rng = np.random.default_rng(seed)

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: list[Any], **kwargs: Any) -> Any:
        if not episodes:
            return batch
        module_ids = {e.module_id for e in episodes} - {None}
        if module_ids - set(rl_module.keys()) or len(rl_module.keys()) != 1:
            raise ValueError(f"EpisodeBatchGAE trains one module, got {sorted(rl_module.keys())} / {module_ids}")
        module_id = next(iter(rl_module.keys()))
        module: RLModule = rl_module[module_id]
        device = next(module.parameters()).device
        episodes = [episodes[i] for i in self._rng.permutation(len(episodes))]  # minibatches mix the games
        lengths = np.fromiter((len(e) for e in episodes), np.int64, len(episodes))
        terminated = np.fromiter((e.is_terminated for e in episodes), np.bool_, len(episodes))
        observations = [_data(e.observations, "observations") for e in episodes]  # L + 1 rows each
        keys = list(observations[0])
        out: dict[str, Any] = {
            Columns.OBS: {k: np.concatenate([o[k][:-1] for o in observations]) for k in keys},
            Columns.ACTIONS: np.concatenate([_data(e.actions, "actions") for e in episodes]),
        }
        for col in STEP_COLUMNS[1:]:
            out[col] = np.concatenate([_data(e.extra_model_outputs[col], col) for e in episodes])
        bootstrap = {k: np.stack([o[k][-1] for o in observations]) for k in keys}
        rewards = np.concatenate([_data(e.rewards, "rewards") for e in episodes]).astype(np.float64)
        last = np.cumsum(lengths + 1) - 1  # each chunk's bootstrap in the L + 1 values per chunk gae_targets reads
        steps = np.ones(int(lengths.sum()) + len(episodes), bool)
        steps[last] = False
        values = np.empty(steps.shape[0], np.float64)
        with torch.no_grad():
            values[steps] = module.compute_values({Columns.OBS: _tensors(out[Columns.OBS], device)}).cpu().numpy()
            values[last] = module.compute_values({Columns.OBS: _tensors(bootstrap, device)}).cpu().numpy()
        advantages = np.empty(rewards.shape[0], np.float64)
        targets = np.empty(rewards.shape[0], np.float64)
        gae_targets(rewards, values, lengths, terminated, self.gamma, self.lambda_, advantages, targets)
        advantages = (advantages - advantages.mean()) / max(1e-4, float(advantages.std()))
        out[Postprocessing.ADVANTAGES] = advantages.astype(np.float32)
        out[Postprocessing.VALUE_TARGETS] = targets.astype(np.float32)
        batch[module_id] = _tensors(out, device)
        return batch
