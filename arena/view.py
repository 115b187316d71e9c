"""The spectator view: an arena state rendered to a pygame Surface (spec/arena.md §4; layout after
spec/motti.md §6). Pure rendering: no window, no X; works with ``SDL_VIDEODRIVER=dummy``.

Layout: a 48 px title band at the top (map, round, team counts), a 24 px legend band at the bottom and a score
panel of :data:`PANEL_W` px at the right; the board fills the rest with motti's cell formula applied to the
board area: ``c = floor(min(bw / W, (win_h − 72) / H))`` (at least 1) with ``bw = win_w − PANEL_W``, board at
``x0 = (bw − c·W) // 2``, ``y0 = 48``; cell (x, y) covers ``[x0 + c·x, x0 + c·(x+1)) × [y0 + c·y, y0 +
c·(y+1))``.

Colours and words come from :mod:`arena.look` (shared with the web page). Drawing: walls (40,40,40); free
cells shaded from (235,235,225) at toxicity 0.01 to (150,200,110) at 0.20;
each player a disc in its team colour (blue (50,100,220), red (220,50,47)) whose centre pixel is the pure team
colour (radius 2/5 of a cell, at least :data:`PLAYER_MIN_RADIUS` px, with a white rim when larger than its
cell), a white facing pointer, the outline of its 179° view cone (radius 2 cells) and an energy bar along the
bottom of its cell; a disconnected player has a grey ring. The panel lists every player under headings:
colour, rank (once the game is over), id, points (2 decimals), energy, switch round and catches, in a font
that fits.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from arena.look import (
    BACKGROUND_RGB,
    BLUE_RGB,
    BOTTOM_H,
    CONE_CELLS,
    CONE_HALF_DEGREES,
    CONE_SHADE,
    DISCONNECTED_RGB,
    ENERGY_BACK_RGB,
    ENERGY_RGB,
    FREE_HIGH_RGB,
    FREE_LOW_RGB,
    ID_RGB,
    LEGEND,
    PANEL_HEADING,
    PANEL_W,
    PLAYER_MIN_RADIUS,
    RED_RGB,
    RIM_RGB,
    TEAM_RGB,
    TEXT_RGB,
    TOP_H,
    WALL_RGB,
    free_colour,
    head_text,
    panel_row,
)
from arena.rules import VECTORS, Arena, format_hundredths, format_points

__all__ = ["BACKGROUND_RGB", "BLUE_RGB", "BOTTOM_H", "FREE_HIGH_RGB", "FREE_LOW_RGB", "PANEL_HEADING",
           "PANEL_W", "PLAYER_MIN_RADIUS", "RED_RGB", "TEAM_RGB", "TEXT_RGB", "TOP_H", "WALL_RGB", "Layout",
           "Renderer", "default_size", "free_colour", "layout", "panel_font_size", "panel_row"]


@dataclass(frozen=True)
class Layout:
    """Where the board lies in a window: cell side ``c`` and the board's top-left corner (pixels)."""

    c: int
    x0: int
    y0: int
    width: int
    height: int

    def cell_rect(self, x: int, y: int) -> pygame.Rect:
        return pygame.Rect(self.x0 + self.c * x, self.y0 + self.c * y, self.c, self.c)

    def cell_centre(self, x: int, y: int) -> tuple[int, int]:
        return self.x0 + self.c * x + self.c // 2, self.y0 + self.c * y + self.c // 2


