"""`python -m tabuleiro` is the `tabuleiro` command."""

from tabuleiro.cli import main

raise SystemExit(main())
