"""Self-play by search on the batch kernels: every seat of every game is the searching expert.

``SelfPlay`` keeps ``games`` games in one ``envs.batch.BatchEnv`` (stepped in one compiled call a move, auto-reset
when a game ends). At each move the expert's compiled search gives the root visit counts, one call a game
(determinized: it never reads hidden state): ``guided``, the search guided by the network being trained
(``agents.guided.GuidedAgent.search``), or ``ismcts``, plain IS-MCTS (``agents.ismcts.ISMCTSAgent.search``), a fixed
expert the network learns to imitate; or ``network``, no search: the network's own argmax, a uniformly random legal
move with probability ``epsilon`` (DouZero's Deep Monte Carlo, Zha et al. 2021: with ``policy_target="q"`` the
network's outputs learn each move's return). ``threads`` searches run side by side (the compiled loops release the
GIL). With ``policy_target="values"`` (``ismcts`` only) the target is each searched root move's mean utility on [-1, 1]
(NaN for moves not searched): the network's outputs learn the search's action values, as Ruoss et al. 2024 trained a
chess policy without search on Stockfish's. ``network_share`` of the searched decisions play the network's argmax
instead of the expert's move, still labelled by the search (DAgger, Ross et al. 2011: the positions the network
reaches). ``solver``, no search either: the network plays (epsilon-greedy) and learns a fixed teacher's policy (its
softmax; ``teacher``, a policy file's network) with the teacher's mistakes taken out where the game solves a position
(``Game.solved_values``: the teacher's share of the moves of less than the best exact worth goes to the best
ones; with ``before_refill``, also where ``Game.refill_values`` gives each move's exact expected worth), so the
network learns the solved positions without forgetting the rest (distillation, Hinton et al. 2015).
The move played is drawn from the visits in a game's first ``temperature_moves`` decisions and is the expert's move
after: the most visited root action, or the best mean where the game's IS-MCTS plays by value (the Duel's). When a
game ends, its decisions come out with their targets (``training.search_targets``): visit distributions (or, with
``policy_target="best"``, the expert's move) and each decision's return to come.
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.compiled_policy import CompiledPolicy, observer_for
from agents.guided import GuidedAgent
from agents.ismcts import ISMCTSAgent
from envs.batch import BatchEnv
from envs.engine.game import Game
from training.search_targets import POLICY_TARGETS, draw_move


@dataclass
class Played:
    """The positions of the games that ended during ``SelfPlay.play``, with their targets, and counts."""

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    decisions: int = 0  # decisions made (those of games still running included)
    searches: int = 0  # decisions searched (the others had one legal action)
    games: int = 0  # games ended
    first_seat_wins: int = 0
    lengths: list[int] = field(default_factory=list)


EXPERTS = ("guided", "ismcts", "network", "solver")


def solved_target(values: np.ndarray, teacher: np.ndarray) -> np.ndarray:
    """The teacher's policy ``teacher`` restricted to the actions of best exact worth (``Game.solved_values``) and
    renormalized: the moves that lose worth lose their share, the teacher's order among the best stays (shared
    equally if the teacher gives them almost nothing)."""
    best = values == np.max(values)
    share = np.where(best, teacher, 0.0).astype(np.float64)
    if share.sum() < 1e-6:
        share = best.astype(np.float64)
    return (share / share.sum()).astype(np.float32)


def teacher_targets(teacher: CompiledPolicy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The teacher's softmax over each position's legal game actions (``obs`` as it observes); a candidate head's
    softmax over its rows is carried to the game actions the rows stand for."""
    view = teacher.candidates
    module_masks = masks if view is None else view.masks(masks)
    logits, _ = teacher.forward(obs, module_masks)
    z = np.where(module_masks > 0, logits.astype(np.float64), -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    z /= z.sum(axis=1, keepdims=True)
    if view is None:
        return z.astype(np.float32)
    out = np.zeros(masks.shape, np.float64)
    for row in range(view.size):
        games = np.flatnonzero(module_masks[:, row] > 0)
        if games.size:
            out[games, view.game_actions(masks[games], np.full(games.size, row))] += z[games, row]
    return out.astype(np.float32)


class SelfPlay:
    """``games`` games of the expert's search against itself (module docstring)."""

    def __init__(
        self,
        game: Any,
        policy: CompiledPolicy | None,
        games: int,
        search_iterations: int,
        c_puct: float,
        value_weight: float,
        temperature_moves: int,
        seed: int,
        expert: str = "guided",
        threads: int = 1,
        policy_target: str = "visits",
        epsilon: float = 0.0,
        network_share: float = 0.0,
        teacher: CompiledPolicy | None = None,
        before_refill: bool = False,
    ) -> None:
        if game.returns_range() is None:
            raise ValueError(f"training from search needs a game whose returns are bounded; {game.name} gives no range")
        if expert not in EXPERTS:
            raise ValueError(f"unknown expert {expert!r}; experts: {', '.join(EXPERTS)}")
        if policy_target not in POLICY_TARGETS:
            raise ValueError(f"unknown policy target {policy_target!r}; targets: {', '.join(POLICY_TARGETS)}")
        if policy_target == "values" and expert != "ismcts":
            raise ValueError(
                f"policy_target='values' learns IS-MCTS's root means: the expert must be ismcts, not {expert!r}"
            )
        if network_share > 0 and (expert in ("network", "solver") or policy is None):
            raise ValueError(
                "network_share plays the network's moves among a search expert's: give a policy and a search"
            )
        if expert == "solver":
            if teacher is None or policy is None:
                raise ValueError("the solver expert needs a policy and a teacher")
            if type(game).solved_values is Game.solved_values:
                raise ValueError(f"{game.name} solves no position (Game.solved_values): no solver expert")
            if policy_target != "visits":
                raise ValueError("the solver expert's target is a distribution (policy_target=visits)")
        if before_refill and (expert != "solver" or type(game).refill_values is Game.refill_values):
            raise ValueError("before_refill: the solver expert of a game that solves positions before a refill")
        self.teacher = teacher if expert == "solver" else None
        self.before_refill = before_refill  # also the positions solved in expectation (Game.refill_values)
        # the teacher observes as its file's config (its observation options may differ from the run's)
        self.teacher_observer = observer_for(teacher, game, teacher.source) if self.teacher is not None else None
        self.target = POLICY_TARGETS[policy_target]
        self.target_is_move = policy_target == "q"  # the move played is the target (its return the Q's)
        self.target_is_values = policy_target == "values"
        self.network_share = float(network_share)
        self.game = game
        self.policy = policy
        self.epsilon = float(epsilon)
        threads = max(1, min(int(threads), games))
        if expert in ("network", "solver"):
            if policy is None:
                raise ValueError("the network expert needs a policy")
            self.agents: list[Any] = []
        elif expert == "guided":
            self.agents = [
                GuidedAgent(game.name, policy, iterations=search_iterations, c_puct=c_puct, value_weight=value_weight)
                for _ in range(threads)
            ]
        else:
            self.agents = [ISMCTSAgent(game.name, iterations=search_iterations) for _ in range(threads)]
        if self.agents and self.agents[0].plays_by_value and policy_target == "visits":
            raise ValueError(
                f"{game.name}'s IS-MCTS plays the root action of best mean, not the most visited: its visits are not "
                "its choice; learn its move with policy_target=best"
            )
        self.pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self.temperature_moves = int(temperature_moves)
        self.rng = np.random.default_rng([seed, 0x5E1F])
        self.env = BatchEnv(game, games, seed=seed, threads=1)
        self.obs, self.masks, self.seats = self.env.reset()
        n, players = games, game.num_players
        self.returns = np.zeros((n, players), np.float64)
        self.moves = np.zeros(n, np.int64)
        self.pending: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int, float]]] = [[] for _ in range(n)]

    def set_policy(self, policy: CompiledPolicy) -> None:
        """Search (or play) with ``policy`` from the next move on (the same game and layout as before; ignored by
        ``ismcts``)."""
        self.policy = policy
        for agent in self.agents:
            if isinstance(agent, GuidedAgent):
                agent.policy = policy

    def _searches(self, seeds: dict[int, int]) -> dict[int, tuple[np.ndarray, int, np.ndarray | None]]:
        """Root visits, the expert's move and (for ``policy_target="values"``) the root means on [-1, 1], NaN where
        not searched, of each game in ``seeds`` (game -> search seed), the games split among the threads (move and
        means read right after the search: the agent keeps only its last search's)."""
        games = sorted(seeds)
        shares = [games[k :: len(self.agents)] for k in range(len(self.agents))]

        def search(k: int) -> list[tuple[int, tuple[np.ndarray, int, np.ndarray | None]]]:
            agent = self.agents[k]
            out = []
            for i in shares[k]:
                visits = agent.search(self.env.states[i : i + 1], int(self.seats[i]), self.game, seeds[i])
                move = agent.move_of(visits, self.masks[i])
                means = None
                if self.target_is_values:
                    means = np.where(visits > 0, 2.0 * agent.last_values - 1.0, np.nan).astype(np.float32)
                out.append((i, (visits, move, means)))
            return out

        parts = self.pool.map(search, range(len(shares))) if self.pool else [search(0)]
        return {i: visits for part in parts for i, visits in part}

    def _teacher_obs(self) -> np.ndarray:
        """Every game's observation as the teacher's file observes it."""
        if self.teacher_observer is None:
            return self.obs
        view = self.teacher_observer
        return np.stack([view.observe(self.env.states[i], int(self.seats[i]))[0] for i in range(self.env.num_envs)])

    def _network_moves(self) -> np.ndarray:
        """Every game's move by the network alone: its argmax, or with probability ``epsilon`` a uniformly random
        legal move."""
        policy = self.policy
        masks = self.masks
        module_masks = masks if policy.candidates is None else policy.candidates.masks(masks)
        logits, _ = policy.forward(self.obs, module_masks)
        choice = np.argmax(np.where(module_masks > 0, logits, -np.inf), axis=1)
        moves = choice if policy.candidates is None else policy.candidates.game_actions(masks, choice)
        for i in np.flatnonzero(self.rng.random(len(moves)) < self.epsilon):
            moves[i] = self.rng.choice(np.flatnonzero(masks[i]))
        return moves

    def play(self, moves: int) -> Played:
        """``moves`` moves in every game; the positions of the games that ended meanwhile."""
        rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, float]] = []
        counts = {"decisions": 0, "searches": 0, "games": 0, "first_seat_wins": 0}
        lengths: list[int] = []
        n = self.env.num_envs
        for _ in range(moves):
            actions = np.zeros(n, np.int64)
            if self.agents:
                seeds = {i: int(self.rng.integers(2**63)) for i in range(n) if np.count_nonzero(self.masks[i]) > 1}
                searched = self._searches(seeds)
            else:
                network = self._network_moves()
                searched = {i: (None, int(network[i]), None) for i in range(n)}
            if self.teacher is not None:
                taught = teacher_targets(self.teacher, self._teacher_obs(), self.masks)
            if self.agents and self.network_share > 0:
                network = self._network_moves()
                plays = self.rng.random(n) < self.network_share
            counts["searches"] += len(searched)
            for i in range(n):
                mask = self.masks[i]
                seat = int(self.seats[i])
                if i in searched:
                    visits, move, means = searched[i]
                else:  # one legal action
                    visits, move, means = (mask > 0).astype(np.float64), int(np.argmax(mask)), None
                if visits is None:  # the network's own move (epsilon-greedy already)
                    visits, actions[i] = np.zeros(mask.shape[0]), move
                else:
                    explore = self.moves[i] < self.temperature_moves
                    actions[i] = draw_move(visits, mask, self.rng) if explore else move
                    if self.network_share > 0 and i in searched and not explore and plays[i]:
                        actions[i] = network[i]
                if self.teacher is not None:
                    solved = self.game.solved_values(self.env.states[i : i + 1])
                    if solved is None and self.before_refill:
                        solved = self.game.refill_values(self.env.states[i : i + 1])
                    target = taught[i] if solved is None else solved_target(solved, taught[i])
                elif self.target_is_values:  # no target where only one action was legal
                    target = means if means is not None else np.full(mask.shape[0], np.nan, np.float32)
                else:
                    target = self.target(visits, mask, int(actions[i]) if self.target_is_move else move)
                self.pending[i].append((self.obs[i], mask, target, seat, float(self.returns[i, seat])))
                self.moves[i] += 1
            counts["decisions"] += n
            self.obs, self.masks, self.seats, rewards, dones = self.env.step(actions)
            self.returns[:, : rewards.shape[1]] += rewards
            for i in np.flatnonzero(dones):
                final = self.returns[i]
                rows.extend(
                    (obs, mask, target, float(final[seat] - before))
                    for obs, mask, target, seat, before in self.pending[i]
                )
                counts["games"] += 1
                counts["first_seat_wins"] += int(final[0] > np.delete(final, 0).max())
                lengths.append(int(self.moves[i]))
                self.pending[i] = []
                self.returns[i] = 0.0
                self.moves[i] = 0
        g = self.game
        return Played(
            obs=np.stack([r[0] for r in rows]) if rows else np.zeros((0, g.obs_size), np.float32),
            mask=np.stack([r[1] for r in rows]) if rows else np.zeros((0, g.num_actions), np.int8),
            policy=np.stack([r[2] for r in rows]) if rows else np.zeros((0, g.num_actions), np.float32),
            value=np.array([r[3] for r in rows], np.float32),
            lengths=lengths,
            **counts,
        )
