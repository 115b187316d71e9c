"""Draw a Star Lanes game into a pygame Surface, and map window pixels back to map cells and company rows.

The X windows of spec/starlanes.md §0 ("the same game on X windows") show what the curses screen of §10 shows:
a title bar, the map (12×10 cells, the candidate moves as numbered yellow cells), the company window (name,
price, the current player's holdings, size, total worth; the trading cursor as a highlighted row), the
general window titled with the current player's name and cash (prompts, announcements, trading), the
standings with the company sectors remaining, pop-up windows (standings, company detail, "Really Quit?", the
final standings) and the end-of-game net-worth chart.

Every map cell is filled edge to edge (less a 1 px gap) with the colour of its symbol, so the probe pixel
``cell_rect(...).topleft + (2, 2)`` shows :func:`cell_colour` whatever the font. The view only reads a
:class:`starlanes.rules.Game` and a :class:`Screen` (what the front end shows besides the game); it never
talks to X. Surfaces are 32-bit and need no display (``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from common.render import font as _font  # noqa: E402
from common.term import fit_number, money, printable  # noqa: E402
from starlanes.rules import (  # noqa: E402
    BLACK_HOLE,
    COMPANY_NAMES,
    EMPTY,
    LETTERS,
    MAP_HEIGHT,
    MAP_WIDTH,
    OUTPOST,
    STAR,
    Game,
    cell_xy,
)

DEFAULT_SIZE = (960, 680)
MARGIN = 8
TITLE_HEIGHT = 30
PANEL_HEAD = 24
PAD = 8
TEXT_POINTS = 22

BACKGROUND = (14, 14, 30)
PANEL = (24, 24, 44)
BORDER = (70, 90, 170)
TEXT = (225, 225, 225)
DIM = (140, 140, 160)
HEAD = (255, 255, 255)
INK = (0, 0, 0)
HIGHLIGHT = (230, 230, 240)
POPUP = (36, 36, 70)
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
    None for the player on turn.
    """

    lines: list[Line] = field(default_factory=list)
    marks: dict[int, str] = field(default_factory=dict)
    cursor: int | None = None
    popup: tuple[str, list[Line]] | None = None
    banner: str = ""
    chart: bool = False
    title_player: int | None = None


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
          centre: bool = False) -> int:
    """Draw one line at ``pos`` (left, or right edge with ``right``, or centre with ``centre``; top y),
    clipped to ``clip``; returns its width."""
    font = _font(TEXT_POINTS, bold)
    font.set_underline(underline)
    image = font.render(printable(text), True, colour)
    font.set_underline(False)
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


def _width(text: str, bold: bool = False) -> int:
    return _font(TEXT_POINTS, bold).size(printable(text))[0]


def _panel(surface: pygame.Surface, rect: pygame.Rect, title: str,
           fill: tuple[int, int, int] = PANEL) -> None:
    surface.fill(fill, rect)
    pygame.draw.rect(surface, BORDER, rect, 2)
    if title:
        _text(surface, title, (rect.x + PAD, rect.y + 4), HEAD, rect.inflate(-2 * PAD, 0), bold=True)


def _lines(surface: pygame.Surface, lines: Sequence[Line], rect: pygame.Rect) -> None:
    """Draw panel lines from the top of ``rect``; runs of table rows are laid out in shared columns."""
    line = line_height()
    y = rect.y
    index = 0
    while index < len(lines) and y < rect.bottom:
        text, style = lines[index]
        if isinstance(text, tuple):
            end = index
            while end < len(lines) and isinstance(lines[end][0], tuple):
                end += 1
            y = _table(surface, lines[index:end], rect, y)
            index = end
            continue
        colour = DIM if style == "dim" else HEAD if style == "bold" else TEXT
        _text(surface, text, (rect.x, y), colour, rect, bold=style == "bold", underline=style == "head")
        y += line
        index += 1


def _table(surface: pygame.Surface, rows: Sequence[Line], rect: pygame.Rect, y: int) -> int:
    count = max(len(text) for text, _ in rows)
    widths = [max(_width(text[i]) if i < len(text) else 0 for text, _ in rows) for i in range(count)]
    gap = 18
    numbers = sum(widths[1:]) + gap * (count - 1)
    first = max(40, rect.w - numbers) if count > 1 else rect.w
    first = min(first, widths[0] + gap)
    line = line_height()
    for text, style in rows:
        x = rect.x
        colour = DIM if style == "dim" else HEAD if style in ("bold", "head") else TEXT
        for i, cell in enumerate(text):
            if i == 0:
                _text(surface, cell, (x, y), colour, pygame.Rect(x, y, first - 6, line).clip(rect),
                      underline=style == "head")
                x += first
            else:
                x += widths[i]
                _text(surface, cell, (x, y), colour, rect, right=True, underline=style == "head")
                x += gap
        y += line
    return y


