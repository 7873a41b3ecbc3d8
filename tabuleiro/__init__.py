"""The `tabuleiro` console command (tabuleiro.cli); the library lives in envs, agents, training, benchmarks."""

__version__ = "0.1.0"
