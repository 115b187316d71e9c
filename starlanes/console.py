"""The curses front end of Star Lanes: screens, prompts and keys of spec/starlanes.md §10 (with §0).

The screen: a title row, the map window (12×38 at row 1, column 1), the company window to its right and the
general window below (rows 13 on) with the current player's name and cash in its title.
The whole game fits 80×24 (the general window then reaches the last row); a larger terminal gives the company
and general windows more room; anything smaller than 80×24 asks to be enlarged.

The turn flow is :class:`starlanes.session.Session`'s: this module draws the game and what the session says
(prompts, announcements, pop-ups, the end) and is its input source, turning terminal keys into
:class:`common.loop.Key` events of the one inbox (source :data:`TERMINAL_SOURCE`).
"""

from __future__ import annotations

import contextlib
import curses
import math
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from common.loop import MAX_WAIT_S, Inbox, Key, Timer
from common.term import (
    REDRAW,
    Cell,
    Terminal,
    TerminalError,
    clip,
    fit_number,
    money,
    printable,
    table,
    text_width,
    wrap,
)
from starlanes import messages
from starlanes.rules import (
    LETTERS,
    MAP_HEIGHT,
    MAP_WIDTH,
    MAX_NAME,
    MAX_PLAYERS,
    Game,
    cell_xy,
)
from starlanes.save import HUMAN
from starlanes.session import (
    AMOUNT,
    OVER,
    POPUP,
    QUIT,
    QUIT_KEYS,
    TRADE_MODES,
    Line,
    Session,
    chart_history,
    chart_money,
    chart_scale,
    company_page,
    fit_name,
    holdings_title,
    standings_page,
)

MIN_LINES, MIN_COLS = 24, 80
MAP_TOP, MAP_LEFT, MAP_H, MAP_W = 1, 1, MAP_HEIGHT + 2, 3 * MAP_WIDTH + 2
GENERAL_TOP = 13
GENERAL_H = 11
TALL_SCREEN = GENERAL_TOP + GENERAL_H + 10
WIDE_COMPANIES = 60
#: Blanks at least between two entries of the chart's legend.
LEGEND_GAP = 3
TERMINAL_SOURCE = "terminal"
FINAL_TITLE = " GAME OVER - Final Standings "
_HINTS = {
    "move": "s standings   c companies   q quit   ^L redraw",
    "trade": "Trade: up/down choose, Enter trades, Esc ends your turn (s c q ^L)",
    "ask": "Type the shares to buy (- sells) and Enter; Enter alone keeps these, Esc keeps all and ends "
           "your turn (s c q ^L)",
    "amount": "m = the most you can buy, n = sell all, - sells, Esc cancels",
    "skip": "Esc ends your turn at once, keeping every holding.",
    "final": "Press any key to continue.",
}
LEVEL_KEYS = {"h": HUMAN, "H": HUMAN, "1": "easy", "2": "medium", "3": "hard"}
QUIT_QUESTION = "Really Quit? (y/n)"

# colour pair numbers
_STAR, _HOLE, _OUTPOST, _BORDER, _CANDIDATE, _COMPANY = 1, 2, 3, 4, 5, 6
_COMPANY_COLOURS = (
    curses.COLOR_CYAN, curses.COLOR_MAGENTA, curses.COLOR_GREEN, curses.COLOR_BLUE, curses.COLOR_RED,
)
_PLAYER_COLOURS = (curses.COLOR_CYAN, curses.COLOR_MAGENTA, curses.COLOR_GREEN, curses.COLOR_YELLOW)


class QuitGame(Exception):
    """The players confirmed "Really Quit?" (or pressed ^C while naming players, or ``q`` and ``y`` there
    while the terminal was too small)."""