def _draw_title(surface: pygame.Surface, banner: str) -> None:
    width = surface.get_width()
    bar = pygame.Rect(0, 0, width, TITLE_HEIGHT)
    surface.fill(BORDER, bar)
    _text(surface, "Star Lanes", (MARGIN, 5), HEAD, bar, bold=True)
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


def _draw_companies(surface: pygame.Surface, game: Game, lay: Layout, cursor: int | None) -> None:
    rect = lay.companies
    _panel(surface, rect, "Companies")
    active = game.active_companies()
    inner = pygame.Rect(rect.x + PAD, rect.y + PANEL_HEAD, rect.w - 2 * PAD, rect.h - PANEL_HEAD - PAD)
    if not active:
        _text(surface, "no active companies", (inner.x, inner.y + line_height()), TEXT, inner)
        return
    holdings = game.players[game.current].holdings
    headers = ("Company", "Price", "Holdings", "Size", "Total Worth")
    rows = [(COMPANY_NAMES[c], money(game.companies[c].price), str(holdings[c]), str(game.companies[c].size),
             money(game.company_worth(c))) for c in active]
    gap = 16
    widths = [max(_width(headers[i]), *(_width(r[i]) for r in rows)) for i in range(1, len(headers))]
    swatch = lay.row_height - 6
    name_left = inner.x + swatch + 8
    right_edges = []
    x = inner.right - 2
    for w in reversed(widths):
        right_edges.append(x)
        x -= w + gap
    right_edges.reverse()
    name_clip = pygame.Rect(name_left, inner.y, max(0, x + gap - name_left - 4), inner.h)
    _text(surface, headers[0], (name_left, inner.y), HEAD, name_clip, underline=True)
    for edge, header in zip(right_edges, headers[1:], strict=True):
        _text(surface, header, (edge, inner.y), HEAD, inner, right=True, underline=True)
    for row, (company, cells) in enumerate(zip(active, rows, strict=True)):
        band = pygame.Rect(inner.x, lay.rows_top + row * lay.row_height, inner.w, lay.row_height)
        ink = TEXT
        if row == cursor:
            surface.fill(HIGHLIGHT, band)
            ink = INK
        box = pygame.Rect(band.x + 2, band.y + 3, swatch, swatch)
        surface.fill(COMPANY_COLOURS[company], box)
        letter = _font(TEXT_POINTS, True).render(LETTERS[company], True, _ink_on(COMPANY_COLOURS[company]))
        surface.blit(letter, letter.get_rect(center=box.center))
        y = band.centery - _font(TEXT_POINTS).get_height() // 2
        _text(surface, cells[0], (name_left, y), ink, name_clip.clip(band))
        for edge, cell in zip(right_edges, cells[1:], strict=True):
            _text(surface, cell, (edge, y), ink, inner, right=True)


def general_title(game: Game, player_index: int | None = None) -> str:
    """The general window's title: the name and cash of player ``player_index`` (default: the player on
    turn), ``Ann (Cash: $6000)``."""
    player = game.players[game.current if player_index is None else player_index]
    return f"{player.name} (Cash: {money(player.cash)})"


def standings_lines(game: Game) -> list[Line]:
    """The standings table (Player / Stock Value / Cash / Net Worth, richest first; ties by player number)
    and the company sectors remaining (spec §10)."""
    rows: list[Line] = [(("Player", "Stock Value", "Cash", "Net Worth"), "head")]
    for p in game.standings():
        rows.append(((game.players[p].name, money(game.stock_value(p)), money(game.players[p].cash),
                      money(game.net_worth(p))), ""))
    rows.append(("", ""))
    rows.append((f"Available company sectors remaining: {max(game.sectors_remaining(), 0)}", ""))
    return rows


