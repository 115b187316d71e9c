"""The one turn flow of Star Lanes (spec/starlanes.md §8–§10 with §0), for the terminal and the X windows.

A :class:`Session` owns everything between the rules and a screen: whose turn it is and who may act, the
candidate moves, the trade prompt (cursor and :class:`AmountField`), the announcements and their pacing
(a computer's steps and announcements go on by themselves after ``delay`` seconds; a human's wait for a key),
the pop-up windows, saving at every prompt and the ``--status`` file. It reacts to input in the console's key
names (:data:`UP_KEYS` …) and to the :class:`common.loop.Timer` events it sets on the one
:class:`common.loop.Inbox`; it never draws. Each front end is a renderer plus an input source: it turns its
own events into calls of :meth:`Session.press`, :meth:`Session.pick_cell`, :meth:`Session.pick_row` …, and
draws from the session's state and the tables computed here (:func:`standings_page`,
:func:`company_page`, :func:`chart_scale`) whenever ``on_change`` tells it to.

Where a rule set's trade phase plugs in: the methods under "trading" (:meth:`Session.trade_rows`,
:meth:`Session._trade_key`, :meth:`Session._start_amount`, :meth:`Session._finish_amount`). The 1995 phase
lets the player move a cursor over the active companies, trade any of them and end with Esc; the 1977 phase
asks each active company in turn (Enter alone keeps it). In both, Esc ends the phase keeping every holding,
also at an announcement of the player's own move (:meth:`Session.ends_trading_on_esc`), so a move needs at
most two keys.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from common.cli import typed_command
from common.loop import Inbox
from common.save import Sink
from common.term import Cell, fit_number, printable, text_width
from starlanes import ai, messages
from starlanes.rules import MOVE, TRADE, Action, Game, Move, Trade
from starlanes.save import HUMAN, save_game

UP_KEYS = ("UP", "8", "k", "K")
DOWN_KEYS = ("DOWN", "5", "j", "J")
TRADE_KEYS = ("ENTER", "RIGHT", "^F")
QUIT_KEYS = ("q", "Q", "^C")
AMOUNT_FIELD = 9
DIGITS = "0123456789"
#: The keys that open a pop-up or the quit question at the move prompt and while trading (spec §10).
COMMAND_KEYS = ("s", "S", "c", "C", *QUIT_KEYS)
#: Seconds "Invalid amount!" stays up (a key ends it sooner).
INVALID_S = 1.0

# what the player in turn is doing
ANNOUNCE, MOVING, TRADING, AMOUNT, POPUP, QUIT, INVALID, COMPUTER, OVER = (
    "announce", "move", "trade", "amount", "popup", "quit", "invalid", "computer", "over")
#: The modes of the trade phase (the trade cursor is shown).
TRADE_MODES = (TRADING, AMOUNT, INVALID)

#: A line of a page (:data:`starlanes.messages.Line`): text or a table row of cells, and a style. Two styles
#: are the front end's to word: ``"continue"`` (the line telling how to go on; shown only where a key goes
#: on) and ``"hint"`` (the text names the keys to explain: ``"move"``, ``"trade"``, ``"amount"``,
#: ``"final"``).
Line = messages.Line
CONTINUE: Line = ("continue", "continue")


#: Plain words for key names of the console (:func:`common.term.decode_key`) and of X keysyms that are not
#: already words.
KEY_WORDS = {
    "TAB": "Tab", "LEFT": "Left", "RIGHT": "Right", "UP": "Up", "DOWN": "Down", "HOME": "Home", "END": "End",
    "PAGEUP": "Page Up", "PAGEDOWN": "Page Down", "Prior": "Page Up", "Next": "Page Down", "KEY_IC": "Insert",
    "KEY_BTAB": "Shift-Tab", "ISO_Left_Tab": "Shift-Tab", "ENTER": "Enter", "ESC": "Esc",
    "BACKSPACE": "Backspace", "DELETE": "Delete", "KEY_SLEFT": "Shift-Left", "KEY_SRIGHT": "Shift-Right",
    "KEY_SR": "Shift-Up", "KEY_SF": "Shift-Down",
}
#: A key name longer than this is called "That key" in a refusal (so that it fits one line of 80 columns).
KEY_WORDS_CHARS = 12


def key_words(key: str) -> str:
    """A key name as a player calls it: a character in quotes (``"x"``), ``KEY_F(1)`` → ``F1``, ``TAB`` →
    ``Tab``, ``^A`` → ``Ctrl-A``, ``KP_Left`` → ``Keypad Left``; a name longer than :data:`KEY_WORDS_CHARS`
    is ``That key``."""
    if len(key) == 1:
        return f'"{key}"'
    if key in KEY_WORDS:
        return KEY_WORDS[key]
    function = re.fullmatch(r"KEY_F\((\d+)\)", key)
    if function is not None:
        return f"F{function[1]}"
    if re.fullmatch(r"\^.", key):
        return f"Ctrl-{key[1]}"
    if key.startswith("KP_"):
        key = "Keypad " + key_words(key[3:]).strip('"')
    elif key.startswith("KEY_"):
        key = key[4:].capitalize()
    return key if len(key) <= KEY_WORDS_CHARS else "That key"


class AmountField:
    """The amount entry of a trade: ``width`` characters, at least 9 and as many as the limits of the
    trade take (``-123456789012``), so any amount in range can be typed; ``text`` is exactly what was typed.

    1995 (spec §8 with §0): digits anywhere, ``-`` only first; ``m``/``n`` only first and they finish the
    entry at once (no key is swallowed afterwards); any other key is refused, and ``refused`` says why until
    the next key. ``free`` (1977 S20 with §16 decision 8): the answer is a line of text, so every printable
    key is typed and the whole answer is judged at Enter (:meth:`value`); ``m``/``n`` first finish it as in
    1995. In both, a key beyond ``width`` is refused, Backspace erases, Enter finishes and Esc cancels.
    """

    def __init__(self, width: int = AMOUNT_FIELD, free: bool = False) -> None:
        self.text = ""
        self.cancelled = False
        self.width = width
        self.free = free
        self.refused: str | None = None

    @classmethod
    def for_limits(cls, low: int, high: int, free: bool = False) -> AmountField:
        """A field wide enough for every amount from ``low`` to ``high``."""
        return cls(max(AMOUNT_FIELD, len(str(low)), len(str(high))), free)

    def feed(self, key: str) -> bool:
        """Take one key name; returns True when the entry is finished (or cancelled)."""
        self.refused = None
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
        elif len(self.text) >= self.width:
            self.refused = f"At most {self.width} characters."
        elif (self.free and len(key) == 1 and key.isprintable()) or key in tuple(DIGITS) or (
                key == "-" and not self.text):
            self.text += key
        else:
            self.refused = f"{key_words(key)} cannot be typed: digits, a leading - to sell, or m or n first."
        return False

    def value(self, low: int, high: int) -> int | None:
        """The amount typed: ``m`` → ``high``, ``n`` → ``low``, empty → 0 (the holding is kept), else the
        whole number typed (a leading ``-`` sells; ``-`` alone is 0 in 1995, spec §8); None when the text is
        no whole number (``0.5``, ``2X``: refused, 1977 decision 8)."""
        if self.text == "m":
            return high
        if self.text == "n":
            return low
        if self.text == "" or (self.text == "-" and not self.free):
            return 0
        digits = self.text.removeprefix("-")
        if digits and all(c in DIGITS for c in digits):
            return int(self.text)
        return None


#: The characters a number of the amount prompt's range is abbreviated to when its digits do not fit
#: (``-1.897e28``, as :func:`common.term.fit_number` abbreviates).
RANGE_CHARS = 9


def amount_prompt(low: int, high: int, typed: str, room: int | None = None,
                  measure: Callable[[str], int] = text_width, width: int = 0) -> str:
    """The amount line, ``Amount (-4 to 12): 3_``, at most ``room`` wide as ``measure`` counts (terminal
    columns, pixels; None: any width), keeping room for ``width`` typed characters (the field's width, so
    the line does not change as one types). When the range's digits leave too little room, its numbers are
    abbreviated to :data:`RANGE_CHARS` characters (``Amount (-1.897e28 to 2.6598e28): 5_``); when even then
    what was typed is too long, its start gives way to ``…`` so that its end and the cursor stay in view
    (``…890123_``)."""
    def line(chars: int | None, shown: str) -> str:
        if chars is None:
            return f"Amount ({low} to {high}): {shown}_"
        return f"Amount ({fit_number(low, chars)} to {fit_number(high, chars)}): {shown}_"

    reserve = typed if len(typed) >= width else "0" * width
    chars = None if room is None or measure(line(None, reserve)) <= room else RANGE_CHARS
    keep = len(typed)
    while room is not None and keep > 0 and measure(line(chars, typed[len(typed) - keep:])) > room:
        keep -= 1
    return line(chars, typed if keep == len(typed) else "…" + typed[len(typed) - keep + 1:])


def fit_name(name: str, title: Callable[[str], str], width: int | None,
             measure: Callable[[str], int] = text_width) -> str:
    """``title(name)`` when it is at most ``width`` wide as ``measure`` counts (terminal columns, pixels;
    None: no limit), else ``title`` of the longest start of ``name`` (one character at least) that fits with
    "…" after it; a wide character counts as wide as it is drawn. When not even one character and "…" fit,
    ``title(name)``: the width is too small for the title's own words, and shortening would only lose the
    name."""
    text = title(name)
    if width is None or measure(text) <= width:
        return text
    for keep in range(len(name) - 1, 0, -1):
        shortened = title(name[:keep] + "…")
        if measure(shortened) <= width:
            return shortened
    return text


def holdings_title(name: str) -> str:
    """The company window's title naming whose holdings it shows: ``Companies (holdings: Ann)``."""
    return f"Companies (holdings: {name})"