class Setup:
    """The questions before a game (spec §10), one key at a time: how many players, then per player who
    plays (only without ``computers``) and the name. ``computers`` (``--computer``): the last that many
    players are computers at ``level``, the others human, and who plays each is not asked; the number of
    players (at least ``computers``) is asked unless only one is possible. None: who plays each is asked.
    A computer's name field starts with :func:`computer_name` (Enter keeps it, a typed character replaces
    it, Backspace edits it). ``step`` is ``"count"``, ``"who"``, ``"name"``, then ``"done"`` (or ``"quit"``
    after ^C, or after :meth:`ask_quit` and ``y``)."""

    def __init__(self, computers: int | None, level: str) -> None:
        self.computers = computers
        self.level = level
        self.fewest = max(1, computers or 0)
        self.count = 0
        self.names: list[str] = []
        self.controllers: list[str] = []
        self.text = ""
        self.default = False
        self.note = ""
        self.step = "count"
        self.quitting = False
        if self.fewest == MAX_PLAYERS:
            self.count = MAX_PLAYERS
            self._next()

    def body(self) -> list[tuple[str, int]]:
        """The lines of the question asked now."""
        if self.quitting:
            return [(QUIT_QUESTION, curses.A_BOLD)]
        if self.step == "count":
            body = [("Welcome to Star Lanes!", curses.A_BOLD), ("", 0),
                    (f"How many players ({self.fewest}-{MAX_PLAYERS})? ", 0)]
            if self.computers:
                body += [("", 0), (f"(the last {self.computers} played by the computer)", curses.A_DIM)]
            return body
        number = len(self.names) + 1
        if self.step == "who":
            return [(f"Who plays player {number}?", curses.A_BOLD), ("", 0),
                    ("h  a human", 0), ("1  the computer (easy)", 0), ("2  the computer (medium)", 0),
                    ("3  the computer (hard)", 0)]
        hint = ("(Enter keeps this name; type to rename)" if self.default
                else f"(at most {MAX_NAME} characters; Enter to finish)")
        return [(f"Player {number}, enter your name:", curses.A_BOLD), ("", 0),
                (printable(self.text) + "_", curses.A_BOLD), ("", 0), (self.note, 0), (hint, curses.A_DIM)]

    def ask_quit(self) -> None:
        """Ask "Really Quit? (y/n)" (a quit key where the questions cannot be seen: a too-small terminal)."""
        self.quitting = True

    def key(self, key: str) -> None:
        """Take one key name (^C quits; at :meth:`ask_quit`'s question ``y`` quits and any other key goes
        back to the question asked before)."""
        if key == "^C" or (self.quitting and key in ("y", "Y")):
            self.step = "quit"
        elif self.quitting:
            self.quitting = False
        elif self.step == "count":
            if key in [str(n) for n in range(self.fewest, MAX_PLAYERS + 1)]:
                self.count = int(key)
                self._next()
        elif self.step == "who":
            if key in LEVEL_KEYS:
                self._name(LEVEL_KEYS[key])
        else:
            self._name_key(key)

    def _name_key(self, key: str) -> None:
        self.note = ""
        if key == "ENTER":
            if not self.text.strip():
                self.note = "A name is needed."
                return
            self.names.append(self.text)
            self.text = ""
            self.default = False
            self._next()
        elif key in ("BACKSPACE", "DELETE"):
            self.text = self.text[:-1]
            self.default = False
        elif len(key) == 1 and key.isprintable() and (self.default or len(self.text) < MAX_NAME):
            self.text = key if self.default else self.text + key
            self.default = False

    def _name(self, controller: str) -> None:
        """Ask the name of the next player, played by ``controller``."""
        self.controllers.append(controller)
        self.step = "name"
        if controller != HUMAN:
            self.text = computer_name(len(self.controllers))
            self.default = True

    def _next(self) -> None:
        """The next player's first question, or done."""
        number = len(self.names) + 1
        if number > self.count:
            self.step = "done"
        elif self.computers is None:
            self.step = "who"
        else:
            self._name(self.level if number > self.count - self.computers else HUMAN)


def computer_name(number: int) -> str:
    """The name a computer player ``number`` (1..4) is offered: ``Computer 2``."""
    return f"Computer {number}"


