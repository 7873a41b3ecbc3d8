"""The RLlib env for every game: a PettingZoo AEC env as an RLlib ``MultiAgentEnv`` where "main" meets the pool.

Why not RLlib's ``PettingZooEnv`` as is: it exposes every seat and PettingZoo's ``"observation"`` key
with an int8 mask, and it has no place for opponents that are not RLlib modules (the heuristic
needs the AEC env). So this wrapper does the same AEC-to-multi-agent translation and, per episode:
draws an opponent kind from the pool (its own seeded generator), seats main at a random seat (all
seats in a mirror game), and lets the opponents act inside ``step`` until it is main's turn again.
RLlib sees only main's seats, so one policy mapping (every agent -> ``"main"``) covers every game.

Observations are ``{"observations": float32[n], "action_mask": float32[k]}`` (RLlib's keys, float32).
Rewards: each main seat's game reward since its last decision. The last info of each main seat
carries the outcome for the self-play callbacks: ``opponent`` (kind), ``win``, ``score`` (return),
``turns`` (decisions of every seat) and ``illegal`` (main ended the game with an illegal move,
which the masking module makes impossible).
"""

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import envs
from training.masking_module import MASK_KEY, OBS_KEY
from training.opponents import OpponentPool, PoolWeights
from training.shaping import potential

ENV_NAME = "tabuleiro_selfplay"


def outcome(returns: np.ndarray, seat: int) -> float:
    """1.0 if ``seat`` finished strictly first (highest return, no tie), else 0.0."""
    others = np.delete(returns, seat)
    return float(returns[seat] > others.max())


