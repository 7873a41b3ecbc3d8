"""A single-agent ``gymnasium.Env`` per game: the learner holds one seat, the opponents move inside the step.

``SingleAgentEnv("capivari_v0", opponents="random")`` is ``training.vector_env.GameVectorEnv`` with one game:
``step(action)`` plays the learner's move, then the opponents', chance and every other seat in one compiled
call (``training.opponent_loop``), and returns when the learner is to act again or the game is over. So
Stable-Baselines3, CleanRL-style scripts and anything else that takes a ``gymnasium.Env`` train on our games
as they are. Importing this module registers every game of ``envs.GAMES`` with gymnasium, as
``tabuleiro/<short name>-v<version>``: ``gymnasium.make("tabuleiro/capivari-v0", opponents="heuristic")``.

- Observation: the learner's ego-centric float32 vector (a ``Box``); the action space is the game's
  ``Discrete(num_actions)`` (or the candidate action space with ``candidate_actions=``).
- Masks: ``action_masks()`` (a bool array, sb3-contrib's ``MaskablePPO`` convention) and ``info["action_mask"]``
  (int8, what ``action_space.sample(mask)`` takes); all zeros once the game is over.
- Opponents (``OPPONENTS``): ``"random"``, ``"heuristic"`` (the game's compiled heuristic), ``"policy"`` (a
  policy file, ``opponent_policy=FILE.npz``, sampled inside the kernel), or relative weights
  ``{"random": 0.2, "heuristic": 0.8}`` drawn per game at its start.
- Seat: ``seat=k`` always plays seat k; ``seat=None`` rotates: the k-th game since ``reset(seed=s)`` is played
  from seat ``k % num_players``.
- Seeds: ``reset(seed=s)`` plays the game ``envs.make(game).reset(seed=s)`` plays; each later ``reset()`` the
  next game of that sequence (its seed drawn from the finished game's generator, ``episode_seed``), so a seed
  fixes every game and opponent move for the same learner actions. The first ``reset()`` without a seed draws
  one from ``np_random``.
- Rewards: the learner's own game rewards since its previous decision; ``truncated`` is always False.
- Illegal actions (in range, masked out): ``illegal_action="lose"`` (default, as ``envs.make``'s env and
  PettingZoo classic) ends the game with -1 and ``info["illegal_move"] = True``; ``"raise"`` raises
  ``IllegalActionError``. An action outside the action space is a ``ValueError`` either way.
- ``info``: the same numeric keys at every step: ``action_mask``, ``learner_seat``, ``illegal_move`` and
  ``won`` (the learner alone finished first; False until the game is over).
"""

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import envs
from envs.engine.aec import IllegalActionError
from envs.engine.checks import checked_seat, checked_seed, is_int
from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv, opponent_weights

OPPONENTS = (
    "random",
    "heuristic",
    "policy",
)  # opponent kinds the compiled step plays (GameVectorEnv's kinds of the same name)
ILLEGAL_ACTIONS = ("lose", "raise")
NAMESPACE = "tabuleiro"


def opponent_pool(opponents: str | Mapping[str, float]) -> dict[str, float]:
    """``"random"``, ``"heuristic"`` or ``{kind: weight}`` as GameVectorEnv's weights (ValueError if unknown)."""
    if isinstance(opponents, str):
        weights = {opponents: 1.0}
    elif isinstance(opponents, Mapping):
        weights = dict(opponents)
    else:
        raise ValueError(f"opponents must be one of {list(OPPONENTS)} or a dict of weights, got {opponents!r}")
    unknown = sorted(str(k) for k in weights if k not in OPPONENTS)
    if unknown:
        raise ValueError(f"unknown opponent(s) {unknown}; the single-agent env plays {list(OPPONENTS)}")
    return opponent_weights(weights)


