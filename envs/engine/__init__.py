"""The shared engine: the game contract, the generator, config checks and the AEC adapter."""

from envs.engine.aec import IllegalActionError, OrderError, TabuleiroAECEnv
from envs.engine.game import Game, header_fields

__all__ = ["Game", "IllegalActionError", "OrderError", "TabuleiroAECEnv", "header_fields"]
