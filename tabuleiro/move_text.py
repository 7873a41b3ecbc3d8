"""How a move reads to someone watching from one seat: by name only if that seat may know it yet.

Horizonte's predictions stay secret until everyone has chosen, and in the Duel player_0's
placement stays hidden until player_1 has chosen too; the table's render shows them once
revealed. A spectator (viewer None) and the mover always see the name.
"""

from typing import Any


def move_text(game: Any, seat: int, action: int, viewer: int | None) -> str:
    """``player_1 plays crias3``, or ``player_1 moves (hidden from you for now)`` for a secret move
    (``game`` is env.game: ``Game.move_is_public`` says which moves the other seats learn at once)."""
    if viewer is None or viewer == seat or game.move_is_public(seat, action):
        return f"player_{seat} plays {game.action_name(action)}"
    return f"player_{seat} moves (hidden from you for now)"