class SelfPlayEnv(MultiAgentEnv):
    """One game of ``config["game"]`` per episode: main's seats are agents, the pool plays the others.

    ``config``: ``game`` (name), ``game_config`` (the game's keyword config, e.g. ``num_players``),
    ``pool`` (``PoolWeights`` fields as a dict), ``seed`` (mixed into each env's generator),
    ``shaping`` (a ``training.shaping`` potential name, or None) and ``gamma`` (the learner's discount).
    """

    metadata = {"render_modes": []}

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        worker = int(getattr(config, "worker_index", 0))  # an EnvContext knows its env runner
        config = dict(config or {})
        self.game_name = config["game"]
        self.game_config = dict(config.get("game_config") or {})
        self.aec = envs.make(self.game_name, **self.game_config)
        game = self.aec.game
        self.num_seats = len(self.aec.possible_agents)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        lo, hi = game.obs_bounds()
        space = gym.spaces.Dict(
            {
                OBS_KEY: gym.spaces.Box(lo, hi, (game.obs_size,), np.float32),
                MASK_KEY: gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self.pool = OpponentPool(self.game_name, self.num_seats, PoolWeights(**config.get("pool", {})))
        self._worker = worker
        self._base_seed = config.get("seed")
        self._rng = np.random.default_rng([self._worker, 0 if self._base_seed is None else self._base_seed])
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self._phi = potential(config["shaping"]) if config.get("shaping") else None
        self._gamma = float(config.get("gamma", 1.0))
        self.kind = self.opponent = ""
        self._main: set[int] = set()
        self._opponents: dict[int, Any] = {}

    # pool ---------------------------------------------------------------------
    def set_snapshot(self, name: str, agent: Any) -> None:
        """Add (or replace) a frozen copy of main in this env's pool."""
        self.pool.snapshots[name] = agent

    def drop_snapshot(self, name: str) -> None:
        self.pool.snapshots.pop(name, None)

    # episode ------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            base = 0 if self._base_seed is None else self._base_seed
            self._rng = np.random.default_rng([seed, self._worker, base])
        while True:
            self.kind, self.opponent, agents = self.pool.draw(self._rng)
            if self.kind == "self":
                self._main = set(range(self.num_seats))
                self._opponents = {}
            else:
                main = int(self._rng.integers(self.num_seats))
                self._main = {main}
                others = [s for s in range(self.num_seats) if s != main]
                self._opponents = dict(zip(others, agents, strict=True))
            self.aec.reset(seed=int(self._rng.integers(2**63)))
            self._returns = np.zeros(self.num_seats)
            self._reported = np.zeros(self.num_seats)
            self._last_phi = np.zeros(self.num_seats)
            self._seen: set[int] = set()
            self.turns = 0
            self._advance()
            if not self._over():  # a game that ends before main acts (none of ours) is simply redrawn
                break
        agent = self.aec.agent_selection
        self._seen.add(self._seat_of[agent])
        self._shaped(agent)  # records the first potential; no reward before the first decision
        return {agent: self._obs(agent)}, {agent: {}}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.aec.agent_selection
        self._play(int(action_dict[agent]))
        self._advance()
        if self._over():
            return self._final()
        agent = self.aec.agent_selection
        seat = self._seat_of[agent]
        shaped = self._shaped(agent)
        if seat not in self._seen:  # a mirror game's other seat, deciding for the first time
            self._seen.add(seat)
            shaped = 0.0
        reward = self._returns[seat] - self._reported[seat] + shaped
        self._reported[seat] = self._returns[seat]
        return (
            {agent: self._obs(agent)},
            {agent: float(reward)},
            {agent: False, "__all__": False},
            {agent: False, "__all__": False},
            {agent: {}},
        )

    # internals ----------------------------------------------------------------
    def _over(self) -> bool:
        return all(self.aec.terminations.values()) or all(self.aec.truncations.values())

    def _shaped(self, agent: str, final: bool = False) -> float:
        """gamma * phi(now) - phi(at the seat's previous decision); phi is 0 once the game is over."""
        if self._phi is None:
            return 0.0
        seat = self._seat_of[agent]
        now = 0.0 if final else self._phi(self.aec.infos.get(agent, {}))
        bonus = (0.0 if final else self._gamma * now) - self._last_phi[seat]
        self._last_phi[seat] = now
        return float(bonus)

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        o = self.aec.observe(agent)
        return {OBS_KEY: o["observation"], MASK_KEY: o["action_mask"].astype(np.float32)}

    def _play(self, action: int) -> None:
        self.aec.step(action)
        self.turns += 1
        for a, r in self.aec.rewards.items():
            self._returns[self._seat_of[a]] += r

    def _advance(self) -> None:
        """Opponents act until a main seat is to act or the game is over."""
        while not self._over():
            seat = self._seat_of[self.aec.agent_selection]
            if seat in self._main:
                return
            agent = self.aec.agent_selection
            self._play(self._opponents[seat].act(self.aec.observe(agent), self.aec))

    def _final(self) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, infos = {}, {}, {}
        for seat in sorted(self._seen):
            agent = self.possible_agents[seat]
            obs[agent] = self._obs(agent)
            rewards[agent] = float(self._returns[seat] - self._reported[seat]) + self._shaped(agent, final=True)
            self._reported[seat] = self._returns[seat]
            infos[agent] = {
                "opponent": self.kind,
                "opponent_name": self.opponent,
                "win": outcome(self._returns, seat),
                "score": float(self._returns[seat]),
                "turns": self.turns,
                "illegal": bool(self.aec.infos.get(agent, {}).get("illegal_move", False)),
            }
        done = dict.fromkeys(obs, True)
        return obs, rewards, dict(done, __all__=True), dict.fromkeys(obs, False) | {"__all__": False}, infos


def env_creator(config: dict[str, Any]) -> SelfPlayEnv:
    """RLlib's env factory (``tune.register_env(ENV_NAME, env_creator)``)."""
    return SelfPlayEnv(config)


def register() -> None:
    """Register the env under ``ENV_NAME`` with Ray Tune's registry (in every process that builds an algorithm)."""
    from ray.tune.registry import register_env  # optional heavy: ray, only when registering

    register_env(ENV_NAME, env_creator)
