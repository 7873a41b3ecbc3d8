"""Policy-guided IS-MCTS: the game's determinized search with a policy file's priors and value.

The arena's ``guided:FILE[,iterations=N|seconds=S,c_puct=C,value_weight=W,prior_temperature=T,network_depth=D,
playout=random|heuristic|network,playout_steps=K,root_candidates=true,game_search=true]``.
The search itself is the compiled ``agents.search.guided_loop`` (docs/guided-search.md gives the method and its
references); like ``ISMCTSAgent`` it determinizes its copy of the state for the acting seat before anything reads it.
"""

import os
from typing import Any

import numpy as np

import envs
from agents.compiled_policy import CompiledPolicy, load_policy, observer_for
from agents.search import budget, guided_kernel
from agents.search.buffers import SearchBuffers, search_root
from agents.search.guided_loop import PLAYOUT_GAME, PLAYOUT_HEURISTIC, PLAYOUT_NETWORK
from envs.engine.observer import Observer

DEFAULT_ITERATIONS = 200
DEFAULT_C_PUCT = 1.5  # for utilities in [0, 1]
DEFAULT_VALUE_WEIGHT = 0.5  # the leaf's utility: this much the network's value, the rest a random playout
MAX_C_PUCT = 100.0
MAX_DEPTH = 64  # levels a descent goes below the root before the network evaluates
DEFAULT_PRIOR_TEMPERATURE = 1.0  # the network's own softmax
MAX_PRIOR_TEMPERATURE = 1000.0
DEFAULT_NETWORK_DEPTH = MAX_DEPTH  # the network is asked at every level the descent reaches
PLAYOUTS = {"random": PLAYOUT_GAME, "heuristic": PLAYOUT_HEURISTIC, "network": PLAYOUT_NETWORK}
MAX_PLAYOUT_STEPS = 100_000
_CHUNK = 16  # the first compiled call's iterations under a time budget (budget.spend sizes the later ones)


def check_options(
    iterations: Any = None,
    seconds: Any = None,
    c_puct: Any = None,
    value_weight: Any = None,
    prior_temperature: Any = None,
    network_depth: Any = None,
    playout: Any = None,
    playout_steps: Any = None,
) -> None:
    """ValueError unless the budget is iterations in 1..MAX_ITERATIONS or seconds in (0, MAX_SECONDS] (not both),
    c_puct in [0, MAX_C_PUCT], value_weight in [0, 1], prior_temperature in (0, MAX_PRIOR_TEMPERATURE],
    network_depth an integer in [0, MAX_DEPTH], playout one of PLAYOUTS and playout_steps an integer in
    [0, MAX_PLAYOUT_STEPS] for a heuristic or network playout; all finite."""
    budget.check_budget("guided", iterations, seconds)
    budget.check_bounded("guided", "c_puct", c_puct, MAX_C_PUCT)
    budget.check_bounded("guided", "value_weight", value_weight, 1.0)
    budget.check_bounded("guided", "prior_temperature", prior_temperature, MAX_PRIOR_TEMPERATURE)
    if prior_temperature is not None and prior_temperature == 0:
        raise ValueError("guided prior_temperature=0: must be > 0")
    if network_depth is not None and (
        isinstance(network_depth, bool) or not isinstance(network_depth, int | np.integer) or network_depth < 0
    ):
        raise ValueError(f"guided network_depth={network_depth!r}: must be an integer >= 0")
    if network_depth is not None and network_depth > MAX_DEPTH:
        raise ValueError(f"guided network_depth={network_depth}: must be at most {MAX_DEPTH}")
    if playout is not None and playout not in PLAYOUTS:
        raise ValueError(f"guided playout={playout!r}: must be one of {sorted(PLAYOUTS)}")
    if playout_steps is not None:
        if isinstance(playout_steps, bool) or not isinstance(playout_steps, int | np.integer):
            raise ValueError(f"guided playout_steps={playout_steps!r}: must be an integer")
        if not 0 <= playout_steps <= MAX_PLAYOUT_STEPS:
            raise ValueError(f"guided playout_steps={playout_steps}: must be in [0, {MAX_PLAYOUT_STEPS}]")
        if playout in (None, "random"):
            raise ValueError("guided playout_steps: only with playout=heuristic or playout=network")


