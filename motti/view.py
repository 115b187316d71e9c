"""Draw a motti game into a pygame Surface and map window pixels back to cells and toolbar boxes.

Implements the pinned drawing of spec/motti.md §6: a 48 px toolbar of four equal boxes at the top (Attack
N, Defend, Guerilla, the crosses-left indicator on the current player's colour), a 24 px legend band at the
bottom, and the board between them, shown as the window's :class:`motti.viewport.Geometry` says (the whole
board with ``c = floor(min(win_w / W, (win_h - 72) / H))`` when that is at least 4, else zoomed in; zoom and
pan; below 1 px a cell each pixel shows the cell under its centre). Only the cells shown are drawn.
Occupied cells are drawn bright, unoccupied ones dark (each colour component × 0.45, rounded down), sea in its
own colour; the sea and all eighteen player colours differ pairwise by a CIEDE2000 ΔE of at least 12.
Capitals, crosses and last-turn marks are at least 9 px across (:func:`mark_rect`): from ``c >= 10`` inside
their cell, below that centred on their cell, over its neighbours; from ``c >= 7`` the probe pixel
``(x0 + c·x + 1, y0 + c·y + c//2)`` keeps the pure fill colour. A capital shows its state
(motti.explain): **safe** (occupied: a black ring round a black dot) or **open** (free: a white ring), and
from ``c >= 9`` each cell from which a capital can be taken (a **threat**, motti.rules.capital_threats)
carries a small white triangle pointing at that capital.
The toolbar's boxes are 30 px high; below them, an 18 px information line says the turn (with the cap of
``--max-turns``), each player's land and what stands between the game and the next global reset
(motti.explain.info_variants).
Sea cells have no grid lines but, from ``c >= 8``, two short lighter wave strokes (``~``) clear of the probe
pixel.

The view only reads a :class:`motti.compose.Composer`; it never talks to X (ARCHITECTURE.md seam 3).
Surfaces are 32-bit and need no display: pygame runs with ``SDL_VIDEODRIVER=dummy``.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Protocol

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame

from common.render import render_text, text_size
from motti import explain
from motti.announce import end_line, end_text, end_title, shorten
from motti.rules import Action
from motti.viewport import BANDS, LEGEND_HEIGHT, TOOLBAR_HEIGHT, Geometry, Viewport

if TYPE_CHECKING:
    from motti.compose import Composer


class LastTurnMarks(Protocol):
    """What :func:`draw_last_turn` reads of a motti.announce.LastTurn: the marks inside a box of cells."""

    player: int

    def gained(self, box: tuple[int, int, int, int] | None = None) -> list[tuple[int, int]]: ...

    def lost(self, box: tuple[int, int, int, int] | None = None) -> list[tuple[tuple[int, int], int]]: ...


__all__ = ["BANDS", "LEGEND_HEIGHT", "TOOLBAR_HEIGHT", "Geometry", "Viewport"]  # re-exported geometry

#: Bright (occupied) colour of players 1..9, spec §6.
PLAYER_COLOURS: dict[int, tuple[int, int, int]] = {
    1: (220, 50, 47),
    2: (60, 170, 60),
    3: (50, 100, 220),
    4: (230, 200, 40),
    5: (200, 60, 200),
    6: (40, 190, 200),
    7: (240, 140, 30),
    8: (250, 150, 180),
    9: (240, 240, 240),
}
#: Light, like the water of an atlas; CIEDE2000 ΔE ≥ 20 from every player colour (tests/motti/test_colours).
SEA = (120, 170, 230)
#: The sea's wave strokes (not a pinned colour: probe pixels never fall on them).
WAVE = (185, 215, 250)
GRID = (12, 12, 12)
#: Grid lines are drawn from this cell side on (px); below it they would hide the cells' colours.
GRID_MIN_CELL = 8
BACKGROUND = (40, 40, 44)
BOX = (210, 210, 210)
INK = (0, 0, 0)
WHITE = (255, 255, 255)

#: The height of the toolbar's boxes (px); the information line fills the rest of the toolbar band.
BOX_HEIGHT = 30
#: The font size of the information line (points).
INFO_POINTS = 16

#: The toolbar's boxes left to right; index 3 is the turn/cross indicator.
TOOLBAR_ACTIONS: tuple[Action, Action, Action] = (Action.ATTACK, Action.DEFEND, Action.GUERILLA)
INDICATOR_BOX = 3


def bright(player: int) -> tuple[int, int, int]:
    """The colour of *player*'s occupied cells (RGB, spec §6)."""
    return PLAYER_COLOURS[player]


def dark(player: int) -> tuple[int, int, int]:
    """The colour of *player*'s unoccupied cells: each bright component × 0.45, rounded down (spec §6)."""
    red, green, blue = PLAYER_COLOURS[player]
    return red * 45 // 100, green * 45 // 100, blue * 45 // 100


# Palette index: 0 sea, 1..9 dark colour of player k, 10..18 bright colour of player k - 9.
_PALETTE = np.array([SEA] + [dark(p) for p in range(1, 10)] + [bright(p) for p in range(1, 10)],
                    dtype=np.uint8)


