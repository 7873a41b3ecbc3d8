"""Replays: one game as a small JSON file, and its exact re-simulation.

A replay holds what is needed to play the game again move for move (game, config,
seed, actions by name) and what to check it against (returns, final scores), plus
who played and which build recorded it. It is the bug-report format: a replay from
another rules version, or one with an unknown or illegal action, fails with a
message naming the problem (and the step).
"""

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = "tabuleiro-replay/1"
_TOLERANCE = 1e-9


@dataclass
class Replay:
    """One recorded game (see the module docstring)."""

    game: str
    config: dict[str, Any]
    seed: int
    actions: list[str]
    agents: list[str]
    returns: list[float]
    scores: list[float] | None
    rules_version: str
    tabuleiro_version: str
    format: str = FORMAT

    def to_json(self) -> str:
        """The replay as JSON text: one top-level key per line, so a diff shows what changed."""
        d = dataclasses.asdict(self)
        body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in d.items())
        return "{\n" + body + "\n}\n"


@dataclass
class Step:
    """One move of a re-simulation: 1-based index, the seat that moved, the action's name, the env after it.

    Index 0 is the start (seat -1, no action)."""

    index: int
    seat: int
    action: str
    env: Any


def record(game: Any, result: Any, agents: list[str]) -> Replay:
    """A replay of a finished game: ``game`` (env.game), ``result`` from ``benchmarks.match.play_game``
    with ``record_actions=True``, and the agent spec of each seat."""
    import tabuleiro
    from benchmarks.arena_stats import final_scores

    n = game.num_players
    if len(agents) != n or len(result.returns) != n:
        raise ValueError(f"{game.name} has {n} seats: got {len(agents)} agents and {len(result.returns)} returns")
    if result.steps and not result.actions:
        raise ValueError("the game was played without record_actions=True: no actions to save")
    return Replay(
        game=game.name,
        config=json.loads(json.dumps(dataclasses.asdict(game.config))),
        seed=int(result.seed),
        actions=[game.action_name(int(a)) for a in result.actions],
        agents=[str(a) for a in agents],
        returns=[float(r) for r in result.returns],
        scores=final_scores(game.name, result.infos),
        rules_version=game.rules_version,
        tabuleiro_version=tabuleiro.__version__,
    )


def save(replay: Replay, path: str | Path) -> Path:
    """Write a replay file (folders created as needed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(replay.to_json(), encoding="utf-8")
    return path


def load(path: str | Path) -> Replay:
    """Read a replay file; ValueError saying what is wrong with a malformed one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read replay {str(path)!r}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"replay {str(path)!r} is not valid JSON: {exc}") from None
    return from_dict(data)


_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,),
    "config": (dict,),
    "seed": (int,),
    "actions": (list,),
    "agents": (list,),
    "returns": (list,),
    "scores": (list, type(None)),
    "rules_version": (str,),
    "tabuleiro_version": (str,),
    "format": (str,),
}


def from_dict(data: Any) -> Replay:
    """A Replay from parsed JSON, with every field's type checked."""
    if not isinstance(data, dict):
        raise ValueError("a replay must be a JSON object")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a tabuleiro replay (format {data.get('format')!r}, expected {FORMAT!r})")
    missing = sorted(set(_TYPES) - set(data))
    if missing:
        raise ValueError(f"replay lacks field(s) {missing}")
    unknown = sorted(set(data) - set(_TYPES))
    if unknown:
        raise ValueError(f"replay has unknown field(s) {unknown}")
    for key, types in _TYPES.items():
        value = data[key]
        if not isinstance(value, types) or isinstance(value, bool):
            raise ValueError(f"replay field {key!r} has the wrong type ({type(value).__name__})")
    if not all(isinstance(a, str) for a in data["actions"]):
        raise ValueError("replay field 'actions' must list action names (strings)")
    if not all(isinstance(a, str) for a in data["agents"]):
        raise ValueError("replay field 'agents' must list agent specs (strings)")
    for key in ("returns", "scores"):
        values = data[key] or []
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ValueError(f"replay field {key!r} must list numbers")
    return Replay(**data)


def make_env(replay: Replay, render_mode: str | None = "ansi") -> Any:
    """The strict env the replay was recorded in; ValueError for an unknown game, bad config or other rules."""
    import envs

    name = envs.game_name(replay.game)
    env = envs.game_module(name).raw_env(render_mode=render_mode, **replay.config)
    built = env.game.rules_version
    if replay.rules_version != built:
        raise ValueError(
            f"this replay was recorded with {name} rules version {replay.rules_version!r} "
            f"(tabuleiro {replay.tabuleiro_version}); this build implements {built!r}, so its moves "
            f"cannot be re-simulated here: replay it with the tabuleiro version that recorded it"
        )
    if len(replay.agents) != len(env.possible_agents):
        raise ValueError(f"replay names {len(replay.agents)} agents for {len(env.possible_agents)} seats")
    return env


def steps(replay: Replay, env: Any) -> Iterator[Step]:
    """Reset ``env`` to the replay's seed (yielding step 0, the start), then play its actions one by one.

    An unknown action name, an illegal action, or actions after the game ended raise a
    ValueError naming the step (1-based) and the seat.
    """
    env.reset(seed=replay.seed)
    yield Step(0, -1, "", env)
    game = env.game
    total = len(replay.actions)
    for i, name in enumerate(replay.actions, start=1):
        if all(env.terminations.values()):
            raise ValueError(f"step {i}: the game is already over, yet the replay has {total - i + 1} more action(s)")
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        try:
            a = game.action_from_name(name)
        except ValueError as exc:
            raise ValueError(f"step {i} ({agent}): {exc}") from None  # names the action and how names look
        legal = env.legal_actions()
        if a not in legal:
            shown = [game.action_name(x) for x in legal[:12]]
            more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
            raise ValueError(f"step {i} ({agent}): {name!r} is not legal here; legal: {shown}{more}")
        env.step(a)
        yield Step(i, seat, name, env)


def check_outcome(replay: Replay, env: Any, returns: list[float]) -> None:
    """ValueError unless the re-simulated game is over with the replay's returns and scores."""
    from benchmarks.arena_stats import final_scores

    if not all(env.terminations.values()):
        raise ValueError(f"the replay ends after {len(replay.actions)} actions, but the game is not over")
    if len(returns) != len(replay.returns) or any(
        abs(a - b) > _TOLERANCE for a, b in zip(returns, replay.returns, strict=False)
    ):
        raise ValueError(f"re-simulation gives returns {returns}, the replay says {replay.returns}")
    infos = [env.infos.get(a, {}) for a in env.possible_agents]
    scores = final_scores(env.game.name, infos)
    if replay.scores is not None and scores != replay.scores:
        raise ValueError(f"re-simulation gives final scores {scores}, the replay says {replay.scores}")


def verify(replay: Replay) -> list[float]:
    """Re-simulate the whole replay and check its outcome; the returns (ValueError on any mismatch)."""
    env = make_env(replay, render_mode=None)
    returns = [0.0] * len(env.possible_agents)
    for step in steps(replay, env):
        if step.index:
            add_rewards(returns, step.env)
    check_outcome(replay, env, returns)
    return returns


def add_rewards(returns: list[float], env: Any) -> None:
    """Add the rewards of the step just taken to ``returns`` (per seat)."""
    for seat, agent in enumerate(env.possible_agents):
        returns[seat] += float(env.rewards.get(agent, 0.0))