# ---------------------------------------------------------------------------------------------------- tables


def standings_page(game: Game) -> list[Line]:
    """The standings (spec §10): a table Player / Stock Value / Cash / Net Worth, richest first (ties by
    player number), then how far the end is (:func:`starlanes.messages.remaining_text`). Numbers are
    ``(dollars, "$")`` cells."""
    rows: list[Line] = [(("Player", "Stock Value", "Cash", "Net Worth"), "head")]
    rows += [((printable(game.players[p].name), (game.stock_value(p), "$"), (game.players[p].cash, "$"),
               (game.net_worth(p), "$")), "") for p in game.standings()]
    return [*rows, ("", ""), (messages.remaining_text(game), "")]


def company_page(game: Game, holder: int | None = None) -> list[Line]:
    """The active companies (spec §10) as a table, A→E: Company / Price / Size / Total Worth, with
    ``holder``'s Holdings (a player index) after the price when given. Numbers are cells."""
    headers: tuple[Cell, ...] = ("Company", "Price", *(("Holdings",) if holder is not None else ()),
                                 "Size", "Total Worth")
    rows: list[Line] = [(headers, "head")]
    for c in game.active_companies():
        held: tuple[Cell, ...] = ((game.players[holder].holdings[c], ""),) if holder is not None else ()
        rows.append(((game.company_name(c), (game.companies[c].price, "$"), *held,
                      (game.companies[c].size, ""), (game.company_worth(c), "$")), ""))
    return rows


