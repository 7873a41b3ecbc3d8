"""Many games stepped in one compiled call: numpy in, numpy out, no per-game Python loop.

Every game runs the shared kernels (``envs.engine.batch_kernels``) compiled for its core.
Observations and masks are those of the seat to act in each game; a finished game is
reset at once (seeded from its own generator), and its final rewards are reported
in the step that finished it.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

import envs
from envs.engine.aec import IllegalActionError
from envs.engine.checks import checked_seed, is_int
from envs.engine.game import Game
from envs.engine.memory import batch_bytes, check_fits
from envs.engine.templates import kernels_of

MAX_ENVS = 1 << 24  # games in one batch; the memory bound (check_memory) is usually far lower
STEPS_PER_CALL = 1 << 20  # game steps in one compiled call of random_steps: a Ctrl-C waits for one call at most


def check_memory(
    game: str | Game, num_envs: Any, what: str, states: int = 0, observations: int = 0, masks: int = 0, **config: Any
) -> None:
    """ValueError before anything is allocated if ``num_envs`` games of a ``BatchEnv`` (plus ``states`` records,
    ``observations`` and ``masks`` more per game, for a wrapper's own buffers) would exceed the share of memory
    ``envs.engine.memory`` allows. Sizes that are not valid counts are left to the constructor's checks."""
    if not is_int(num_envs) or not 1 <= num_envs <= MAX_ENVS:
        return
    if isinstance(game, str):
        game = envs.make(game, **config).game
    template = game.new_state()
    per_game = batch_bytes(template.dtype.itemsize, game.obs_size, game.num_actions, template["rewards"].shape[-1])
    per_game += states * template.dtype.itemsize + observations * 4 * game.obs_size + masks * game.num_actions
    check_fits(int(num_envs) * per_game, what)


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
            game = envs.make(game, **config).game
        elif config:
            raise ValueError("pass config keywords with a game name, not with a Game instance")
        if not is_int(num_envs) or not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"num_envs must be an int in [1, {MAX_ENVS}], got {num_envs!r}")
        num_envs = int(num_envs)
        check_memory(game, num_envs, f"BatchEnv({game.name!r}, {num_envs:,})")  # before allocating anything
        most = numba.config.NUMBA_NUM_THREADS
        if threads is not None and (not is_int(threads) or not 1 <= threads <= most):
            raise ValueError(f"threads must be None or an int in [1, {most}], got {threads!r}")
        threads = None if threads is None else int(threads)
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
        self._seed = checked_seed(seed, "seed", num_envs)
        self._ready = False
        self._masks_current = False

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game (game i from ``seed + i``); returns observations, masks, seats to act."""
        if seed is not None:
            self._seed = checked_seed(seed, "seed", self.num_envs)
        self.episode_seeds[:] = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(self._seed)
        with self._threads():
            self._k.batch_reset(self.states, self.episode_seeds)
        self._ready = True
        return self.observe()

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Observation and mask of the seat to act in every game (copies), and those seats."""
        self._check_ready()
        # written straight into a new array (observe_into sets every entry: the Game contract, tested for each
        # game), so the caller's observations are fresh without a copy: for the Duel a copy of 256 observations
        # is 25 MB, a large part of a step's cost
        self.obs = np.empty_like(self.obs)
        with self._threads():
            self._k.batch_observe(self.states, self.obs, self.masks)
        self._masks_current = True
        return self.obs, self.masks.copy(), self.states["current"].astype(np.int64)

    def legal_mask(self) -> np.ndarray:
        """The mask of the seat to act in every game (a copy)."""
        self._check_ready()
        with self._threads():
            self._k.batch_legal_mask(self.states, self.masks)
        self._masks_current = True
        return self.masks.copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game; returns obs, masks, seats to act, rewards [N, players], dones.

        Every action is checked against the masks of the last observation before any game moves:
        a batch with an illegal action changes nothing, and the error names the games.
        """
        self._check_ready()
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), got {a.dtype} {a.shape}")
        if a.size and (a.min() < 0 or a.max() >= self.game.num_actions):
            raise ValueError(f"actions must be in [0, {self.game.num_actions})")
        a = a.astype(np.int64)
        if not self._masks_current:
            self.legal_mask()
        illegal = np.flatnonzero(self.masks[np.arange(self.num_envs), a] == 0)
        if illegal.size:
            shown = ", ".join(f"game {i}: {self.game.action_name(int(a[i]))!r}" for i in illegal[:5])
            more = f" and {illegal.size - 5} more" if illegal.size > 5 else ""
            raise IllegalActionError(f"illegal actions in {illegal.size} game(s) ({shown}{more}); no game was stepped")
        with self._threads():
            bad = self._k.batch_step(self.states, a, self._rewards, self._dones, self.episode_seeds)
        if bad >= 0:  # only if the states were changed behind our back since the last observation
            raise IllegalActionError(
                f"game {bad}: {self.game.action_name(int(a[bad]))!r} is illegal there (its state changed since "
                "the last observation; call observe() first); that game was left as it was, the others were stepped"
            )
        obs, masks, seats = self.observe()
        return obs, masks, seats, self._rewards[:, : self.num_players].copy(), self._dones.astype(bool)

    def random_steps(self, steps_per_game: int, seed: int = 0) -> int:
        """Random legal play inside the compiled loop (raw speed); returns games finished. The loop runs in calls
        of at most ``STEPS_PER_CALL`` game steps (the same play as one call), so Ctrl-C stops it between two."""
        self._check_ready()
        if not is_int(steps_per_game) or not 0 <= steps_per_game <= 2**40:
            raise ValueError(f"steps_per_game must be an int in [0, 2**40], got {steps_per_game!r}")
        seed = checked_seed(seed)
        self._masks_current = False  # step() refreshes them before checking actions
        draws = self._k.random_draws(self.states.shape[0], np.uint64(seed))  # each game's generator, carried on
        chunk = max(1, STEPS_PER_CALL // self.num_envs)
        finished, left = 0, int(steps_per_game)
        while left > 0:
            with self._threads():
                finished += int(self._k.random_steps_from(self.states, draws, min(chunk, left)))
            left -= chunk
        return finished

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
