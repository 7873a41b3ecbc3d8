"""Shared by the games' SVG pictures: escaped elements as text, so a picture is a plain string to send or save.

Elements that stand for a legal move carry ``data-move="<action name>"`` (class ``move``), so a page can
make them clickable without knowing the game.
"""

from html import escape
from typing import Any


def attrs(**kw: Any) -> str:
    """Attributes as text; ``class_`` -> ``class``, ``data_move`` -> ``data-move``; None values left out."""
    out = []
    for key, value in kw.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        out.append(f'{name}="{escape(str(value), quote=True)}"')
    return " ".join(out)


def el(tag: str, body: str | None = None, **kw: Any) -> str:
    """One element; ``body`` is markup already made (use ``text`` for words)."""
    a = attrs(**kw)
    head = f"<{tag} {a}" if a else f"<{tag}"
    return f"{head}/>" if body is None else f"{head}>{body}</{tag}>"


def text(x: float, y: float, words: str, size: float = 14, **kw: Any) -> str:
    """Words at (x, y), escaped."""
    return el("text", escape(str(words)), x=f"{x:.1f}", y=f"{y:.1f}", font_size=size, **kw)


def rect(x: float, y: float, w: float, h: float, **kw: Any) -> str:
    """A rectangle."""
    return el("rect", x=f"{x:.1f}", y=f"{y:.1f}", width=f"{w:.1f}", height=f"{h:.1f}", **kw)


def polygon(points: list[tuple[float, float]], **kw: Any) -> str:
    """A closed polygon through ``points``."""
    return el("polygon", points=" ".join(f"{x:.1f},{y:.1f}" for x, y in points), **kw)


def circle(x: float, y: float, r: float, **kw: Any) -> str:
    """A circle."""
    return el("circle", cx=f"{x:.1f}", cy=f"{y:.1f}", r=f"{r:.1f}", **kw)


def card(x: float, y: float, w: float, h: float, label: str, fill: str, move: str | None = None, **kw: Any) -> str:
    """A labelled card; a legal move when ``move`` names one (clickable in the page)."""
    body = rect(0, 0, w, h, rx=6, fill=fill, stroke="#333", stroke_width=2 if move else 1)
    body += text(w / 2, h / 2 + 5, label, size=min(16, w / 3.2), text_anchor="middle", font_weight="bold")
    return el("g", body, transform=f"translate({x:.1f},{y:.1f})", class_="move" if move else None, data_move=move, **kw)


def document(width: int, height: int, parts: list[str], label: str) -> str:
    """A whole SVG picture of ``width`` x ``height`` units that scales to its container."""
    head = attrs(
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {width} {height}",
        role="img",
        aria_label=label,
        font_family="sans-serif",
    )
    return f"<svg {head}>" + rect(0, 0, width, height, fill="#fdfcf7") + "".join(parts) + "</svg>"
