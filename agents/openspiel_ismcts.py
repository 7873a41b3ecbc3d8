"""OpenSpiel's IS-MCTS bot (``open_spiel.python.algorithms.ismcts``, unchanged) as an arena agent.

A yardstick nobody here wrote for our own IS-MCTS (``agents/ismcts.py``). At each move the agent puts a copy
of the env's state record into a state of the game's OpenSpiel adapter (``envs.openspiel.state_of``) and asks
the bot for a move. The bot resamples the root before every simulation with the adapter's
``resample_from_infostate`` (set as its resampler, drawing from the agent's seeded generator), which is the
game's determinizer (``determinize_fn``): like our search it reads
only what the acting seat could know. Leaves are valued by one random rollout (OpenSpiel's
``RandomRolloutEvaluator``), through the adapter, in Python. The adapter game uses sampled chance
(``explicit_chance=False`` where a game offers both), so a determinized state carries its own future deals.

The bot's budget is a number of simulations per move (``iterations``); its API has no time budget, so equal
time per move against our agent means choosing ``iterations`` to match (docs/arena.md).
``pyspiel`` is an optional dependency (the ``peers`` extra): it is imported when an agent is made.
"""

from typing import Any

import numpy as np

from agents.search import budget
from agents.search.budget import MAX_ITERATIONS

__all__ = [
    "DEFAULT_EXPLORATION", "DEFAULT_ITERATIONS", "MAX_EXPLORATION", "MAX_ITERATIONS", "OpenSpielISMCTSAgent",
    "check_options",
]  # fmt: skip

DEFAULT_ITERATIONS = 100
DEFAULT_EXPLORATION = 2.0  # OpenSpiel's examples' UCT constant for returns in [-1, 1]
MAX_EXPLORATION = 100.0


def check_options(iterations: Any = None, exploration: Any = None) -> None:
    """ValueError unless iterations is an int in 1..MAX_ITERATIONS and exploration finite in [0, MAX_EXPLORATION]."""
    budget.check_iterations("openspiel-ismcts", iterations)
    budget.check_bounded("openspiel-ismcts", "exploration", exploration, MAX_EXPLORATION)


class OpenSpielISMCTSAgent:
    """OpenSpiel's ``ISMCTSBot`` (UCT, most visited root action, one random rollout a leaf) on our game."""

    name = "openspiel-ismcts"

    def __init__(
        self, game: str, iterations: int | None = None, exploration: float | None = None, seed: int | None = None
    ) -> None:
        check_options(iterations, exploration)
        try:
            import envs.openspiel  # noqa: F401  (optional heavy: pyspiel, the peers extra)
        except ImportError as exc:
            raise ValueError(
                f"openspiel-ismcts needs open_spiel (pip install open-spiel, the peers extra): {exc}"
            ) from None
        self.game = envs.game_name(game)
        self.iterations = DEFAULT_ITERATIONS if iterations is None else iterations
        self.exploration = DEFAULT_EXPLORATION if exploration is None else float(exploration)
        self._rng = np.random.RandomState(np.random.default_rng(seed).integers(2**31))
        self._games: dict[Any, Any] = {}  # the adapter game (and its bot) per config

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.RandomState(np.random.default_rng(seed).integers(2**31))
            self._games = {}  # the bots hold the generator: made again with the new one

    def _bot(self, config: Any) -> tuple[Any, Any]:
        from open_spiel.python.algorithms import ismcts, mcts  # optional heavy: open_spiel

        import envs.openspiel as eo  # optional heavy: pyspiel

        entry = self._games.get(config)
        if entry is None:
            values = {f: getattr(config, f) for f in config.__dataclass_fields__}
            if eo.offers_explicit_chance(self.game):
                values[eo.EXPLICIT] = False  # sampled: a determinized state deals its own future
            game = eo.load(self.game, **values)
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self._rng)
            bot = ismcts.ISMCTSBot(
                game,
                evaluator,
                self.exploration,
                self.iterations,
                random_state=self._rng,
                final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            )
            rng = self._rng
            # OpenSpiel's default resampler draws from an unseeded sampler: ours is the same adapter method
            # (the game's determinizer) drawing from the agent's seeded generator, so a seeded agent repeats
            bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.uniform))
            entry = self._games[config] = (game, bot)
        return entry

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        import envs.openspiel as eo  # optional heavy: pyspiel

        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: the agent was asked to act out of turn")
        if legal.size == 1:
            return int(legal[0])
        game, bot = self._games.get(env.game.config) or self._bot(env.game.config)
        state = eo.state_of(game, env.core_state)
        action = int(bot.step(state))
        if not observation["action_mask"][action]:
            raise RuntimeError(f"OpenSpiel's IS-MCTS chose {action}, not a legal action: {legal.tolist()}")
        return action
