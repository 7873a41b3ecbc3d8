"""Shared by the games' pictures: an off-screen matplotlib figure (Agg) and its pixels as H x W x 3 uint8.

No pyplot: a bare Figure on an Agg canvas keeps no global state, so pictures can be drawn
from any thread or process without a display.
"""

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def new_figure(width_px: int, height_px: int, dpi: int = 100) -> Figure:
    """A blank white figure of the given size in pixels, on an Agg canvas."""
    fig = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi, facecolor="white")
    FigureCanvasAgg(fig)
    return fig


def full_axes(fig: Figure, width: float, height: float) -> Axes:
    """Axes covering the whole figure, with data coordinates 0..width x 0..height and no frame."""
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return ax


def to_rgb(fig: Figure) -> np.ndarray:
    """Draw the figure and return its pixels (H x W x 3 uint8, a fresh array)."""
    canvas = fig.canvas
    canvas.draw()
    return np.array(canvas.buffer_rgba())[:, :, :3]
