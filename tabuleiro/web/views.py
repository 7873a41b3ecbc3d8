"""What the page is sent about a table, from one seat's view: the game's text and SVG for that seat, its legal
moves when it is to act, and the moves so far as that seat may know them. Never the state itself."""

from typing import Any

import numpy as np

from tabuleiro.move_text import move_text


def seat_of_turn(env: Any) -> int | None:
    """The seat to act, or None once the game is over."""
    if bool(env.core_state["done"]) or all(env.terminations.values()):
        return None
    return env.possible_agents.index(env.agent_selection)


def legal_names(env: Any, seat: int | None) -> list[str]:
    """The legal moves of ``seat`` by name when it is to act, else none."""
    if seat is None or seat != seat_of_turn(env):
        return []
    return [env.game.action_name(a) for a in env.legal_actions()]


def table_view(game: Any, rec: np.void, seat: int | None, legal: list[str]) -> dict[str, Any]:
    """The table as ``seat`` sees it (None: a spectator): the game's own text and SVG for that seat."""
    return {
        "text": game.render_ansi(rec, seat),
        "svg": game.render_svg(rec, seat, legal),
        "moves": legal,
    }


def log_line(game: Any, mover: int, action: int, viewer: int | None) -> str:
    """One move as ``viewer`` may know it when it is made (a secret move stays unnamed)."""
    return move_text(game, mover, action, viewer)
