"""Information-set Monte Carlo tree search (single observer, determinization, UCT).

The agent copies the env's state record and hands it to the game's compiled search
(``agents.search.search_kernel``), which determinizes the copy for the acting seat at every
iteration before anything else reads it: the search sees only what that seat could know.
The budget is a number of iterations (reproducible) or seconds per move (not).
"""

import math
import time
from typing import Any

import numpy as np

import envs
from agents.search import search_kernel

DEFAULT_ITERATIONS = 1000
DEFAULT_EXPLORATION = 0.7  # UCB constant for utilities in [0, 1]; a game's SearchHooks may set its own
_CHUNK = 64  # iterations per compiled call under a time budget (one clock check each)
# budget bounds: a search tree grows with every iteration, so a move's budget is bounded; both fit any
# practical search and keep a runaway setting from filling the memory
MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 600.0
MAX_EXPLORATION = 100.0


def check_budget(iterations: Any = None, seconds: Any = None, exploration: Any = None) -> None:
    """ValueError unless the budget is iterations in 1..MAX_ITERATIONS or seconds in (0, MAX_SECONDS]
    (not both) and the exploration constant is in [0, MAX_EXPLORATION]; all finite."""
    if iterations is not None and seconds is not None:
        raise ValueError("ismcts takes a budget of iterations or of seconds, not both")
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS
    ):
        raise ValueError(f"ismcts iterations must be a positive int, at most {MAX_ITERATIONS:,}; got {iterations!r}")
    if seconds is not None and not (
        isinstance(seconds, (int, float)) and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS
    ):
        raise ValueError(f"ismcts seconds must be > 0 and at most {MAX_SECONDS:g} (finite), got {seconds!r}")
    if exploration is not None and not (
        isinstance(exploration, (int, float)) and math.isfinite(exploration) and 0 <= exploration <= MAX_EXPLORATION
    ):
        raise ValueError(
            f"ismcts exploration must be >= 0 and at most {MAX_EXPLORATION:g} (finite), got {exploration!r}"
        )


class ISMCTSAgent:
    """Single-observer IS-MCTS over the game's determinization; plays the most visited root action
    (or, where the game's ``SearchHooks.play_by_value`` is set, the root action of best mean utility)."""

    name = "ismcts"

    def __init__(
        self,
        game: str,
        iterations: int | None = None,
        seconds: float | None = None,
        exploration: float | None = None,
        seed: int | None = None,
    ) -> None:
        check_budget(iterations, seconds, exploration)
        self.game = envs.game_name(game)
        hooks = envs.spec(self.game).search
        self._search = search_kernel(self.game).ismcts_iterate
        self._root_candidates = hooks.root_candidates
        self._by_value = hooks.play_by_value
        if exploration is None:
            exploration = DEFAULT_EXPLORATION if hooks.exploration is None else hooks.exploration
        self.iterations = DEFAULT_ITERATIONS if iterations is None and seconds is None else iterations
        self.seconds = seconds
        self.exploration = float(exploration)
        self.last_iterations = 0
        self.last_root: list[tuple[int, int]] = []  # (action, visits) of the last search's root children
        self.last_values = np.zeros(0)  # mean utility of each root action in the last search (0: not searched)
        self._rng = np.random.default_rng(seed)
        self._buffers: dict[Any, _Buffers] = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        seed = int(self._rng.integers(2**63))
        if legal.size == 1:
            return int(legal[0])
        root = env.game.new_state()
        root[0] = env.core_state
        seat = env.possible_agents.index(env.agent_selection)
        visits = self.search(root, seat, env.game, seed)
        if self._by_value:  # the best mean among the searched root actions
            counts = np.where((observation["action_mask"] > 0) & (visits > 0), self.last_values, -np.inf)
        else:
            counts = np.where(observation["action_mask"] > 0, visits, -1.0)
        return int(np.argmax(counts))

    def search(self, root: np.ndarray, seat: int, game: Any, seed: int) -> np.ndarray:
        """Visits of each root action after searching from ``root`` (one record) as ``seat``."""
        buf = self._buffers.get(root.dtype)
        if buf is None:
            buf = self._buffers[root.dtype] = _Buffers(root, game.num_actions, game.num_players)
        buf.load(root)
        buf.root_mask[:] = 1
        if self._root_candidates is not None:
            self._root_candidates(root, seat, game, seed, buf.root_mask)
        n_nodes = 1
        done = 0
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        while True:
            count = self.iterations - done if deadline is None else _CHUNK
            if count <= 0:
                break
            buf.ensure(n_nodes + count)
            n_nodes = self._search(
                buf.root_bytes, buf.work, buf.work_bytes, seat, np.uint64(seed), done, count, self.exploration,
                buf.tree_i, buf.tree_f, n_nodes, buf.mask, buf.root_mask, buf.child_of, buf.untried, buf.path,
                buf.returns, buf.util,
            )  # fmt: skip
            done += count
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        visits = np.zeros(game.num_actions)
        self.last_values = np.zeros(game.num_actions)
        c = buf.tree_i[0, 2]
        while c >= 0:
            visits[buf.tree_i[c, 0]] = buf.tree_f[c, 0]
            self.last_values[buf.tree_i[c, 0]] = buf.tree_f[c, 2] / max(buf.tree_f[c, 0], 1.0)
            c = buf.tree_i[c, 3]
        self.last_root = [(int(a), int(v)) for a, v in enumerate(visits) if v > 0]
        return visits


