"""Star Lanes on X windows (spec/starlanes.md §0): one window per player string, as in motti.

Every window shows the whole game (:mod:`starlanes.view`); only the window of the player in turn takes
input, with the keys of the curses game (§8, §10) plus the mouse: a click on a numbered cell moves there, a
click on a company row trades it. An announcement waits for a key or click in the mover's window (a computer's
announcements go on after ``delay`` seconds). A window that is closed or whose display dies hands its players
to the computer (the save records them so), and the other windows say so; the game goes on. When no window
is left the loop ends, finished or not (:attr:`XGame.over` tells). After the end every window shows the final
standings, then (after a key or click) the net-worth chart, then (after another) it closes.

One :class:`common.loop.Inbox` receives the windows' events and the timers; :class:`XGame` is its only
consumer and the only code that changes the :class:`~starlanes.rules.Game`, through the same actions and
events as the console.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from common.loop import Click, Closed, DisplayLost, Inbox, Key, Resize, Timer
from common.save import write_atomic
from common.term import money, printable
from starlanes import ai, messages, view
from starlanes.console import DOWN_KEYS, QUIT_KEYS, TRADE_KEYS, UP_KEYS, AmountField
from starlanes.rules import COMPANY_NAMES, MOVE, EndTurn, Event, Game, Move, Trade
from starlanes.save import HUMAN, save_game

if TYPE_CHECKING:
    from common.displays import Seat
    from common.x11 import Window

#: Seconds a computer player's announcements stay up, and the pause before its actions.
COMPUTER_DELAY_S = 1.0
INVALID_S = 1.0
POLL_S = 0.5
_X_KEYS = {
    "Return": "ENTER", "KP_Enter": "ENTER", "Escape": "ESC", "BackSpace": "BACKSPACE", "Delete": "DELETE",
    "KP_Delete": "DELETE", "Up": "UP", "KP_Up": "UP", "Down": "DOWN", "KP_Down": "DOWN", "Right": "RIGHT",
    "KP_Right": "RIGHT", "minus": "-", "KP_Subtract": "-", "space": " ",
}
_CONTINUE = ("Press any key or click to continue.", "dim")
FINAL_TITLE = " GAME OVER - Final Standings "

# modes of the player in turn
ANNOUNCE, MOVING, TRADING, AMOUNT, POPUP, QUIT, INVALID, COMPUTER, OVER = (
    "announce", "move", "trade", "amount", "popup", "quit", "invalid", "computer", "over")


def key_name(name: str) -> str:
    """The console's name of an X keysym name: ``Return`` → ``ENTER``, ``KP_7`` → ``7``, ``minus`` → ``-``."""
    if name in _X_KEYS:
        return _X_KEYS[name]
    if name.startswith("KP_") and len(name) == 4 and name[3].isdigit():
        return name[3]
    return name


def seat_title(players: Sequence[int], names: Sequence[str]) -> str:
    """The window title of a seat: ``Star Lanes: Ann``, ``Star Lanes: Ann, Bob`` or ``Star Lanes: observer``
    (``players`` are numbers 1..N; control characters in names become ``?`` as on screen)."""
    if not players:
        return "Star Lanes: observer"
    return "Star Lanes: " + ", ".join(printable(names[p - 1]) for p in players)


def open_windows(seats: Sequence[Seat], names: Sequence[str], inbox: Inbox, *,
                 timeout: float = 5.0) -> dict[str, tuple[Window, Seat]]:
    """Open one window per seat, all or nothing (on the first DisplayError the windows opened so far are
    closed and the error propagates). Returns ``{source: (window, seat)}`` with sources ``seat0``, ``seat1``…

    Raises common.x11.DisplayError (its message names the display).
    """
    from common.x11 import open_windows as open_all

    indexed = [(f"seat{index}", seat) for index, seat in enumerate(seats)]
    windows = open_all([(source, seat.display, seat_title(seat.players, names)) for source, seat in indexed],
                       size=view.DEFAULT_SIZE, inbox=inbox, timeout=timeout, min_size=(480, 360),
                       app="starlanes")
    return {source: (windows[source], seat) for source, seat in indexed}


