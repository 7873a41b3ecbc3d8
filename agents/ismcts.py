"""Information-set Monte Carlo tree search (single observer, determinization, UCT).

The agent copies the env's state record and hands it to the game's compiled search
(``agents.search.search_kernel``), which determinizes the copy for the acting seat at every
iteration before anything else reads it: the search sees only what that seat could know.
The budget is a number of iterations (reproducible) or seconds per move (not).
"""

import time
from typing import Any

import numpy as np

import envs
from agents.search import budget, search_kernel
from agents.search.budget import MAX_ITERATIONS, MAX_SECONDS
from agents.search.buffers import SearchBuffers, search_root

__all__ = [
    "DEFAULT_EXPLORATION", "DEFAULT_ITERATIONS", "MAX_EXPLORATION", "MAX_ITERATIONS", "MAX_SECONDS", "ISMCTSAgent",
    "check_budget", "iterations_per_second",
]  # fmt: skip

DEFAULT_ITERATIONS = 1000
DEFAULT_EXPLORATION = 0.7  # UCB constant for utilities in [0, 1]; a game's SearchHooks may set its own
_CHUNK = 64  # the first compiled call's iterations under a time budget (budget.spend sizes the later ones)
MAX_EXPLORATION = 100.0


def check_budget(iterations: Any = None, seconds: Any = None, exploration: Any = None) -> None:
    """ValueError unless the budget is iterations in 1..MAX_ITERATIONS or seconds in (0, MAX_SECONDS]
    (not both) and the exploration constant is in [0, MAX_EXPLORATION]; all finite."""
    budget.check_budget("ismcts", iterations, seconds)
    budget.check_bounded("ismcts", "exploration", exploration, MAX_EXPLORATION)


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
        seed = int(self._rng.integers(2**63))
        root, seat = search_root(env)
        return self.choose(root, seat, env.game, observation["action_mask"], seed)

    def choose(self, root: np.ndarray, seat: int, game: Any, mask: np.ndarray, seed: int) -> int:
        """The move of ``seat`` at ``root`` (one record) among the legal actions ``mask``: the most visited root
        action, or the best mean where the game plays by value (a sole legal action without searching)."""
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        if legal.size == 1:
            return int(legal[0])
        return self.move_of(self.search(root, seat, game, seed), mask)

    @property
    def plays_by_value(self) -> bool:
        """Whether the move is the best mean, not the most visited (the game's ``SearchHooks.play_by_value``)."""
        return bool(self._by_value)

    def move_of(self, visits: np.ndarray, mask: np.ndarray) -> int:
        """The move the last search (its root ``visits``) picks among the legal actions ``mask``: the most visited,
        or the best mean among the searched ones where the game plays by value."""
        if self._by_value:
            counts = np.where((mask > 0) & (visits > 0), self.last_values, -np.inf)
        else:
            counts = np.where(mask > 0, visits, -1.0)
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

        def run(done: int, count: int) -> int:
            nonlocal n_nodes
            buf.ensure(n_nodes + count)
            n_nodes = self._search(
                buf.root_bytes, buf.work, buf.work_bytes, seat, np.uint64(seed), done, count, self.exploration,
                buf.tree_i, buf.tree_f, n_nodes, buf.mask, buf.root_mask, buf.child_of, buf.untried, buf.path,
                buf.returns, buf.util,
            )  # fmt: skip
            return count

        self.last_iterations = budget.spend(self.iterations, self.seconds, _CHUNK, run)
        visits = np.zeros(game.num_actions)
        self.last_values = np.zeros(game.num_actions)
        c = buf.tree_i[0, 2]
        while c >= 0:
            visits[buf.tree_i[c, 0]] = buf.tree_f[c, 0]
            self.last_values[buf.tree_i[c, 0]] = buf.tree_f[c, 2] / max(buf.tree_f[c, 0], 1.0)
            c = buf.tree_i[c, 3]
        self.last_root = [(int(a), int(v)) for a, v in enumerate(visits) if v > 0]
        return visits


class _Buffers(SearchBuffers):
    """Tree arrays (``tree_f`` rows: visits, availability, value) and scratch space for one state layout, reused
    from move to move."""

    def __init__(self, root: np.ndarray, num_actions: int, num_players: int) -> None:
        super().__init__(root, num_actions, tree_columns=3)
        self.untried = np.zeros(num_actions, np.int32)
        self.path = np.zeros(0, np.int32)

    def load(self, root: np.ndarray) -> None:
        self.root[0] = root[0]
        self.tree_i[:1] = (-1, -1, -1, -1)
        self.tree_f[:1] = 0.0

    def ensure(self, nodes: int) -> None:
        if nodes <= len(self.tree_i):
            return
        cap = max(nodes, 2 * len(self.tree_i), 1024)
        first = len(self.tree_i) == 0
        self.grow(cap)
        if first:
            self.tree_i[0] = -1
        self.path = np.zeros(cap, np.int32)


def iterations_per_second(game: str, seconds: float = 1.0, seed: int = 0) -> float:
    """IS-MCTS iterations per second from a game's opening position, searching for ``seconds`` (for the bench)."""
    env = envs.make(game)
    env.reset(seed=seed)
    agent = ISMCTSAgent(env.game.name, iterations=200, seed=seed)
    agent.act(env.observe(env.agent_selection), env)  # warm-up: loads the compiled search
    root, seat = search_root(env)
    agent = ISMCTSAgent(env.game.name, seconds=seconds, seed=seed)
    start = time.perf_counter()
    agent.search(root, seat, env.game, seed)
    return agent.last_iterations / (time.perf_counter() - start)
