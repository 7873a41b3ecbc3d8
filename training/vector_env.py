"""A gymnasium ``VectorEnv`` per game over the batch API: one learner seat per game, opponents compiled.

``GameVectorEnv("capivari_v0", 256, seed=0)`` runs 256 games in one array of state records
(``envs.batch.BatchEnv``). In game i the learner holds seat ``i % num_players`` (seats rotated
across games); everything else happens inside one compiled call (``vector_advance`` in
``envs.engine.kernels``): the opponents' moves (uniformly random legal ones), chance, and
auto-reset. So ``step(actions)`` takes one learner action per game and returns when the learner
is to act again in every game, or its game is over.

- Observations: ``{"observations": float32[obs_size], "action_mask": float32[num_actions]}`` of the
  learner's seat (RLlib's keys; the mask is all zeros in a finished game's last observation).
- Rewards: the learner's game rewards since its previous decision (float32), as the game defines them.
- Auto-reset: gymnasium 1.x ``NEXT_STEP`` (``metadata["autoreset_mode"]``). The step after a
  termination ignores that game's action and returns the first observation of a new game (reward
  0, not terminated). The new game's seed is drawn from the finished game's own generator
  (``rng_next`` of its final state, as ``BatchEnv`` does); ``infos["episode_seed"]`` gives it, and
  ``envs.make(game).reset(seed=that_seed)`` plays the same game for the same moves.
- Seeds: ``reset(seed=s)`` starts game i exactly as ``envs.make(game).reset(seed=s + i)``. The
  opponents of a game draw from their own generator, ``splitmix64(episode_seed ^ OPPONENT_SALT)``
  (restarted with every game), so a game is a function of its seed and the learner's actions.
- A game that would end before the learner's first decision is dropped and the next one started
  (none of the registered games does this).
- ``truncations`` are always False: every game ends by its rules.
"""

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envs.batch import BatchEnv
from envs.engine.aec import IllegalActionError

OBS_KEY = "observations"  # RLlib's keys (agents.rllib_policy); repeated here so no torch import is needed
MASK_KEY = "action_mask"
OPPONENTS = ("random",)
RECORD_WIDTH = 4096  # opponents' actions kept per game and step when recording


class GameVectorEnv(VectorEnv):
    """``num_envs`` games of one kind; the learner holds one seat in each, random opponents the others.

    ``record_opponent_actions=True`` puts each game's opponent actions of the call in
    ``infos["opponent_actions"]`` (an object array of int64 arrays), to replay the games elsewhere.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        game: str,
        num_envs: int,
        seed: int = 0,
        opponent: str = "random",
        threads: int | None = 1,
        record_opponent_actions: bool = False,
        **config: Any,
    ) -> None:
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {opponent!r}")
        self.batch = BatchEnv(game, num_envs, seed=seed, threads=threads, **config)
        self.game = self.batch.game
        self.opponent = opponent
        self.num_envs = self.batch.num_envs
        self.num_players = self.game.num_players
        self._k = self.batch._k
        lo, hi = self.game.obs_bounds()
        self.single_observation_space = gym.spaces.Dict(
            {
                OBS_KEY: gym.spaces.Box(lo, hi, (self.game.obs_size,), np.float32),
                MASK_KEY: gym.spaces.Box(0.0, 1.0, (self.game.num_actions,), np.float32),
            }
        )
        self.single_action_space = gym.spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self.learner_seats = np.arange(n, dtype=np.int64) % self.num_players
        self._rewards = np.zeros(n, np.float64)
        self._dones = np.zeros(n, np.uint8)
        self._opponent_rng = np.zeros(n, np.uint64)
        self._played = np.zeros((n, RECORD_WIDTH if record_opponent_actions else 0), np.int64)
        self._played_count = np.zeros(n, np.int64)
        self._record = bool(record_opponent_actions)
        self._obs = np.zeros((n, self.game.obs_size), np.float32)
        self._masks = np.zeros((n, self.game.num_actions), np.int8)
        self._ready = False

    @property
    def episode_seeds(self) -> np.ndarray:
        """The seed each game now running (or just finished) started from (a copy)."""
        return self.batch.episode_seeds.copy()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start every game (game i from ``seed + i``) and play until the learner is to act in each."""
        if options:
            raise ValueError(f"GameVectorEnv.reset takes no options, got {sorted(options)}")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an int (game i starts from seed + i) or None, got {seed!r}")
        if seed is not None:
            self.batch.reset(seed=int(seed))  # validates the seed, writes episode_seeds
        else:
            self.batch.reset()
        self._dones[:] = 0
        starting = np.full(self.num_envs, -1, np.int64)
        self._advance(starting)
        self._ready = True
        return self._observe(), self._infos(np.ones(self.num_envs, bool))

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One learner action per game (ignored in a game that finished at the previous step)."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
        restarting = self._dones.astype(bool)
        live = ~restarting
        if live.any() and (a[live].min() < 0 or a[live].max() >= self.game.num_actions):
            raise ValueError(f"actions must be in [0, {self.game.num_actions})")
        a = np.where(live, a, 0).astype(np.int64)
        illegal = np.flatnonzero(live & (self._masks[np.arange(n), a] == 0))
        if illegal.size:
            shown = ", ".join(f"game {i}: {self.game.action_name(int(a[i]))!r}" for i in illegal[:5])
            more = f" and {illegal.size - 5} more" if illegal.size > 5 else ""
            raise IllegalActionError(f"illegal actions in {illegal.size} game(s) ({shown}{more}); no game was stepped")
        self._advance(a)
        obs = self._observe()
        terminated = self._dones.astype(bool)
        truncated = np.zeros(n, bool)
        return obs, self._rewards.astype(np.float32), terminated, truncated, self._infos(restarting)

    def _advance(self, actions: np.ndarray) -> None:
        with self.batch._threads():
            bad = self._k.vector_advance(
                self.batch.states,
                actions,
                self.learner_seats,
                self._rewards,
                self._dones,
                self.batch.episode_seeds,
                self._opponent_rng,
                self._played,
                self._played_count,
            )
        if bad >= 0:  # only if the states were changed behind our back since the last observation
            raise IllegalActionError(f"game {bad}: action {int(actions[bad])} is illegal there (state changed)")
        if self._record and (self._played_count > RECORD_WIDTH).any():
            raise RuntimeError(f"more than {RECORD_WIDTH} opponent moves in one step: recording incomplete")

    def _observe(self) -> dict[str, np.ndarray]:
        with self.batch._threads():
            self._k.batch_observe_seats(self.batch.states, self.learner_seats, self._obs, self._masks)
        return {OBS_KEY: self._obs.copy(), MASK_KEY: self._masks.astype(np.float32)}

    def _infos(self, started: np.ndarray) -> dict[str, np.ndarray]:
        """``episode_seed`` (and ``learner_seat``) where a new game started in this call; see the module doc."""
        infos: dict[str, np.ndarray] = {
            "episode_seed": self.batch.episode_seeds.copy(),
            "_episode_seed": started.copy(),
            "learner_seat": self.learner_seats.copy(),
            "_learner_seat": started.copy(),
        }
        if self._record:
            played = np.empty(self.num_envs, object)
            for i in range(self.num_envs):
                played[i] = self._played[i, : self._played_count[i]].copy()
            infos["opponent_actions"] = played
            infos["_opponent_actions"] = np.ones(self.num_envs, bool)
        return infos