def event_pages(events: Sequence[Event], names: Sequence[str]) -> list[list[view.Line]]:
    """The announcements of ``events`` (:func:`starlanes.messages.event_pages`) as view lines: numbers in
    table rows as text (``$`` amounts with :func:`common.term.money`)."""
    def text(cell: object) -> str:
        if isinstance(cell, tuple):
            value, prefix = cell
            return money(value) if prefix == "$" else str(value)
        return str(cell)

    return [[(tuple(text(c) for c in line) if isinstance(line, tuple) else line, style)
             for line, style in page] for page in messages.event_pages(events, names)]


def final_lines(game: Game) -> list[view.Line]:
    """The body of the final standings window (spec §9), titled :data:`FINAL_TITLE`: the standings, why the
    game ended (when it did) and what comes next."""
    reason = messages.end_reason(game)
    return [*view.standings_lines(game), ("", ""), *([(reason, "bold"), ("", "")] if reason else []),
            ("Press a key or click for the chart of net worth per turn.", "dim")]


def _without_continue(lines: list[view.Line]) -> list[view.Line]:
    """``lines`` without "Press any key or click to continue." (and the blank line before it), for the windows
    that cannot continue (observers, other players, everyone while a computer's announcement is up)."""
    if _CONTINUE not in lines:
        return lines
    kept = [line for line in lines if line != _CONTINUE]
    while kept and kept[-1] == ("", ""):
        kept.pop()
    return kept


@dataclass
class _View:
    """One open window: its players (numbers 1..N), the last frame sent and its end-of-game stage."""

    window: Window
    players: tuple[int, ...]
    frame: pygame.Surface | None = None
    stage: str = "play"          # "play", then at the end "final" → "chart"
    ignored: int = 0             # keys and clicks that arrived while this window could not act