def final_page(game: Game, left: Sequence[Line] = ()) -> list[Line]:
    """The final standings (spec §9): the standings, why the game ended (when it did; else ``left``, the
    lines of :meth:`Session.left_lines`), a ``"final"`` hint."""
    reason = messages.end_reason(game)
    why = [(reason, "bold")] if reason else list(left)
    return [*standings_page(game), ("", ""), *([*why, ("", "")] if why else []), ("final", "hint")]


#: The most characters a net worth takes on the chart (axis marks and legend): all digits up to
#: ``$99999999999``, else abbreviated (``$8.788782e31``) to stay readable.
CHART_CHARS = 12


def chart_money(value: int) -> str:
    """A net worth as the chart shows it: within :data:`CHART_CHARS` characters (:func:`fit_number`)."""
    return fit_number(value, CHART_CHARS, "$")


def chart_history(game: Game) -> list[list[int]]:
    """Net worths per finished turn, plus the present when the game was left before its end in the middle of a
    turn that changed them."""
    present = game.net_worths()
    return game.history if game.is_terminal() or game.history[-1:] == [present] else [*game.history, present]


@dataclass(frozen=True)
class ChartScale:
    """The value axis of the net-worth chart: logarithmic (``log``) when the values span more than a factor
    of 100 (money grows geometrically), else linear from $0 to ``peak``. ``low`` is the smallest value (at
    least 1). Exact for integers of any size."""

    log: bool
    peak: int
    low: int

    def fraction(self, value: int) -> float:
        """Where ``value`` (dollars) sits on the axis: 0.0 at the bottom, 1.0 at the top (clamped)."""
        if self.log:
            lo, hi = math.log10(self.low), math.log10(self.peak)
            share = (math.log10(max(value, 1)) - lo) / (hi - lo)
        else:
            share = max(value, 0) / self.peak
        return max(0.0, min(1.0, share))

    def labels(self) -> list[tuple[float, int]]:
        """The axis marks as ``(fraction, dollars)``: top, middle and bottom."""
        if self.log:
            centre = (math.log10(self.low) + math.log10(self.peak)) / 2
            middle = round(10**centre) if centre < 300 else 10 ** round(centre)
            return [(1.0, self.peak), (0.5, middle), (0.0, self.low)]
        return [(1.0, self.peak), (0.5, self.peak // 2), (0.0, 0)]


def chart_scale(history: Sequence[Sequence[int]]) -> ChartScale:
    """The :class:`ChartScale` of a history (one row of net worths in dollars per turn)."""
    values = [v for row in history for v in row]
    peak = max(max(values), 1)
    low = max(min(values), 1)
    return ChartScale(peak > 100 * low, peak, low)


# ---------------------------------------------------------------------------------------------------- session


class Session:
    """One game's turn flow. ``controllers``: per player ``"human"`` or a computer level of
    :mod:`starlanes.ai`; ``level``: who takes over a player whose window goes; ``delay``: seconds per computer
    step and per computer announcement; ``save_path``: saved there at every prompt, announcement and
    computer step, so that a game left with every window closed goes on from where it was (None: not saved);
    ``status``: a JSON file rewritten after every change (None: none); ``on_change``: called after every
    change (the front end draws again); ``status_extra``: more ``--status`` fields from the front end;
    ``echo_errors``: a failed save or status file is also reported on stderr (false where stderr is the curses
    screen); ``resume_args``: what follows ``starlanes --resume FILE`` in the words on how to go on with a
    game left unfinished (``" PLAYERSTRING..."`` in X windows). Saving follows :class:`common.save.Sink`: a
    failure is shown once as the notice, retried at the next prompt, and the last good file stays.
    """

    def __init__(self, game: Game, controllers: Sequence[str], inbox: Inbox, *, level: str = "hard",
                 delay: float = 1.0, save_path: str | None = None, status: str | None = None,
                 on_change: Callable[[], None] = lambda: None,
                 status_extra: Callable[[], dict[str, Any]] = dict,
                 echo_errors: bool = True, resume_args: str = "") -> None:
        self.game = game
        self.controllers = list(controllers)
        self.inbox = inbox
        self.level = level
        self.delay = delay
        self.save_path = save_path
        self.status = status
        self.on_change = on_change
        self.status_extra = status_extra
        self.saves = Sink(save_path, "the save", "starlanes", show=self._save_failed, echo=echo_errors)
        self.status_file = Sink(status, "--status", "starlanes", echo=echo_errors)
        self.names = [printable(p.name) for p in game.players]
        self.pages: deque[messages.Page] = deque()
        self.page_owner = game.current
        self.mode = MOVING
        self.cursor = 0
        self.field: AmountField | None = None
        self.popup: tuple[str, list[Line]] | None = None
        self.back = MOVING
        self.notice: str | None = None
        self._save_complaint: str | None = None
        self.quit = False
        self.quitter: int | None = None
        self.resume_args = resume_args
        self.timer_pending = False
        self._turn = (-1, -1)

    @property
    def over(self) -> bool:
        """The game ended or the players quit."""
        return self.quit or self.game.is_terminal()

    @property
    def about(self) -> int:
        """The player the screen is about: whose announcement is up, else the player in turn."""
        return self.page_owner if self.mode == ANNOUNCE else self.game.current

    def is_human(self, player: int) -> bool:
        return self.controllers[player] == HUMAN

    def actor(self) -> int | None:
        """The player whose key acts now (the page owner during announcements), or None (a computer's step,
        a computer's announcement, the end)."""
        if self.mode in (COMPUTER, OVER):
            return None
        return self.about if self.is_human(self.about) else None

    def holder(self, players: Sequence[int]) -> int:
        """Whose holdings a screen of ``players`` (numbers 1..N; empty for an observer) shows: the player the
        screen is about when that is one of them or nobody's, else its first player (an index)."""
        if not players or self.about + 1 in players:
            return self.about
        return players[0] - 1

    # ---- flow ----------------------------------------------------------------------------------------------
    def advance(self) -> None:
        """Decide what comes next after a change: an announcement, a computer step, a prompt or the end."""
        game = self.game
        ended = self.mode == OVER
        if self.pages:
            self.mode = ANNOUNCE
            if not self.is_human(self.page_owner):
                self._schedule("page", self.delay)
        elif self.over:
            self.mode = OVER
        elif not self.is_human(game.current):
            self.mode = COMPUTER
            self._schedule("computer", self.delay)
        else:
            turn = (len(game.history), game.current)
            if turn != self._turn:
                self._turn = turn
                self.cursor = 0
            self.mode = MOVING if game.phase == MOVE else TRADING
        if not ended:
            self.autosave()
        self.changed()

    def _schedule(self, name: str, delay: float) -> None:
        if not self.timer_pending:
            self.timer_pending = True
            self.inbox.call_later(delay, name)

    def timer(self, name: str) -> None:
        """React to the session's :class:`common.loop.Timer` ``name``."""
        if name == "invalid":
            if self.mode == INVALID:
                self.mode = TRADING
                self.changed()
            return
        self.timer_pending = False
        self._step(name)

    def _step(self, name: str) -> None:
        if name == "page" and self.mode == ANNOUNCE and not self.is_human(self.page_owner):
            self.pages.popleft()
            self.advance()
        elif name == "computer" and self.mode == COMPUTER:
            self._computer_step()
        elif self.mode in (ANNOUNCE, COMPUTER):
            self.advance()

    def skip(self) -> bool:
        """Go on now with a computer's step or announcement (a key while it is up); False when none is."""
        if self.mode == COMPUTER or (self.mode == ANNOUNCE and not self.is_human(self.page_owner)):
            for name in ("computer", "page"):
                self.inbox.cancel(name)
            self.timer_pending = False
            self._step("computer" if self.mode == COMPUTER else "page")
            return True
        return False

    def changed(self) -> None:
        """Tell the front end to draw again and rewrite the status file."""
        self.on_change()
        self.write_status()

    # ---- input ---------------------------------------------------------------------------------------------
    def press(self, key: str) -> None:
        """A key (console names: ``"1"``, ``"ENTER"``, ``"ESC"``, ``"UP"`` …) of the player who may act."""
        mode = self.mode
        if mode == ANNOUNCE and key == "ESC":
            ends = self.ends_trading_on_esc()
            self.pages.clear()
            if ends:
                self._end_trading()
            else:
                self.advance()
        elif mode == ANNOUNCE:
            self.pages.popleft()
            self.advance()
        elif mode == POPUP:
            self.close_popup()
        elif mode == QUIT:
            self.popup = None
            if key in ("y", "Y"):
                self.quit = True
                self.quitter = self.about
                self.advance()
            else:
                self.mode = self.back
                self.changed()
        elif mode == MOVING:
            digits = {str(i + 1): i for i in range(len(self.game.candidates))}
            if key in digits:
                self._apply(Move(digits[key]))
            else:
                self._common_key(key)
        elif mode == INVALID:
            self.mode = TRADING
            self._trade_key(key)
        elif mode == TRADING:
            self._trade_key(key)
        elif mode == AMOUNT and self.field is not None:
            if key == "^C":   # it quits from the amount too, dropping what was typed (spec §10)
                self.field = None
                self.mode = TRADING
                self._common_key(key)
            elif self.field.feed(key):
                self._finish_amount()
            else:
                self.changed()

    def dismiss(self) -> bool:
        """A click where a key goes on: past an announcement, a pop-up or (as no) "Really Quit?"; False (and
        nothing happens) elsewhere."""
        if self.mode in (ANNOUNCE, POPUP, QUIT):
            self.press("click")
            return True
        return False

    def pick_cell(self, cell: int) -> None:
        """A click on map cell ``cell`` at the move prompt: moves there when it is a candidate."""
        if self.mode == MOVING and cell in self.game.candidates:
            self._apply(Move(self.game.candidates.index(cell)))

    def pick_row(self, row: int) -> None:
        """A click on row ``row`` of the company window (the active companies, A→E) while trading: trade that
        company when the rule set lets it be traded now."""
        active = self.game.active_companies()
        if self.mode in TRADE_MODES and 0 <= row < len(active) and active[row] in self.trade_rows():
            self.cursor = self.trade_rows().index(active[row])
            self._start_amount()

    def panel_row(self) -> int | None:
        """The row of the company window (the active companies, A→E) under the trade cursor, or None when
        not trading."""
        if self.mode not in TRADE_MODES:
            return None
        return self.game.active_companies().index(self.trade_company())

    def _common_key(self, key: str) -> None:
        """Keys of the move prompt and of trading: standings, company detail, quit (spec §10)."""
        if key in ("s", "S"):
            self.open_popup(" Standings ", [*standings_page(self.game), ("", ""), CONTINUE], POPUP)
        elif key in ("c", "C") and self.game.active_companies():
            self.open_popup(" Companies ", [*company_page(self.game), ("", ""), CONTINUE], POPUP)
        elif key in QUIT_KEYS:
            self.open_popup(" Quit ", [("Really Quit? (y/n)", "bold")], QUIT)

    def open_popup(self, title: str, lines: list[Line], mode: str) -> None:
        self.back = self.mode
        self.popup = (title, lines)
        self.mode = mode
        self.changed()

    def close_popup(self) -> None:
        self.popup = None
        self.mode = self.back
        self.changed()

    def _apply(self, action: Action) -> None:
        self.page_owner = self.game.current
        events = self.game.apply(action)
        self.pages.extend(messages.event_pages(events, self.names, self.game.rules.company_names))
        self.advance()

    # ---- trading: where a rule set's trade phase plugs in ------------------------------------------------
    # The rule set decides which companies may be traded now (``Game.tradable``: every active one in 1995, the
    # one asked in 1977) and what passes (``EndTurn`` ends the 1995 phase; 1977 passes a company with 0).
    def trade_rows(self) -> list[int]:
        """The companies the trade cursor walks (indices 0..4, A→E): those the rule set lets be traded now."""
        return self.game.tradable()

    def trade_company(self) -> int:
        """The company under the trade cursor."""
        rows = self.trade_rows()
        return rows[self.cursor % len(rows)]

    def asked(self) -> int | None:
        """The company the 1977 trading asks for an amount now, or None (1995 trading, or no trading)."""
        game = self.game
        return None if game.phase != TRADE or game.can_end_trading() else game.asking

    def _trade_key(self, key: str) -> None:
        rows = len(self.trade_rows())
        asked = self.asked()
        if key == "ESC":
            self._end_trading()
        elif asked is not None and key == "ENTER":
            self._apply(Trade(asked, 0))
        elif asked is not None and len(key) == 1 and key.isprintable() and key not in COMMAND_KEYS:
            self._start_amount()
            self.press(key)
        elif key in UP_KEYS:
            self.cursor = (self.cursor - 1) % rows
            self.changed()
        elif key in DOWN_KEYS:
            self.cursor = (self.cursor + 1) % rows
            self.changed()
        elif key in TRADE_KEYS:
            self._start_amount()
        else:
            self._common_key(key)

    def _end_trading(self) -> None:
        """Esc while trading, or at an announcement of the player's own move that trading follows: the turn
        ends and every holding is kept (1995 §8: :class:`EndTurn`; 1977: every company still to be asked is
        answered 0, as an empty answer keeps it)."""
        game = self.game
        player = game.current
        while game.phase == TRADE and game.current == player:
            self.page_owner = player
            events = game.apply(game.rules.trading.passes(game)[0])
            self.pages.extend(messages.event_pages(events, self.names, game.rules.company_names))
        self.advance()

    def ends_trading_on_esc(self) -> bool:
        """Whether Esc at the announcement up now also ends its player's trading (it is that human's own
        move's announcement and their trading follows)."""
        game = self.game
        return (self.mode == ANNOUNCE and game.phase == TRADE and self.page_owner == game.current
                and self.is_human(game.current))

    def _start_amount(self) -> None:
        free = self.asked() is not None
        self.field = AmountField.for_limits(*self.game.trade_limits(self.trade_company()), free=free)
        self.mode = AMOUNT
        self.changed()

    def _finish_amount(self) -> None:
        field, self.field = self.field, None
        self.mode = TRADING
        if field is None or field.cancelled:
            self.changed()
            return
        company = self.trade_company()
        low, high = self.game.trade_limits(company)
        amount = field.value(low, high)
        if amount is None or not low <= amount <= high:
            self.mode = INVALID
            self.inbox.call_later(INVALID_S, "invalid")
            self.changed()
        elif amount or not self.game.can_end_trading():
            self._apply(Trade(company, amount))
        else:
            self.advance()

    def trade_note(self, room: int | None = None, measure: Callable[[str], int] = text_width) -> str | None:
        """``Amount (-4 to 12): 3_`` while an amount is typed (and while the 1977 trading asks one, before a
        key), within ``room`` as :func:`amount_prompt` fits it; ``Invalid amount!`` after one that is out of
        range or no whole number."""
        if self.mode == INVALID:
            return "Invalid amount!"
        if self.mode != AMOUNT and (self.mode != TRADING or self.asked() is None):
            return None
        low, high = self.game.trade_limits(self.trade_company())
        field = self.field or AmountField.for_limits(low, high)
        return amount_prompt(low, high, field.text, room, measure, field.width)

    def refusal(self) -> str | None:
        """Why the amount field refused the last key (1995: a key it does not take), or None."""
        return self.field.refused if self.mode == AMOUNT and self.field is not None else None

    # ---- computers and players handed over -----------------------------------------------------------------
    def _computer_step(self) -> None:
        game = self.game
        me = game.current
        level = self.controllers[me]
        self.page_owner = me
        name = self.names[me]
        events = []
        if game.phase == MOVE:
            move = ai.choose_move(game, ai.STYLES[level][0])
            events = game.apply(move)
            self.pages.append([(messages.computer_move(name, move.index), "bold")])
        else:
            report: messages.Page = []
            for trade in ai.choose(game, level):
                events = game.apply(trade)
                if isinstance(trade, Trade):
                    report.append((messages.trade_report(name, trade, game.rules.company_names), ""))
            if report:
                self.pages.append(report)
        self.pages.extend(messages.event_pages(events, self.names, game.rules.company_names))
        self.advance()

    def hand_over(self, players: Iterable[int], what: str = "window closed") -> None:
        """The computer (``level``) plays from now on for the human ``players`` (numbers 1..N) among those
        given; the notice says so: ``Ann's window closed: the computer plays for Ann.``"""
        actor = self.actor()
        handed = [p for p in players if self.is_human(p - 1)]
        for player in handed:
            self.controllers[player - 1] = self.level
        if handed and not self.over:
            who = ", ".join(self.names[p - 1] for p in handed)
            self.notice = f"{who}'s {what}: the computer plays for {who}."
            self.autosave()
        if actor is not None and not self.is_human(actor) and not self.over:
            self.popup = None
            self.field = None
            self.advance()
        else:
            self.changed()

    def marks(self) -> dict[int, str]:
        """The candidate cells and their labels (``"1"``…) while the move is to be chosen, else none."""
        if self.game.phase != MOVE or self.mode in (ANNOUNCE, OVER):
            return {}
        return {cell: str(i + 1) for i, cell in enumerate(self.game.candidates)}

    # ---- words ---------------------------------------------------------------------------------------------
    def prompt_lines(self, room: int | None = None, measure: Callable[[str], int] = text_width) -> list[Line]:
        """The general window's lines for the mode (announcement, computer thinking, prompt); the front end
        words :data:`CONTINUE` and the ``"hint"`` lines its own way. The amount line fits ``room`` as
        ``measure`` counts (:meth:`trade_note`)."""
        game = self.game
        name = self.names[game.current]
        if self.mode == ANNOUNCE:
            more: list[Line] = [("", ""), CONTINUE] if self.actor() is not None else []
            if more and self.ends_trading_on_esc():
                more.append(("skip", "hint"))
            return [*self.pages[0], *more]
        if self.mode == COMPUTER:
            return [(f"{name} (computer) is thinking...", "bold")]
        if self.mode == OVER:
            return []
        if game.phase == MOVE:
            return [(messages.move_prompt(name, len(game.candidates)), "bold"), ("", ""), ("move", "hint")]
        note = self.trade_note(room, measure)
        hint = "trade" if self.asked() is None else "ask"
        if self.mode == AMOUNT:
            refused = self.refusal()
            return [(f"{self.game.company_name(self.trade_company())}:", "bold"), (str(note), "bold"),
                    (refused, "bold") if refused else ("amount", "hint")]
        if self.mode == INVALID:
            return [(hint, "hint"), ("", ""), (str(note), "bold")]
        if self.asked() is not None:
            return [(f"{name}, how many shares of {game.company_name(self.trade_company())}?", "bold"),
                    (str(note), "bold"), ("ask", "hint")]
        return [(f"{name}, you may trade.", "bold"), ("trade", "hint")]

    def watch_lines(self) -> list[Line]:
        """The general window's lines for a screen none of whose players may act now (another player's
        window, an observer's): the announcement up (without :data:`CONTINUE`) or the computer thinking, and
        whose turn it is: ``It is Ann's turn.``"""
        if self.mode in (OVER, COMPUTER):
            return self.prompt_lines()
        computer = "" if self.is_human(self.about) else " (computer)"
        shown = [*self.pages[0], ("", "")] if self.mode == ANNOUNCE else []
        return [*shown, (f"It is {self.names[self.about]}'s turn{computer}.", "bold")]

    def left_lines(self) -> list[Line]:
        """Why a game the players quit ended and how to go on with it: ``The game was left unfinished: Ann
        quit.``, then :meth:`save_lines` (where it is saved and the command that resumes it, ``starlanes
        --resume game.json``; that it could not be saved and why; or that it was not saved); none while the
        game goes on or when it ended by the rules."""
        if not self.quit or self.game.is_terminal():
            return []
        who = f": {self.names[self.quitter]} quit" if self.quitter is not None else ""
        return [(f"The game was left unfinished{who}.", "bold"), *self.save_lines()]

    def save_lines(self) -> list[Line]:
        """Where a game left unfinished stands: saved, with the command that goes on with it; or, when its
        last save failed, that it could not be saved to the file and why (``It could not be saved to
        sd2/x.json (cannot write in /home/ann/sd2: no such folder).``), with the command that goes on from
        the earlier save the file still holds, if this game wrote one; or, without a save file, that it was
        not saved."""
        if self.save_path is None:
            return [("It was not saved (--save FILE saves a game to go on with later).", "")]
        resume = f"{typed_command('starlanes')} --resume {shlex.quote(self.save_path)}{self.resume_args}"
        if self.saves.failure is None:
            return [("It is saved: go on with it by", ""), (resume, "")]
        why = f" ({self.saves.problem})" if self.saves.problem else ""
        lines: list[Line] = [(f"It could not be saved to {self.save_path}{why}.", "")]
        if self.saves.written and os.path.isfile(self.save_path):
            lines += [("The last good save is still there: go on from it by", ""), (resume, "")]
        return lines

    def final_page(self) -> list[Line]:
        """The final standings (:func:`final_page`) with why the game ended, the rules' reason or
        :meth:`left_lines`."""
        return final_page(self.game, self.left_lines())

    # ---- saving and status ---------------------------------------------------------------------------------
    def autosave(self) -> None:
        """Save the game (at every prompt, announcement and computer step, and at the end) through the save
        sink; a save that works again takes the complaint of the failed one off the screen."""
        complaint = self.saves.failure is not None and self.notice == self._save_complaint
        if self.saves.write(lambda path: save_game(path, self.game, self.controllers)) and complaint:
            self.notice = None
            self.on_change()

    def _save_failed(self, line: str) -> None:
        reason = line.removeprefix("cannot write the save ")
        self.notice = self._save_complaint = f"Could not save to {reason}. Trying again at the next prompt."

    def status_data(self) -> dict[str, Any]:
        """The ``--status`` JSON: the whole game (``Game.to_dict``), who plays each player, the mode of the
        player in turn and who may act (player index or None), the announcements waiting, the trade cursor,
        the pop-up's title, the notice, whether the game is over, plus the front end's fields."""
        return {
            "game": self.game.to_dict(),
            "controllers": list(self.controllers),
            "mode": self.mode,
            "actor": self.actor(),
            "pages": len(self.pages),
            "cursor": self.cursor,
            "popup": self.popup[0].strip() if self.popup else None,
            "notice": self.notice,
            "over": self.over,
            **self.status_extra(),
        }

    def write_status(self) -> None:
        """Rewrite the ``--status`` file atomically (nothing without one)."""
        if self.status is not None:
            self.status_file.write_text(json.dumps(self.status_data()) + "\n")
