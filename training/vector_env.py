"""A gymnasium ``VectorEnv`` per game over the batch API: one learner seat per game, opponents compiled.

``GameVectorEnv("capivari_v0", 256, seed=0)`` runs 256 games in one array of state records
(``envs.batch.BatchEnv``). In game i the learner holds seat ``i % num_players`` (seats rotated
across games); everything else happens inside one compiled call (``vector_advance`` in
``training.opponent_loop``): the opponents' moves, chance, and auto-reset. So ``step(actions)`` takes
one learner action per game and returns when the learner is to act again in every game, or its
game is over.

- Opponents: a pool of kinds drawn per game at its start (``opponents={"random": 0.2, "heuristic":
  0.5, "snapshot": 0.3, "self": 0}``, relative weights). ``random``, ``heuristic`` (the game's
  compiled ``action_values``, determinized, as ``HeuristicAgent`` plays it) and ``policy`` (a policy file,
  ``opponent_policy=``: a sample of its masked softmax, or its argmax with ``opponent_greedy=True``,
  ``agents.compiled_policy``) move inside the kernel. ``search`` is IS-MCTS (``agents.ismcts``, with
  ``opponent_search_iterations`` a move, seeded from the game's opponent generator) on the game's state record,
  called from Python for each game where it is to act.
  ``self`` and ``snapshot`` are outside policies (``set_policy("self", fn)``, ``add_snapshot(name,
  fn)``): the kernel stops where one is to act, and ``step`` calls each policy once with the
  observations of every game waiting for it (one batched forward pass), then resumes the kernel. A
  snapshot added with its compiled policy (``add_snapshot(name, fn, compiled=CompiledPolicy)``) moves inside
  the kernel instead (a sample of its masked softmax, ``training.policy_bank``); ``fn`` is then not called.
  ``set_snapshot_group(fn, names)`` lets one call act for several snapshots at once (``fn(index into
  names per row, obs, masks)``, e.g. ``training.snapshot_group``: one forward pass for all of them);
  the snapshots it names (live, or dropped but still played) no longer use their own policies, which
  the others and ``self`` still do. A kind with no policy yet (or a game without a compiled
  heuristic) is not drawn.
- ``pop_stats()``: games, wins (strictly first), score per opponent kind, learner and total
  decisions (opponents included) and the opponents' decided outside the kernel, since the last call.

- Observations: ``{"observations": float32[obs_size], "action_mask": float32[num_choices]}`` of the
  learner's seat (RLlib's keys; ``num_choices``: the game's ``num_actions``, or the candidate action space's
  size; the mask is all zeros in a finished game's last observation).
- ``privileged_critic=True`` adds ``"critic_observations"``, for a value function that may see what the policy
  may not: what the game's spec declares hidden (``GameSpec.hidden``: Capivari's deck order), or else each other
  seat's own observation (its hand included), seat learner + k in block k - 1.
- Rewards: the learner's game rewards since its previous decision (float32), as the game defines them;
  with ``shaping="duel_margin"`` (a potential the game's spec names, ``GameSpec.shaping``) plus
  potential-based shaping with ``shaping_gamma`` (the learner's discount). ``pop_stats`` counts the
  game's own rewards either way.
- Auto-reset: gymnasium 1.x's modes, chosen with ``autoreset_mode=`` (``AutoresetMode`` or its name),
  kept in ``autoreset_mode`` and ``metadata["autoreset_mode"]``. ``NEXT_STEP`` (the default): the step
  after a termination ignores that game's action and returns the first observation of a new game
  (reward 0, not terminated). ``SAME_STEP``: the step that ends a game returns its reward and
  ``terminated`` with the new game's first observation; the finished game's last observation is in
  ``infos["final_obs"]`` (an object array: a dict per finished game, None elsewhere) and its infos in
  ``infos["final_info"]`` (its ``episode_seed``, ``learner_seat``, and ``opponent_actions`` when recorded),
  each with its ``_`` mask. ``DISABLED``: nothing restarts by itself; ``step`` refuses to run while a game
  is finished until ``reset(options={"reset_mask": mask})`` restarted it. Every mode draws the new game's
  seed from the finished game's own generator (``rng_next`` of its final state, as ``BatchEnv`` does);
  ``infos["episode_seed"]`` gives it, and ``envs.make(game).reset(seed=that_seed)`` plays the same game
  for the same moves.
- ``reset(seed=s, options={"reset_mask": mask})`` (a bool array, one per game; any mode) restarts only the
  games in ``mask``, game i from ``s + i``, or without a seed from the next draw of its own generator;
  the others go on untouched. It returns every game's observation and the infos of the restarted ones.
- Seeds: ``reset(seed=s)`` starts game i exactly as ``envs.make(game).reset(seed=s + i)``. The
  opponents of a game draw from their own generator, ``splitmix64(episode_seed ^ OPPONENT_SALT)``
  (restarted with every game), so a game is a function of its seed and the learner's actions.
- A game that would end before the learner's first decision is dropped and the next one started
  (none of the registered games does this).
- ``truncations`` are always False: every game ends by its rules.
- ``observe_into(obs, masks)``: the next ``reset``/``step`` writes its observations into arrays the
  caller owns (rows of a recording, say) and returns those; otherwise each call returns new arrays.
- ``candidate_actions="placement_candidates"`` (a game whose observation piece of that name has a row per
  legal placement, the Duel's): the learner and the outside policies choose in the candidate action space
  (``envs.engine.candidate_actions``: action k the k-th legal placement, the one row k describes; then the
  game's other actions), with masks of that space; the kernel, the opponents and recordings still see the
  game's own actions.
"""

