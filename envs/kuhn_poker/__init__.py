"""Kuhn poker, the example game (docs/adding-a-game.md): rules.py, core.py, game.py, spec.py."""
