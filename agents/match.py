"""Play one game between agents through the AEC env: the loop every runner here shares."""

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class GameResult:
    """Outcome of one game: per-seat returns, decisions, final infos (and actions) and final scores."""

    seed: int
    seats: list[str]
    returns: list[float]
    steps: int
    infos: list[dict[str, Any]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # final scores as the game's pad shows them


def play_game(env: Any, agents: list[Any], seed: int, record_actions: bool = False) -> GameResult:
    """One game with ``agents[i]`` in seat i; each agent is reset with a seed derived from ``seed``."""
    if len(agents) != len(env.possible_agents):
        raise ValueError(f"{env.game.name} seats {len(env.possible_agents)} players, got {len(agents)} agents")
    env.reset(seed=seed)
    seeds = np.random.SeedSequence(seed).generate_state(len(agents))
    for agent, s in zip(agents, seeds, strict=True):
        agent.reset(int(s))
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    returns = [0.0] * len(agents)
    infos: list[dict[str, Any]] = [{} for _ in agents]
    actions = []
    steps = 0
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        seat = seat_of[name]
        returns[seat] += reward
        if term or trunc:
            infos[seat] = info
            env.step(None)
            continue
        a = agents[seat].act(obs, env)
        if record_actions:
            actions.append(a)
        env.step(a)
        steps += 1
    names = [getattr(a, "name", type(a).__name__) for a in agents]
    scores = [float(x) for x in env.game.final_scores(env.core_state)]
    return GameResult(seed, names, returns, steps, infos, actions, scores)
