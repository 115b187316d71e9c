"""The curses front end of Star Lanes: screens, prompts and keys of spec/starlanes.md §10 (with §0).

The screen: a title row, the map window (12×38 at row 1, column 1), the company window to its right and the
general window below (rows 13 on) with the current player's name and cash in its title.
A larger terminal gives the company and general windows more room; anything smaller than 80×25 asks to be
enlarged.

Everything the rules decide comes from :mod:`starlanes.rules`; this module only draws the state, reads keys
and announces the events. :class:`AmountField` (the trading amount entry) is pure and tested on its own.
"""

from __future__ import annotations

import curses
import math
import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from common.term import (
    REDRAW,
    Cell,
    Terminal,
    clip,
    fit_number,
    money,
    printable,
    table,
    text_width,
    wrap,
)
from starlanes import ai, messages
from starlanes.rules import (
    COMPANY_NAMES,
    LETTERS,
    MAP_HEIGHT,
    MAP_WIDTH,
    MAX_NAME,
    MAX_PLAYERS,
    MOVE,
    TRADE,
    EndTurn,
    Event,
    Game,
    Move,
    Trade,
    cell_xy,
)
from starlanes.save import HUMAN, save_game

MIN_LINES, MIN_COLS = 25, 80
MAP_TOP, MAP_LEFT, MAP_H, MAP_W = 1, 1, MAP_HEIGHT + 2, 3 * MAP_WIDTH + 2
GENERAL_TOP = 13
GENERAL_H = 11
TALL_SCREEN = GENERAL_TOP + GENERAL_H + 10
WIDE_COMPANIES = 60
AMOUNT_FIELD = 9
UP_KEYS = ("UP", "8", "k", "K")
DOWN_KEYS = ("DOWN", "5", "j", "J")
TRADE_KEYS = ("ENTER", "RIGHT", "^F")
QUIT_KEYS = ("q", "Q", "^C")
LEVEL_KEYS = {"h": HUMAN, "H": HUMAN, "1": "easy", "2": "hard"}

# colour pair numbers
_STAR, _HOLE, _OUTPOST, _BORDER, _CANDIDATE, _COMPANY = 1, 2, 3, 4, 5, 6
_COMPANY_COLOURS = (
    curses.COLOR_CYAN, curses.COLOR_MAGENTA, curses.COLOR_GREEN, curses.COLOR_BLUE, curses.COLOR_RED,
)
_PLAYER_COLOURS = (curses.COLOR_CYAN, curses.COLOR_MAGENTA, curses.COLOR_GREEN, curses.COLOR_YELLOW)


class QuitGame(Exception):
    """The players confirmed "Really Quit?" (or pressed ^C while naming players)."""


class AmountField:
    """The amount entry of a trade (spec §8 with §0): ``width`` characters, at least 9 and as many as the
    limits of the trade take (``-123456789012``), so any amount in range can be typed.

    Digits anywhere, ``-`` only first; ``m``/``n`` only first and they finish the entry at once (no key is
    swallowed afterwards). Backspace erases, Enter finishes, Esc cancels.
    """

    def __init__(self, width: int = AMOUNT_FIELD) -> None:
        self.text = ""
        self.cancelled = False
        self.width = width

    @classmethod
    def for_limits(cls, low: int, high: int) -> AmountField:
        """A field wide enough for every amount from ``low`` to ``high``."""
        return cls(max(AMOUNT_FIELD, len(str(low)), len(str(high))))

    def feed(self, key: str) -> bool:
        """Take one key name; returns True when the entry is finished (or cancelled)."""
        if key == "ENTER":
            return True
        if key == "ESC":
            self.cancelled = True
            return True
        if key in ("BACKSPACE", "DELETE"):
            self.text = self.text[:-1]
        elif key in ("m", "n") and not self.text:
            self.text = key
            return True
        elif len(self.text) < self.width:
            if len(key) == 1 and key in "0123456789" or key == "-" and not self.text:
                self.text += key
        return False

    def value(self, low: int, high: int) -> int:
        """The amount typed: ``m`` → ``high``, ``n`` → ``low``, empty or ``-`` → 0, else the number."""
        if self.text == "m":
            return high
        if self.text == "n":
            return low
        if self.text in ("", "-"):
            return 0
        return int(self.text)