import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import gymnasium as gym
import numba
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import envs
from agents.compiled_policy import CompiledPolicy, game_config_of, load_policy, observer_for
from agents.ismcts import ISMCTSAgent
from envs.batch import BatchEnv, check_memory
from envs.engine.aec import IllegalActionError
from envs.engine.candidate_actions import candidate_actions_of
from envs.engine.checks import checked_seed
from envs.engine.policy_net import G_SIZE, NETS, S_SIZE, SC_SIZE
from envs.engine.rng import splitmix64
from envs.engine.templates import compiled_for
from training import opponent_loop
from training.opponent_loop import HEURISTIC_SLOT, OUTSIDE_SLOT, POLICY_SLOT, RANDOM_SLOT
from training.policy_bank import pack_bank
from training.shaping import Shaper

OBS_KEY = "observations"  # RLlib's keys (agents.rllib_policy); repeated here so no torch import is needed
MASK_KEY = "action_mask"
CRITIC_KEY = "critic_observations"  # with privileged_critic: what the learner's seat does not see, for the value
KINDS = ("random", "heuristic", "policy", "snapshot", "self", "search")
SEARCH_SLOT = OUTSIDE_SLOT  # IS-MCTS, called from Python on the game's state record
SELF_SLOT = OUTSIDE_SLOT + 1  # the learner's own current policy; snapshots take the slots after it
RECORD_WIDTH = 4096  # opponents' actions kept per game and step when recording


def autoreset_mode_of(mode: Any) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode``: the member, its value (``"SameStep"``) or its name (``"same_step"``)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        for member in AutoresetMode:
            if mode == member.value or mode.upper() == member.name:
                return member
    names = ", ".join(f"AutoresetMode.{m.name}" for m in AutoresetMode)
    raise ValueError(f"autoreset_mode must be one of {names} (or its name or value), got {mode!r}")


def quiet_threading_layer() -> None:
    """Use numba's ``workqueue`` threads in this process unless a layer was chosen or already started.

    Once a parallel kernel has run on numba's OpenMP layer, its idle threads spin and slow torch in the same
    process several times over; ``workqueue`` threads (or ``OMP_WAIT_POLICY=PASSIVE``) do not.
    """
    from numba.np.ufunc import parallel  # numba's own flag: the layer is fixed once a parallel kernel ran

    if not parallel._is_initialized and "NUMBA_THREADING_LAYER" not in os.environ:
        numba.config.THREADING_LAYER = "workqueue"


