"""Many games stepped in one compiled call: numpy in, numpy out, no per-game Python loop.

Every game runs the shared kernels (``envs.engine.kernels``) compiled against its core.
Observations and masks are those of the seat to act in each game; a finished game is
reset at once (seeded from its own generator), and its final rewards are reported
in the step that finished it.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

from envs.engine.game import Game
from envs.engine.kernels import kernels_of


class BatchEnv:
    """``num_envs`` games of one kind in an array of state records.

    ``BatchEnv("capivari_v0", 1024, seed=0)``; then ``obs, masks, seats = env.reset()`` and
    ``obs, masks, seats, rewards, dones = env.step(actions)``. Game i of ``reset(seed)`` is the
    game ``env().reset(seed=seed + i)`` plays, move for move; a game started by auto-reset is
    the one ``reset(seed=int(env.episode_seeds[i]))`` plays.
    """

    def __init__(
        self, game: str | Game, num_envs: int, seed: int = 0, threads: int | None = None, **config: Any
    ) -> None:
        if isinstance(game, str):
            import envs

            game = envs.make(game, **config).game
        elif config:
            raise ValueError("pass config keywords with a game name, not with a Game instance")
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if threads is not None and (not isinstance(threads, int) or not 1 <= threads <= numba.config.NUMBA_NUM_THREADS):
            raise ValueError(f"threads must be None or 1..{numba.config.NUMBA_NUM_THREADS}, got {threads!r}")
        # None: every core. On a busy machine (e.g. beside RLlib env runners) 1 is far faster:
        # a parallel region waits for its slowest thread, and a preempted thread costs a time slice.
        self.threads = threads
        self.game = game
        self.num_envs = num_envs
        self.num_players = game.num_players
        self._k = kernels_of(game)
        template = game.new_state()
        self.states = np.repeat(template, num_envs)
        width = self.states["rewards"].shape[1]
        self.obs = np.zeros((num_envs, game.obs_size), np.float32)
        self.masks = np.zeros((num_envs, game.num_actions), np.int8)
        self._rewards = np.zeros((num_envs, width), np.float64)
        self._dones = np.zeros(num_envs, np.uint8)
        self.episode_seeds = np.zeros(num_envs, np.uint64)  # the seed each running game started from
        self._seed = seed
        self._ready = False

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game (game i from ``seed + i``); returns observations, masks, seats to act."""
        if seed is not None:
            self._seed = seed
        self.episode_seeds[:] = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(self._seed % 2**64)
        with self._threads():
            self._k.batch_reset(self.states, self.episode_seeds)
        self._ready = True
        return self.observe()

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Observation and mask of the seat to act in every game (copies), and those seats."""
        self._check_ready()
        with self._threads():
            self._k.batch_observe(self.states, self.obs, self.masks)
        return self.obs.copy(), self.masks.copy(), self.states["current"].astype(np.int64)

    def legal_mask(self) -> np.ndarray:
        """The mask of the seat to act in every game (a copy)."""
        self._check_ready()
        with self._threads():
            self._k.batch_legal_mask(self.states, self.masks)
        return self.masks.copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game; returns obs, masks, seats to act, rewards [N, players], dones."""
        self._check_ready()
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), got {a.dtype} {a.shape}")
        if a.size and (a.min() < 0 or a.max() >= self.game.num_actions):
            raise ValueError(f"actions must be in [0, {self.game.num_actions})")
        with self._threads():
            bad = self._k.batch_step(self.states, a.astype(np.int64), self._rewards, self._dones, self.episode_seeds)
        if bad >= 0:
            from envs.engine.aec import IllegalActionError

            raise IllegalActionError(
                f"game {bad}: {self.game.action_name(int(a[bad]))!r} is illegal there; that game was left "
                "as it was, the other games were stepped"
            )
        obs, masks, seats = self.observe()
        return obs, masks, seats, self._rewards[:, : self.num_players].copy(), self._dones.astype(bool)

    def random_steps(self, steps_per_game: int, seed: int = 0) -> int:
        """Random legal play inside the compiled loop (raw speed); returns games finished."""
        self._check_ready()
        with self._threads():
            return int(self._k.random_steps(self.states, np.uint64(seed), int(steps_per_game)))

    @contextmanager
    def _threads(self) -> Iterator[None]:
        if self.threads is None:
            yield
            return
        previous = numba.get_num_threads()
        numba.set_num_threads(self.threads)
        try:
            yield
        finally:
            numba.set_num_threads(previous)

    def _check_ready(self) -> None:
        if not self._ready:
            raise RuntimeError("call reset() first")
