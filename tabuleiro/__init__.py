"""The `tabuleiro` console command (``tabuleiro.cli``; one module per subcommand in ``tabuleiro.commands``,
shared option helpers in ``tabuleiro.options``, the demo job in ``tabuleiro.demo``); the library lives in envs,
agents, training, benchmarks."""

__version__ = "0.1.0"