class XGame:
    """Runs one game on ``windows`` (from :func:`open_windows`) until every window is closed.

    ``controllers``: per player ``"human"`` or a computer level of :mod:`starlanes.ai` (changed to ``level``
    when a player's window goes); ``status``: a JSON file rewritten after every change (or None);
    ``save_path``: the game is saved there at every prompt (or None); ``delay``: seconds per computer step.
    """

    def __init__(self, game: Game, inbox: Inbox, windows: dict[str, tuple[Window, Seat]],
                 controllers: Sequence[str], *, level: str = "hard", status: str | None = None,
                 save_path: str | None = None, delay: float = COMPUTER_DELAY_S) -> None:
        self.game = game
        self.inbox = inbox
        self.controllers = list(controllers)
        self.level = level
        self.status = status
        self.save_path = save_path
        self.delay = delay
        self.views = {source: _View(window, tuple(seat.players))
                      for source, (window, seat) in windows.items()}
        self.names = [p.name for p in game.players]
        self.pages: deque[list[view.Line]] = deque()
        self.page_owner = game.current
        self.mode = MOVING
        self.cursor = 0
        self.field: AmountField | None = None
        self.popup: tuple[str, list[view.Line]] | None = None
        self.back = MOVING
        self.notice: str | None = None
        self.quit = False
        self.timer_pending = False
        self.status_failed = False
        self.dirty = False
        self._turn = (-1, -1)

    # ---- the loop ------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Play until no window is left; returns 0. The windows are drawn whenever no event is waiting.
        Ctrl-C propagates after every window is closed."""
        try:
            self.advance()
            while self.views:
                event = self.inbox.get(0 if self.dirty else POLL_S)
                if event is not None:
                    self.handle(event)
                elif self.dirty:
                    self.render()
        finally:
            for state in self.views.values():
                state.window.close()
            self.views.clear()
        return 0

    @property
    def over(self) -> bool:
        return self.quit or self.game.is_terminal()

    def handle(self, event: object) -> None:
        """React to one inbox event."""
        if isinstance(event, Key):
            self._key(event.source, key_name(event.name))
        elif isinstance(event, Click):
            self._click(event)
        elif isinstance(event, Resize):
            self.refresh()
        elif isinstance(event, Closed | DisplayLost):
            self._lost(event.source)
        elif isinstance(event, Timer):
            self._timer(event.name)

    def advance(self) -> None:
        """Decide what comes next after a change: an announcement, a computer step, a prompt or the end."""
        game = self.game
        if self.pages:
            self.mode = ANNOUNCE
            if not self._is_human(self.page_owner):
                self._schedule("page", self.delay)
        elif self.over:
            if self.mode != OVER:
                self.mode = OVER
                self.autosave()
                for state in self.views.values():
                    state.stage = "final"
        elif not self._is_human(game.current):
            self.mode = COMPUTER
            self._schedule("computer", self.delay)
        else:
            turn = (len(game.history), game.current)
            if turn != self._turn:
                self._turn = turn
                self.cursor = 0
            self.mode = MOVING if game.phase == MOVE else TRADING
            self.autosave()
        self.refresh()

    def _is_human(self, player: int) -> bool:
        return self.controllers[player] == HUMAN

    def _schedule(self, name: str, delay: float) -> None:
        if not self.timer_pending:
            self.timer_pending = True
            self.inbox.call_later(delay, name)

    def _timer(self, name: str) -> None:
        if name == "invalid":
            if self.mode == INVALID:
                self.mode = TRADING
                self.refresh()
            return
        self.timer_pending = False
        if name == "page" and self.mode == ANNOUNCE and not self._is_human(self.page_owner):
            self.pages.popleft()
            self.advance()
        elif name == "computer" and self.mode == COMPUTER:
            self._computer_step()
        elif self.mode in (ANNOUNCE, COMPUTER):
            self.advance()

    # ---- input -------------------------------------------------------------------------------------------
    def actor(self) -> int | None:
        """The player whose window takes input now (the page owner during announcements), or None."""
        if self.mode in (COMPUTER, OVER):
            return None
        player = self.page_owner if self.mode == ANNOUNCE else self.game.current
        return player if self._is_human(player) else None

    def _acts(self, source: str) -> bool:
        state = self.views.get(source)
        player = self.actor()
        return state is not None and player is not None and player + 1 in state.players

    def _key(self, source: str, key: str) -> None:
        state = self.views.get(source)
        if state is None:
            return
        if self.mode == OVER:
            self._next_stage(source, close=key in QUIT_KEYS)
            return
        if not self._acts(source):
            state.ignored += 1
            self.write_status()
            return
        if self.mode == ANNOUNCE:
            self.pages.popleft()
            self.advance()
        elif self.mode == POPUP:
            self.popup = None
            self.mode = self.back
            self.refresh()
        elif self.mode == QUIT:
            self.popup = None
            if key in ("y", "Y"):
                self.quit = True
                self.advance()
            else:
                self.mode = self.back
                self.refresh()
        elif self.mode == MOVING:
            digits = {str(i + 1): i for i in range(len(self.game.candidates))}
            if key in digits:
                self._apply(Move(digits[key]))
            else:
                self._common_key(key)
        elif self.mode == TRADING:
            rows = len(self.game.active_companies())
            if key == "ESC":
                self._apply(EndTurn())
            elif key in UP_KEYS:
                self.cursor = (self.cursor - 1) % rows
                self.refresh()
            elif key in DOWN_KEYS:
                self.cursor = (self.cursor + 1) % rows
                self.refresh()
            elif key in TRADE_KEYS:
                self._start_amount()
            else:
                self._common_key(key)
        elif self.mode == AMOUNT:
            if self.field.feed(key):
                self._finish_amount()
            else:
                self.refresh()

    def _common_key(self, key: str) -> None:
        """Keys of the move prompt and of trading: standings, company detail, quit (spec §10)."""
        game = self.game
        if key in ("s", "S"):
            self._popup(" Standings ", [*view.standings_lines(game), ("", ""), _CONTINUE], POPUP)
        elif key in ("c", "C") and game.active_companies():
            rows: list[view.Line] = [(("Company", "Price", "Size", "Total Worth"), "head")]
            rows += [((COMPANY_NAMES[c], money(game.companies[c].price), str(game.companies[c].size),
                       money(game.company_worth(c))), "") for c in game.active_companies()]
            self._popup(" Companies ", [*rows, ("", ""), _CONTINUE], POPUP)
        elif key in QUIT_KEYS:
            self._popup(" Quit ", [("Really Quit? (y/n)", "bold")], QUIT)

    def _popup(self, title: str, lines: list[view.Line], mode: str) -> None:
        self.back = self.mode
        self.popup = (title, lines)
        self.mode = mode
        self.refresh()

    def _click(self, click: Click) -> None:
        state = self.views.get(click.source)
        if state is None or click.button not in (1, 2, 3):
            return
        if self.mode == OVER:
            self._next_stage(click.source, close=False)
            return
        if not self._acts(click.source):
            state.ignored += 1
            self.write_status()
            return
        size = state.frame.get_size() if state.frame is not None else tuple(state.window.size)
        if self.mode in (ANNOUNCE, POPUP, QUIT):
            self._key(click.source, "click")
        elif self.mode == MOVING:
            cell = view.cell_at(click.x, click.y, size)
            if cell is not None and cell in self.game.candidates:
                self._apply(Move(self.game.candidates.index(cell)))
        elif self.mode in (TRADING, AMOUNT):
            row = view.company_row_at(click.x, click.y, size, len(self.game.active_companies()))
            if row is not None:
                self.cursor = row
                self._start_amount()

    def _start_amount(self) -> None:
        company = self.game.active_companies()[self.cursor]
        self.field = AmountField.for_limits(*self.game.trade_limits(company))
        self.mode = AMOUNT
        self.refresh()

    def _finish_amount(self) -> None:
        field, self.field = self.field, None
        self.mode = TRADING
        if field.cancelled:
            self.refresh()
            return
        company = self.game.active_companies()[self.cursor]
        low, high = self.game.trade_limits(company)
        amount = field.value(low, high)
        if not low <= amount <= high:
            self.mode = INVALID
            self.inbox.call_later(INVALID_S, "invalid")
            self.refresh()
            return
        if amount:
            self.game.apply(Trade(company, amount))
        self.advance()

    def _apply(self, action: Move | EndTurn) -> None:
        self.page_owner = self.game.current
        self.pages.extend(event_pages(self.game.apply(action), self.names))
        self.advance()

    def _next_stage(self, source: str, close: bool) -> None:
        state = self.views[source]
        if state.stage == "final" and not close:
            state.stage = "chart"
            self.refresh()
            return
        state.window.close()
        del self.views[source]
        self.refresh()

    # ---- computer players and lost windows ---------------------------------------------------------------
    def _computer_step(self) -> None:
        game = self.game
        me = game.current
        level = self.controllers[me]
        self.page_owner = me
        name = self.names[me]
        if game.phase == MOVE:
            action = ai.choose(game, level)[0]
            events = game.apply(action)
            self.pages.append([(messages.computer_move(name, action.index), "bold")])
        else:
            report: list[view.Line] = []
            events = []
            for action in ai.choose(game, level):
                events = game.apply(action)
                if isinstance(action, Trade):
                    report.append((messages.trade_report(name, action), ""))
            if report:
                self.pages.append(report)
        self.pages.extend(event_pages(events, self.names))
        self.advance()

    def _lost(self, source: str) -> None:
        """Window ``source`` closed or lost: the computer plays for its people; the game goes on."""
        state = self.views.pop(source, None)
        if state is None:
            return
        state.window.close()
        actor = self.actor()
        handed = [p for p in state.players if self._is_human(p - 1)]
        for player in handed:
            self.controllers[player - 1] = self.level
        if handed and not self.over:
            who = ", ".join(self.names[p - 1] for p in handed)
            self.notice = f"{who}'s window closed: the computer plays for {who}."
            self.autosave()
        if actor is not None and not self._is_human(actor) and not self.over:
            self.popup = None
            self.field = None
            self.advance()
        else:
            self.refresh()

    # ---- drawing, saving and status ----------------------------------------------------------------------
    def screen(self, state: _View) -> view.Screen:
        """What window ``state`` shows now."""
        game = self.game
        if self.mode == OVER:
            if state.stage == "chart":
                return view.Screen(banner="Game over", chart=True)
            return view.Screen(banner="Game over", popup=(FINAL_TITLE, final_lines(game)))
        actor = self.actor()
        acting = actor is not None and actor + 1 in state.players
        if acting:
            banner = f"Your turn, {self.names[actor]}"
        else:
            banner = f"{self.names[self.page_owner if self.mode == ANNOUNCE else game.current]}'s turn"
        lines = self._general_lines() if acting else _without_continue(self._general_lines())
        popup = self.popup
        if popup is not None and not acting:
            popup = (popup[0], _without_continue(popup[1]))
        if self.notice:
            lines = [*lines, ("", ""), (self.notice, "dim")]
        cursor = self.cursor if self.mode in (TRADING, AMOUNT, INVALID) else None
        marks = {cell: str(i + 1) for i, cell in enumerate(game.candidates)} if game.phase == MOVE else {}
        if self.mode == ANNOUNCE:
            marks = {}
        title = self.page_owner if self.mode == ANNOUNCE else game.current
        return view.Screen(lines=lines, marks=marks, cursor=cursor, popup=popup, banner=banner,
                           title_player=title, holder=self.holder(state))

    def holder(self, state: _View) -> int:
        """Whose holdings window ``state`` shows (player index): its player in turn (or whose announcement
        is up), else its first player; an observer's window shows the player in turn's."""
        current = self.page_owner if self.mode == ANNOUNCE else self.game.current
        if not state.players or current + 1 in state.players:
            return current
        return state.players[0] - 1

    def _general_lines(self) -> list[view.Line]:
        game = self.game
        name = self.names[game.current]
        if self.mode == ANNOUNCE:
            return [*self.pages[0], ("", ""), _CONTINUE]
        if self.mode == COMPUTER:
            return [(f"{name} (computer) is thinking...", "bold")]
        if game.phase == MOVE:
            return [(messages.move_prompt(name, len(game.candidates)), "bold"), ("", ""),
                    ("Press a number or click a numbered sector.", "dim"),
                    ("s standings   c companies   q quit", "dim")]
        trade = [("Trade: up/down or click choose a company, Enter trades it,", "dim"),
                 ("Esc ends your turn (s standings, c companies, q quit).", "dim")]
        company = game.active_companies()[self.cursor % len(game.active_companies())]
        if self.mode == AMOUNT:
            low, high = game.trade_limits(company)
            return [*trade, ("", ""), (f"{COMPANY_NAMES[company]}:", "bold"),
                    (f"Amount ({low} to {high}): {self.field.text}_", "bold"),
                    ("m = the most you can buy, n = sell all, - sells, Esc cancels", "dim")]
        if self.mode == INVALID:
            return [*trade, ("", ""), ("Invalid amount!", "bold")]
        return [(f"{name}, you may trade.", "bold"), *trade]

    def refresh(self) -> None:
        """Note that the windows must be drawn again (the loop draws them once no event is waiting) and
        rewrite the status file."""
        self.dirty = True
        self.write_status()

    def render(self) -> None:
        """Render what each window shows (once per distinct screen and size) and present what changed."""
        self.dirty = False
        rendered: dict[tuple[Any, ...], pygame.Surface] = {}
        for state in self.views.values():
            screen = self.screen(state)
            size = tuple(state.window.size)
            key = (size, repr(screen))
            surface = rendered.get(key)
            if surface is None:
                surface = rendered[key] = view.render(self.game, size, screen)
            rect = view.changed_rect(state.frame, surface)
            if rect is not None:
                state.window.present(surface, None if rect == surface.get_rect() else [rect])
            state.frame = surface

    def autosave(self) -> None:
        if self.save_path is None:
            return
        try:
            save_game(self.save_path, self.game, self.controllers)
        except OSError as exc:
            print(f"starlanes: cannot save to {self.save_path}: {exc.strerror or exc}", file=sys.stderr)
            self.save_path = None

    def status_data(self) -> dict[str, Any]:
        """The ``--status`` JSON: the whole game (``Game.to_dict``), who plays each player, the mode of the
        player in turn and who may act (player index or None), the announcements waiting, the general
        window's text and every window (with the keys and clicks it sent while it could not act)."""
        windows = []
        for source, state in self.views.items():
            size = tuple(state.window.size)
            windows.append({"source": source, "display": state.window.display, "players": list(state.players),
                            "window_id": getattr(state.window, "window_id", None), "size": list(size),
                            "stage": state.stage, "ignored": state.ignored})
        lines = [" ".join(text) if isinstance(text, tuple) else text for text, _ in self._general_lines()] \
            if self.mode != OVER else []
        return {
            "game": self.game.to_dict(),
            "controllers": list(self.controllers),
            "mode": self.mode,
            "actor": self.actor(),
            "pages": len(self.pages),
            "cursor": self.cursor,
            "popup": self.popup[0].strip() if self.popup else None,
            "lines": lines,
            "notice": self.notice,
            "over": self.over,
            "windows": windows,
        }

    def write_status(self) -> None:
        """Rewrite the ``--status`` file atomically (nothing without one)."""
        if self.status is None:
            return
        try:
            write_atomic(self.status, json.dumps(self.status_data()) + "\n")
        except OSError as error:
            if not self.status_failed:
                print(f"starlanes: --status {self.status}: {error.strerror or error}", file=sys.stderr)
            self.status_failed = True
