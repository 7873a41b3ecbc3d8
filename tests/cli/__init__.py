"""The `tabuleiro` command's guarantees: bounded options, outputs checked first, prompt stops."""