class Console:
    """The game on the terminal ``term``: :meth:`setup` asks for the players, :meth:`play` plays a game.

    ``save_path``: when given, the game is saved there (atomically) at every prompt and at the end.
    """

    def __init__(self, term: Terminal, save_path: str | os.PathLike[str] | None = None) -> None:
        self.term = term
        self.screen = term.screen
        self.save_path = save_path
        self.game: Game | None = None
        self.controllers: list[str] = []
        self.lines: list[tuple[str, int]] = []
        self.marks: dict[int, str] = {}
        self.popup: tuple[str, list[tuple[str, int]]] | None = None
        self.overlay: Callable[[], None] | None = None
        self.small_hint: str | None = None
        self.title_player: int | None = None
        if term.colour:
            try:
                self._init_colours()
            except curses.error:
                term.colour = False

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
        try:
            self.screen.addstr(y, x, text, attr)
        except curses.error:
            pass

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
        self.put(0, (cols - 12) // 2, " Star Lanes ", curses.A_BOLD)
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
        game = self.game
        self.box(MAP_TOP, MAP_LEFT, MAP_H, MAP_W, " Map ")
        for cell, symbol in enumerate(game.grid):
            x, y = cell_xy(cell)
            if cell in self.marks:
                attr = self._pair(_CANDIDATE, curses.A_REVERSE) | curses.A_BOLD
                self.put(MAP_TOP + 1 + y, MAP_LEFT + 2 + 3 * x, self.marks[cell], attr)
            else:
                self.put(MAP_TOP + 1 + y, MAP_LEFT + 2 + 3 * x, symbol, self.symbol_attr(symbol))

    def draw_companies(self) -> None:
        game = self.game
        _, cols = self.term.size()
        left = MAP_LEFT + MAP_W
        width = cols - left - 1
        self.box(MAP_TOP, left, MAP_H, width, " Companies ")
        active = game.active_companies()
        if not active:
            self.put(MAP_TOP + 2, left + 2, "no active companies")
            return
        holdings = game.players[game.current].holdings
        rows: list[list[Cell]] = [[COMPANY_NAMES[c], (game.companies[c].price, "$"), (holdings[c], "")]
                                  for c in active]
        headers = ["Company", "Price", "Holdings"]
        if width >= WIDE_COMPANIES:
            headers += ["Size", "Total Worth"]
            for row, c in zip(rows, active, strict=True):
                row += [(game.companies[c].size, ""), (game.company_worth(c), "$")]
        text = table(headers, rows, width - 4)
        spacing = 2 if 2 * len(active) - 1 <= MAP_H - 3 else 1
        self.put(MAP_TOP + 1, left + 2, text[0], curses.A_UNDERLINE)
        for i, (company, line) in enumerate(zip(active, text[1:], strict=True)):
            y = MAP_TOP + 2 + spacing * i
            self.put(y, left + 2, line)
            self.put(y, left + 2, clip(COMPANY_NAMES[company], 1), self.symbol_attr(LETTERS[company]))

    def general_title(self) -> str:
        """The general window's title: the name and cash of the player the window is about (the one whose
        move or trades are being announced, else the player on turn)."""
        game = self.game
        player = game.players[game.current if self.title_player is None else self.title_player]
        _, cols = self.term.size()
        room = cols - 2 - 4
        name = printable(player.name)
        cash_room = room - text_width(name) - len(" (Cash: ) ") - 2
        return f" {name} (Cash: {fit_number(player.cash, max(cash_room, 4), '$')}) "

    def draw_general(self) -> None:
        lines, cols = self.term.size()
        height = lines - GENERAL_TOP - 1
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
        body = self.standings_body()[:-2]
        for i, (text, attr) in enumerate(body[:height - 2]):
            self.put(top + 1 + i, 3, clip(text, width - 4), attr)

    def draw_popup(self, title: str, body: list[tuple[str, int]]) -> None:
        lines, cols = self.term.size()
        width = min(cols - 2, max([text_width(t) for t, _ in body] + [text_width(title)]) + 6)
        height = min(lines - 2, len(body) + 2)
        top = max(1, (lines - height) // 2)
        left = max(0, (cols - width) // 2)
        for y in range(top, top + height):
            self.put(y, left, " " * width)
        self.box(top, left, height, width, title, self._pair(_BORDER) | curses.A_BOLD)
        for i, (text, attr) in enumerate(body[:height - 2]):
            self.put(top + 1 + i, left + 3, clip(text, width - 6), attr)

    # ------------------------------------------------------------------------------------------ keys

    def key(self) -> str:
        """The next key; ^L, resizes and resuming after ^Z redraw and keep waiting."""
        while True:
            key = self.term.read_key()
            if key in (REDRAW, "^L"):
                self.draw(clear=True)
                continue
            if self.too_small() and key not in QUIT_KEYS and self.small_hint is None:
                continue
            return key

    def wait(self) -> None:
        """Wait for any key (announcements)."""
        self.draw()
        self.key()

    @property
    def humans(self) -> bool:
        return HUMAN in self.controllers

    def announce(self, lines: list[tuple[str, int]], player: int | None = None) -> None:
        """Show lines in the general window, titled with ``player``'s name and cash (default: the player on
        turn), and wait for a key (not when only computers play)."""
        self.lines = [*lines, ("", 0), ("Press any key to continue.", curses.A_DIM)]
        self.title_player = player
        try:
            if self.humans:
                self.wait()
            else:
                self.draw()
        finally:
            self.title_player = None

    def show_popup(self, title: str, body: list[tuple[str, int]]) -> str:
        """Show a popup window until a key is pressed; returns that key."""
        self.popup = (title, body)
        try:
            self.draw()
            return self.key()
        finally:
            self.popup = None

    # ------------------------------------------------------------------------------------------ setup

    def setup(self, computers: int, level: str) -> tuple[list[str], list[str]]:
        """Ask the number of players, their names and who plays each; returns ``(names, controllers)``.

        ``computers`` > 0: the last that many players are computers at ``level``; the number of players
        (at least ``computers``) and every name are still asked, who plays each is not.
        Raises :class:`QuitGame` on ^C.
        """
        fewest = max(1, computers)
        choices = "4" if fewest == MAX_PLAYERS else f"{fewest}-{MAX_PLAYERS}"
        body: list[tuple[str, int]] = [("Welcome to Star Lanes!", curses.A_BOLD), ("", 0),
                                       (f"How many players ({choices})? ", 0)]
        if computers:
            body += [("", 0), (f"(the last {computers} played by the computer)", curses.A_DIM)]
        while True:
            key = self.show_popup(" New game ", body)
            if key == "^C":
                raise QuitGame
            if key in [str(n) for n in range(fewest, MAX_PLAYERS + 1)]:
                count = int(key)
                break
        names: list[str] = []
        controllers: list[str] = []
        for n in range(count):
            names.append(self.ask_name(n + 1))
            if computers:
                controllers.append(level if n >= count - computers else HUMAN)
            else:
                controllers.append(self.ask_controller(names[-1]))
        return names, controllers

    def ask_name(self, number: int) -> str:
        text = ""
        note = ""
        while True:
            body = [(f"Player {number}, enter your name:", curses.A_BOLD), ("", 0),
                    (printable(text) + "_", curses.A_BOLD), ("", 0), (note, 0),
                    (f"(at most {MAX_NAME} characters; Enter to finish)", curses.A_DIM)]
            key = self.show_popup(" New game ", body)
            if key == "^C":
                raise QuitGame
            note = ""
            if key == "ENTER":
                if text.strip():
                    return text
                note = "A name is needed."
            elif key in ("BACKSPACE", "DELETE"):
                text = text[:-1]
            elif len(key) == 1 and key.isprintable() and len(text) < MAX_NAME:
                text += key

    def ask_controller(self, name: str) -> str:
        body = [(f"Who plays for {printable(name)}?", curses.A_BOLD), ("", 0),
                ("h  a human", 0), ("1  the computer (easy)", 0), ("2  the computer (hard)", 0)]
        while True:
            key = self.show_popup(" New game ", body)
            if key == "^C":
                raise QuitGame
            if key in LEVEL_KEYS:
                return LEVEL_KEYS[key]

    # ------------------------------------------------------------------------------------------ playing

    def play(self, game: Game, controllers: list[str]) -> None:
        """Play ``game`` to its end or until the players quit, then show the final standings and the chart."""
        self.game = game
        self.controllers = list(controllers)
        try:
            while not game.is_terminal():
                if game.phase == MOVE:
                    self.move_phase()
                elif game.phase == TRADE:
                    self.trade_phase()
        except QuitGame:
            pass
        self.autosave()
        self.lines = []
        self.small_hint = "Press any key to leave the game."
        try:
            self.final_standings()
            self.chart()
        finally:
            self.small_hint = None

    def autosave(self) -> None:
        if self.save_path is None:
            return
        try:
            save_game(self.save_path, self.game, self.controllers)
        except OSError as exc:
            path, self.save_path = self.save_path, None
            self.announce([(f"Could not save to {path}: {exc.strerror or exc}", curses.A_BOLD),
                           ("The game goes on without saving.", 0)])

    def name(self, player: int) -> str:
        return printable(self.game.players[player].name)

    def move_phase(self) -> None:
        game = self.game
        me = game.current
        self.autosave()
        self.marks = {cell: str(i + 1) for i, cell in enumerate(game.candidates)}
        if self.controllers[me] == HUMAN:
            action = self.ask_move()
        else:
            action = ai.choose(game, self.controllers[me])[0]
            self.announce([(messages.computer_move(self.name(me), action.index), curses.A_BOLD)], me)
        self.marks = {}
        self.show_events(game.apply(action), me)

    def ask_move(self) -> Move:
        game = self.game
        count = len(game.candidates)
        digits = {str(i + 1): i for i in range(count)}
        while True:
            self.lines = [(f" {messages.move_prompt(self.name(game.current), count)} ", curses.A_BOLD),
                          ("", 0), ("s standings   c companies   q quit   ^L redraw", curses.A_DIM)]
            self.draw()
            key = self.key()
            if key in digits:
                return Move(digits[key])
            self.common_key(key)

    def common_key(self, key: str) -> None:
        """Keys that work at the move prompt and while trading: standings, company detail, quit."""
        if key in ("s", "S"):
            self.show_standings(" Standings ")
        elif key in ("c", "C"):
            self.show_company_detail()
        elif key in QUIT_KEYS and self.confirm_quit():
            raise QuitGame

    def confirm_quit(self) -> bool:
        """"Really Quit? (y/n)"; it also answers on a terminal too small to show it (the question is shown
        with the request to enlarge it)."""
        self.small_hint = "Really Quit? (y/n)"
        try:
            key = self.show_popup(" Quit ", [(self.small_hint, curses.A_BOLD)])
        finally:
            self.small_hint = None
        return key in ("y", "Y")

    def trade_phase(self) -> None:
        game = self.game
        me = game.current
        if self.controllers[me] == HUMAN:
            self.ask_trades()
            self.show_events(game.apply(EndTurn()), me)
            return
        actions = ai.choose(game, self.controllers[me])
        report = []
        for action in actions:
            events = game.apply(action)
            if isinstance(action, Trade):
                report.append((messages.trade_report(self.name(me), action), 0))
        if report:
            self.announce(report, me)
        self.show_events(events, me)

    def trade_lines(self, cursor: int) -> list[tuple[str, int]]:
        game = self.game
        _, cols = self.term.size()
        active = game.active_companies()
        holdings = game.players[game.current].holdings
        rows = [[COMPANY_NAMES[c], (game.companies[c].price, "$"), (holdings[c], "")] for c in active]
        text = table(["Company", "Price", "Holdings"], rows, cols - 6)
        out = [("Trade: up/down choose, Enter trades, Esc ends your turn (s c q ^L)", curses.A_DIM),
               (text[0], curses.A_UNDERLINE)]
        for i, line in enumerate(text[1:]):
            out.append((line, curses.A_REVERSE if i == cursor else curses.A_NORMAL))
        return out

    def ask_trades(self) -> None:
        game = self.game
        cursor = 0
        while True:
            active = game.active_companies()
            cursor %= len(active)
            self.autosave()
            self.lines = self.trade_lines(cursor)
            self.draw()
            key = self.key()
            if key == "ESC":
                return
            if key in UP_KEYS:
                cursor = (cursor - 1) % len(active)
            elif key in DOWN_KEYS:
                cursor = (cursor + 1) % len(active)
            elif key in TRADE_KEYS:
                self.ask_amount(active[cursor], cursor)
            else:
                self.common_key(key)

    def ask_amount(self, company: int, cursor: int) -> None:
        game = self.game
        low, high = game.trade_limits(company)
        _, cols = self.term.size()
        room = max(4, (cols - 40) // 2)
        field = AmountField.for_limits(low, high)
        while True:
            prompt = f"Amount ({fit_number(low, room)} to {fit_number(high, room)}): "
            self.lines = [*self.trade_lines(cursor), ("", 0), (prompt + field.text + "_", curses.A_BOLD)]
            self.draw()
            if field.feed(self.key()):
                break
        if field.cancelled:
            return
        amount = field.value(low, high)
        if low <= amount <= high:
            if amount:
                game.apply(Trade(company, amount))
            return
        self.lines = [*self.trade_lines(cursor), ("", 0), ("Invalid amount!", curses.A_BOLD)]
        self.draw()
        self.term.pause(1000)

    # ------------------------------------------------------------------------------------------ announcements

    def show_events(self, events: list[Event], player: int) -> None:
        """Announce the events of ``player``'s move or turn, a page at a time (:mod:`starlanes.messages`)."""
        names = [self.name(p) for p in range(len(self.game.players))]
        for page in messages.event_pages(events, names):
            self.announce(self.page_lines(page), player)

    _STYLES = {"": curses.A_NORMAL, "bold": curses.A_BOLD, "dim": curses.A_DIM, "head": curses.A_UNDERLINE}

    def page_lines(self, page: messages.Page) -> list[tuple[str, int]]:
        """A page of announcements as general-window lines; its table rows laid out to fit the window."""
        _, cols = self.term.size()
        out: list[tuple[str, int]] = []
        index = 0
        while index < len(page):
            if isinstance(page[index][0], tuple):
                end = index
                while end < len(page) and isinstance(page[end][0], tuple):
                    end += 1
                headers, *rows = (list(text) for text, _ in page[index:end])
                text = table([str(h) for h in headers], rows, cols - 8)
                out.append((text[0], curses.A_UNDERLINE))
                out.extend((line, curses.A_NORMAL) for line in text[1:])
                index = end
                continue
            text, style = page[index]
            out.append((text, self._STYLES[style]))
            index += 1
        return out

    # ------------------------------------------------------------------------------------------ windows

    def standings_body(self, reason: bool = False) -> list[tuple[str, int]]:
        """The standings window's lines; with ``reason``, why the game ended (when it did)."""
        game = self.game
        _, cols = self.term.size()
        rows = [[self.name(p), (game.stock_value(p), "$"), (game.players[p].cash, "$"),
                 (game.net_worth(p), "$")] for p in game.standings()]
        text = table(["Player", "Stock Value", "Cash", "Net Worth"], rows, cols - 8)
        return [(text[0], curses.A_UNDERLINE), *((line, 0) for line in text[1:]), ("", 0),
                (f"Available company sectors remaining: {max(game.sectors_remaining(), 0)}", 0), ("", 0),
                *([(why, curses.A_BOLD), ("", 0)] if reason and (why := messages.end_reason(game)) else []),
                ("Press any key to continue.", curses.A_DIM)]

    def show_standings(self, title: str, reason: bool = False) -> None:
        self.show_popup(title, self.standings_body(reason))

    def show_company_detail(self) -> None:
        game = self.game
        active = game.active_companies()
        if not active:
            return
        _, cols = self.term.size()
        rows = [[COMPANY_NAMES[c], (game.companies[c].price, "$"), (game.companies[c].size, ""),
                 (game.company_worth(c), "$")] for c in active]
        text = table(["Company", "Price", "Size", "Total Worth"], rows, cols - 10)
        body = [(text[0], curses.A_UNDERLINE), *((line, 0) for line in text[1:]), ("", 0),
                ("Press any key to continue.", curses.A_DIM)]
        self.show_popup(" Companies ", body)

    def final_standings(self) -> None:
        self.show_standings(" GAME OVER - Final Standings ", reason=True)

    def chart(self) -> None:
        """A full-screen chart of every player's net worth after each turn; any key leaves."""
        self.overlay = self.draw_chart
        try:
            self.draw()
            self.key()
        finally:
            self.overlay = None

    def draw_chart(self) -> None:
        game = self.game
        history = game.history if game.is_terminal() else [*game.history, game.net_worths()]
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
            self.put(top + y, 0, fit_number(value, label, "$").rjust(label))
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
            room = max(4, (slot - 5) // 2, slot - 5 - text_width(self.name(player)))
            worth = fit_number(game.net_worth(player), room, "$")
            self.put(y, x, f"{player + 1} ", self.player_attr(player))
            self.put(y, x + 2, f"{clip(self.name(player), slot - 5 - len(worth))}  {worth}")
        self.put(1, cols - 28, "Press any key to leave.", curses.A_DIM)


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
    values = [v for row in history for v in row]
    peak = max(max(values), 1)
    low = max(min(values), 1)
    log = peak > 100 * low
    lo, hi = (math.log10(low), math.log10(peak)) if log else (0.0, 0.0)

    def norm(value: int) -> float:
        if log:
            return (math.log10(max(value, 1)) - lo) / (hi - lo)
        return max(value, 0) / peak

    def row(fraction: float) -> int:
        return (height - 1) - round(max(0.0, min(1.0, fraction)) * (height - 1))

    turns = len(history) - 1
    cells: list[set[tuple[int, int]]] = []
    for player in range(len(history[0])):
        series = [norm(r[player]) for r in history]
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
    if log:
        centre = (lo + hi) / 2
        middle = round(10**centre) if centre < 300 else 10 ** round(centre)
        labels = [(0, peak), (row(0.5), middle), (height - 1, low)]
    else:
        labels = [(0, peak), (row(0.5), peak // 2), (height - 1, 0)]
    return WorthChart(cells, labels, log)


SHELL_WIDTH = 80


def standings_text(game: Game) -> str:
    """The final standings as plain text for the shell after the game, every number in full digits.

    A table (Player / Stock Value / Cash / Net Worth) when it fits :data:`SHELL_WIDTH` columns, else one block
    per player; then why the game ended, when it did.
    """
    headers = ["Player", "Stock Value", "Cash", "Net Worth"]
    order = game.standings()
    values = {p: [game.stock_value(p), game.players[p].cash, game.net_worth(p)] for p in order}
    rows: list[list[Cell]] = [[printable(game.players[p].name), *((v, "$") for v in values[p])]
                              for p in order]
    natural = table(headers, rows, 10**6)
    if max(text_width(line) for line in natural) <= SHELL_WIDTH:
        lines = natural
    else:
        lines = []
        for rank, p in enumerate(order, 1):
            lines.append(f"{rank}. {printable(game.players[p].name)}")
            lines.extend(f"   {header + ':':<12} {money(value)}" for header, value in
                         zip(headers[1:], values[p], strict=True))
    reason = messages.end_reason(game)
    return "\n".join([*lines, *([reason] if reason else [])])