class SingleAgentEnv(gym.Env):
    """One game of ``game``: the learner's seat against the opponent pool, opponents moving in compiled code."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        game: str,
        opponents: str | Mapping[str, float] = "random",
        seat: int | None = None,
        illegal_action: str = "lose",
        candidate_actions: str | None = None,
        render_mode: str | None = None,
        opponent_policy: Any = None,
        **config: Any,
    ) -> None:
        self.game_name = envs.game_name(game)
        weights = opponent_pool(opponents)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTIONS)}, got {illegal_action!r}")
        if render_mode is not None:
            raise ValueError(f"SingleAgentEnv has no render modes (got {render_mode!r}); envs.make renders a game")
        self.illegal_action = illegal_action
        self.render_mode = None
        self.vector = GameVectorEnv(
            self.game_name,
            1,
            opponents=weights,
            candidate_actions=candidate_actions,
            autoreset_mode=AutoresetMode.DISABLED,
            opponent_policy=opponent_policy,
            **config,
        )
        self.game = self.vector.game
        self.num_players = self.vector.num_players
        missing = [k for k, w in self.vector.weights.items() if w > 0 and k not in self.vector.available()]
        if missing:
            why = {"heuristic": "no compiled heuristic", "policy": "no opponent_policy file given"}
            raise ValueError(f"{self.game_name} cannot play opponents {missing} ({', '.join(why[k] for k in missing)})")
        self.opponents = {k: w for k, w in self.vector.weights.items() if w > 0}
        self.seat = checked_seat(seat, self.num_players, "seat")
        self.observation_space = self.vector.single_observation_space[OBS_KEY]
        self.action_space = self.vector.single_action_space
        self._obs = np.zeros(self.observation_space.shape, np.float32)
        self._mask = np.zeros(self.action_space.n, np.int8)
        self._episode = 0  # games since the last seeded reset
        self._started = False
        self._over = True
        self._won = False
        self._illegal = False

    # gymnasium ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """The first game of ``seed``'s sequence, or without a seed the next game of the current one."""
        if options:
            raise ValueError(f"SingleAgentEnv.reset takes no options, got {sorted(options)}")
        if seed is not None:
            seed = checked_seed(seed)
        super().reset(seed=seed)
        if seed is None and not self._started:
            seed = int(self.np_random.integers(2**63))
        if seed is not None:
            self._episode = 0
            self._place_learner()
            obs, _ = self.vector.reset(seed=seed)
        else:
            self._episode += 1
            self._place_learner()
            obs, _ = self.vector.reset(options={"reset_mask": np.ones(1, bool)})
        self.vector.pop_stats()
        self._started, self._over, self._won, self._illegal = True, False, False, False
        self._take(obs)
        return self._obs.copy(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's move, then everyone else's until the learner is to act again or the game is over."""
        if self._over:
            raise RuntimeError("the game is over (or was never started): call reset() first")
        a = self._checked_action(action)
        if self._mask[a] == 0:
            if self.illegal_action == "raise":
                legal = ", ".join(self._name(int(x)) for x in np.flatnonzero(self._mask)[:20])
                raise IllegalActionError(f"{self._name(a)!r} ({a}) is illegal here; legal: {legal}")
            self._over, self._illegal = True, True
            self._mask[:] = 0
            return self._obs.copy(), -1.0, True, False, self._info()
        obs, rewards, terminated, _, _ = self.vector.step(np.array([a], np.int64))
        self._take(obs)
        self._over = bool(terminated[0])
        if self._over:
            stats = self.vector.pop_stats()["opponents"]
            self._won = sum(row["wins"] for row in stats.values()) > 0
        return self._obs.copy(), float(rewards[0]), self._over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now, as bools (sb3-contrib's ``MaskablePPO`` reads this)."""
        return self._mask.astype(bool)

    # what else a caller may want ---------------------------------------------------------
    @property
    def learner_seat(self) -> int:
        """The seat the learner holds in the current game."""
        return int(self.vector.learner_seats[0])

    @property
    def episode_seed(self) -> int:
        """The current game's seed: ``envs.make(game).reset(seed=episode_seed)`` deals the same game."""
        return int(self.vector.episode_seeds[0])

    def action_name(self, action: int) -> str:
        """The name of one of the learner's actions (``"pass"``, ``"candidate 3"``)."""
        return self._name(self._checked_action(action))

    # internals ---------------------------------------------------------------------------
    def _place_learner(self) -> None:
        """The seat of the game about to start; the vector env's kernel reads ``learner_seats`` at every call."""
        seat = self.seat if self.seat is not None else self._episode % self.num_players
        self.vector.learner_seats[0] = seat

    def _take(self, obs: dict[str, np.ndarray]) -> None:
        self._obs = obs[OBS_KEY][0].copy()
        self._mask = (obs[MASK_KEY][0] > 0).astype(np.int8)

    def _checked_action(self, action: Any) -> int:
        a = action.item() if isinstance(action, np.ndarray) and action.size == 1 else action
        if not is_int(a) or not 0 <= a < self.action_space.n:
            raise ValueError(f"action must be an int in [0, {self.action_space.n}), got {action!r}")
        return int(a)

    def _name(self, a: int) -> str:
        return self.vector._choice_name(a)

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy(),
            "learner_seat": self.learner_seat,
            "illegal_move": self._illegal,
            "won": self._won,
        }


def gym_id(game: str) -> str:
    """A game's gymnasium id: ``"capivari_v0"`` -> ``"tabuleiro/capivari-v0"``."""
    name, _, version = envs.game_name(game).rpartition("_v")
    return f"{NAMESPACE}/{name}-v{version}"


def register_games() -> list[str]:
    """Register every game of ``envs.GAMES`` with gymnasium (once; a new game needs no line here)."""
    ids = []
    for name in envs.GAMES:
        env_id = gym_id(name)
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=f"{__name__}:SingleAgentEnv", kwargs={"game": name})
        ids.append(env_id)
    return ids


GYM_IDS = register_games()