def default_size(width: int, height: int) -> tuple[int, int]:
    """Default window size in pixels for a W×H board (spec §6).

    ``c = min(32, 1280 // W, 888 // H)``; when that is at least 4 the window is ``c·W`` wide (at least 480)
    and ``c·H + 72`` high, showing the whole board. A larger board gets a 1280×960 window that opens zoomed in
    (motti.viewport). common.x11.open_window cuts a size larger than the screen to the screen's.
    """
    cell = min(32, 1280 // width, 888 // height)
    if cell < 4:
        return 1280, 888 + BANDS
    return max(480, cell * width), cell * height + BANDS


def layout(win_w: int, win_h: int, width: int, height: int) -> tuple[int, int, float]:
    """Where the W×H board sits in a new ``win_w``×``win_h`` window: ``(x0, y0, c)`` (spec §6).

    When the whole board fits at ``c = floor(min(win_w / W, (win_h - 72) / H)) >= 4``: that c,
    ``x0 = (win_w - c·W) // 2``, ``y0 = 48``; otherwise ``c = 6`` centred on the board's centre (a window
    with players centres its first player's capital: :class:`motti.viewport.Viewport`).
    """
    geometry = Viewport().geometry((win_w, win_h), width, height)
    return geometry.x0, geometry.y0, geometry.c


def cell_at(px: int, py: int, size: tuple[int, int], width: int, height: int,
            geometry: Geometry | None = None) -> tuple[int, int] | None:
    """The board cell ``(x, y)`` under window pixel ``(px, py)``, or None outside the board.

    *size* is the window's ``(win_w, win_h)``; W and H are the board's dimensions; *geometry* is the window's
    zoom and pan (default: a new window's, :func:`layout`).
    """
    if geometry is None:
        geometry = Viewport().geometry(size, width, height)
    return geometry.cell_at(px, py)


def toolbar_box_at(px: int, py: int, size: tuple[int, int]) -> int | None:
    """Index 0..3 of the toolbar box under window pixel ``(px, py)`` (0 Attack, 1 Defend, 2 Guerilla,
    3 indicator), or None outside the boxes (the information line below them is no box). Box i spans
    ``[i·win_w // 4, (i+1)·win_w // 4) × [0, 30)``."""
    win_w = size[0]
    if not (0 <= py < BOX_HEIGHT and 0 <= px < win_w):
        return None
    return next(index for index in range(4) if px < (index + 1) * win_w // 4)


def box_rect(index: int, size: tuple[int, int]) -> pygame.Rect:
    """The pixel rectangle of toolbar box *index* (0..3) in a window of *size*."""
    win_w = size[0]
    left, right = index * win_w // 4, (index + 1) * win_w // 4
    return pygame.Rect(left, 0, right - left, BOX_HEIGHT)


def info_rect(size: tuple[int, int]) -> pygame.Rect:
    """The information line under the toolbar's boxes in a window of *size*."""
    return pygame.Rect(0, BOX_HEIGHT, size[0], TOOLBAR_HEIGHT - BOX_HEIGHT)


def info_text(game: Composer, width: int, can_pass: bool = True) -> str:
    """The information line's text for *width* px (motti.explain.info_variants: the longest variant that
    fits, else the shortest shortened at a word bound); the pass key is named only where *can_pass* (the
    window holds the player in turn, :func:`viewer_in_turn`)."""
    variants = explain.info_variants(game.game, can_pass)
    for text in variants:
        if _width(text, INFO_POINTS) <= width:
            return text
    return shorten(variants[-1], lambda t: _width(t, INFO_POINTS) <= width)


def draw_info(surface: pygame.Surface, game: Composer, size: tuple[int, int], can_pass: bool) -> None:
    """Draw the information line (:func:`info_text`, *can_pass* as there) into a window of *size*."""
    rect = info_rect(size)
    surface.fill(INK, rect)
    area = rect.inflate(-12, 0)
    _blit_text(surface, info_text(game, area.width, can_pass), area, WHITE, INFO_POINTS, centre=False)


def legend_rect(size: tuple[int, int]) -> pygame.Rect:
    """The legend band at the bottom of a window of *size*."""
    return pygame.Rect(0, size[1] - LEGEND_HEIGHT, size[0], LEGEND_HEIGHT)


def _ink_on(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black or white, whichever reads better on *colour*."""
    red, green, blue = colour
    return INK if 299 * red + 587 * green + 114 * blue > 128_000 else WHITE


#: Font sizes tried, largest first, when a text must fit a box.
_FIT_POINTS = (24, 18, 14, 11)


def fit_text(variants: Sequence[str], width: int, largest: int = 24, *,
             bold: bool = False) -> tuple[str, int]:
    """The first of *variants* (longest first) that fits in *width* px at some font size from *largest*
    points down to 14, with the largest such size; else the last variant at the smallest size that fits, or
    at 11 points (the caller clips it). Returns ``(text, points)``."""
    sizes = [p for p in _FIT_POINTS if p <= largest]
    for text in variants:
        for points in sizes:
            if points >= 14 and _width(text, points, bold) <= width:
                return text, points
    text = variants[-1]
    return text, next((p for p in sizes if _width(text, p, bold) <= width), _FIT_POINTS[-1])


def _width(text: str, points: int, bold: bool = False) -> int:
    """The width in px of *text* as :func:`_blit_text` draws it at *points*."""
    return text_size(text, points, bold)[0]


def _blit_text(surface: pygame.Surface, text: str, rect: pygame.Rect, colour: tuple[int, int, int],
               points: int, *, bold: bool = False, centre: bool = True) -> None:
    """Draw *text* inside *rect* (clipped), centred or left-aligned: the whole string at once in the system
    face of common.render (DejaVu Sans where installed), with its kerning and hinting; pygame's built-in face
    spaced letters unevenly at these sizes ("compute r", "think ing")."""
    image = render_text(text, points, colour, bold)
    if centre:
        where = image.get_rect(center=rect.center)
    else:
        where = image.get_rect(midleft=(rect.left, rect.centery))
    previous = surface.get_clip()
    surface.set_clip(rect.clip(previous))
    surface.blit(image, where)
    surface.set_clip(previous)


def viewer_in_turn(game: Composer, viewer: Collection[int] | None) -> bool:
    """True when the window of *viewer* (its players; None or empty = observer) holds the player in turn."""
    if not viewer:
        return False
    return not game.is_terminal() and game.current_player in viewer


def turn_text(game: Composer, viewer: Collection[int] | None, computer: Collection[int] = ()) -> str:
    """The legend's whose-turn text: the winner at the end, else whose move it is: ``Your move, player 1``
    in the window of the player in turn; in the others ``P2 (computer) is thinking`` while a *computer*
    player moves, else ``waiting for P2`` (``Player 2 to move`` for an observer)."""
    if game.end is not None:
        return end_title(game.end)
    player = game.current_player
    if viewer_in_turn(game, viewer):
        return f"Your move, player {player}"
    if player in computer:
        return f"P{player} (computer) is thinking"
    if viewer:
        return f"waiting for P{player}"
    return f"Player {player} to move"


def _draw_toolbar(surface: pygame.Surface, game: Composer, size: tuple[int, int], can_pass: bool) -> None:
    possible = game.possible_actions()
    attacks = game.attacks_left
    labels: tuple[tuple[str, ...], ...] = ((f"Attack {attacks}", f"Att {attacks}", f"A{attacks}"),
                                           ("Defend", "Def", "D"), ("Guerilla", "Guer", "G"))
    for index, (action, variants) in enumerate(zip(TOOLBAR_ACTIONS, labels, strict=True)):
        rect = box_rect(index, size)
        background, ink = (BOX, INK) if action in possible else (INK, BOX)
        surface.fill(background, rect)
        selected = not game.is_terminal() and action == game.selected
        pygame.draw.rect(surface, ink, rect.inflate(-2, -2), 4 if selected else 1)
        label, points = fit_text(variants, rect.width - 10, bold=selected)
        _blit_text(surface, label, rect.inflate(-10, 0), ink, points, bold=selected)
    rect = box_rect(INDICATOR_BOX, size)
    if game.winner is not None:
        colour = bright(game.winner)
        variants = (f"Winner: {game.winner}", f"Won {game.winner}", f"W{game.winner}")
    elif game.is_terminal():
        colour = bright(game.current_player)
        variants = ("Draw", "D")
    else:
        colour = bright(game.current_player)
        crosses = game.crosses_left()
        variants = (f"Crosses {crosses}", f"X {crosses}", f"{crosses}")
    surface.fill(colour, rect)
    pygame.draw.rect(surface, _ink_on(colour), rect.inflate(-2, -2), 1)
    label, points = fit_text(variants, rect.width - 10, bold=True)
    _blit_text(surface, label, rect.inflate(-10, 0), _ink_on(colour), points, bold=True)
    draw_info(surface, game, size, can_pass)


def _draw_x(surface: pygame.Surface, rect: pygame.Rect, line: int) -> None:
    """A white X from corner to corner of *rect*."""
    pygame.draw.line(surface, WHITE, rect.topleft, (rect.right - 1, rect.bottom - 1), line)
    pygame.draw.line(surface, WHITE, (rect.left, rect.bottom - 1), (rect.right - 1, rect.top), line)


#: The colours of :func:`_tiles`: the palette's, then the waves' and the grid's.
_TILE_COLOURS = [tuple(int(v) for v in colour) for colour in _PALETTE] + [WAVE, GRID]


@functools.lru_cache(maxsize=8)
def _tiles(cell: int) -> np.ndarray:
    """One whole cell of side *cell* per palette index: ``(19, c, c)`` indices into :data:`_TILE_COLOURS`,
    indexed ``[index, x, y]``: the cell's fill, from 4 px the waves on sea (:func:`_waves`), from
    :data:`GRID_MIN_CELL` the grid line on land's right and bottom edges."""
    tiles = np.broadcast_to(np.arange(len(_PALETTE), dtype=np.uint8)[:, None, None],
                            (len(_PALETTE), cell, cell)).copy()
    if cell >= 4:
        tiles[0][_waves(cell)] = len(_PALETTE)
        if cell >= GRID_MIN_CELL:
            tiles[1:, cell - 1, :] = tiles[1:, :, cell - 1] = len(_PALETTE) + 1
    return tiles


def _cell_inner(x0: int, y0: int, cell: int, x: int, y: int) -> pygame.Rect:
    """A cell's inner area: 2 px off its left/top edges, clear of the grid line on its right/bottom edges."""
    return pygame.Rect(x0 + cell * x + 2, y0 + cell * y + 2, cell - 4, cell - 4)


@functools.lru_cache(maxsize=8)
def _waves(cell: int) -> np.ndarray:
    """The wave strokes of one sea cell of side *cell* (at least 4): a (c, c) bool mask indexed ``[x, y]``
    holding two short ``~`` strokes, one high right, one low left of centre, both at least ``c // 4`` px right
    of the cell's left edge (the probe pixel column 1 stays sea) and clear of the cell's last row and column;
    below 8 px a single dash in the upper right quarter."""
    mask = np.zeros((cell, cell), dtype=bool)
    if cell < GRID_MIN_CELL:
        mask[cell // 2:, cell // 4] = True
        return mask
    amplitude = max(1, cell // 12)
    thick = 1 if cell < 24 else 2
    for left, right, middle in ((0.40, 0.85, 0.30), (0.25, 0.70, 0.68)):
        x_from, x_to = max(cell // 4, round(cell * left)), round(cell * right)
        for x in range(x_from, x_to):
            phase = 2 * np.pi * (x - x_from) / max(1, x_to - x_from)
            y = round(cell * middle - amplitude * np.sin(phase))
            mask[x, max(0, y):min(cell - 1, y + thick)] = True
    return mask


#: Capitals, crosses and last-turn marks are at least this wide (px); below ``c = MARK_MIN + 1`` (where a cell
#: without its grid line is narrower) centred on their cell and over its neighbours (spec §6 "Marks at small
#: sizes"), from it on inside the cell.
MARK_MIN = 9
#: From this cell side on every marked cell's probe pixel keeps the pure fill colour (spec §6).
PROBE_MIN = 7
#: From this cell side on the cells from which a capital can be taken carry a triangle (a threat).
THREAT_MIN = 9


def mark_rect(geometry: Geometry, x: int, y: int) -> pygame.Rect:
    """Where a mark of cell (x, y) goes (a capital's ring, a cross, a last-turn outline), always at least
    :data:`MARK_MIN` (9) px across: for ``c >= 13`` the cell's inner area (clear of the probe pixel and the
    grid lines); for ``10 <= c < 13`` the whole cell but its grid lines (:func:`_draw_board` keeps the probe
    pixel); below ``c = 10`` a 9 px square centred on the cell, over its neighbours."""
    cell = int(geometry.c)
    if geometry.c >= 1 and cell - (1 if cell >= GRID_MIN_CELL else 0) >= MARK_MIN:
        inner = _cell_inner(geometry.x0, geometry.y0, cell, x, y)
        if inner.width >= MARK_MIN:
            return inner
        side = cell - (1 if cell >= GRID_MIN_CELL else 0)
        return pygame.Rect(geometry.x0 + cell * x, geometry.y0 + cell * y, side, side)
    centre_x, centre_y = geometry.cell_centre(x, y)
    rect = pygame.Rect(0, 0, MARK_MIN, MARK_MIN)
    rect.center = (int(centre_x), int(centre_y))
    return rect


def _board_indices(game: Composer, cells: tuple[int, int, int, int]) -> np.ndarray:
    """Palette indices (0 sea, 1..9 free land of player k, 10..18 occupied) of the cells ``[x0, x1) × [y0,
    y1)``, indexed ``[x, y]`` (surfarray order)."""
    board = game.board
    cx0, cy0, cx1, cy1 = cells
    owner = board.owner[cy0:cy1, cx0:cx1].astype(np.intp)
    index = np.where(board.land[cy0:cy1, cx0:cx1],
                     np.where(board.occupied[cy0:cy1, cx0:cx1], owner + 9, owner), 0)
    return index.T


def _draw_cells(surface: pygame.Surface, game: Composer, geometry: Geometry) -> None:
    """Fill the board area with the cells *geometry* shows: whole cells of ``c`` px (from 4 px with sea
    waves, from 8 px with grid lines on land), or below 1 px a cell each pixel in the colour of the cell
    under its centre."""
    cx0, cy0, cx1, cy1 = geometry.view_cells()
    if cx0 >= cx1:
        return
    left, top, right, bottom = geometry.area()
    index = _board_indices(game, (cx0, cy0, cx1, cy1))
    if geometry.c < 1:
        c = geometry.c
        px = np.arange(max(left, geometry.x0), min(right, geometry.x0 + math.ceil(c * geometry.width)))
        py = np.arange(max(top, geometry.y0), min(bottom, geometry.y0 + math.ceil(c * geometry.height)))
        xs = np.floor((px + 0.5 - geometry.x0) / c).astype(np.intp)
        ys = np.floor((py + 0.5 - geometry.y0) / c).astype(np.intp)
        keep_x, keep_y = xs < geometry.width, ys < geometry.height
        px, xs, py, ys = px[keep_x], xs[keep_x], py[keep_y], ys[keep_y]
        if not len(px) or not len(py):
            return
        rgb = _PALETTE[index[np.ix_(xs - cx0, ys - cy0)]]
        pygame.surfarray.blit_array(surface.subsurface((int(px[0]), int(py[0]), len(px), len(py))), rgb)
        return
    cell = int(geometry.c)
    columns, rows = cx1 - cx0, cy1 - cy0
    colours = np.array([surface.map_rgb(colour) for colour in _TILE_COLOURS], dtype=np.uint32)
    pixels = colours[_tiles(cell)][index].transpose(0, 2, 1, 3).reshape(columns * cell, rows * cell)
    # The visible cells' block, cut to the board area (cells at its edges may be partly shown).
    block_left, block_top = geometry.x0 + cell * cx0, geometry.y0 + cell * cy0
    cut_left, cut_top = max(0, left - block_left), max(0, top - block_top)
    cut_right = min(columns * cell, right - block_left)
    cut_bottom = min(rows * cell, bottom - block_top)
    if cut_right <= cut_left or cut_bottom <= cut_top:
        return
    target = surface.subsurface((block_left + cut_left, block_top + cut_top, cut_right - cut_left,
                                 cut_bottom - cut_top))
    pygame.surfarray.blit_array(target, pixels[cut_left:cut_right, cut_top:cut_bottom])


def _draw_capital(surface: pygame.Surface, rect: pygame.Rect, occupied: bool, line: int) -> None:
    """A capital's ring in *rect*: an **open** (free) capital a white ring, a **safe** (occupied) one a black
    ring round a black dot (motti.explain); a small ring (a mark over the neighbours) sits on a disc of the
    other colour, so that it shows over any neighbour."""
    ring, back = (INK, WHITE) if occupied else (WHITE, INK)
    if rect.width <= MARK_MIN:
        pygame.draw.ellipse(surface, back, rect)
        pygame.draw.ellipse(surface, ring, rect.inflate(-2, -2), 2)
    else:
        pygame.draw.ellipse(surface, ring, rect, line)
    if occupied:
        dot = max(3, rect.width // 3)
        pygame.draw.ellipse(surface, INK, pygame.Rect(0, 0, dot, dot).move(rect.centerx - dot // 2,
                                                                           rect.centery - dot // 2))


def _draw_threat(surface: pygame.Surface, geometry: Geometry, cell: tuple[int, int],
                 capital: tuple[int, int]) -> None:
    """A white triangle edged in black inside *cell*, on its side (or corner) towards *capital* and pointing
    at it: from this cell the capital can be taken (motti.rules.capital_threats)."""
    c = int(geometry.c)
    inner = _cell_inner(geometry.x0, geometry.y0, c, *cell)
    dx, dy = capital[0] - cell[0], capital[1] - cell[1]
    size = max(4, c // 3)
    tip_x = inner.centerx + dx * (inner.width // 2)
    tip_y = inner.centery + dy * (inner.height // 2)
    back_x, back_y = tip_x - dx * size, tip_y - dy * size
    if dx and dy:
        points = [(tip_x, tip_y), (back_x, tip_y), (tip_x, back_y)]
    elif dx:
        points = [(tip_x, tip_y), (back_x, tip_y - size // 2 - 1), (back_x, tip_y + size // 2 + 1)]
    else:
        points = [(tip_x, tip_y), (tip_x - size // 2 - 1, back_y), (tip_x + size // 2 + 1, back_y)]
    pygame.draw.polygon(surface, WHITE, points)
    pygame.draw.polygon(surface, INK, points, 1)


def _draw_cross(surface: pygame.Surface, rect: pygame.Rect, line: int) -> None:
    """A white X in *rect*; a small one (below ``c = 7``) outlined in black, so that it shows over any
    neighbour."""
    if rect.width <= MARK_MIN:
        pygame.draw.line(surface, INK, rect.topleft, (rect.right - 1, rect.bottom - 1), 3)
        pygame.draw.line(surface, INK, (rect.left, rect.bottom - 1), (rect.right - 1, rect.top), 3)
        _draw_x(surface, rect, 1)
        return
    _draw_x(surface, rect.inflate(-2, -2), line)


def _draw_marks(surface: pygame.Surface, game: Composer, geometry: Geometry) -> None:
    """The threat triangles (from ``c >= 9``), capitals' rings and the crosses (spec §6): inside their cells
    for ``c >= 10``, else :data:`MARK_MIN` px across over the neighbours (:func:`mark_rect`); clipped to the
    board area."""
    board = game.board
    line = max(1, int(geometry.c) // 12) + 1
    if geometry.c >= THREAT_MIN:
        for cell, towards, _owner in explain.threat_cells(board):
            _draw_threat(surface, geometry, cell, towards)
    for capital in board.capitals.values():
        if capital is not None:
            x, y = capital
            _draw_capital(surface, mark_rect(geometry, x, y), bool(board.occupied[y, x]), line)
    for x, y in game.crosses:
        _draw_cross(surface, mark_rect(geometry, x, y), line)


def _draw_board(surface: pygame.Surface, game: Composer, geometry: Geometry,
                last_turn: LastTurnMarks | None = None) -> None:
    """The board as *geometry* shows it: cells, the last turn's marks, capitals and crosses, all inside the
    board area."""
    left, top, right, bottom = geometry.area()
    previous = surface.get_clip()
    surface.set_clip(pygame.Rect(left, top, right - left, bottom - top).clip(previous))
    _draw_cells(surface, game, geometry)
    draw_last_turn(surface, last_turn, geometry)
    _draw_marks(surface, game, geometry)
    if geometry.c >= PROBE_MIN:
        marked = [cell for cell in game.board.capitals.values() if cell is not None] + list(game.crosses)
        if geometry.c >= THREAT_MIN:
            marked += [cell for cell, _capital, _owner in explain.threat_cells(game.board)]
        if last_turn is not None:
            near = _near_box(geometry)
            marked += last_turn.gained(near) + [cell for cell, _owner in last_turn.lost(near)]
        _restore_probes(surface, game, geometry, marked)
    surface.set_clip(previous)


def _restore_probes(surface: pygame.Surface, game: Composer, geometry: Geometry,
                    cells: Sequence[tuple[int, int]]) -> None:
    """Give each marked cell's probe pixel ``(x0 + c·x + 1, y0 + c·y + c//2)`` its pure fill colour again
    (spec §6: it holds from ``c = 7`` on, where a mark 9 px across may fill the whole cell)."""
    board = game.board
    cell = int(geometry.c)
    shown = _near_view(geometry)
    for x, y in cells:
        if not shown(x, y):
            continue
        index = (int(board.owner[y, x]) + (9 if board.occupied[y, x] else 0)) if board.land[y, x] else 0
        probe = (geometry.x0 + cell * x + 1, geometry.y0 + cell * y + cell // 2)
        if surface.get_clip().collidepoint(probe):
            surface.set_at(probe, tuple(int(v) for v in _PALETTE[index]))


#: The key's words for the last turn's outlines (spec §6 "The last turn"): gained cells, cells lost.
LAST_TURN = "last turn"
ENCIRCLED = "encircled"
_KEY_ENTRIES = ("occupied", "free", explain.SAFE, explain.OPEN, explain.THREAT, "cross", LAST_TURN, ENCIRCLED)
#: The key's variants, longest first: where the whole key does not fit (a 640 px window), bright and dark go
#: (the players' swatches beside the key and the help of ? say them) and the marks stay.
_KEY_VARIANTS = (_KEY_ENTRIES, _KEY_ENTRIES[2:])
_KEY_SWATCH = 12
_KEY_GAP = 8
_KEY_POINTS = 16


def _key_width(entries: Sequence[str] = _KEY_ENTRIES) -> int:
    labels = sum(_width(text, _KEY_POINTS) for text in entries)
    return labels + (_KEY_SWATCH + 4 + _KEY_GAP) * len(entries) - _KEY_GAP


def _draw_key(surface: pygame.Surface, player: int, left: int, band: pygame.Rect,
              entries: Sequence[str] = _KEY_ENTRIES) -> None:
    """The legend key from *left*: bright and dark swatches of *player*, a safe (occupied) and an open (free)
    capital, a threat (a cell from which an open capital can be taken), an X (cross), a cell the last turn
    gained (outlined in the mover's colour) and one it encircled (dashed, in its new owner's colour)."""
    x = left
    top = band.centery - _KEY_SWATCH // 2
    for text in entries:
        square = pygame.Rect(x, top, _KEY_SWATCH, _KEY_SWATCH)
        surface.fill(bright(player) if text in ("occupied", explain.SAFE) else dark(player), square)
        if text in (explain.SAFE, explain.OPEN):
            _draw_capital(surface, square.inflate(-2, -2), text == explain.SAFE, 2)
        elif text == explain.THREAT:
            points = [(square.right - 2, square.centery), (square.left + 2, square.top + 2),
                      (square.left + 2, square.bottom - 3)]
            pygame.draw.polygon(surface, WHITE, points)
            pygame.draw.polygon(surface, INK, points, 1)
        elif text == "cross":
            _draw_x(surface, square.inflate(-4, -4), 2)
        elif text in (LAST_TURN, ENCIRCLED):
            surface.fill(dark(player), square)
            _outline(surface, square, bright(player), 2, dashed=text == ENCIRCLED)
        label_width = _width(text, _KEY_POINTS)
        label = pygame.Rect(square.right + 4, band.top, label_width, band.height)
        _blit_text(surface, text, label, WHITE, _KEY_POINTS, centre=False)
        x = square.right + 4 + label_width + _KEY_GAP


_PLAYER_SWATCH = 16
_PLAYER_GAP = 3


def _players_width(game: Composer) -> int:
    return game.board.players * (_PLAYER_SWATCH + _PLAYER_GAP) - _PLAYER_GAP


def _draw_players(surface: pygame.Surface, game: Composer, left: int, band: pygame.Rect) -> None:
    """The players' colours from *left*: one swatch per player in its bright colour with its number on it;
    a player out of the game gets its dark colour, a grey number and a slash."""
    alive = set(game.alive)
    top = band.centery - _PLAYER_SWATCH // 2
    for player in range(1, game.board.players + 1):
        square = pygame.Rect(left + (player - 1) * (_PLAYER_SWATCH + _PLAYER_GAP), top, _PLAYER_SWATCH,
                             _PLAYER_SWATCH)
        if player in alive:
            surface.fill(bright(player), square)
            _blit_text(surface, str(player), square, _ink_on(bright(player)), 16, bold=True)
        else:
            surface.fill(dark(player), square)
            _blit_text(surface, str(player), square, BOX, 16)
            pygame.draw.line(surface, WHITE, square.bottomleft, (square.right - 1, square.top), 2)


def draw_legend(surface: pygame.Surface, game: Composer, viewer: Collection[int] | None = None,
                message: str | None = None, *, computer: Collection[int] = (),
                note: str | None = None) -> None:
    """(Re)draw the legend band of a rendered *surface* in place: a swatch of the player in turn (or the
    winner), the turn text for *viewer* (:func:`turn_text`; *computer* the computer players) and any *message*
    (or, instead of it, the window's own *note*, e.g. a question), in a smaller font or shortened at a word
    bound (``…``) when it does not fit; then, at the right while at least 1/3 of the band stays for the text,
    the players' colour swatches with their numbers (players out of the game slashed) and the key (bright =
    occupied, dark = free, safe and open capitals, threat, X, the last turn's solid and dashed outlines;
    without bright and dark where the whole key does not fit), the key only while the text still fits whole
    beside it at 18 points. Front ends use it to make each window's variant of a frame without rendering the
    board again."""
    band = legend_rect(surface.get_size())
    surface.fill(INK, band)
    player = game.winner if game.winner is not None else game.current_player
    text = legend_text(game, viewer, message, computer=computer, note=note)
    tag = pygame.Rect(band.left + 6, band.centery - 6, 12, 12)
    text_right = band.right - 6
    def key(entries: Sequence[str]) -> tuple[int, Callable[[int], None], bool]:
        return _key_width(entries), lambda left: _draw_key(surface, player, left, band, entries), True

    blocks: tuple[tuple[tuple[int, Callable[[int], None], bool], ...], ...] = (
        ((_players_width(game), lambda left: _draw_players(surface, game, left, band), False),),
        tuple(key(entries) for entries in _KEY_VARIANTS))
    for variants in blocks:
        for width, draw, yields in variants:
            room = text_right - width - 12 - (tag.right + 6)
            if text_right - width - 12 - band.left < band.width // 3:
                continue
            if yields and _width(text, 18) > room:
                continue   # the key gives way to a text that would not fit whole beside it
            draw(text_right - width)
            text_right -= width + 12
            break
        else:
            break
    surface.fill(bright(player), tag)
    area = pygame.Rect(tag.right + 6, band.top, max(0, text_right - tag.right - 6), band.height)
    text, points = fit_words(text, area.width, 18)
    _blit_text(surface, text, area, WHITE, points, centre=False)


def legend_text(game: Composer, viewer: Collection[int] | None = None, message: str | None = None, *,
                computer: Collection[int] = (), note: str | None = None) -> str:
    """The whole text of a window's legend band (before any shortening): :func:`turn_text`, then the
    window's *note* or else the *message*, joined by `` · ``; a message that only repeats the heading (the
    islands draw: ``Draw: no player can reach another``) is left out. Once the game is over, while the
    message is its last announcement, the band says how it ended and nothing else
    (motti.announce.end_line: ``Player 1 wins on land after 400 turns: 160–140``), so that it is whole at
    480 px; a later message (a key's answer) follows that line."""
    text = turn_text(game, viewer, computer)
    said = note if note is not None else message
    if game.end is not None:
        # How the game ended comes first, whole (the actions before it are in the m panel), e.g. ``Player 1
        # wins after 12 turns``; a key's answer once it is over follows it (``... · saved to g.map``).
        ending = end_line(game.end)
        if said is None or said.endswith(end_text(game.end)):
            return ending
        return f"{ending} · {said}"
    return f"{text} · {said}" if said and said.casefold() != text.casefold() else text


def fit_words(text: str, width: int, largest: int = 18) -> tuple[str, int]:
    """*text* at the largest font size from *largest* down to 14 points at which it fits *width* px, else
    shortened at a word bound (``…``, motti.announce.shorten) at 14 points. Returns ``(text, points)``."""
    sizes = [p for p in _FIT_POINTS if 14 <= p <= largest] or [14]
    for points in sizes:
        if _width(text, points) <= width:
            return text, points
    points = sizes[-1]
    return shorten(text, lambda t: _width(t, points) <= width), points


def _outline(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int], line: int,
             dashed: bool) -> None:
    """A square outline of *line* px just inside *rect*: solid with a thin contrasting edge on both sides
    (so that it shows on a cell of its own colour), or dashed (dashes and gaps of about ``rect.width // 4``).
    """
    if not dashed:
        edge = _ink_on(colour)
        pygame.draw.rect(surface, edge, rect, 1)
        pygame.draw.rect(surface, colour, rect.inflate(-2, -2), line)
        pygame.draw.rect(surface, edge, rect.inflate(-2 - 2 * line, -2 - 2 * line), 1)
        return
    dash = max(2, rect.width // 4)
    for start in range(0, max(rect.width, rect.height), 2 * dash):
        for x in range(rect.left + start, min(rect.right, rect.left + start + dash)):
            surface.fill(colour, (x, rect.top, 1, line))
            surface.fill(colour, (x, rect.bottom - line, 1, line))
        for y in range(rect.top + start, min(rect.bottom, rect.top + start + dash)):
            surface.fill(colour, (rect.left, y, line, 1))
            surface.fill(colour, (rect.right - line, y, line, 1))


def draw_last_turn(surface: pygame.Surface, last_turn: LastTurnMarks | None, geometry: Geometry) -> None:
    """The last turn's marks (spec §6 "The last turn") on a board drawn as *geometry* says: every cell the
    mover gained outlined in the mover's colour, every cell lost outlined dashed in the colour of its new
    owner (:func:`mark_rect` says where: at least 7 px across). Nothing for None (before the first turn)."""
    if last_turn is None:
        return
    cell = int(geometry.c)
    line = max(1, cell // 10) if cell >= MARK_MIN else 1
    near = _near_box(geometry)
    for x, y in last_turn.gained(near):
        _outline(surface, mark_rect(geometry, x, y), bright(last_turn.player), line, dashed=False)
    for (x, y), owner in last_turn.lost(near):
        _outline(surface, mark_rect(geometry, x, y), bright(owner), max(2, line), dashed=True)


def _near_box(geometry: Geometry) -> tuple[int, int, int, int]:
    """The cells whose marks can show in *geometry*'s view, ``(x0, y0, x1, y1)`` with exclusive ends: the
    cells shown and, as a mark is at least :data:`MARK_MIN` px across (:func:`mark_rect`), those close enough
    for it to reach in. A player leaving a large board marks 100 000 cells for the next turn; only these are
    drawn."""
    x0, y0, x1, y1 = geometry.view_cells()
    near = MARK_MIN // max(1, int(geometry.c)) + 1
    return x0 - near, y0 - near, x1 + near, y1 + near


def _near_view(geometry: Geometry) -> Callable[[int, int], bool]:
    """Whether a mark of cell (x, y) can show in *geometry*'s view (:func:`_near_box`)."""
    x0, y0, x1, y1 = _near_box(geometry)

    def shown(x: int, y: int) -> bool:
        return x0 <= x < x1 and y0 <= y < y1

    return shown


def draw_history(surface: pygame.Surface, lines: Sequence[str], *,
                 resets: Sequence[int] | None = None) -> None:
    """The ``m`` panel over the board area of a rendered *surface* (between the toolbar and the legend band):
    a title, then, given the turns of the global *resets*, ``Resets: turns 31, 77`` (motti.explain), then
    *lines* (the announcements, oldest first) in full, each wrapped at word bounds to the panel's width; when
    they do not all fit, the newest are shown."""
    head = () if resets is None else (explain.resets_line(resets),)
    _draw_panel(surface, "The last announcements (any key returns)", lines, head, "nothing happened yet")


def draw_help(surface: pygame.Surface) -> None:
    """The help of ``?`` and F1 over the board area (motti.explain.help_lines: the rules in eleven lines,
    then every key and mouse button of a window), wrapped at word bounds; any key or click returns."""
    title, *lines = explain.help_lines("window")
    _draw_panel(surface, title, (), tuple(lines), "")


def _draw_panel(surface: pygame.Surface, title_text: str, lines: Sequence[str], head: Sequence[str],
                empty: str) -> None:
    """A panel over the board area: *title_text* in bold, the *head* lines, then *lines* (the newest that
    fit), or *empty* when there are none."""
    win_w, win_h = surface.get_size()
    panel = pygame.Rect(0, TOOLBAR_HEIGHT, win_w, max(0, win_h - BANDS))
    surface.fill(INK, panel)
    points = 16
    step = text_size("Ag", points)[1]
    width = max(1, panel.width - 16)
    rows: list[str] = []
    for line in lines:
        rows += _wrap_pixels(line, width, points) or [""]
    top_rows: list[str] = []
    for line in head:
        top_rows += _wrap_pixels(line, width, points) or [""]
    room = max(0, (panel.height - 8) // step - 1 - len(top_rows))
    title = pygame.Rect(panel.left + 8, panel.top + 4, width, step)
    _blit_text(surface, fit_words(title_text, width, 16)[0], title, WHITE, points, bold=True, centre=False)
    shown = top_rows + (rows[-room:] if room else [])
    for index, text in enumerate(shown or [empty]):
        rect = pygame.Rect(panel.left + 8, title.bottom + index * step, width, step)
        _blit_text(surface, text, rect, BOX, points, centre=False)


def _wrap_pixels(text: str, width: int, points: int) -> list[str]:
    """*text* in lines no wider than *width* px at *points*, broken at spaces (a word too long for a line is
    clipped)."""
    rows: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and _width(candidate, points) > width:
            rows.append(line)
            line = word
        else:
            line = candidate
    if line:
        rows.append(line)
    return rows


def render(game: Composer, size: tuple[int, int], viewer: Collection[int] | None = None,
           message: str | None = None, *, computer: Collection[int] = (),
           last_turn: LastTurnMarks | None = None, geometry: Geometry | None = None) -> pygame.Surface:
    """Draw *game* into a new 32-bit Surface of *size* ``(win_w, win_h)`` pixels (spec §6).

    *viewer* holds the players at the window (None or empty for an observer) and *computer* the computer
    players; they only change the legend's turn text (:func:`turn_text`) and whether the information line
    names the pass key (:func:`draw_info`). *message* (an announcement) is appended to that text.
    *last_turn* (motti.announce.LastTurn) adds the last turn's marks (:func:`draw_last_turn`). *geometry* is
    the window's zoom and pan (motti.viewport; default: a new window's, :func:`layout`); only the cells it
    shows are drawn.
    """
    win_w, win_h = size
    surface = pygame.Surface((max(1, win_w), max(1, win_h)), 0, 32)
    surface.fill(BACKGROUND)
    if geometry is None:
        geometry = Viewport().geometry(size, game.board.width, game.board.height)
    _draw_board(surface, game, geometry, last_turn)
    draw_legend(surface, game, viewer, message, computer=computer)
    _draw_toolbar(surface, game, size, viewer_in_turn(game, viewer))
    return surface


#: Changed board pixels are presented in blocks of at least this side (px), aligned to the cells.
_DIRTY_BLOCK = 16
#: More changed blocks than this are presented as their bounding box.
_DIRTY_MAX_BLOCKS = 64


def dirty_rects(before: pygame.Surface | None, after: pygame.Surface,
                geometry: Geometry | None = None) -> list[pygame.Rect] | None:
    """The rectangles of *after* that differ from *before*: toolbar band, changed blocks of the board area,
    legend band.

    Returns None when everything must be presented (no previous frame or a different size), an empty list when
    nothing changed. With the frames' *geometry* the blocks are whole cells (``c`` or a multiple of it, at
    least 16 px); without, 16 px squares.
    """
    if before is None or before.get_size() != after.get_size():
        return None
    old = pygame.surfarray.pixels2d(before)
    new = pygame.surfarray.pixels2d(after)
    changed = old != new  # (win_w, win_h)
    del old, new
    win_w, win_h = after.get_size()
    rects: list[pygame.Rect] = []
    if changed[:, :TOOLBAR_HEIGHT].any():
        rects.append(pygame.Rect(0, 0, win_w, TOOLBAR_HEIGHT))
    top, bottom = TOOLBAR_HEIGHT, max(TOOLBAR_HEIGHT, win_h - LEGEND_HEIGHT)
    band = changed[:, top:bottom]
    if band.size and band.any():
        side, origin_x, origin_y = _DIRTY_BLOCK, 0, top
        if geometry is not None and geometry.c >= 1:
            cell = int(geometry.c)
            side = cell * -(-_DIRTY_BLOCK // cell)
            origin_x, origin_y = geometry.x0, geometry.y0
        pad_x, pad_y = -origin_x % side, (top - origin_y) % side    # a block starts at the origin
        padded = np.zeros((-(-(win_w + pad_x) // side) * side, -(-(band.shape[1] + pad_y) // side) * side),
                          dtype=bool)
        padded[pad_x:pad_x + win_w, pad_y:pad_y + band.shape[1]] = band
        blocks = padded.reshape(padded.shape[0] // side, side, padded.shape[1] // side, side).any(axis=(1, 3))
        xs, ys = np.nonzero(blocks)
        area = pygame.Rect(0, top, win_w, bottom - top)
        if len(xs) > _DIRTY_MAX_BLOCKS:
            xs, ys = np.array([xs.min(), xs.max()]), np.array([ys.min(), ys.max()])
            rects.append(pygame.Rect(int(xs[0]) * side - pad_x, top + int(ys[0]) * side - pad_y,
                                     (int(xs[1]) - int(xs[0]) + 1) * side,
                                     (int(ys[1]) - int(ys[0]) + 1) * side).clip(area))
        else:
            rects.extend(
                pygame.Rect(int(x) * side - pad_x, top + int(y) * side - pad_y, side, side).clip(area)
                for x, y in zip(xs, ys, strict=True))
    if changed[:, win_h - LEGEND_HEIGHT:].any():
        rects.append(legend_rect((win_w, win_h)))
    return rects