def popup_rect(size: tuple[int, int], title: str, lines: Sequence[Line]) -> pygame.Rect:
    """Where a pop-up window with ``title`` and ``lines`` sits in a window of ``size``: centred, as wide as
    its widest line (plus margins) and as high as its lines, within the window."""
    line = line_height()
    widths = [_width(title, True) + 2 * PAD]
    for text, _style in lines:
        if isinstance(text, tuple):
            widths.append(sum(_width(t) for t in text) + 18 * len(text) + 20)
        else:
            widths.append(_width(text))
    width = min(size[0] - 2 * MARGIN, max(widths) + 4 * PAD)
    height = min(size[1] - 2 * MARGIN, PANEL_HEAD + len(lines) * line + 2 * PAD)
    rect = pygame.Rect(0, 0, max(1, width), max(1, height))
    rect.center = (size[0] // 2, size[1] // 2)
    return rect


def _draw_popup(surface: pygame.Surface, title: str, lines: Sequence[Line]) -> None:
    rect = popup_rect(surface.get_size(), title, lines)
    _panel(surface, rect, title, POPUP)
    _lines(surface, lines, pygame.Rect(rect.x + 2 * PAD, rect.y + PANEL_HEAD + PAD, rect.w - 4 * PAD,
                                       rect.h - PANEL_HEAD - 2 * PAD))


def render(game: Game, size: tuple[int, int], screen: Screen) -> pygame.Surface:
    """Draw ``game`` and ``screen`` into a new 32-bit Surface of ``size`` = (width, height) pixels."""
    surface = pygame.Surface((max(1, size[0]), max(1, size[1])), 0, 32)
    surface.fill(BACKGROUND)
    if screen.chart:
        _draw_title(surface, screen.banner)
        draw_chart(surface, game, pygame.Rect(0, TITLE_HEIGHT, surface.get_width(),
                                              max(1, surface.get_height() - TITLE_HEIGHT)))
        return surface
    lay = layout(size)
    _draw_title(surface, screen.banner)
    _draw_map(surface, game, lay, screen.marks)
    _draw_companies(surface, game, lay, screen.cursor)
    _panel(surface, lay.general, general_title(game, screen.title_player))
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


def chart_history(game: Game) -> list[list[int]]:
    """Net worths per finished turn, plus the present when the game was left before its end."""
    return game.history if game.is_terminal() else [*game.history, game.net_worths()]


def chart_points(history: Sequence[Sequence[int]],
                 rect: pygame.Rect) -> tuple[list[list[tuple[int, int]]], bool]:
    """Every player's net worth per turn as pixel points inside ``rect`` (turn 0 at the left edge, the last
    turn at the right edge; the top edge is the highest worth). Returns ``(points per player, log)``.

    The value axis is logarithmic when the values span more than a factor of 100 (as the terminal chart),
    else linear from $0.
    """
    values = [v for row in history for v in row]
    peak = max(max(values), 1)
    low = max(min(values), 1)
    log = peak > 100 * low
    lo, hi = (math.log10(low), math.log10(peak)) if log else (0.0, 0.0)

    def fraction(value: int) -> float:
        if log:
            return (math.log10(max(value, 1)) - lo) / (hi - lo)
        return max(value, 0) / peak

    turns = max(len(history) - 1, 1)
    players = len(history[0])
    points = []
    for player in range(players):
        series = []
        for turn, row in enumerate(history):
            x = rect.x + round(turn * (rect.w - 1) / turns)
            y = rect.bottom - 1 - round(max(0.0, min(1.0, fraction(row[player]))) * (rect.h - 1))
            series.append((x, y))
        points.append(series)
    return points, log


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
    values = [v for row in history for v in row]
    peak, low = max(max(values), 1), max(min(values), 1)
    if log:
        centre = (math.log10(low) + math.log10(peak)) / 2
        middle = round(10**centre) if centre < 300 else 10 ** round(centre)
        labels = [(plot.y, peak), ((plot.y + plot.bottom) // 2, middle), (plot.bottom - 1, low)]
    else:
        labels = [(plot.y, peak), ((plot.y + plot.bottom) // 2, peak // 2), (plot.bottom - 1, 0)]
    line = line_height()
    for y, value in labels:
        _text(surface, fit_number(value, 12, "$"), (plot.x - 8, y - line // 2), TEXT, clip, right=True)
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
        text = f"{rank + 1}. {game.players[player].name}  {money(game.net_worth(player))}"
        _text(surface, text, (swatch.right + 6, y), TEXT, pygame.Rect(x, y, column - 8, line))


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
