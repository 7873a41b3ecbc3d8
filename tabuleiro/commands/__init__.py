"""One module per `tabuleiro` subcommand, each with ``add_arguments(parser)`` and ``run(args) -> int``
(the table of subcommands is ``tabuleiro.cli.COMMANDS``)."""
