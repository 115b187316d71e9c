"""Which part of the board a motti window shows, and where: zoom and pan (spec/motti.md §6 "Zoom and pan").

Pure geometry, no drawing. A window is ``win_w`` × ``win_h`` pixels: a 48 px toolbar band at the top, a 24 px
legend band at the bottom, and between them the *board area*, where the board is drawn with cell side ``c``
pixels from ``(x0, y0)``: cell (x, y) covers ``[x0 + c·x, x0 + c·(x+1)) × [y0 + c·y, y0 + c·(y+1))``.

``c`` is a whole number of pixels from 1 up, or a fraction below 1 when the whole board must fit in fewer
pixels than it has cells; then each pixel shows the cell under its centre. One formula serves every ``c``:
pixel ``(px, py)`` shows cell ``(floor((px + ½ − x0) / c), floor((py + ½ − y0) / c))``.

A :class:`Viewport` is one window's choice, kept across renders and resizes:

- ``auto`` (a new window): when the whole board fits at ``c ≥ 4`` it is shown whole, with the spec's layout
  (``c = floor(min(win_w / W, (win_h − 72) / H))``, board centred across, at the top of the area); otherwise
  ``c = 6`` centred on the window's first player's capital (an observer's: the board's centre);
- ``fit`` (after ``Home``): the whole board, with a fractional ``c`` when needed;
- ``zoom`` (after a zoom or pan): ``c`` and the board point at the centre of the area, as the user left them.

A zoomed board is never panned off the area: while the board is wider (taller) than the area, its edges stay
at or beyond the area's edges; a board narrower (shorter) than the area is centred across (put at the top).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

TOOLBAR_HEIGHT = 48
LEGEND_HEIGHT = 24
BANDS = TOOLBAR_HEIGHT + LEGEND_HEIGHT
#: A board that fits at this cell side or more opens whole (spec §6).
FIT_MIN_CELL = 4
#: Otherwise a window opens at this cell side, centred on its first player's capital.
OPEN_CELL = 6
#: The largest cell side zooming in reaches (px).
MAX_CELL = 128

Cell = tuple[int, int]
Mode = Literal["auto", "fit", "zoom"]


@dataclass(frozen=True)
class Geometry:
    """Where a W×H board sits in a window of ``size`` = (win_w, win_h) pixels: cell side ``c`` (an int from 1
    up, a float below 1) and the pixel ``(x0, y0)`` of the board's top-left corner (negative when the board is
    panned past the window's left or top edge)."""

    size: tuple[int, int]
    width: int
    height: int
    x0: int
    y0: int
    c: float

    def area(self) -> tuple[int, int, int, int]:
        """The board area ``(left, top, right, bottom)`` in pixels (right and bottom exclusive)."""
        win_w, win_h = self.size
        return 0, TOOLBAR_HEIGHT, max(0, win_w), max(TOOLBAR_HEIGHT, win_h - LEGEND_HEIGHT)

    def cell_at(self, px: int, py: int) -> Cell | None:
        """The cell shown at window pixel ``(px, py)``, or None outside the board area or the board."""
        left, top, right, bottom = self.area()
        if not (left <= px < right and top <= py < bottom):
            return None
        x = math.floor((px + 0.5 - self.x0) / self.c)
        y = math.floor((py + 0.5 - self.y0) / self.c)
        if 0 <= x < self.width and 0 <= y < self.height:
            return x, y
        return None

    def view_cells(self) -> tuple[int, int, int, int]:
        """The cells shown, ``(x0, y0, x1, y1)`` with x1, y1 exclusive: every cell with a pixel in the board
        area (below 1 px a cell: every cell the area's pixels cover at least in part, so a board fitted whole
        by ``Home`` gives ``(0, 0, W, H)`` although a pixel's centre falls on only one of the cells it
        covers). Empty (x0 == x1) when the area is empty."""
        left, top, right, bottom = self.area()
        xs = self._shown(left, right, self.x0, self.width)
        ys = self._shown(top, bottom, self.y0, self.height)
        if xs[0] >= xs[1] or ys[0] >= ys[1]:
            return 0, 0, 0, 0
        return xs[0], ys[0], xs[1], ys[1]

    def _shown(self, low: int, high: int, origin: int, cells: int) -> tuple[int, int]:
        """The cells ``[first, last)`` of one axis shown by the pixels ``[low, high)``."""
        if high <= low:
            return 0, 0
        if self.c >= 1:
            first = (low - origin) // int(self.c)
            last = -((origin - high) // int(self.c))   # ceil((high - origin) / c)
        else:
            first = math.floor((low - origin) / self.c)
            last = math.ceil((high - origin) / self.c)
        return max(0, first), min(cells, last)

    def cell_centre(self, x: int, y: int) -> tuple[float, float]:
        """The pixel position of the centre of cell (x, y)."""
        return self.x0 + self.c * (x + 0.5), self.y0 + self.c * (y + 0.5)

    def as_status(self) -> dict[str, object]:
        """The window's geometry as the status file has it: ``x0``, ``y0``, ``c`` and ``view_cells``."""
        return {"x0": self.x0, "y0": self.y0, "c": self.c, "view_cells": list(self.view_cells())}


def fit_cell(size: tuple[int, int], width: int, height: int) -> float:
    """The largest cell side at which the whole W×H board fits the board area of a window of *size*: a whole
    number when at least 1 pixel (``floor(min(win_w / W, (win_h − 72) / H))``), else the exact fraction."""
    win_w, win_h = size
    exact = min(max(1, win_w) / width, max(1, win_h - BANDS) / height)
    return math.floor(exact) if exact >= 1 else exact


def _fit(size: tuple[int, int], width: int, height: int) -> Geometry:
    c = fit_cell(size, width, height)
    return Geometry(size, width, height, math.floor((size[0] - c * width) / 2), TOOLBAR_HEIGHT, c)


def _place(size: tuple[int, int], width: int, height: int, c: float, cx: float, cy: float) -> Geometry:
    """Cell side *c* with board point ``(cx, cy)`` (in cells) at the centre of the area, kept on the board."""
    left, top, right, bottom = Geometry(size, width, height, 0, 0, c).area()
    x0 = _clamp(round((left + right) / 2 - cx * c), left, right, c * width, centre=True)
    y0 = _clamp(round((top + bottom) / 2 - cy * c), top, bottom, c * height, centre=False)
    return Geometry(size, width, height, x0, y0, c)


def _clamp(origin: int, low: int, high: int, extent: float, *, centre: bool) -> int:
    """Keep a board of *extent* pixels over the area ``[low, high)``: centred (or at *low*) when it fits,
    else with no gap at either edge."""
    room = high - low
    if extent <= room:
        return low + math.floor((room - extent) / 2) if centre else low
    return min(low, max(origin, high - math.ceil(extent)))


@dataclass
class Viewport:
    """One window's zoom and pan (see the module docstring). *focus* is the cell a window that opens zoomed in
    centres (its first player's capital), None for the board's centre."""

    focus: Cell | None = None
    mode: Mode = "auto"
    c: float = OPEN_CELL
    cx: float = 0.0
    cy: float = 0.0

    def geometry(self, size: tuple[int, int], width: int, height: int) -> Geometry:
        """Where the W×H board is drawn in a window of *size* now."""
        if self.mode == "fit":
            return _fit(size, width, height)
        if self.mode == "auto":
            if fit_cell(size, width, height) >= FIT_MIN_CELL:
                return _fit(size, width, height)
            fx, fy = self.focus if self.focus is not None else (width / 2 - 0.5, height / 2 - 0.5)
            return _place(size, width, height, OPEN_CELL, fx + 0.5, fy + 0.5)
        return _place(size, width, height, self.c, self.cx, self.cy)

    def _hold(self, geometry: Geometry) -> None:
        """Keep *geometry* (its c and the board point at the area's centre) as the user's own."""
        left, top, right, bottom = geometry.area()
        self.mode = "zoom"
        self.c = geometry.c
        self.cx = ((left + right) / 2 - geometry.x0) / geometry.c
        self.cy = ((top + bottom) / 2 - geometry.y0) / geometry.c

    def zoom(self, size: tuple[int, int], width: int, height: int, steps: int,
             pointer: tuple[int, int] | None = None) -> bool:
        """Zoom in (*steps* > 0) or out (< 0) about window pixel *pointer* (the area's centre when None or
        outside the area): each step doubles or halves ``c`` (whole pixels from 1 up, halving below 1 px).
        Zooming in stops at :data:`MAX_CELL` (cells already larger, as a tiny board's whole fit may be, stay
        as they are); zooming out stops at the whole board's fit (:func:`fit_cell`; a view left smaller by a
        window grown since stays as it is): ``+`` never makes cells smaller, ``-`` never larger. The board
        point under the pointer stays under it, as far as the board may stay in view; a zoom out that reaches
        the whole board shows it as :meth:`home` does, following the window's size. Returns True when the
        view changed."""
        before = self.geometry(size, width, height)
        c = before.c
        whole = fit_cell(size, width, height)
        for _ in range(abs(steps)):
            if steps > 0:
                # never past MAX_CELL, and never below c: a small board's whole fit may be past it already
                c = max(c, min(MAX_CELL, int(c * 2))) if c >= 1 else (1 if c * 2 >= 1 else c * 2)
            else:
                c = max(min(c, whole), c // 2 if c >= 2 else c / 2)
            c = int(c) if c >= 1 else c
        left, top, right, bottom = before.area()
        if pointer is None or not (left <= pointer[0] < right and top <= pointer[1] < bottom):
            pointer = ((left + right) // 2, (top + bottom) // 2)
        px, py = pointer
        # the board point under the pointer, in cells
        bx, by = (px - before.x0) / before.c, (py - before.y0) / before.c
        x0, y0 = round(px - bx * c), round(py - by * c)
        after = _place(size, width, height, c, ((left + right) / 2 - x0) / c, ((top + bottom) / 2 - y0) / c)
        if after == before:
            return False
        if steps < 0 and c == whole:
            self.home()   # zoomed out to the whole board: it follows the window's size again, as after Home
            return True
        self._hold(after)
        return True

    def pan(self, size: tuple[int, int], width: int, height: int, dx: int, dy: int) -> bool:
        """Move the view by *dx*, *dy* quarter windows (positive: right, down across the board), as far as
        the board stays in view. Returns True when the view changed."""
        before = self.geometry(size, width, height)
        win_w = size[0]
        left, top, right, bottom = before.area()
        x0 = before.x0 - dx * (win_w // 4)
        y0 = before.y0 - dy * ((bottom - top) // 4)
        c = before.c
        after = _place(size, width, height, c, ((left + right) / 2 - x0) / c, ((top + bottom) / 2 - y0) / c)
        if after == before:
            return False
        self._hold(after)
        return True

    def home(self) -> None:
        """Show the whole board from now on (``Home``), whatever the window's size."""
        self.mode = "fit"
