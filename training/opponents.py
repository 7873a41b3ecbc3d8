"""The self-play opponent pool's weights: which kind of opponent fills the seats the learner does not play.

Kinds: ``random``; ``heuristic`` (the game's compiled heuristic, where it has one); ``policy`` (a policy
file, ``TrainSettings.opponent_policy``, sampled inside the kernel); ``snapshot`` (a
frozen copy of the learner, added when it wins often enough); ``self`` (the learner's current policy); ``search``
(IS-MCTS with ``TrainSettings.opponent_search_iterations`` a move, on the game's state: slow, called from Python).
``training.vector_env.GameVectorEnv`` draws a kind per game at its start, inside the compiled kernel,
from the game's own seeded generator, so a seed fixes the sequence.
"""

from dataclasses import asdict, dataclass

from training.vector_env import KINDS


@dataclass(frozen=True)
class PoolWeights:
    """Relative probability of each opponent kind; kinds not available yet (no snapshot so far) are skipped."""

    random: float = 0.2
    heuristic: float = 0.5
    policy: float = 0.0
    snapshot: float = 0.3
    self: float = 0.0
    search: float = 0.0

    def __post_init__(self) -> None:
        for kind, w in asdict(self).items():
            if not (isinstance(w, (int, float)) and w >= 0):
                raise ValueError(f"pool weight {kind!r} must be a number >= 0, got {w!r}")
        if sum(asdict(self).values()) <= 0:
            raise ValueError("at least one pool weight must be > 0")

    @classmethod
    def parse(cls, text: str) -> "PoolWeights":
        """``"random=0.2,heuristic=0.5,snapshot=0.3"`` (kinds left out weigh 0)."""
        values = dict.fromkeys(KINDS, 0.0)
        for part in filter(None, (p.strip() for p in text.split(","))):
            kind, _, w = part.partition("=")
            if kind not in values:
                raise ValueError(f"unknown opponent kind {kind!r}; kinds: {list(KINDS)}")
            try:
                values[kind] = float(w)
            except ValueError:
                raise ValueError(f"pool weight for {kind!r} must be a number, got {w!r}") from None
        return cls(**values)
