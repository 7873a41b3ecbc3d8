"""Around one training run (``training.loop.train``): the game config for a table size, and the final
evaluation of the trained policy. Used by `tabuleiro train` and `tabuleiro learning`."""

import os
import time
from pathlib import Path
from typing import Any

import envs
from training.evaluate import evaluate, format_row


def default_torch_threads() -> int:
    """One torch thread per CPU: the forward passes (all games of a vector step) and PPO's minibatch updates
    are batched, so a second thread pays (docs/training.md, "Training throughput"). The env's kernels stay
    on numba's own single thread."""
    return max(1, os.cpu_count() or 1)


def game_config_for(game: str, players: int | None) -> dict[str, Any]:
    """``{"num_players": K}`` where the game has that knob; ValueError if K does not fit the game."""
    if players is None:
        return {}
    env = envs.make(game)
    fields = getattr(env.game.config_cls, "__dataclass_fields__", {})
    if "num_players" in fields:
        envs.make(game, num_players=players)  # validates the count
        return {"num_players": players}
    if players != len(env.possible_agents):
        raise ValueError(f"{env.game.name} is played by {len(env.possible_agents)} players, not {players}")
    return {}


def final_evaluation(
    checkpoint: Path, game: str, game_config: dict, games: int, seed: int, policy_file: Path | None = None
) -> list[dict[str, Any]]:
    """The trained policy (argmax, loaded as an arena agent would be) against random and the heuristic;
    ``policy_file``: that compiled policy file's (e.g. ``policy-average.npz``) in place of the checkpoint's."""
    if policy_file is None:
        from agents.rllib_policy import load_agent  # optional: torch (the rl extra)

        agent = load_agent(checkpoint, game)
    else:
        from agents.compiled_policy import load_agent as load_compiled

        agent = load_compiled(policy_file, game)
    rows = []
    opponents = ["random"] + (["heuristic"] if envs.spec(game).heuristic is not None else [])
    for opponent in opponents:
        t0 = time.perf_counter()
        row = evaluate(agent, game, opponent, games, seed=seed + 1, game_config=game_config)
        row["seconds"] = round(time.perf_counter() - t0, 1)
        print(format_row(row), flush=True)
        rows.append(row)
    return rows