class Console:
    """The game on the terminal ``term``: :meth:`setup` asks for the players, :meth:`play` plays a game.

    ``save_path``: when given, the game is saved there (atomically) at every prompt and at the end.
    """

    def __init__(self, term: Terminal, save_path: str | os.PathLike[str] | None = None) -> None:
        if term.screen is None:
            raise TerminalError("the terminal is not open")
        self.term = term
        self.screen: curses.window = term.screen
        self.save_path = save_path
        self.game: Game | None = None
        self.controllers: list[str] = []
        self.lines: list[tuple[str, int]] = []
        self.marks: dict[int, str] = {}
        self.popup: tuple[str, list[tuple[str, int]]] | None = None
        self.overlay: Callable[[], None] | None = None
        self.small_hint: str | None = None
        self.title_player: int | None = None
        self.session: Session | None = None
        self.inbox = Inbox()
        self.stage = "play"          # at the end "final" (standings), "chart", then "done"
        self.asking: Setup | None = None
        self.dirty = False
        if term.colour:
            try:
                self._init_colours()
            except curses.error:
                term.colour = False

    @property
    def playing(self) -> Game:
        """The game being played; only while :meth:`play` runs (RuntimeError before)."""
        if self.game is None:
            raise RuntimeError("no game is being played")
        return self.game

    @property
    def flow(self) -> Session:
        """The turn flow of the game being played; only while :meth:`play` runs (RuntimeError before)."""
        if self.session is None:
            raise RuntimeError("no game is being played")
        return self.session

    # ------------------------------------------------------------------------------------------ attributes

    @staticmethod
    def _init_colours() -> None:
        for pair, colour in ((_STAR, curses.COLOR_YELLOW), (_OUTPOST, curses.COLOR_GREEN),
                             (_BORDER, curses.COLOR_BLUE)):
            curses.init_pair(pair, colour, -1)
        # A black hole is white on red, unlike company E (red letters).
        curses.init_pair(_HOLE, curses.COLOR_WHITE, curses.COLOR_RED)
        curses.init_pair(_CANDIDATE, curses.COLOR_BLACK, curses.COLOR_YELLOW)
        for i, colour in enumerate(_COMPANY_COLOURS):
            curses.init_pair(_COMPANY + i, colour, -1)
        for i, colour in enumerate(_PLAYER_COLOURS):
            curses.init_pair(_COMPANY + 5 + i, colour, -1)

    def _pair(self, pair: int, mono: int = curses.A_NORMAL) -> int:
        return curses.color_pair(pair) if self.term.colour else mono

    def symbol_attr(self, symbol: str) -> int:
        if symbol in LETTERS:
            return self._pair(_COMPANY + LETTERS.index(symbol), curses.A_BOLD) | curses.A_BOLD
        if symbol == "*":
            return self._pair(_STAR) | curses.A_BOLD
        if symbol == "@":
            return self._pair(_HOLE, curses.A_BOLD) | curses.A_BOLD
        if symbol == "+":
            return self._pair(_OUTPOST)
        return curses.A_DIM if not self.term.colour else curses.A_NORMAL

    def player_attr(self, player: int) -> int:
        return self._pair(_COMPANY + 5 + player % 4) | curses.A_BOLD

    # ------------------------------------------------------------------------------------------ drawing

    def put(self, y: int, x: int, text: str, attr: int = curses.A_NORMAL) -> None:
        """Write ``text`` at ``(y, x)`` clipped to the screen (never raises at the edges)."""
        lines, cols = self.term.size()
        if not 0 <= y < lines or not 0 <= x < cols:
            return
        text = clip(text, cols - x)
        with contextlib.suppress(curses.error):
            self.screen.addstr(y, x, text, attr)

    def box(self, top: int, left: int, height: int, width: int, title: str = "", attr: int = 0) -> None:
        attr = attr or self._pair(_BORDER)
        scr = self.screen
        try:
            scr.attron(attr)
            scr.hline(top, left + 1, curses.ACS_HLINE, width - 2)
            scr.hline(top + height - 1, left + 1, curses.ACS_HLINE, width - 2)
            scr.vline(top + 1, left, curses.ACS_VLINE, height - 2)
            scr.vline(top + 1, left + width - 1, curses.ACS_VLINE, height - 2)
            scr.addch(top, left, curses.ACS_ULCORNER)
            scr.addch(top, left + width - 1, curses.ACS_URCORNER)
            scr.addch(top + height - 1, left, curses.ACS_LLCORNER)
            bottom, right = top + height - 1, left + width - 1
            lines, cols = self.term.size()
            if (bottom, right) == (lines - 1, cols - 1):
                # addch cannot write the screen's last cell (the cursor has nowhere to go): insert there.
                scr.insch(bottom, right, curses.ACS_LRCORNER)
            else:
                scr.addch(bottom, right, curses.ACS_LRCORNER)
        except curses.error:
            pass
        finally:
            scr.attroff(attr)
        if title:
            self.put(top, left + 2, clip(title, width - 4), curses.A_BOLD)

    def too_small(self) -> bool:
        lines, cols = self.term.size()
        return lines < MIN_LINES or cols < MIN_COLS

    def draw(self, clear: bool = False) -> None:
        """Draw the whole screen from the game state, the general lines, the marks and the popup."""
        self.dirty = False
        if self.session is not None:
            self.compose()
        elif self.asking is not None:
            self.popup = (" New game ", self.asking.body())
            self.small_hint = self.leave_hint()
        if clear:
            self.screen.clear()
        self.screen.erase()
        lines, cols = self.term.size()
        if self.too_small():
            message = (f"Star Lanes needs a terminal of at least {MIN_COLS}x{MIN_LINES}; this one is "
                       f"{cols}x{lines}. Please enlarge it.")
            room = max(cols, 1)
            text = [(line, curses.A_NORMAL) for line in textwrap.wrap(message, room)]
            if self.small_hint:
                text += [("", 0), *((line, curses.A_BOLD) for line in textwrap.wrap(self.small_hint, room))]
            for y, (line, attr) in enumerate(text):
                self.put(y, 0, line, attr)
            self.screen.refresh()
            return
        self.screen.attron(self._pair(_BORDER))
        self.screen.hline(0, 0, curses.ACS_HLINE, cols)
        self.screen.attroff(self._pair(_BORDER))
        title = f" {messages.title(self.game) if self.game is not None else 'Star Lanes'} "
        self.put(0, (cols - len(title)) // 2, title, curses.A_BOLD)
        if self.overlay is not None:
            self.overlay()
        elif self.game is not None:
            self.draw_map()
            self.draw_companies()
            self.draw_general()
        if self.popup is not None:
            self.draw_popup(*self.popup)
        self.screen.refresh()

    def draw_map(self) -> None:
        game = self.playing
        self.box(MAP_TOP, MAP_LEFT, MAP_H, MAP_W, " Map ")
        for cell, symbol in enumerate(game.grid):
            x, y = cell_xy(cell)
            if cell in self.marks:
                attr = self._pair(_CANDIDATE, curses.A_REVERSE) | curses.A_BOLD
                self.put(MAP_TOP + 1 + y, MAP_LEFT + 2 + 3 * x, self.marks[cell], attr)
            else:
                self.put(MAP_TOP + 1 + y, MAP_LEFT + 2 + 3 * x, symbol, self.symbol_attr(symbol))

    def draw_companies(self) -> None:
        game = self.playing
        _, cols = self.term.size()
        left = MAP_LEFT + MAP_W
        width = cols - left - 1
        name = printable(game.players[self.holder()].name)
        self.box(MAP_TOP, left, MAP_H, width, f" {fit_name(name, holdings_title, width - 6)} ")
        active = game.active_companies()
        if not active:
            self.put(MAP_TOP + 2, left + 2, "no active companies")
            return
        headers, *rows = (list(text) for text, _ in company_page(game, self.holder()))
        if width < WIDE_COMPANIES:
            headers, rows = headers[:3], [row[:3] for row in rows]
        text = table([str(h) for h in headers], digits_first(headers, rows, width - 4), width - 4)
        spacing = 2 if 2 * len(active) - 1 <= MAP_H - 3 else 1
        self.put(MAP_TOP + 1, left + 2, text[0], curses.A_UNDERLINE)
        for i, (company, line) in enumerate(zip(active, text[1:], strict=True)):
            y = MAP_TOP + 2 + spacing * i
            self.put(y, left + 2, line)
            self.put(y, left + 2, clip(game.company_name(company), 1), self.symbol_attr(LETTERS[company]))

    def general_title(self) -> str:
        """The general window's title: the name and cash of the player the window is about (the one whose
        move or trades are being announced, else the player on turn)."""
        game = self.playing
        player = game.players[game.current if self.title_player is None else self.title_player]
        _, cols = self.term.size()
        room = cols - 2 - 4
        name = printable(player.name)
        cash_room = room - text_width(name) - len(" (Cash: ) ") - 2
        return f" {name} (Cash: {fit_number(player.cash, max(cash_room, 4), '$')}) "

    def draw_general(self) -> None:
        lines, cols = self.term.size()
        # 80x24 gives the last row too; from 25 rows on the last row stays free, as it always has.
        height = max(GENERAL_H, lines - GENERAL_TOP - 1)
        if lines >= TALL_SCREEN:
            height = GENERAL_H
        width = cols - 2
        self.box(GENERAL_TOP, 1, height, width, self.general_title())
        shown = [(part, attr) for text, attr in self.lines for part in wrap(text, width - 4)]
        for i, (text, attr) in enumerate(shown[:height - 2]):
            self.put(GENERAL_TOP + 1 + i, 3, text, attr)
        if lines >= TALL_SCREEN:
            self.draw_players(GENERAL_TOP + GENERAL_H, lines - GENERAL_TOP - GENERAL_H - 1, width)

    def draw_players(self, top: int, height: int, width: int) -> None:
        """The standings, always in view on a tall terminal."""
        self.box(top, 1, height, width, " Players ")
        body = self.standings_body()
        for i, (text, attr) in enumerate(body[:height - 2]):
            self.put(top + 1 + i, 3, clip(text, width - 4), attr)

    def draw_popup(self, title: str, body: list[tuple[str, int]]) -> None:
        lines, cols = self.term.size()
        body = [(part, attr) for text, attr in body for part in wrap(text, cols - 8)]
        width = min(cols - 2, max([text_width(t) for t, _ in body] + [text_width(title)]) + 6)
        height = min(lines - 2, len(body) + 2)
        top = max(1, (lines - height) // 2)
        left = max(0, (cols - width) // 2)
        for y in range(top, top + height):
            self.put(y, left, " " * width)
        self.box(top, left, height, width, title, self._pair(_BORDER) | curses.A_BOLD)
        for i, (text, attr) in enumerate(body[:height - 2]):
            self.put(top + 1 + i, left + 3, clip(text, width - 6), attr)

    # ------------------------------------------------------------------------------------------ setup

    def setup(self, computers: int | None, level: str) -> tuple[list[str], list[str]]:
        """Ask the number of players, their names and who plays each (:class:`Setup`); returns ``(names,
        controllers)``. Raises :class:`QuitGame` on ^C, or on ``q`` (``Q``) then ``y`` while the terminal is
        too small to show the questions."""
        self.asking = Setup(computers, level)
        self.dirty = True
        self._loop(lambda: self.asking is None or self.asking.step in ("done", "quit"))
        asked, self.asking = self.asking, None
        if asked.step == "quit":
            raise QuitGame
        return asked.names, asked.controllers

    # ------------------------------------------------------------------------------------------ playing

    def play(self, game: Game, controllers: list[str], delay: float = 1.0) -> None:
        """Play ``game`` to its end or until the players quit, then show the final standings and the chart.

        The terminal is the input source of a :class:`~starlanes.session.Session`: its keys go into the one
        :class:`common.loop.Inbox` with the session's timers, and the screen is drawn from the session after
        every change. A computer's steps and announcements go on after ``delay`` seconds (at once when only
        computers play); any key goes on sooner.
        """
        self.game = game
        self.inbox = Inbox()
        humans = HUMAN in controllers
        self.session = Session(game, controllers, self.inbox, delay=delay if humans else 0.0,
                               save_path=None if self.save_path is None else os.fspath(self.save_path),
                               on_change=self._changed, echo_errors=False)
        self.session.advance()
        self._loop(lambda: self.stage == "done")

    def _loop(self, done: Callable[[], bool]) -> None:
        """Until ``done()``: take the inbox's events (terminal keys, the session's timers) one at a time and
        draw once none is due; meanwhile wait for a key, at most until the next timer."""
        while not done():
            wait = self.inbox.wait_time()
            if wait == 0:
                event = self.inbox.get(0)
                if isinstance(event, Timer) and self.session is not None:
                    self.session.timer(event.name)
                elif isinstance(event, Key):
                    self.press(event.name)
                continue
            if self.dirty:
                self.draw()
            timeout = None if wait is None else max(1, math.ceil(min(wait, MAX_WAIT_S) * 1000))
            key = self.term.read_key(timeout)
            if key is not None:
                self.inbox.put(Key(TERMINAL_SOURCE, key))

    def _changed(self) -> None:
        self.dirty = True
        if self.session is not None and self.session.mode == OVER and self.stage == "play":
            self.stage = "final"

    def press(self, key: str) -> None:
        """One key from the terminal: ^L and resizes redraw; a too-small terminal takes only the quit keys
        (and the answer, and the keys of the end); a key during a computer's step goes on at once."""
        if key in (REDRAW, "^L"):
            self.draw(clear=True)
            return
        if self.too_small() and key not in QUIT_KEYS and self.leave_hint() is None:
            return
        self.dirty = True
        if self.asking is not None:
            if self.too_small() and key in QUIT_KEYS and key != "^C" and not self.asking.quitting:
                # The questions cannot be seen, so q is no letter of a name here: it asks to quit, as in play.
                self.asking.ask_quit()
            else:
                self.asking.key(key)
        elif self.stage != "play":
            # Too small for the standings and the chart, the key leaves at once, as the request says.
            self.stage = "chart" if self.stage == "final" and not self.too_small() else "done"
            self.dirty = True
        elif self.flow.actor() is None:
            self.flow.skip()
        elif self.too_small() and key in QUIT_KEYS and self.flow.mode == AMOUNT:
            self.flow.press("^C")   # the amount cannot be seen, so q is no digit of it: it asks to quit
        else:
            self.flow.press(key)

    def leave_hint(self) -> str | None:
        """What a too-small terminal asks besides enlarging it: the quit question, or how to leave."""
        if self.asking is not None:
            return QUIT_QUESTION if self.asking.quitting else None
        if self.stage != "play":
            return "Press any key to leave the game."
        if self.session is not None and self.session.mode == QUIT:
            return QUIT_QUESTION
        return None

    def compose(self) -> None:
        """Set what :meth:`draw` shows from the session: the general lines, the marks, the pop-up, whose name
        titles the general window, the chart."""
        session = self.flow
        self.overlay = self.draw_chart if self.stage == "chart" else None
        self.small_hint = self.leave_hint()
        self.title_player = session.about
        self.marks = session.marks()
        self.popup = None
        if self.stage == "final":
            self.popup = (FINAL_TITLE, self.page_lines(session.final_page()))
        elif session.popup is not None:
            self.popup = (session.popup[0], self.page_lines(session.popup[1]))
        if session.mode in TRADE_MODES or (session.mode in (POPUP, QUIT) and session.back in TRADE_MODES):
            note = session.trade_note(self.term.size()[1] - 6)
            self.lines = self.trade_lines(session.cursor)
            if note:
                self.lines += [("", 0), (note, curses.A_BOLD)]
        elif session.mode == OVER:
            self.lines = []
        else:
            self.lines = self.page_lines(session.prompt_lines())
        if session.notice:
            self.lines += [("", 0), (session.notice, curses.A_BOLD)]

    def holder(self) -> int:
        """Whose holdings the company window shows: the player the screen is about."""
        return self.session.holder(()) if self.session is not None else self.playing.current

    def trade_lines(self, cursor: int) -> list[tuple[str, int]]:
        game = self.playing
        _, cols = self.term.size()
        holdings = game.players[game.current].holdings
        rows: list[list[Cell]] = [[game.company_name(c), (game.companies[c].price, "$"), (holdings[c], "")]
                                  for c in self.flow.trade_rows()]
        text = table(["Company", "Price", "Holdings"], rows, cols - 6)
        session = self.flow
        refused = session.refusal()
        which = "amount" if session.mode == AMOUNT else "trade" if session.asked() is None else "ask"
        hint = (refused, curses.A_BOLD) if refused else (_HINTS[which], curses.A_DIM)
        out = [hint, (text[0], curses.A_UNDERLINE)]
        for i, line in enumerate(text[1:]):
            out.append((line, curses.A_REVERSE if i == cursor else curses.A_NORMAL))
        return out

    # ------------------------------------------------------------------------------------------ announcements

    _STYLES: ClassVar[dict[str, int]] = {
        "": curses.A_NORMAL, "bold": curses.A_BOLD, "dim": curses.A_DIM, "head": curses.A_UNDERLINE,
        "continue": curses.A_DIM, "hint": curses.A_DIM}

    def page_lines(self, page: Sequence[Line], margin: int = 8) -> list[tuple[str, int]]:
        """Session lines as screen lines: table rows laid out to fit ``margin`` columns less than the screen,
        :data:`~starlanes.session.CONTINUE` and the hints in the terminal's words."""
        _, cols = self.term.size()
        out: list[tuple[str, int]] = []
        index = 0
        while index < len(page):
            if isinstance(page[index][0], tuple):
                end = index
                while end < len(page) and isinstance(page[end][0], tuple):
                    end += 1
                headers, *rows = (list(cells) for cells, _ in page[index:end])
                laid = table([str(h) for h in headers], rows, cols - margin)
                out.append((laid[0], curses.A_UNDERLINE))
                out.extend((line, curses.A_NORMAL) for line in laid[1:])
                index = end
                continue
            text, style = page[index]
            if style == "hint":
                text = _HINTS[str(text)]
            elif style == "continue":
                text = "Press any key to continue."
            out.append((str(text), self._STYLES[style]))
            index += 1
        return out

    def standings_body(self) -> list[tuple[str, int]]:
        """The standings (Players window of a tall terminal)."""
        return self.page_lines(standings_page(self.playing))

    def draw_chart(self) -> None:
        game = self.playing
        history = chart_history(game)
        lines, cols = self.term.size()
        legend = (len(game.players) + 1) // 2
        top = 3
        bottom = lines - legend - 3
        label = 12
        left = label + 2
        width = cols - left - 2
        height = bottom - top + 1
        chart = worth_chart(history, width, height)
        title = "Net worth per turn" + (" (log scale)" if chart.log else "")
        self.put(1, 2, title, curses.A_BOLD)
        for y, value in chart.labels:
            self.put(top + y, 0, chart_money(value).rjust(label))
        self.screen.attron(self._pair(_BORDER))
        self.screen.vline(top, left - 1, curses.ACS_VLINE, height)
        self.screen.hline(bottom + 1, left - 1, curses.ACS_HLINE, width + 1)
        self.screen.addch(bottom + 1, left - 1, curses.ACS_LLCORNER)
        self.screen.attroff(self._pair(_BORDER))
        self.put(bottom + 2, left, "turn 0")
        end_label = f"turn {len(history) - 1}"
        self.put(bottom + 2, left + width - len(end_label), end_label)
        for player in reversed(game.standings()):
            for x, y in sorted(chart.cells[player]):
                self.put(top + y, left + x, str(player + 1), self.player_attr(player))
        slot = (cols - 4) // 2
        for i, player in enumerate(game.standings()):
            y = lines - legend + i // 2
            x = 2 + slot * (i % 2)
            name = printable(game.players[player].name)
            worth = chart_money(game.net_worth(player))
            # the number, two blanks before it and LEGEND_GAP blanks before the next entry
            room = slot - 2 - 2 - len(worth) - LEGEND_GAP
            self.put(y, x, f"{player + 1} ", self.player_attr(player))
            self.put(y, x + 2, f"{clip(name, room)}  {worth}")
        self.put(1, cols - 28, "Press any key to leave.", curses.A_DIM)


#: The fewest columns a company name is cut to so that the numbers beside it keep all their digits.
NAME_ROOM = 6


def digits_first(headers: Sequence[Cell], rows: list[list[Cell]], width: int,
                 gap: int = 2) -> list[list[Cell]]:
    """``rows`` with the names (first column) cut so that every number of the table shows all its digits in
    ``width`` columns, when that leaves the names at least :data:`NAME_ROOM` columns; else ``rows`` as they
    are (then :func:`common.term.table` abbreviates the numbers)."""
    def natural(cell: Cell) -> int:
        if isinstance(cell, tuple):
            return len(f"{'-' if cell[0] < 0 else ''}{cell[1]}{abs(cell[0])}")
        return text_width(cell)

    numbers = sum(max(natural(row[i]) for row in [list(headers), *rows]) for i in range(1, len(headers)))
    room = width - numbers - gap * (len(headers) - 1)
    if room < NAME_ROOM:
        return rows
    return [[clip(str(row[0]), room), *row[1:]] for row in rows]


@dataclass(frozen=True)
class WorthChart:
    """A net-worth chart on a grid.

    ``cells[player]`` holds ``(column, row)`` pairs (row 0 at the top), ``labels`` the ``(row, dollars)``
    marks of the value axis, ``log`` whether the value axis is logarithmic.
    """

    cells: list[set[tuple[int, int]]]
    labels: list[tuple[int, int]]
    log: bool


def worth_chart(history: list[list[int]], width: int, height: int) -> WorthChart:
    """Lay out every player's net worth per turn (``history``: one row of dollars per turn) on a
    ``width`` × ``height`` grid, lines joined column to column.

    The value axis is logarithmic when the values span more than a factor of 100 (money in Star Lanes grows
    geometrically), else linear from $0. Exact for integers of any size.
    """
    scale = chart_scale(history)

    def row(fraction: float) -> int:
        return (height - 1) - round(fraction * (height - 1))

    turns = len(history) - 1
    cells: list[set[tuple[int, int]]] = []
    for player in range(len(history[0])):
        series = [scale.fraction(r[player]) for r in history]
        points: set[tuple[int, int]] = set()
        previous = None
        for x in range(width):
            t = x * turns / max(width - 1, 1)
            i = min(int(t), turns - 1) if turns else 0
            value = series[i] + (series[i + 1] - series[i]) * (t - i) if turns else series[0]
            y = row(value)
            if previous is not None:
                points.update((x, between) for between in range(min(previous, y) + 1, max(previous, y)))
            points.add((x, y))
            previous = y
        cells.append(points)
    labels = [(row(share), value) for share, value in scale.labels()]
    return WorthChart(cells, labels, scale.log)


SHELL_WIDTH = 80


def standings_text(game: Game) -> str:
    """The final standings as plain text for the shell after the game, every number in full digits.

    A table (Player / Stock Value / Cash / Net Worth) when it fits :data:`SHELL_WIDTH` columns, else one block
    per player; then why the game ended, when it did.
    """
    head, *rows = [list(text) for text, _ in standings_page(game) if isinstance(text, tuple)]
    headers = [str(h) for h in head]
    natural = table(headers, rows, 10**6)
    if max(text_width(line) for line in natural) <= SHELL_WIDTH:
        lines = natural
    else:
        lines = []
        for rank, (name, *values) in enumerate(rows, 1):
            lines.append(f"{rank}. {name}")
            lines.extend(f"   {header + ':':<12} {money(value[0])}" for header, value in
                         zip(headers[1:], values, strict=True) if isinstance(value, tuple))
    reason = messages.end_reason(game)
    return "\n".join([*lines, *([reason] if reason else [])])