def layout(size: tuple[int, int], map_w: int, map_h: int) -> Layout:
    """The board layout for a window of *size* (w, h) pixels showing a *map_w* × *map_h* map."""
    win_w, win_h = size
    board_w = max(1, win_w - PANEL_W)
    c = max(1, min(board_w // map_w, (win_h - TOP_H - BOTTOM_H) // map_h))
    return Layout(c, (board_w - c * map_w) // 2, TOP_H, win_w, win_h)


def default_size(map_w: int, map_h: int) -> tuple[int, int]:
    """Default window size: ``c = min(32, (1280 − PANEL_W) // W, 888 // H)`` (at least 4), board plus
    bands and panel."""
    c = max(4, min(32, (1280 - PANEL_W) // map_w, 888 // map_h))
    return max(480, c * map_w) + PANEL_W, c * map_h + TOP_H + BOTTOM_H


MONO_FONTS = "dejavusansmono,notosansmono,liberationmono,monospace"
_fonts: dict[tuple[int, bool], pygame.font.Font] = {}


def _font(size: int, mono: bool) -> pygame.font.Font:
    if not pygame.font.get_init():
        pygame.font.init()
    key = (size, mono)
    if key not in _fonts:
        path = pygame.font.match_font(MONO_FONTS) if mono else None
        _fonts[key] = pygame.font.Font(path, size * 2 // 3 if path else size)
    return _fonts[key]


def _text(surface: pygame.Surface, text: str, pos: tuple[int, int], size: int = 20,
          colour: tuple[int, int, int] = TEXT_RGB, *, mono: bool = False) -> None:
    surface.blit(_font(size, mono).render(text, True, colour), pos)


def _board(arena: Arena, lay: Layout) -> pygame.Surface:
    """The walls and toxicity shading alone (cached by the caller: it never changes during a game)."""
    board = pygame.Surface((lay.c * arena.width, lay.c * arena.height))
    colours = {v: free_colour(v) for v in range(1, 21)}
    for y in range(arena.height):
        for x in range(arena.width):
            tox = min(max(int(arena.toxicity[y, x]), 1), 20)
            colour = WALL_RGB if arena.walls[y, x] else colours[tox]
            board.fill(colour, (lay.c * x, lay.c * y, lay.c, lay.c))
    return board


def panel_font_size(width: int, lines: list[str], largest: int) -> int:
    """The largest font size up to *largest* (at least 10) at which every line is at most *width* px wide."""
    for size_px in range(largest, 10, -1):
        font = _font(size_px, True)
        if all(font.size(line)[0] <= width for line in lines):
            return size_px
    return 10


class Renderer:
    """Renders states of one arena; keeps the static board between frames (re-built when the size changes)."""

    def __init__(self, arena: Arena, *, title: str = "arena", ids: list[int] | None = None) -> None:
        self.arena = arena
        self.title = title
        self.ids = ids
        self._board: pygame.Surface | None = None
        self._board_c = 0

    def render(self, state: dict[str, Any], size: tuple[int, int], *,
               table: list[dict[str, Any]] | None = None, note: str = "",
               stopped: str | None = None) -> pygame.Surface:
        """A new 32-bit Surface of *size* showing *state* (:meth:`arena.rules.Game.snapshot` format; before
        the game, no players and ``"waiting"``: the number of bots still missing).

        *table*: final table rows (``TableRow.as_json``) to show ranks once the game is over; *stopped*: why
        a signal stopped that game (its title band says so, :data:`arena.look.STOPPED`); *note*: a word
        appended to the title band (the replay window's "paused").
        """
        arena = self.arena
        lay = layout(size, arena.width, arena.height)
        surface = pygame.Surface(size, 0, 32)
        surface.fill(BACKGROUND_RGB)
        if self._board is None or self._board_c != lay.c:
            self._board, self._board_c = _board(arena, lay), lay.c
        surface.blit(self._board, (lay.x0, lay.y0))
        players = state["players"]
        ids = self.ids or [p["id"] for p in players]
        surface.set_clip(pygame.Rect(lay.x0, lay.y0, lay.c * arena.width, lay.c * arena.height))
        for p in players:  # cones stay on the board, out of the bands and the panel
            self._cone(surface, lay, p)
        surface.set_clip(None)
        for p in players:
            self._player(surface, lay, p, ids[p["id"]])
        head = head_text(self.title, state, over=table is not None, stopped=stopped, note=note)
        _text(surface, head, (8, 14), 26)
        _text(surface, LEGEND, (8, size[1] - BOTTOM_H + 5), 18)
        self._panel(surface, size, players, ids, table)
        return surface

    @staticmethod
    def _cone(surface: pygame.Surface, lay: Layout, p: dict[str, Any]) -> None:
        if lay.c < 4:
            return
        cx, cy = lay.cell_centre(p["x"], p["y"])
        dx, dy = VECTORS[p["facing"]]
        angle = math.atan2(-dy, dx)
        radius = CONE_CELLS * lay.c
        rect = pygame.Rect(cx - radius, cy - radius, 2 * radius, 2 * radius)
        colour = tuple(int(v * CONE_SHADE) for v in TEAM_RGB[p["team"]])
        half = math.radians(CONE_HALF_DEGREES)
        pygame.draw.arc(surface, colour, rect, angle - half, angle + half, 1)
        for side in (-half, half):
            ex = cx + round(radius * math.cos(angle + side))
            ey = cy - round(radius * math.sin(angle + side))
            pygame.draw.line(surface, colour, (cx, cy), (ex, ey), 1)

    @staticmethod
    def _player(surface: pygame.Surface, lay: Layout, p: dict[str, Any], wire_id: int) -> None:
        colour = TEAM_RGB[p["team"]]
        rect = lay.cell_rect(p["x"], p["y"])
        cx, cy = lay.cell_centre(p["x"], p["y"])
        radius = max(PLAYER_MIN_RADIUS, lay.c * 2 // 5)
        if radius * 2 > lay.c:  # a disc larger than its cell gets a white rim to stand out on the board
            pygame.draw.circle(surface, RIM_RGB, (cx, cy), radius + 1)
        pygame.draw.circle(surface, colour, (cx, cy), radius)
        if not p.get("connected", True):
            pygame.draw.circle(surface, DISCONNECTED_RGB, (cx, cy), radius, max(1, lay.c // 10))
        if lay.c >= 8:
            dx, dy = VECTORS[p["facing"]]
            norm = math.hypot(dx, dy)
            reach = radius + lay.c // 8
            tip = (cx + round(dx / norm * reach), cy + round(dy / norm * reach))
            start = (cx + round(dx / norm * (radius // 2)), cy + round(dy / norm * (radius // 2)))
            pygame.draw.line(surface, RIM_RGB, start, tip, max(1, lay.c // 12))
            bar_h = max(2, lay.c // 10)
            bar_w = (lay.c - 2) * p["energy"] // 10000
            surface.fill(ENERGY_BACK_RGB, (rect.x + 1, rect.bottom - bar_h - 1, lay.c - 2, bar_h))
            surface.fill(ENERGY_RGB, (rect.x + 1, rect.bottom - bar_h - 1, bar_w, bar_h))
        if lay.c >= 16:
            _text(surface, str(wire_id), (rect.x + 2, rect.y + 1), max(12, lay.c // 2), ID_RGB)

    @staticmethod
    def _panel(surface: pygame.Surface, size: tuple[int, int], players: list[dict[str, Any]], ids: list[int],
               table: list[dict[str, Any]] | None) -> None:
        left = size[0] - PANEL_W + 10
        order = sorted(players, key=lambda p: (-Fraction(p["points"]), p["id"]))
        ranks = {row["id"]: row["rank"] for row in table} if table else {}
        line_h = max(14, min(22, (size[1] - TOP_H - BOTTOM_H - 24) // max(1, len(players))))
        lines = []
        for p in order:
            wid = ids[p["id"]]
            switch = "-" if p["switch_round"] is None else str(p["switch_round"])
            lines.append(panel_row(ranks.get(wid, ""), wid, format_points(Fraction(p["points"])),
                                   format_hundredths(p["energy"]), switch, p["catches"]))
        size_px = panel_font_size(PANEL_W - 10 - 14 - 4, [PANEL_HEADING, *lines], min(20, line_h + 2))
        _text(surface, PANEL_HEADING, (left + 14, TOP_H), size_px, mono=True)
        for i, (p, text) in enumerate(zip(order, lines, strict=True)):
            y = TOP_H + 22 + i * line_h
            surface.fill(TEAM_RGB[p["team"]], (left, y + 2, 10, line_h - 6))
            _text(surface, text, (left + 14, y), size_px, mono=True)