class _Buffers:
    """Tree arrays and scratch space for one state layout, reused from move to move."""

    def __init__(self, root: np.ndarray, num_actions: int, num_players: int) -> None:
        self.root = np.zeros(1, root.dtype)
        self.root_bytes = self.root.view(np.uint8)
        self.work = np.zeros(1, root.dtype)
        self.work_bytes = self.work.view(np.uint8)
        self.mask = np.zeros(num_actions, np.int8)
        self.root_mask = np.ones(num_actions, np.int8)
        self.child_of = np.full(num_actions, -1, np.int32)
        self.untried = np.zeros(num_actions, np.int32)
        self.returns = np.zeros(len(root[0]["rewards"]), np.float64)
        self.util = np.zeros(len(root[0]["rewards"]), np.float64)
        self.tree_i = np.zeros((0, 4), np.int32)
        self.tree_f = np.zeros((0, 3), np.float64)
        self.path = np.zeros(0, np.int32)

    def load(self, root: np.ndarray) -> None:
        self.root[0] = root[0]
        self.tree_i[:1] = (-1, -1, -1, -1)
        self.tree_f[:1] = 0.0

    def ensure(self, nodes: int) -> None:
        if nodes <= len(self.tree_i):
            return
        cap = max(nodes, 2 * len(self.tree_i), 1024)
        tree_i = np.zeros((cap, 4), np.int32)
        tree_f = np.zeros((cap, 3), np.float64)
        tree_i[: len(self.tree_i)] = self.tree_i
        tree_f[: len(self.tree_f)] = self.tree_f
        if len(self.tree_i) == 0:
            tree_i[0] = -1
        self.tree_i, self.tree_f = tree_i, tree_f
        self.path = np.zeros(cap, np.int32)


def iterations_per_second(game: str, seconds: float = 1.0, seed: int = 0) -> float:
    """IS-MCTS iterations per second from a game's opening position, searching for ``seconds`` (for the bench)."""
    env = envs.make(game)
    env.reset(seed=seed)
    agent = ISMCTSAgent(env.game.name, iterations=200, seed=seed)
    agent.act(env.observe(env.agent_selection), env)  # warm-up: loads the compiled search
    root = env.game.new_state()
    root[0] = env.core_state
    seat = env.possible_agents.index(env.agent_selection)
    agent = ISMCTSAgent(env.game.name, seconds=seconds, seed=seed)
    start = time.perf_counter()
    agent.search(root, seat, env.game, seed)
    return agent.last_iterations / (time.perf_counter() - start)