# an outside policy: (observations float32[m, n], masks float32[m, k]) -> one legal action per row
Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]
# several snapshots at once: (index into its snapshot names int64[m], observations, masks) -> actions[m]
GroupPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def opponent_weights(opponents: str | dict[str, float]) -> dict[str, float]:
    """``"random"`` or ``{"random": 0.2, "heuristic": 0.8}`` as a weight per kind (ValueError if malformed)."""
    weights = {opponents: 1.0} if isinstance(opponents, str) else dict(opponents)
    unknown = sorted(set(weights) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown opponent kind(s) {unknown}; kinds: {list(KINDS)}")
    for kind, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not np.isfinite(w) or w < 0:
            raise ValueError(f"opponent weight {kind!r} must be a finite number >= 0, got {w!r}")
    if sum(weights.values()) <= 0:
        raise ValueError("at least one opponent weight must be > 0")
    return {k: float(weights.get(k, 0.0)) for k in KINDS}


# the kernel's policy arguments when no policy file plays (``CompiledPolicy.kernel_args`` layout, empty)
NO_POLICY = (
    np.zeros(0, np.float32),
    np.zeros((0, 5), np.int64),
    np.zeros((len(NETS), 2), np.int64),
    np.zeros(S_SIZE, np.int64),
    np.zeros(SC_SIZE, np.float32),
    np.zeros(G_SIZE, np.int64),
)


def compiled_opponent(policy: Any, game: Any) -> tuple[CompiledPolicy | None, np.ndarray]:
    """The ``policy`` opponent (None, a ``CompiledPolicy`` or a policy file's path) checked against ``game``, with
    the ``(byte, value)`` rows the kernel sets in a table's record while it observes: its file's observation
    options (none when the table's config is the file's); ValueError if the game or its rules differ."""
    if policy is None:
        return None, NO_PATCH
    if not isinstance(policy, CompiledPolicy):
        policy = load_policy(policy, game.name)
    observer = observer_for(policy, game, f"opponent policy {policy.source}")
    return policy, NO_PATCH if observer is None else observer.byte_patch()


NO_PATCH = np.zeros((0, 2), np.int64)


def opponent_kernel(game_cls: type) -> Any:
    """``training.opponent_loop`` compiled for a game class (its rules, random picks and heuristic)."""
    return compiled_for(opponent_loop, game_cls)


class GameVectorEnv(VectorEnv):
    """``num_envs`` games of one kind; the learner holds one seat in each, the opponent pool the others.

    ``record_opponent_actions=True`` puts each game's opponent actions of the call in
    ``infos["opponent_actions"]`` (an object array of int64 arrays), to replay the games elsewhere.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        game: str,
        num_envs: int,
        seed: int = 0,
        opponents: str | dict[str, float] = "random",
        threads: int | None = 1,
        record_opponent_actions: bool = False,
        shaping: str | None = None,
        shaping_gamma: float = 1.0,
        candidate_actions: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        opponent_policy: Any = None,
        opponent_greedy: bool = False,
        opponent_search_iterations: int = 200,
        privileged_critic: bool = False,
        **config: Any,
    ) -> None:
        # refused before anything is allocated if the batch and the buffers below would not fit in memory
        what = f"GameVectorEnv({game!r}, {num_envs!r})"
        check_memory(game, num_envs, what, states=2, observations=1, masks=3, **config)
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        self.metadata = dict(type(self).metadata, autoreset_mode=self.autoreset_mode)
        self.weights = opponent_weights(opponents)
        quiet_threading_layer()
        self.batch = BatchEnv(game, num_envs, seed=seed, threads=threads, **config)
        self.game = self.batch.game
        self.num_envs = self.batch.num_envs
        self.num_players = self.game.num_players
        self._k = self.batch._k
        self._loop = opponent_kernel(type(self.game))
        self.opponent_policy, self._observe_patch = compiled_opponent(opponent_policy, self.game)
        self._policy_args = (
            self.opponent_policy.opponent_args(opponent_greedy) if self.opponent_policy is not None else NO_POLICY
        )
        self.has_compiled_heuristic = self.game.action_values_fn is not None
        self.opponent_search = (  # the ``search`` kind's IS-MCTS (None: the game has no search hooks)
            ISMCTSAgent(self.game.name, iterations=opponent_search_iterations)
            if envs.spec(self.game.name).search is not None
            else None
        )
        # the learner's actions: the game's, or one per candidate row and then the game's others
        self.candidates = candidate_actions_of(self.game, candidate_actions) if candidate_actions else None
        self.num_choices = self.candidates.size if self.candidates is not None else self.game.num_actions
        lo, hi = self.game.obs_bounds()
        spaces = {
            OBS_KEY: gym.spaces.Box(lo, hi, (self.game.obs_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (self.num_choices,), np.float32),
        }
        self.privileged_critic = bool(privileged_critic)
        self._hidden = envs.spec(self.game.name).hidden if self.privileged_critic else None
        if self._hidden is not None:  # what no seat sees, as the game's spec reads it from the records
            size = int(self._hidden(self.batch.states[:1], np.zeros(1, np.int64)).shape[1])
            spaces[CRITIC_KEY] = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        elif self.privileged_critic:  # seat learner + k's observation at k - 1, k = 1 .. players - 1
            size = self.game.obs_size * (self.num_players - 1)
            bounds = [np.resize(np.asarray(b, np.float32), size) for b in (lo, hi)]
            spaces[CRITIC_KEY] = gym.spaces.Box(*bounds, (size,), np.float32)
        self.single_observation_space = gym.spaces.Dict(spaces)
        self.single_action_space = gym.spaces.Discrete(self.num_choices)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self.learner_seats = np.arange(n, dtype=np.int64) % self.num_players
        self._rewards = np.zeros(n, np.float64)
        self._dones = np.zeros(n, np.uint8)
        self._fresh = np.zeros(n, np.uint8)
        self._waiting = np.zeros(n, np.uint8)
        self._opponent_rng = np.zeros(n, np.uint64)
        self._slots = np.zeros(n, np.int64)
        self._returns = np.zeros((n, self.batch.states["rewards"].shape[1]), np.float64)
        self._scratch = np.zeros((n, 2 if self.has_compiled_heuristic else 0), self.batch.states.dtype)
        self._played = np.zeros((n, RECORD_WIDTH if record_opponent_actions else 0), np.int64)
        self._played_count = np.zeros(n, np.int64)
        self._record = bool(record_opponent_actions)
        self._recorded: list[list[int]] = [[] for _ in range(n)]
        self._masks = np.zeros((n, self.game.num_actions), np.int8)  # the game's, of the learner's seat
        # the learner's masks: the game's, or those of the candidate action space
        self._choices = self._masks if self.candidates is None else np.zeros((n, self.num_choices), np.int8)
        self._outside_obs = np.zeros((n, self.game.obs_size), np.float32)
        self._outside_masks = np.zeros_like(self._masks)
        self.policies: dict[str, Policy] = {}  # "self" and snapshot names -> outside policy
        self.snapshots: list[str] = []  # snapshot names in slot order (slot SELF_SLOT + 1 + j)
        self._retired: dict[str, Policy] = {}  # dropped snapshots some game still plays against
        self._group: GroupPolicy | None = None  # acts for the snapshots _group_names, all at once
        self._group_names: list[str | None] = []  # None: a name replaced since (add_snapshot)
        self._group_of_slot = np.full(SELF_SLOT + 1, -1, np.int64)  # slot -> index into _group_names, or -1
        self.compiled_snapshots: dict[str, CompiledPolicy] = {}  # snapshots the kernel plays itself
        self._bank = pack_bank({}, SELF_SLOT + 1)
        self._slot_cdf = np.ones(1, np.float64)
        self._update_slots()
        self._stats = self._empty_stats()
        potential = envs.spec(self.game.name).potential(shaping) if shaping else None
        self._shaper = Shaper(potential, shaping_gamma, n) if potential else None
        self._ready = False
        self._into: tuple[np.ndarray, ...] | None = None

    # the pool --------------------------------------------------------------------------
    def set_weights(self, opponents: str | dict[str, float]) -> None:
        """New pool weights; games already running keep their opponents."""
        self.weights = opponent_weights(opponents)
        self._update_slots()

    def set_policy(self, kind: str, policy: Policy | None) -> None:
        """The outside policy of kind ``"self"`` (the learner's current module); None removes it."""
        if kind != "self":
            raise ValueError("set_policy takes 'self'; snapshots come with add_snapshot")
        if policy is None:
            self.policies.pop(kind, None)
        else:
            self.policies[kind] = policy
        self._update_slots()

    def add_snapshot(self, name: str, policy: Policy, compiled: CompiledPolicy | None = None) -> None:
        """Add (or replace) a frozen copy of the learner; snapshots share the ``snapshot`` weight equally.
        With ``compiled`` (the same network as a ``CompiledPolicy`` of this game and config) the kernel plays it."""
        compiled, patch = compiled_opponent(compiled, self.game)
        if len(patch):  # the bank's snapshots observe the table's records as they are
            raise ValueError(
                f"compiled snapshot {name}: exported with other observation options than this env's "
                f"{self.game.name} (config {game_config_of(self.game)}); a snapshot must be of this game and config"
            )
        if name not in self.snapshots:
            self.snapshots.append(name)
        self.policies[name] = policy
        if name in self._group_names:  # the group has its old weights: this policy plays it until regrouped
            self._group_names[self._group_names.index(name)] = None
        if compiled is not None:
            self.compiled_snapshots[name] = compiled
        else:
            self.compiled_snapshots.pop(name, None)
        self._update_slots()
        self._update_group_slots()
        self._update_bank()

    def _update_bank(self) -> None:
        """The kernel's bank: the compiled snapshots, each in its slot."""
        slot = {name: SELF_SLOT + 1 + j for j, name in enumerate(self.snapshots)}
        compiled = {slot[name]: p for name, p in self.compiled_snapshots.items()}
        self._bank = pack_bank(compiled, SELF_SLOT + 1 + len(self.snapshots))

    def set_snapshot_group(self, policy: GroupPolicy | None, names: Sequence[str] = ()) -> None:
        """One policy for the snapshots ``names`` (live or retired): ``policy(index into names per row, obs,
        masks)`` acts in every waiting game against any of them in one call. None (or no names) removes it."""
        unknown = sorted(set(names) - set(self.snapshots))
        if unknown:
            raise ValueError(f"set_snapshot_group: {unknown} are not snapshots (add_snapshot them first)")
        self._group = policy if names else None
        self._group_names = list(names) if policy is not None else []
        self._update_group_slots()

    def _update_group_slots(self) -> None:
        """The slot -> group index table ``_play`` reads (-1: not in the group)."""
        table = np.full(SELF_SLOT + 1 + len(self.snapshots), -1, np.int64)
        for i, name in enumerate(self._group_names):
            if name is not None:
                table[SELF_SLOT + 1 + self.snapshots.index(name)] = i
        self._group_of_slot = table

    def playing_snapshots(self) -> list[str]:
        """Snapshots some game may still play: those in the pool and dropped ones not yet let go."""
        return [n for n in self.snapshots if n in self.policies or n in self._retired]

    def drop_snapshot(self, name: str) -> None:
        """Remove a snapshot; games still playing against it finish against it (then it is let go)."""
        if name in self.policies and name in self.snapshots:
            self._retired[name] = self.policies.pop(name)
        self._update_slots()

    def _let_go_of_retired(self) -> None:
        for name in list(self._retired):
            if not (self._slots == SELF_SLOT + 1 + self.snapshots.index(name)).any():
                del self._retired[name]
                if self.compiled_snapshots.pop(name, None) is not None:
                    self._update_bank()

    def available(self) -> list[str]:
        """Opponent kinds that can be drawn now (weight > 0 and something to play them)."""
        have = {
            "random": True,
            "heuristic": self.has_compiled_heuristic,
            "policy": self.opponent_policy is not None,
            "snapshot": any(n in self.policies for n in self.snapshots),
            "self": "self" in self.policies,
            "search": self.opponent_search is not None,
        }
        return [k for k in KINDS if have[k] and self.weights[k] > 0]

    def _slot_kind(self, slot: int) -> str:
        if slot == RANDOM_SLOT:
            return "random"
        if slot == HEURISTIC_SLOT:
            return "heuristic"
        if slot == POLICY_SLOT:
            return "policy"
        if slot == SEARCH_SLOT:
            return "search"
        return "self" if slot == SELF_SLOT else "snapshot"

    def _update_slots(self) -> None:
        live = [n for n in self.snapshots if n in self.policies]
        w = np.zeros(SELF_SLOT + 1 + len(self.snapshots), np.float64)
        available = self.available() or ["random"]
        weight = {k: (self.weights[k] if k in available else 0.0) for k in KINDS}
        if not any(weight.values()):
            weight["random"] = 1.0
        w[RANDOM_SLOT], w[HEURISTIC_SLOT], w[SELF_SLOT] = weight["random"], weight["heuristic"], weight["self"]
        w[POLICY_SLOT], w[SEARCH_SLOT] = weight["policy"], weight["search"]
        for j, name in enumerate(self.snapshots):
            if name in live:
                w[SELF_SLOT + 1 + j] = weight["snapshot"] / len(live)
        cdf = np.cumsum(w) / w.sum()
        cdf[-1] = 1.0
        self._slot_cdf = cdf

    def _slot_policy(self, slot: int) -> Policy:
        name = "self" if slot == SELF_SLOT else self.snapshots[slot - SELF_SLOT - 1]
        policy = self.policies.get(name) or self._retired.get(name)
        if policy is None:
            raise RuntimeError(f"no policy for opponent {name!r}")
        return policy

    # statistics ------------------------------------------------------------------------
    @staticmethod
    def _empty_stats() -> dict[str, Any]:
        return {"learner_decisions": 0, "decisions": 0, "outside_decisions": 0, "opponents": {}}

    def pop_stats(self) -> dict[str, Any]:
        """Counts since the last call: ``learner_decisions``, ``decisions`` (every seat's), ``outside_decisions``
        (opponent moves decided in Python: ``self``, snapshots not compiled, ``search``), and per
        opponent kind ``games``, ``wins`` (the learner strictly first) and ``score`` (its game rewards)."""
        out, self._stats = self._stats, self._empty_stats()
        return out

    def _count_finished(self, finished: np.ndarray) -> None:
        idx = np.flatnonzero(finished)
        if idx.size == 0:
            return
        mine = self._returns[idx, self.learner_seats[idx]]
        others = self._returns[idx].copy()
        others[np.arange(idx.size), self.learner_seats[idx]] = -np.inf
        wins = mine > others[:, : self.num_players].max(axis=1)
        kinds = self._slots[idx]
        for slot in np.unique(kinds):
            sel = kinds == slot
            row = self._stats["opponents"].setdefault(self._slot_kind(int(slot)), {"games": 0, "wins": 0, "score": 0.0})
            row["games"] += int(sel.sum())
            row["wins"] += int(wins[sel].sum())
            row["score"] += float(mine[sel].sum())

    # gymnasium -------------------------------------------------------------------------
    @property
    def episode_seeds(self) -> np.ndarray:
        """The seed each game now running (or just finished) started from (a copy)."""
        return self.batch.episode_seeds.copy()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start every game (game i from ``seed + i``) and play until the learner is to act in each;
        ``options={"reset_mask": mask}``: only the games in ``mask`` (see the module doc)."""
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"GameVectorEnv.reset takes only the option 'reset_mask', got {sorted(options)}")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an int (game i starts from seed + i) or None, got {seed!r}")
        if reset_mask is not None:
            return self._reset_some(self._checked_reset_mask(reset_mask), seed)
        if seed is not None:
            self.batch.reset(seed=int(seed))  # validates the seed, writes episode_seeds
        else:
            self.batch.reset()
        self._dones[:] = 0
        self._play(np.full(self.num_envs, -1, np.int64))
        if self._shaper is not None:
            self._shaper.start()
        self._ready = True
        return self._observe(), self._infos(np.ones(self.num_envs, bool))

    def _checked_reset_mask(self, mask: Any) -> np.ndarray:
        n = self.num_envs
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,) or not mask.any():
            got = f"{mask.dtype} {mask.shape}" if isinstance(mask, np.ndarray) else type(mask).__name__
            raise ValueError(f"options['reset_mask'] must be a numpy bool array of shape ({n},), some True; got {got}")
        if not self._ready:
            raise RuntimeError("call reset() without a reset_mask first: every game must have started once")
        return mask.copy()

    def _reset_some(self, mask: np.ndarray, seed: int | None) -> tuple[dict, dict]:
        """Restart the games in ``mask`` (from ``seed + i``, or their generator's next draw); the rest wait."""
        idx = np.flatnonzero(mask)
        actions = np.zeros(self.num_envs, np.int64)
        if seed is not None:
            first = checked_seed(seed, "seed", self.num_envs)
            self.batch.episode_seeds[idx] = np.uint64(first) + idx.astype(np.uint64)
            actions[idx] = -1  # start from episode_seeds
        else:
            self._dones[idx] = 1  # restart from rng_next of the game as it stands, finished or not
        self._play(actions, rows=mask)
        if self._shaper is not None:
            self._shaper.previous[mask] = 0.0  # a game starts from phi = 0
        return self._observe(), self._infos(mask, recorded=mask)

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One learner action per game (ignored in a game that finished at the previous step: NEXT_STEP)."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        if self.autoreset_mode == AutoresetMode.DISABLED and self._dones.any():
            finished = np.flatnonzero(self._dones).tolist()
            raise RuntimeError(
                f"games {finished[:10]} are finished and autoreset_mode is DISABLED: restart them with "
                "reset(options={'reset_mask': terminated}) before the next step"
            )
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
        restarting = self._dones.astype(bool)
        live = ~restarting
        if live.any() and (a[live].min() < 0 or a[live].max() >= self.num_choices):
            raise ValueError(f"actions must be in [0, {self.num_choices})")
        a = np.where(live, a, 0).astype(np.int64)
        illegal = np.flatnonzero(live & (self._choices[np.arange(n), a] == 0))
        if illegal.size:
            shown = ", ".join(f"game {i}: {self._choice_name(int(a[i]))!r}" for i in illegal[:5])
            more = f" and {illegal.size - 5} more" if illegal.size > 5 else ""
            raise IllegalActionError(f"illegal actions in {illegal.size} game(s) ({shown}{more}); no game was stepped")
        if self.candidates is not None and live.any():
            a[live] = self.candidates.game_actions(self._masks[live], a[live])
        self._stats["learner_decisions"] += int(live.sum())
        self._stats["decisions"] += int(live.sum())
        self._play(a)
        obs = self._observe()
        terminated = self._dones.astype(bool)
        self._count_finished(terminated)
        truncated = np.zeros(n, bool)
        rewards = self._rewards
        if self._shaper is not None:
            rewards = self._shaper.shape(rewards, self.batch.states, self.learner_seats, restarting, terminated)
        rewards = rewards.astype(np.float32)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
            return self._restart_same_step(obs, rewards, terminated, truncated)
        return obs, rewards, terminated, truncated, self._infos(restarting)

    def _restart_same_step(
        self, obs: dict, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
    ) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """SAME_STEP: the finished games start again now; their last observation and infos go in
        ``final_obs`` and ``final_info`` (the shaper already counted them as ended: phi 0 to start from)."""
        final_info = self._infos(terminated, recorded=terminated)
        final_obs = np.full(self.num_envs, None, object)
        for i in np.flatnonzero(terminated):
            final_obs[i] = {key: value[i].copy() for key, value in obs.items()}
        self._play(np.zeros(self.num_envs, np.int64), rows=terminated)  # dones == 1: each restarts
        infos = self._infos(terminated)
        infos.update(final_obs=final_obs, _final_obs=terminated.copy())
        infos.update(final_info=final_info, _final_info=terminated.copy())
        return self._observe_rows(obs, terminated), rewards, terminated, truncated, infos

    # internals -------------------------------------------------------------------------
    def _choice_name(self, a: int) -> str:
        if self.candidates is None or a >= self.candidates.rows:
            return self.game.action_name(
                a if self.candidates is None else a - self.candidates.size + self.game.num_actions
            )
        return f"candidate {a}"

    def _play(self, actions: np.ndarray, rows: np.ndarray | None = None) -> None:
        """The learner's actions, then opponents until the learner is to act: outside policies in batches.
        ``rows`` (a bool mask): only those games move (restarts); the others keep their state and records."""
        if self._record:
            for i in range(self.num_envs) if rows is None else np.flatnonzero(rows):
                self._recorded[i] = []
        self._advance(actions, resume=False, rows=rows)
        while self._waiting.any():
            waiting = self._waiting.astype(bool)
            with self.batch._threads():
                self._k.batch_observe_where(self.batch.states, waiting, self._outside_obs, self._outside_masks)
            outside = np.zeros(self.num_envs, np.int64)
            slots = self._slots
            grouped = waiting & (self._group_of_slot[slots] >= 0)
            if grouped.any() and self._group is not None:
                which = self._group_of_slot[slots[grouped]]
                self._act(grouped, outside, partial(self._group, which), "snapshot group")
            for slot in np.unique(slots[waiting & ~grouped]):
                sel = waiting & (slots == slot)
                if slot == SEARCH_SLOT:
                    self._search_moves(sel, outside)
                else:
                    self._act(sel, outside, self._slot_policy(int(slot)), self._slot_kind(int(slot)))
            self._advance(outside, resume=True)
        if self._retired:
            self._let_go_of_retired()

    def _act(self, sel: np.ndarray, outside: np.ndarray, policy: Policy, who: str) -> None:
        """``policy``'s actions in the games ``sel`` into ``outside``, checked legal."""
        masks = self._outside_masks[sel]
        choices = self.candidates.masks(masks) if self.candidates is not None else masks.astype(np.float32)
        chosen = np.asarray(policy(self._outside_obs[sel], choices))
        if (
            chosen.shape != (int(sel.sum()),)
            or not np.issubdtype(chosen.dtype, np.integer)
            or chosen.min(initial=0) < 0
            or chosen.max(initial=0) >= self.num_choices
            or not (choices[np.arange(chosen.size), chosen] > 0).all()
        ):
            raise IllegalActionError(f"the {who} policy chose an illegal action")
        outside[sel] = self.candidates.game_actions(masks, chosen) if self.candidates is not None else chosen
        self._stats["outside_decisions"] += chosen.size

    def _search_moves(self, sel: np.ndarray, outside: np.ndarray) -> None:
        """The ``search`` opponent's move in each game ``sel``, seeded from that game's opponent generator."""
        assert self.opponent_search is not None  # the kind is drawn only where the game has search hooks
        states = self.batch.states
        for i in np.flatnonzero(sel):
            r = splitmix64(np.uint64(self._opponent_rng[i]))
            self._opponent_rng[i] = r
            root = states[i : i + 1]
            seat = int(root[0]["current"])
            outside[i] = self.opponent_search.choose(root, seat, self.game, self._outside_masks[i], int(r >> 1))
        self._stats["outside_decisions"] += int(sel.sum())

    def _advance(self, actions: np.ndarray, resume: bool, rows: np.ndarray | None = None) -> None:
        games = [
            self.batch.states,
            actions,
            self.learner_seats,
            self._rewards,
            self._dones,
            self._fresh,
            self.batch.episode_seeds,
            self._opponent_rng,
        ]
        rest = [self._slots, self._waiting, self._returns, self._scratch, self._played, self._played_count]
        full = games + rest
        if rows is not None:  # the kernel steps every game it is given: give it copies of those rows only
            idx = np.flatnonzero(rows)
            self._played_count[:] = 0
            games, rest = [a[idx] for a in games], [a[idx] for a in rest]
        with self.batch._threads():
            states = games[0]
            bad = self._loop.vector_advance(
                *games, self._slot_cdf, *rest, resume, self._policy_args, self._bank,
                states.view(np.uint8).reshape(len(states), -1), self._observe_patch,
            )  # fmt: skip
        if rows is not None:
            for whole, part in zip(full, games + rest, strict=True):
                whole[idx] = part
            bad = int(idx[bad]) if bad >= 0 else bad
        if bad >= 0:  # only if the states were changed behind our back since the last observation
            raise IllegalActionError(f"game {bad}: action {int(actions[bad])} is illegal there (state changed)")
        self._stats["decisions"] += int(self._played_count.sum())
        if self._record:
            if (self._played_count > RECORD_WIDTH).any():
                raise RuntimeError(f"more than {RECORD_WIDTH} opponent moves in one step: recording incomplete")
            for i in range(self.num_envs):
                self._recorded[i].extend(self._played[i, : self._played_count[i]].tolist())

    def observe_into(self, obs: np.ndarray, masks: np.ndarray, critic: np.ndarray | None = None) -> None:
        """The next ``reset``/``step`` writes its observations into ``obs`` (float32, ``(num_envs, obs_size)``)
        and ``masks`` (float32, ``(num_envs, num_choices)``), and with ``privileged_critic`` the critic's into
        ``critic``: C-contiguous arrays the caller owns, which it returns (a recorder saves a copy of 97 KB a game
        per step for the Duel). Once; later calls make new arrays."""
        n = self.num_envs
        wanted = [("obs", obs, (n, self.game.obs_size)), ("masks", masks, (n, self.num_choices))]
        if self.privileged_critic:
            wanted.append(("critic", critic, (n, self.single_observation_space[CRITIC_KEY].shape[0])))
        elif critic is not None:
            raise ValueError("observe_into: critic is for an env made with privileged_critic=True")
        for name, a, shape in wanted:
            if not isinstance(a, np.ndarray) or a.dtype != np.float32 or a.shape != shape or not a.flags.c_contiguous:
                got = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__
                raise ValueError(f"observe_into: {name} must be C-contiguous float32 of shape {shape}, got {got}")
        self._into = tuple(a for _, a, _ in wanted)

    def _observe(self) -> dict[str, np.ndarray]:
        if self._into is None:
            obs, masks = np.empty_like(self._outside_obs), np.empty(self._choices.shape, np.float32)
            critic = self._new_critic() if self.privileged_critic else None
        else:
            (obs, masks, *rest), self._into = self._into, None
            critic = rest[0] if rest else None
        with self.batch._threads():
            self._k.batch_observe_seats(self.batch.states, self.learner_seats, obs, self._masks)
        if self.candidates is not None:
            self.candidates.masks_into(self._masks, self._choices)
        np.copyto(masks, self._choices)
        out = {OBS_KEY: obs, MASK_KEY: masks}
        if critic is not None:
            self._observe_hidden(critic)
            out[CRITIC_KEY] = critic
        return out

    def _new_critic(self) -> np.ndarray:
        return np.empty((self.num_envs, self.single_observation_space[CRITIC_KEY].shape[0]), np.float32)

    def _observe_hidden(self, critic: np.ndarray, rows: np.ndarray | None = None) -> None:
        """The privileged critic's input, never the policy's (``rows``: only those games): the game spec's
        ``hidden`` part of the state, or else each other seat's own observation (hand included), seat
        learner + k at block k - 1."""
        if self._hidden is not None:
            hidden = self._hidden(self.batch.states, self.learner_seats)
            if rows is None:
                critic[:] = hidden
            else:
                critic[rows] = hidden[rows]
            return
        size = self.game.obs_size
        seen, seen_masks = self._outside_obs, self._outside_masks  # scratch: no outside policy acts meanwhile
        for k in range(1, self.num_players):
            seats = (self.learner_seats + k) % self.num_players
            with self.batch._threads():
                self._k.batch_observe_seats(self.batch.states, seats, seen, seen_masks)
            block = critic[:, (k - 1) * size : k * size]
            if rows is None:
                block[:] = seen
            else:
                block[rows] = seen[rows]

    def _observe_rows(self, out: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
        """The games ``rows`` observed again into ``out``'s arrays (the learner is to act in each)."""
        with self.batch._threads():
            self._k.batch_observe_where(self.batch.states, rows, out[OBS_KEY], self._masks)
        if self.candidates is not None:
            self.candidates.masks_into(self._masks, self._choices)
        np.copyto(out[MASK_KEY], self._choices)
        if CRITIC_KEY in out:
            self._observe_hidden(out[CRITIC_KEY], rows)
        return out

    def _infos(self, started: np.ndarray, recorded: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """``episode_seed`` (and ``learner_seat``) where a new game started in this call; see the module doc.
        ``recorded``: the games whose ``opponent_actions`` belong to this call (default: all)."""
        infos: dict[str, np.ndarray] = {
            "episode_seed": self.batch.episode_seeds.copy(),
            "_episode_seed": started.copy(),
            "learner_seat": self.learner_seats.copy(),
            "_learner_seat": started.copy(),
        }
        if self._record:
            played = np.empty(self.num_envs, object)
            for i in range(self.num_envs):
                played[i] = np.asarray(self._recorded[i], np.int64)
            infos["opponent_actions"] = played
            infos["_opponent_actions"] = np.ones(self.num_envs, bool) if recorded is None else recorded.copy()
        return infos