class GuidedAgent:
    """Plays the most visited root action of a policy-guided search (``agents.search.guided_loop``)."""

    def __init__(
        self,
        game: str,
        policy: CompiledPolicy,
        iterations: int | None = None,
        seconds: float | None = None,
        c_puct: float | None = None,
        value_weight: float | None = None,
        prior_temperature: float | None = None,
        network_depth: int | None = None,
        playout: str | None = None,
        playout_steps: int | None = None,
        root_candidates: bool = False,
        game_search: bool = False,
        seed: int | None = None,
        name: str = "guided",
    ) -> None:
        check_options(
            iterations, seconds, c_puct, value_weight, prior_temperature, network_depth, playout, playout_steps
        )
        self.game = envs.game_name(game)
        if envs.game_name(policy.game) != self.game:
            raise ValueError(f"{policy.source} is a policy for {policy.game}, not {self.game}")
        self._search = guided_kernel(self.game).guided_iterate
        hooks = envs.spec(self.game).search
        # the game's narrowing of the root (IS-MCTS's SearchHooks.root_candidates), if asked for and it has one
        self._root_candidates = hooks.root_candidates if root_candidates or game_search else None
        # the shape of the game's IS-MCTS (playouts, tree depth, opponents, shared determinizations), or plain PUCT
        self._shape = (
            (hooks.rollout_steps, hooks.opponents_in_tree, hooks.max_tree_depth, hooks.shared_determinizations)
            if game_search
            else (-1, True, MAX_DEPTH, 1)
        )
        self.policy = policy
        self.name = name
        self.iterations = DEFAULT_ITERATIONS if iterations is None and seconds is None else iterations
        self.seconds = seconds
        self.c_puct = DEFAULT_C_PUCT if c_puct is None else float(c_puct)
        self.value_weight = DEFAULT_VALUE_WEIGHT if value_weight is None else float(value_weight)
        self.prior_temperature = DEFAULT_PRIOR_TEMPERATURE if prior_temperature is None else float(prior_temperature)
        self.network_depth = DEFAULT_NETWORK_DEPTH if network_depth is None else int(network_depth)
        # a leaf's playout: the game's (random, or its hooks' under game_search), or the heuristic or network to the
        # end or for playout_steps moves
        self._playout = (PLAYOUTS[playout or "random"], -1 if playout_steps is None else int(playout_steps))
        self.last_iterations = 0
        self._rng = np.random.default_rng(seed)
        self._buffers: _Buffers | None = None
        self._checked_game: Any = None
        self._observer: Observer | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def _check(self, game: Any) -> None:
        """ValueError unless the env's game has the rules the policy was exported for (its observation options may
        differ: the search then runs with the file's) and a return range."""
        if game is self._checked_game:
            return
        self._observer = observer_for(self.policy, game, self.policy.source)
        if game.returns_range() is None:
            raise ValueError(f"guided search needs a game whose returns are bounded; {game.name} gives no range")
        self._checked_game = game

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        self._check(env.game)
        seed = int(self._rng.integers(2**63))
        if legal.size == 1:
            return int(legal[0])
        root, seat = search_root(env)
        game = env.game
        if self._observer is not None:  # the search runs on a copy with the file's observation options
            root, game = self._observer.record(root[0]), self._observer.game
        return self.move_of(self.search(root, seat, game, seed), observation["action_mask"])

    plays_by_value = False  # the most visited root action is the move

    def move_of(self, visits: np.ndarray, mask: np.ndarray) -> int:
        """The move a search's root ``visits`` pick among the legal actions ``mask``: the most visited."""
        return int(np.argmax(np.where(mask > 0, visits, -1.0)))

    def search(self, root: np.ndarray, seat: int, game: Any, seed: int) -> np.ndarray:
        """Visits of each root action after searching from ``root`` (one record) as ``seat``."""
        if self._buffers is None or self._buffers.root.dtype != root.dtype:
            self._buffers = _Buffers(root, game, self.policy)
        buf = self._buffers
        buf.load(root)
        buf.root_mask[:] = 1
        if self._root_candidates is not None:
            self._root_candidates(root, seat, game, seed, buf.root_mask)
        lo, hi = game.returns_range()
        n_nodes = 1

        def run(done: int, count: int) -> int:
            nonlocal n_nodes
            buf.ensure(n_nodes)
            n_nodes, ran = self._search(
                buf.root_bytes, buf.work, buf.work_bytes, seat, np.uint64(seed), done, count, self.c_puct,
                self.value_weight, self.prior_temperature, self.network_depth, float(lo), float(hi), *self._shape,
                *self._playout, buf.tree_i, buf.tree_f, n_nodes, buf.mask, buf.root_mask, buf.child_of, buf.path,
                buf.returns, buf.util,
                buf.rollout_util, self.policy.kernel_args, buf.obs, buf.obs_mask, buf.module_mask, buf.module_logits,
                buf.logits, buf.scratch, buf.values,
            )  # fmt: skip
            return ran

        self.last_iterations = budget.spend(self.iterations, self.seconds, _CHUNK, run)
        visits = np.zeros(game.num_actions)
        c = buf.tree_i[0, 2]
        while c >= 0:
            visits[buf.tree_i[c, 0]] = buf.tree_f[c, 0]
            c = buf.tree_i[c, 3]
        return visits


class _Buffers(SearchBuffers):
    """Tree arrays (``tree_f`` rows: visits, availability, value, prior) and scratch space for one state layout,
    reused from move to move."""

    def __init__(self, root: np.ndarray, game: Any, policy: CompiledPolicy) -> None:
        self.max_actions = type(game).max_actions
        super().__init__(root, self.max_actions, tree_columns=4)
        self.obs = np.zeros(game.obs_size, np.float32)
        self.obs_mask = np.zeros(self.max_actions, np.int8)
        self.module_mask = np.zeros(policy.outputs, np.float32)
        self.module_logits = np.zeros(policy.outputs, np.float32)
        self.logits = np.zeros(self.max_actions, np.float32)
        self.rollout_util = np.zeros(len(root[0]["rewards"]), np.float64)
        self.path = np.zeros(MAX_DEPTH, np.int32)
        self.scratch = np.zeros((1, 2), root.dtype)  # the heuristic's copies of a playout's position
        self.values = np.zeros(self.max_actions, np.float64)  # the heuristic's value of each action

    def load(self, root: np.ndarray) -> None:
        self.root[0] = root[0]
        self.ensure(1)
        self.tree_i[0] = -1
        self.tree_f[0] = 0.0

    def ensure(self, nodes: int) -> None:
        """Room for ``nodes`` plus one more iteration (each level of its descent adds at most a child per action)."""
        need = nodes + self.max_actions * (MAX_DEPTH + 1)
        if need <= len(self.tree_i):
            return
        self.grow(max(need, 2 * len(self.tree_i)))


def load_agent(path: str | os.PathLike, game: str, seed: int | None = None, **options: Any) -> GuidedAgent:
    """The arena agent of ``guided:FILE[,...]`` for ``game``."""
    from pathlib import Path

    return GuidedAgent(game, load_policy(path, game), seed=seed, name=f"guided:{Path(path).name}", **options)
