"""How a move reads to someone watching from one seat: by name only if that seat may know it yet.

Horizonte's predictions stay secret until everyone has chosen, and in the Duel player_0's
placement stays hidden until player_1 has chosen too; the table's render shows them once
revealed. A spectator (viewer None) and the mover always see the name.
"""

from collections.abc import Callable

# game -> (mover seat, action name) -> whether the other seats learn the name at once
_PUBLIC: dict[str, Callable[[int, str], bool]] = {
    "capivari_v0": lambda seat, name: True,
    "horizonte_v0": lambda seat, name: not name.startswith("predict"),
    "dorfromantik_duel_v0": lambda seat, name: seat == 1,  # seat 1's choice ends the turn: both placements show
}


def move_text(game: str, seat: int, name: str, viewer: int | None) -> str:
    """``player_1 plays crias3``, or ``player_1 moves (hidden from you for now)`` for a secret move."""
    rule = _PUBLIC.get(game)
    if viewer is None or viewer == seat or (rule is not None and rule(seat, name)):
        return f"player_{seat} plays {name}"
    return f"player_{seat} moves (hidden from you for now)"
