"""Observation layouts declared once, as named pieces with shapes (like OpenSpiel's observers).

A core declares ``LAYOUT = ObsLayout(("hand", (18,)), ("river", (3, 2, 3)), ...)`` and takes its
offsets as module constants (``O_HAND = LAYOUT.offset("hand")``; numba bakes plain ints into the
machine code) and ``OBS_SIZE = LAYOUT.size``. The rules documents' layout tables are checked
against the declaration by a test (``LAYOUT.rows()`` gives the rows the table must hold).
"""

import math


class ObsLayout:
    """Named pieces of a flat float32 observation, in order; offsets and the size derive from them."""

    def __init__(self, *pieces: tuple[str, tuple[int, ...]]) -> None:
        self._pieces: dict[str, tuple[int, tuple[int, ...]]] = {}
        offset = 0
        for name, shape in pieces:
            if not isinstance(name, str) or name in self._pieces:
                raise ValueError(f"observation piece names must be distinct strings, got {name!r}")
            if not isinstance(shape, tuple) or not all(isinstance(d, int) and d > 0 for d in shape):
                raise ValueError(f"piece {name!r}: shape must be a tuple of positive ints, got {shape!r}")
            self._pieces[name] = (offset, shape)
            offset += math.prod(shape)
        self.size = offset

    def offset(self, name: str) -> int:
        """Where piece ``name`` starts in the flat vector."""
        return self._pieces[name][0]

    def shape(self, name: str) -> tuple[int, ...]:
        return self._pieces[name][1]

    def length(self, name: str) -> int:
        return math.prod(self._pieces[name][1])

    def names(self) -> list[str]:
        return list(self._pieces)

    def piece_at(self, offset: int) -> str | None:
        """The piece that starts at ``offset`` in the flat vector, if one does."""
        return next((n for n, (o, _) in self._pieces.items() if o == offset), None)

    def rows(self) -> list[tuple[str, int, int, tuple[int, ...]]]:
        """(name, first index, last index, shape) per piece, in order: the rules document's table."""
        return [(n, o, o + math.prod(s) - 1, s) for n, (o, s) in self._pieces.items()]

    def split(self, obs: "object") -> dict[str, "object"]:
        """A flat observation (NumPy array) cut into its named pieces, each reshaped."""
        return {n: obs[o : o + math.prod(s)].reshape(s) for n, (o, s) in self._pieces.items()}
