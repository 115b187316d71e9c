"""Draw a Star Lanes game into a pygame Surface, and map window pixels back to map cells and company rows.

The X windows of spec/starlanes.md §0 ("the same game on X windows") show what the curses screen of §10 shows:
a title bar, the map (12×10 cells, the candidate moves as numbered yellow cells), the company window (name,
price, the holdings of the window's owner named in its title, size, total worth; the trading cursor as a
highlighted row), the general window titled with the current player's name and cash (prompts, announcements,
trading), the standings with the company sectors remaining, pop-up windows (standings, company detail,
"Really Quit?", the final standings) and the end-of-game net-worth chart. Tables fit their panel
(:func:`fit_table`): numbers are abbreviated as on the curses screen and the font gets smaller, never
overlapping. Text is drawn with :func:`common.render.render_text` (a system face, a CJK fallback, ``?`` for
glyphs no face has).

Every map cell is filled edge to edge (less a 1 px gap) with the colour of its symbol, so the probe pixel
``cell_rect(...).topleft + (2, 2)`` shows :func:`cell_colour` whatever the font. The view only reads a
:class:`starlanes.rules.Game` and a :class:`Screen` (what the front end shows besides the game); it never
talks to X. Surfaces are 32-bit and need no display (``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from common.render import font as _font
from common.render import render_text, text_size
from common.term import Cell, fit_number, money, printable
from starlanes import messages
from starlanes.rules import (
    BLACK_HOLE,
    EMPTY,
    LETTERS,
    MAP_HEIGHT,
    MAP_WIDTH,
    OUTPOST,
    STAR,
    Game,
    cell_xy,
)
from starlanes.session import (
    chart_history,
    chart_money,
    chart_scale,
    company_page,
    holdings_title,
    standings_page,
)
from starlanes.session import fit_name as session_fit_name

DEFAULT_SIZE = (960, 680)
#: The smallest window (pixels) where everything fits with 3 or 4 players at table text of at least 14 points
#: (a 9 px face): :func:`misfits` is empty there.
MIN_SIZE = (600, 450)
MARGIN = 8
TITLE_HEIGHT = 30
PANEL_HEAD = 24
PAD = 8
TEXT_POINTS = 22
#: Font sizes a table tries, largest first, when its columns do not fit (numbers are abbreviated first).
TABLE_POINTS = (TEXT_POINTS, 19, 16, 14)
TABLE_GAP = 16

BACKGROUND = (14, 14, 30)
PANEL = (24, 24, 44)
BORDER = (70, 90, 170)
TEXT = (225, 225, 225)
DIM = (140, 140, 160)
HEAD = (255, 255, 255)
INK = (0, 0, 0)
HIGHLIGHT = (230, 230, 240)
POPUP = (36, 36, 70)
#: Pixels of background around a pop-up window.
POPUP_RING = 3
#: Cell fill colours (RGB) per map symbol; companies A–E in :data:`COMPANY_COLOURS`.
SYMBOL_COLOURS: dict[str, tuple[int, int, int]] = {
    EMPTY: (22, 22, 40),
    STAR: (110, 90, 25),
    BLACK_HOLE: (150, 20, 20),
    OUTPOST: (30, 110, 60),
}
COMPANY_COLOURS: tuple[tuple[int, int, int], ...] = (
    (0, 170, 200), (190, 70, 190), (120, 200, 40), (60, 90, 235), (235, 100, 40),
)
CANDIDATE = (250, 220, 0)
EMPTY_DOT = (70, 70, 110)
STAR_INK = (255, 235, 120)
#: Net-worth chart line colours of players 1..4.
PLAYER_COLOURS: tuple[tuple[int, int, int], ...] = (
    (0, 200, 230), (230, 90, 230), (90, 220, 90), (245, 205, 40),
)

#: A line of a panel: ``(text, style)``; a tuple ``text`` is a table row (first column left-aligned, the
#: others right-aligned; consecutive rows share column widths). Styles: "" plain, "bold", "dim", "head"
#: (underlined).
Line = tuple[str | tuple[str, ...], str]


@dataclass
class Screen:
    """What a window shows besides the game state.

    ``lines``: the general window's content; ``marks``: cell index → candidate label drawn on the map;
    ``cursor``: the highlighted row of the company window (index into the active companies) or None;
    ``popup``: ``(title, lines)`` of a window over the others, or None; ``banner``: the right side of the
    title bar (whose turn it is for this window); ``chart``: show the full-window net-worth chart instead;
    ``title_player``: whose name and cash title the general window (the player an announcement is about),
    None for the player on turn; ``holder``: whose holdings the company window shows (the window's owner;
    None for the player on turn, unnamed).
    """

    lines: list[Line] = field(default_factory=list)
    marks: dict[int, str] = field(default_factory=dict)
    cursor: int | None = None
    popup: tuple[str, list[Line]] | None = None
    banner: str = ""
    chart: bool = False
    title_player: int | None = None
    holder: int | None = None


@dataclass(frozen=True)
class Layout:
    """Pixel rectangles of a window of some size: cell side ``cell`` and the map's top-left ``origin``;
    the panels ``map``, ``companies``, ``general`` and ``players``; ``rows_top``/``row_height`` of company
    rows."""

    cell: int
    origin: tuple[int, int]
    map: pygame.Rect
    companies: pygame.Rect
    general: pygame.Rect
    players: pygame.Rect
    rows_top: int
    row_height: int



def line_height() -> int:
    """Pixels per text line in the panels."""
    return _font(TEXT_POINTS).get_linesize() + 2


def layout(size: tuple[int, int]) -> Layout:
    """Where everything sits in a window of ``size`` = (width, height) pixels.

    The map takes about the left 45 % and the upper 55 %: cell side
    ``c = max(8, min((0.45·w − 16) // 12, (0.55·h − 30 − 16 − 24) // 10))``.
    """
    width, height = max(1, size[0]), max(1, size[1])
    cell = max(8, min((width * 9 // 20 - 2 * MARGIN) // MAP_WIDTH,
                      (height * 11 // 20 - TITLE_HEIGHT - 2 * MARGIN - PANEL_HEAD) // MAP_HEIGHT))
    top = TITLE_HEIGHT + MARGIN
    map_rect = pygame.Rect(MARGIN, top, MAP_WIDTH * cell + 2 * PAD, PANEL_HEAD + MAP_HEIGHT * cell + PAD)
    origin = (map_rect.x + PAD, map_rect.y + PANEL_HEAD)
    companies = pygame.Rect(map_rect.right + MARGIN, top, max(1, width - MARGIN - map_rect.right - MARGIN),
                            map_rect.height)
    below = map_rect.bottom + MARGIN
    rest = max(1, height - MARGIN - below)
    general_width = max(1, (width - 3 * MARGIN) * 3 // 5)
    general = pygame.Rect(MARGIN, below, general_width, rest)
    players = pygame.Rect(general.right + MARGIN, below, max(1, width - MARGIN - general.right - MARGIN),
                          rest)
    line = line_height()
    rows_top = companies.y + PANEL_HEAD + line
    row_height = max(line, min(2 * line, (companies.bottom - PAD - rows_top) // len(LETTERS)))
    return Layout(cell, origin, map_rect, companies, general, players, rows_top, row_height)


def cell_rect(cell: int, size: tuple[int, int]) -> pygame.Rect:
    """The pixel square of map cell index ``cell`` (x + 12·y) in a window of ``size``."""
    lay = layout(size)
    x, y = cell_xy(cell)
    return pygame.Rect(lay.origin[0] + x * lay.cell, lay.origin[1] + y * lay.cell, lay.cell, lay.cell)


def cell_at(px: int, py: int, size: tuple[int, int]) -> int | None:
    """The map cell index under window pixel ``(px, py)``, or None off the map."""
    lay = layout(size)
    x, y = (px - lay.origin[0]), (py - lay.origin[1])
    if x < 0 or y < 0:
        return None
    x, y = x // lay.cell, y // lay.cell
    if x >= MAP_WIDTH or y >= MAP_HEIGHT:
        return None
    return x + MAP_WIDTH * y


def company_row_rect(row: int, size: tuple[int, int]) -> pygame.Rect:
    """The pixel band of row ``row`` (0-based, in A→E order of the active companies) of the company window."""
    lay = layout(size)
    return pygame.Rect(lay.companies.x + PAD, lay.rows_top + row * lay.row_height, lay.companies.w - 2 * PAD,
                       lay.row_height)


def company_row_at(px: int, py: int, size: tuple[int, int], rows: int) -> int | None:
    """The company-window row (0..rows−1) under window pixel ``(px, py)``, or None."""
    for row in range(rows):
        if company_row_rect(row, size).collidepoint(px, py):
            return row
    return None


def cell_colour(game: Game, cell: int, marks: dict[int, str] | None = None) -> tuple[int, int, int]:
    """The fill colour of a map cell: candidate yellow when marked, else its symbol's colour (RGB)."""
    if marks and cell in marks:
        return CANDIDATE
    symbol = game.grid[cell]
    if symbol in LETTERS:
        return COMPANY_COLOURS[LETTERS.index(symbol)]
    return SYMBOL_COLOURS[symbol]


def _ink_on(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    red, green, blue = colour
    return INK if 299 * red + 587 * green + 114 * blue > 128_000 else HEAD


def _text(surface: pygame.Surface, text: str, pos: tuple[int, int], colour: tuple[int, int, int],
          clip: pygame.Rect, *, bold: bool = False, underline: bool = False, right: bool = False,
          centre: bool = False, points: int = TEXT_POINTS) -> int:
    """Draw one line at ``pos`` (left, or right edge with ``right``, or centre with ``centre``; top y),
    clipped to ``clip``; returns its width."""
    image = render_text(printable(text), points, colour, bold, underline)
    x, y = pos
    if right:
        x -= image.get_width()
    elif centre:
        x -= image.get_width() // 2
    previous = surface.get_clip()
    surface.set_clip(clip.clip(previous))
    surface.blit(image, (x, y))
    surface.set_clip(previous)
    return image.get_width()


def text_pixels(text: str, bold: bool = False, points: int = TEXT_POINTS) -> int:
    """The width in pixels of ``text`` drawn in the panels' face (``points``, ``bold``)."""
    return text_size(printable(text), points, bold)[0]


_width = text_pixels


_NUMBER = re.compile(r"(-?)(\$?)(\d+)")
#: The narrowest a name column is squeezed to (pixels at the table's font) while numbers can still shrink:
#: first to the first text, then to the second.
NAME_CHARS = ("Altair Sta", "Alta")
#: Numbers of at most this many characters ($999999) are abbreviated only when names are squeezed most.
SHORT_NUMBER = 7


@dataclass
class FittedTable:
    """A table laid out for a width: font size ``points``, the cells (numbers possibly abbreviated as in
    :func:`common.term.fit_number`, ``$1.234e15``) and each column's pixel width (the first column holds
    the names, left-aligned and clipped; the others are right-aligned)."""

    points: int
    cells: list[list[str]]
    widths: list[int]

    @property
    def width(self) -> int:
        return sum(self.widths) + TABLE_GAP * (len(self.widths) - 1)


def _column_widths(cells: list[list[str]], points: int) -> list[int]:
    return [max(_width(row[i], points=points) for row in cells) for i in range(len(cells[0]))]


def _abbreviate(cells: list[list[str]], originals: list[list[str]], column: int, points: int,
                longer: int) -> bool:
    """Shorten the widest number of ``column`` by one character (and every number as long), from the number
    in ``originals`` (the cells as given); False when the widest cell is no number, has at most ``longer``
    characters or cannot get shorter."""
    widest = max(range(len(cells)), key=lambda i: _width(cells[i][column], points=points))
    if _NUMBER.fullmatch(originals[widest][column]) is None or len(cells[widest][column]) <= longer:
        return False
    chars = len(cells[widest][column]) - 1
    shorter = []
    for row, original in zip(cells, originals, strict=True):
        match = _NUMBER.fullmatch(original[column])
        if match is not None and len(row[column]) > chars:
            text = fit_number(int(match[1] + match[3]), chars, match[2])
            if text.startswith("#"):
                return False
            shorter.append((row, text))
    for row, text in shorter:
        row[column] = text
    return True


def fit_table(rows: Sequence[Sequence[str]], width: int) -> FittedTable:
    """Lay out a table in ``width`` pixels. Names whole come first: at the largest of :data:`TABLE_POINTS`
    where the table fits once the widest numbers longer than :data:`SHORT_NUMBER` are abbreviated one
    character at a time (never a header); then the same with the name column squeezed down to each of
    :data:`NAME_CHARS`, at the last also abbreviating short numbers; at the smallest size the names take
    what is left. Columns never overlap (a name is clipped to its column)."""
    count = max(len(row) for row in rows)
    originals = [[*row, *[""] * (count - len(row))] for row in rows]
    fitted = None
    for squeeze, longer in ((None, SHORT_NUMBER), (NAME_CHARS[0], SHORT_NUMBER), (NAME_CHARS[1], 0)):
        for points in TABLE_POINTS:
            cells = [list(row) for row in originals]
            while True:
                widths = _column_widths(cells, points)
                numbers = sum(widths[1:]) + TABLE_GAP * (count - 1)
                name_min = widths[0] if squeeze is None else min(widths[0], _width(squeeze, points=points))
                if numbers + name_min <= width:
                    widths[0] = min(widths[0], width - numbers)
                    return FittedTable(points, cells, widths)
                order = sorted(range(1, count), key=lambda i: -widths[i])
                if not any(_abbreviate(cells, originals, i, points, longer) for i in order):
                    break
            widths[0] = max(0, min(widths[0], width - numbers))
            fitted = FittedTable(points, cells, widths)
    assert fitted is not None
    return fitted


def _panel(surface: pygame.Surface, rect: pygame.Rect, title: str,
           fill: tuple[int, int, int] = PANEL) -> None:
    surface.fill(fill, rect)
    pygame.draw.rect(surface, BORDER, rect, 2)
    if title:
        _text(surface, title, (rect.x + PAD, rect.y + 4), HEAD, rect.inflate(-2 * PAD, 0), bold=True)


def _runs(lines: Sequence[Line]) -> Iterator[Sequence[Line]]:
    """The lines in runs: consecutive table rows together (they share column widths), any other line alone."""
    index = 0
    while index < len(lines):
        end = index + 1
        if isinstance(lines[index][0], tuple):
            while end < len(lines) and isinstance(lines[end][0], tuple):
                end += 1
        yield lines[index:end]
        index = end


def _lines(surface: pygame.Surface, lines: Sequence[Line], rect: pygame.Rect) -> None:
    """Draw panel lines from the top of ``rect``; runs of table rows are laid out in shared columns."""
    line = line_height()
    y = rect.y
    for run in _runs(lines):
        if y >= rect.bottom:
            break
        text, style = run[0]
        if isinstance(text, tuple):
            y = _table(surface, run, rect, y)
            continue
        colour = DIM if style == "dim" else HEAD if style == "bold" else TEXT
        for part in wrap_pixels(text, rect.w, style == "bold"):
            _text(surface, part, (rect.x, y), colour, rect, bold=style == "bold", underline=style == "head")
            y += line


def lines_height(lines: Sequence[Line], width: int) -> int:
    """The pixels ``lines`` take drawn ``width`` pixels wide (long lines wrap)."""
    count = 0
    for run in _runs(lines):
        text, style = run[0]
        count += len(run) if isinstance(text, tuple) else len(wrap_pixels(text, width, style == "bold"))
    return count * line_height()


def table_fits(rows: Sequence[Sequence[str]], width: int) -> bool:
    """Whether a table fits ``width`` pixels at one of :data:`TABLE_POINTS` with its names at least four
    letters wide (:data:`NAME_CHARS`)."""
    fitted = fit_table(rows, width)
    return fitted.width <= width and fitted.widths[0] >= min(_width(fitted.cells[0][0], points=fitted.points),
                                                             _width(NAME_CHARS[1], points=fitted.points))


def misfits(game: Game, size: tuple[int, int], screen: Screen) -> list[str]:
    """What does not fit a window of ``size`` showing ``game`` and ``screen``: the names of the panels whose
    lines run past their bottom or whose tables do not fit (:func:`table_fits`), and of a pop-up larger
    than the window. Empty when everything fits."""
    lay = layout(size)
    bad = []
    general = lay.general.inflate(-2 * PAD, 0)
    if lines_height(screen.lines, general.w) > general.h - PANEL_HEAD - PAD - 4:
        bad.append("general")
    players = lay.players.inflate(-2 * PAD, 0)
    standings = standings_lines(game)
    if (lines_height(standings, players.w) > players.h - PANEL_HEAD - PAD - 4
            or not table_fits([text for text, _ in standings if isinstance(text, tuple)], players.w)):
        bad.append("players")
    title = general_title(game, screen.title_player, general.w)
    if _width(title, True) > general.w:
        bad.append("general title")
    holder = game.current if screen.holder is None else screen.holder
    rows = [text for text, _ in as_text(company_page(game, game.current))]
    swatch = lay.row_height - 6
    if _width(companies_title(game.players[holder].name, lay.companies.w - 2 * PAD), True) > (
            lay.companies.w - 2 * PAD):
        bad.append("companies title")
    if (lay.rows_top + len(rows[1:]) * lay.row_height > lay.companies.bottom - PAD
            or not table_fits(rows, lay.companies.w - 2 * PAD - swatch - 10)):
        bad.append("companies")
    if screen.popup is not None:
        title, lines = screen.popup
        rect = popup_rect(size, title, lines)
        inner = rect.w - 4 * PAD
        tables = [[text for text, _ in run] for run in _runs(lines) if isinstance(run[0][0], tuple)]
        if (PANEL_HEAD + lines_height(lines, inner) + 2 * PAD > rect.h
                or not all(table_fits(rows, inner) for rows in tables)):
            bad.append("popup")
    return bad


def wrap_pixels(text: str, width: int, bold: bool = False) -> list[str]:
    """``text`` broken at spaces into lines at most ``width`` pixels wide (a word wider than that stays
    whole, clipped when drawn)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        joined = f"{current} {word}" if current else word
        if current and _width(joined, bold) > width:
            lines.append(current)
            current = word
        else:
            current = joined
    return [*lines, current]


def _table(surface: pygame.Surface, rows: Sequence[Line], rect: pygame.Rect, y: int) -> int:
    fitted = fit_table([text for text, _ in rows], rect.w)
    line = line_height()
    for (_text_cells, style), cells in zip(rows, fitted.cells, strict=True):
        colour = DIM if style == "dim" else HEAD if style in ("bold", "head") else TEXT
        x = rect.x
        for cell, width in zip(cells, fitted.widths, strict=True):
            column = pygame.Rect(x, y, width, line).clip(rect)
            if x == rect.x:
                _text(surface, cell, (x, y), colour, column, underline=style == "head", points=fitted.points)
            else:
                _text(surface, cell, (x + width, y), colour, column, right=True, underline=style == "head",
                      points=fitted.points)
            x += width + TABLE_GAP
        y += line
    return y


def _draw_title(surface: pygame.Surface, game: Game, banner: str) -> None:
    width = surface.get_width()
    bar = pygame.Rect(0, 0, width, TITLE_HEIGHT)
    surface.fill(BORDER, bar)
    _text(surface, messages.title(game), (MARGIN, 5), HEAD, bar, bold=True)
    if banner:
        _text(surface, banner, (width - MARGIN, 5), HEAD, bar, bold=True, right=True)


def _star_points(centre: tuple[int, int], radius: float) -> list[tuple[float, float]]:
    """The corners of a five-pointed star around ``centre`` (pixels), point up."""
    x, y = centre
    corners = []
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.45
        angle = math.pi * i / 5 - math.pi / 2
        corners.append((x + r * math.cos(angle), y + r * math.sin(angle)))
    return corners


def _draw_map(surface: pygame.Surface, game: Game, lay: Layout, marks: dict[int, str]) -> None:
    _panel(surface, lay.map, "Map")
    x0, y0 = lay.origin
    size = lay.cell
    font = _font(max(10, size * 3 // 4), True)
    for cell, symbol in enumerate(game.grid):
        x, y = cell_xy(cell)
        square = pygame.Rect(x0 + x * size, y0 + y * size, size - 1, size - 1)
        colour = cell_colour(game, cell, marks)
        surface.fill(colour, square)
        label = marks.get(cell, "" if symbol == EMPTY else symbol)
        if not label:
            surface.fill(EMPTY_DOT, pygame.Rect(square.centerx - 1, square.centery - 1, 3, 3))
        else:
            if label == STAR and cell not in marks:
                pygame.draw.polygon(surface, STAR_INK, _star_points(square.center, size * 0.38))
                continue
            image = font.render(label, True, _ink_on(colour))
            ink = image.get_bounding_rect()
            surface.blit(image, (square.centerx - ink.centerx, square.centery - ink.centery))


def _draw_companies(surface: pygame.Surface, game: Game, lay: Layout, cursor: int | None,
                    holder: int | None = None) -> None:
    rect = lay.companies
    holder = game.current if holder is None else holder
    _panel(surface, rect, companies_title(game.players[holder].name, rect.w - 2 * PAD))
    active = game.active_companies()
    inner = pygame.Rect(rect.x + PAD, rect.y + PANEL_HEAD, rect.w - 2 * PAD, rect.h - PANEL_HEAD - PAD)
    if not active:
        _text(surface, "no active companies", (inner.x, inner.y + line_height()), TEXT, inner)
        return
    swatch = lay.row_height - 6
    name_left = inner.x + swatch + 8
    fitted = fit_table([text for text, _ in as_text(company_page(game, holder))], inner.right - 2 - name_left)
    columns = []
    x = name_left
    for width in fitted.widths:
        columns.append((x, width))
        x += width + TABLE_GAP
    font = _font(fitted.points)

    def cells(texts: Sequence[str], y: int, band: pygame.Rect, ink: tuple[int, int, int], head: bool) -> None:
        for i, (text, (left, width)) in enumerate(zip(texts, columns, strict=True)):
            clip = pygame.Rect(left, band.y, width, band.h).clip(inner)
            _text(surface, text, (left + width if i else left, y), ink, clip, right=i > 0, underline=head,
                  points=fitted.points)

    head_band = pygame.Rect(inner.x, inner.y, inner.w, line_height())
    cells(fitted.cells[0], inner.y, head_band, HEAD, True)
    for row, (company, texts) in enumerate(zip(active, fitted.cells[1:], strict=True)):
        band = pygame.Rect(inner.x, lay.rows_top + row * lay.row_height, inner.w, lay.row_height)
        ink = TEXT
        if row == cursor:
            surface.fill(HIGHLIGHT, band)
            ink = INK
        box = pygame.Rect(band.x + 2, band.y + 3, swatch, swatch)
        surface.fill(COMPANY_COLOURS[company], box)
        letter = _font(min(TEXT_POINTS, swatch + 4), True).render(LETTERS[company], True,
                                                                 _ink_on(COMPANY_COLOURS[company]))
        surface.blit(letter, letter.get_rect(center=box.center))
        cells(texts, band.centery - font.get_height() // 2, band, ink, False)


def fit_name(name: str, title: Callable[[str], str], width: int | None) -> str:
    """:func:`starlanes.session.fit_name` in pixels of the panels' bold face."""
    return session_fit_name(name, title, width, lambda text: _width(text, True))


def companies_title(name: str, width: int | None = None) -> str:
    """The company window's title naming whose holdings it shows, ``Companies (holdings: Ann)``, within
    ``width`` pixels as far as :func:`fit_name` can."""
    return fit_name(name, holdings_title, width)


def general_title(game: Game, player_index: int | None = None, width: int | None = None) -> str:
    """The general window's title: the name and cash of player ``player_index`` (default: the player on
    turn), ``Ann (Cash: $6000)``; within ``width`` pixels the cash is abbreviated (``$1.23e15``) as far as
    needed, then the name is shortened (:func:`fit_name`)."""
    player = game.players[game.current if player_index is None else player_index]
    chars = len(money(player.cash))
    cash = money(player.cash)
    while width is not None and chars > 6 and _width(f"{player.name} (Cash: {cash})", True) > width:
        chars -= 1
        cash = fit_number(player.cash, chars, "$")
    return fit_name(player.name, lambda shown: f"{shown} (Cash: {cash})", width)


def as_text(lines: Sequence[messages.Line]) -> list[Line]:
    """Lines of :mod:`starlanes.messages` or :mod:`starlanes.session` as view lines: number cells as text
    (``$`` amounts with :func:`common.term.money`)."""
    def text(cell: Cell) -> str:
        if isinstance(cell, tuple):
            value, prefix = cell
            return money(value) if prefix == "$" else str(value)
        return cell

    return [(tuple(text(c) for c in line) if isinstance(line, tuple) else line, style)
            for line, style in lines]


def standings_lines(game: Game) -> list[Line]:
    """The standings panel (:func:`starlanes.session.standings_page`) as view lines."""
    return as_text(standings_page(game))


def popup_rect(size: tuple[int, int], title: str, lines: Sequence[Line]) -> pygame.Rect:
    """Where a pop-up window with ``title`` and ``lines`` sits in a window of ``size``: centred, as wide as
    its widest line or table (a table's columns each as wide as their widest entry, a bold line measured
    bold, plus margins) and as high as its lines take at that width (:func:`lines_height`, so a line the
    window's width makes wrap gets its room), within the window."""
    widths = [_width(title, True) + 2 * PAD]
    for run in _runs(lines):
        text, style = run[0]
        widths.append(fit_table([row for row, _ in run], 10**6).width if isinstance(text, tuple)
                      else _width(text, style == "bold"))
    width = min(size[0] - 2 * MARGIN, max(widths) + 4 * PAD)
    height = min(size[1] - 2 * MARGIN, PANEL_HEAD + lines_height(lines, width - 4 * PAD) + 3 * PAD)
    rect = pygame.Rect(0, 0, max(1, width), max(1, height))
    rect.center = (size[0] // 2, size[1] // 2)
    return rect


def _draw_popup(surface: pygame.Surface, title: str, lines: Sequence[Line]) -> None:
    rect = popup_rect(surface.get_size(), title, lines)
    # A ring of the background sets the pop-up off from the panel borders it lies on.
    surface.fill(BACKGROUND, rect.inflate(2 * POPUP_RING, 2 * POPUP_RING))
    _panel(surface, rect, title, POPUP)
    _lines(surface, lines, pygame.Rect(rect.x + 2 * PAD, rect.y + PANEL_HEAD + PAD, rect.w - 4 * PAD,
                                       rect.h - PANEL_HEAD - 2 * PAD))


def render(game: Game, size: tuple[int, int], screen: Screen) -> pygame.Surface:
    """Draw ``game`` and ``screen`` into a new 32-bit Surface of ``size`` = (width, height) pixels."""
    surface = pygame.Surface((max(1, size[0]), max(1, size[1])), 0, 32)
    surface.fill(BACKGROUND)
    if screen.chart:
        _draw_title(surface, game, screen.banner)
        draw_chart(surface, game, pygame.Rect(0, TITLE_HEIGHT, surface.get_width(),
                                              max(1, surface.get_height() - TITLE_HEIGHT)))
        return surface
    lay = layout(size)
    _draw_title(surface, game, screen.banner)
    _draw_map(surface, game, lay, screen.marks)
    _draw_companies(surface, game, lay, screen.cursor, screen.holder)
    _panel(surface, lay.general, general_title(game, screen.title_player, lay.general.w - 2 * PAD))
    inner = pygame.Rect(lay.general.x + PAD, lay.general.y + PANEL_HEAD + 4, lay.general.w - 2 * PAD,
                        lay.general.h - PANEL_HEAD - PAD)
    _lines(surface, screen.lines, inner)
    _panel(surface, lay.players, "Players")
    inner = pygame.Rect(lay.players.x + PAD, lay.players.y + PANEL_HEAD + 4, lay.players.w - 2 * PAD,
                        lay.players.h - PANEL_HEAD - PAD)
    _lines(surface, standings_lines(game), inner)
    if screen.popup is not None:
        _draw_popup(surface, *screen.popup)
    return surface


# ---------------------------------------------------------------------------------------------------- chart


def chart_points(history: Sequence[Sequence[int]],
                 rect: pygame.Rect) -> tuple[list[list[tuple[int, int]]], bool]:
    """Every player's net worth per turn as pixel points inside ``rect`` (turn 0 at the left edge, the last
    turn at the right edge; the top edge is the highest worth) on the :func:`starlanes.session.chart_scale`
    axis. Returns ``(points per player, log)``."""
    scale = chart_scale(history)
    turns = max(len(history) - 1, 1)
    points = [[(rect.x + round(turn * (rect.w - 1) / turns),
                rect.bottom - 1 - round(scale.fraction(row[player]) * (rect.h - 1)))
               for turn, row in enumerate(history)] for player in range(len(history[0]))]
    return points, scale.log


def chart_area(size: tuple[int, int]) -> pygame.Rect:
    """The plotting rectangle of the chart in a window of ``size`` (pixels)."""
    width, height = size
    left = 110
    top = TITLE_HEIGHT + 44
    return pygame.Rect(left, top, max(2, width - left - 24), max(2, height - top - 120))


def draw_chart(surface: pygame.Surface, game: Game, area: pygame.Rect) -> None:
    """The end-of-game chart of each player's net worth per turn, with a legend of the final standings."""
    history = chart_history(game)
    plot = chart_area(surface.get_size())
    points, log = chart_points(history, plot)
    clip = surface.get_rect()
    title = "Net worth per turn" + (" (log scale)" if log else "")
    _text(surface, title, (MARGIN * 2, area.y + 10), HEAD, clip, bold=True)
    _text(surface, "Press a key or click to close this window.", (surface.get_width() - 2 * MARGIN,
                                                                  area.y + 10), DIM, clip, right=True)
    pygame.draw.line(surface, BORDER, (plot.x - 2, plot.y), (plot.x - 2, plot.bottom + 1), 2)
    pygame.draw.line(surface, BORDER, (plot.x - 2, plot.bottom + 1), (plot.right, plot.bottom + 1), 2)
    line = line_height()
    for share, value in chart_scale(history).labels():
        y = plot.bottom - 1 - round(share * (plot.bottom - 1 - plot.y))
        _text(surface, chart_money(value), (plot.x - 8, y - line // 2), TEXT, clip, right=True)
    _text(surface, "turn 0", (plot.x, plot.bottom + 6), TEXT, clip)
    _text(surface, f"turn {len(history) - 1}", (plot.right, plot.bottom + 6), TEXT, clip, right=True)
    order = game.standings()
    for player in reversed(order):
        series = points[player]
        colour = PLAYER_COLOURS[player % len(PLAYER_COLOURS)]
        if len(series) > 1:
            pygame.draw.lines(surface, colour, False, series, 3)
        else:
            surface.fill(colour, pygame.Rect(series[0][0] - 1, series[0][1] - 1, 3, 3))
    legend_top = plot.bottom + 6 + line + 8
    column = max(1, (surface.get_width() - 4 * MARGIN) // 2)
    for rank, player in enumerate(order):
        x = 2 * MARGIN + column * (rank % 2)
        y = legend_top + line * (rank // 2)
        swatch = pygame.Rect(x, y + 3, 14, 14)
        surface.fill(PLAYER_COLOURS[player % len(PLAYER_COLOURS)], swatch)
        # The name gives way to the net worth (abbreviated only when not even four letters would fit).
        left, right = swatch.right + 6, x + column - 8
        worth = chart_money(game.net_worth(player))
        while len(worth) > 5 and right - left - _width(f"  {worth}") < _width(f"{rank + 1}. MMMM"):
            worth = fit_number(game.net_worth(player), len(worth) - 1, "$")
        name_end = max(left, right - _width(f"  {worth}"))
        drawn = _text(surface, f"{rank + 1}. {game.players[player].name}", (left, y), TEXT,
                      pygame.Rect(x, y, name_end - x, line))
        _text(surface, worth, (min(right, left + drawn + _width(f"  {worth}")), y), TEXT,
              pygame.Rect(x, y, column - 8, line), right=True)


def changed_rect(before: pygame.Surface | None, after: pygame.Surface) -> pygame.Rect | None:
    """The bounding box of the pixels that differ between two frames; the whole frame when ``before`` is
    None or of another size; None when nothing changed."""
    if before is None or before.get_size() != after.get_size():
        return after.get_rect()
    import numpy as np

    old = pygame.surfarray.pixels2d(before)
    new = pygame.surfarray.pixels2d(after)
    changed = old != new
    del old, new
    columns = np.flatnonzero(changed.any(axis=1))
    if not len(columns):
        return None
    rows = np.flatnonzero(changed.any(axis=0))
    return pygame.Rect(int(columns[0]), int(rows[0]), int(columns[-1] - columns[0] + 1),
                       int(rows[-1] - rows[0] + 1))
