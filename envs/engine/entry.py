"""Builds a game's public entry points (``env``, ``raw_env``) from its Game class."""

from collections.abc import Callable
from typing import Any

from envs.engine.aec import TabuleiroAECEnv
from envs.engine.config import build_config
from envs.engine.game import Game
from envs.engine.parallel import TabuleiroParallelEnv


def make_game(game_cls: type[Game], config: dict[str, Any]) -> Game:
    """A Game bound to a validated config built from keyword arguments."""
    return game_cls(build_config(game_cls.config_cls, config))


def aec_factories(game_cls: type[Game]) -> tuple[Callable[..., TabuleiroAECEnv], Callable[..., TabuleiroAECEnv]]:
    """``(env, raw_env)`` for a game: the safe env and the strict one (see envs.engine.aec)."""

    def env(render_mode: str | None = None, **config: Any) -> TabuleiroAECEnv:
        """The AEC env with PettingZoo classic's guarantees built in (illegal action: -1, game over)."""
        return TabuleiroAECEnv(make_game(game_cls, config), render_mode=render_mode, strict=False)

    def raw_env(render_mode: str | None = None, **config: Any) -> TabuleiroAECEnv:
        """The AEC env that raises IllegalActionError on an illegal action."""
        return TabuleiroAECEnv(make_game(game_cls, config), render_mode=render_mode, strict=True)

    return env, raw_env


def parallel_factories(
    game_cls: type[Game],
) -> tuple[Callable[..., TabuleiroParallelEnv], Callable[..., TabuleiroParallelEnv]]:
    """``(parallel_env, raw_parallel_env)`` for a game with simultaneous turns (see envs.engine.parallel)."""

    def parallel_env(render_mode: str | None = None, **config: Any) -> TabuleiroParallelEnv:
        """The parallel env with the safe guarantees (illegal actions: -1 to each offender, game over)."""
        return TabuleiroParallelEnv(make_game(game_cls, config), render_mode=render_mode, strict=False)

    def raw_parallel_env(render_mode: str | None = None, **config: Any) -> TabuleiroParallelEnv:
        """The parallel env that raises IllegalActionError on an illegal action."""
        return TabuleiroParallelEnv(make_game(game_cls, config), render_mode=render_mode, strict=True)

    return parallel_env, raw_parallel_env
