"""Star Lanes on X windows (spec/starlanes.md §0): one window per player string, as in motti.

Every window shows the whole game (:mod:`starlanes.view`); only the window of the player in turn takes
input, with the keys of the curses game (§8, §10) plus the mouse: a click on a numbered cell moves there, a
click on a company row trades it. The other windows say whose turn it is
(:meth:`starlanes.session.Session.watch_lines`) instead of that player's prompt. An announcement waits for
a key or click in the mover's window (a computer's announcements go on after ``delay`` seconds). A window
that is closed or whose display dies hands its players to the computer (the save records them so), and the
other windows say so; the game goes on. When no window is left the loop ends, finished or not
(:attr:`XGame.over` tells). After the end every window shows the final standings, then (after a key or
click) the net-worth chart, then (after another) it closes.

One :class:`common.loop.Inbox` receives the windows' events and the timers; :class:`XGame` is its only
consumer and the only code that changes the :class:`~starlanes.rules.Game`, through the same actions and
events as the console.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame
from Xlib import XK

from common.loop import Click, Closed, DisplayLost, Inbox, Key, Resize, Timer
from common.term import printable
from starlanes import view
from starlanes.rules import Game
from starlanes.session import OVER, QUIT_KEYS, Line, Session, final_page

if TYPE_CHECKING:
    from common.displays import Seat
    from common.x11 import Window

#: Seconds a computer player's announcements stay up, and the pause before its actions.
COMPUTER_DELAY_S = 1.0
POLL_S = 0.5
_X_KEYS = {
    "Return": "ENTER", "KP_Enter": "ENTER", "Escape": "ESC", "BackSpace": "BACKSPACE", "Delete": "DELETE",
    "KP_Delete": "DELETE", "Up": "UP", "KP_Up": "UP", "Down": "DOWN", "KP_Down": "DOWN", "Right": "RIGHT",
    "KP_Right": "RIGHT", "minus": "-", "KP_Subtract": "-", "KP_Decimal": ".", "space": " ",
}
_CONTINUE = ("Press any key or click to continue.", "dim")
FINAL_TITLE = " GAME OVER - Final Standings "

_HINTS: dict[str, list[view.Line]] = {
    "move": [("Press a number or click a numbered sector.", "dim"),
             ("s standings   c companies   q quit", "dim")],
    "trade": [("Trade: up/down or click choose a company, Enter trades it,", "dim"),
              ("Esc ends your turn (s standings, c companies, q quit).", "dim")],
    "ask": [("Type the shares to buy (- sells) and Enter; Enter alone keeps these,", "dim"),
            ("Esc keeps all and ends your turn (s standings, c companies, q quit).", "dim")],
    "amount": [("m = the most you can buy, n = sell all, - sells, Esc cancels", "dim")],
    "skip": [("Esc ends your turn at once, keeping every holding.", "dim")],
    "final": [("Press a key or click for the chart of net worth per turn.", "dim")],
}


def key_name(name: str) -> str:
    """The console's name of an X keysym name: ``Return`` → ``ENTER``, ``KP_7`` → ``7``, ``minus`` → ``-``,
    ``period`` → ``.`` (every printable Latin-1 keysym is its character, as a terminal delivers it)."""
    if name in _X_KEYS:
        return _X_KEYS[name]
    if name.startswith("KP_") and len(name) == 4 and name[3].isdigit():
        return name[3]
    keysym = XK.string_to_keysym(name)
    if 0x20 < keysym <= 0xFF and chr(keysym).isprintable():
        return chr(keysym)
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
    specs = [(source, seat.display or "", seat_title(seat.players, names)) for source, seat in indexed]
    windows = open_all(specs,
                       size=view.DEFAULT_SIZE, inbox=inbox, timeout=timeout, min_size=view.MIN_SIZE,
                       app="starlanes")
    return {source: (windows[source], seat) for source, seat in indexed}


def text_lines(lines: Sequence[Line]) -> list[view.Line]:
    """Session lines as view lines (:func:`starlanes.view.as_text`), :data:`~starlanes.session.CONTINUE` and
    the hints in the windows' words."""
    out: list[view.Line] = []
    for line, style in lines:
        if style == "hint":
            out.extend(_HINTS[str(line)])
        elif style == "continue":
            out.append(_CONTINUE)
        else:
            out.extend(view.as_text([(line, style)]))
    return out


def final_lines(game: Game, left: Sequence[Line] = ()) -> list[view.Line]:
    """The body of the final standings window (spec §9), titled :data:`FINAL_TITLE`: the standings, why the
    game ended (when it did; else ``left``, :meth:`~starlanes.session.Session.left_lines`) and what comes
    next."""
    return text_lines(final_page(game, left))


def _without_continue(lines: list[view.Line]) -> list[view.Line]:
    """``lines`` without "Press any key or click to continue." (and the blank line before it), for the windows
    that cannot continue (observers, other players)."""
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
    """Runs one game on ``windows`` (from :func:`open_windows`) until every window is closed: the windows'
    renderer and input source for one :class:`~starlanes.session.Session` (:attr:`session`).

    ``controllers``: per player ``"human"`` or a computer level of :mod:`starlanes.ai` (changed to ``level``
    when a player's window goes); ``status``: a JSON file rewritten after every change (or None);
    ``save_path``: the game is saved there at every prompt (or None); ``delay``: seconds per computer step.
    """

    def __init__(self, game: Game, inbox: Inbox, windows: dict[str, tuple[Window, Seat]],
                 controllers: Sequence[str], *, level: str = "hard", status: str | None = None,
                 save_path: str | None = None, delay: float = COMPUTER_DELAY_S) -> None:
        self.game = game
        self.inbox = inbox
        self.views = {source: _View(window, tuple(seat.players))
                      for source, (window, seat) in windows.items()}
        self.dirty = False
        self.session = Session(game, controllers, inbox, level=level, delay=delay, save_path=save_path,
                               status=status, on_change=self._changed, status_extra=self._status_extra,
                               resume_args=" PLAYERSTRING...")

    # ---- the loop ------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Play until no window is left; returns 0. The windows are drawn whenever no event is waiting.
        Ctrl-C propagates after every window is closed."""
        try:
            self.session.advance()
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
        """The game ended by the rules; false for a game the players quit or left with every window closed
        (the shell is then told how to go on with it)."""
        return self.game.is_terminal()

    def handle(self, event: object) -> None:
        """React to one inbox event."""
        if isinstance(event, Key):
            self._key(event.source, key_name(event.name))
        elif isinstance(event, Click):
            self._click(event)
        elif isinstance(event, Resize):
            self.session.changed()
        elif isinstance(event, Closed | DisplayLost):
            self._lost(event.source)
        elif isinstance(event, Timer):
            self.session.timer(event.name)

    def _changed(self) -> None:
        self.dirty = True
        if self.session.mode == OVER:
            for state in self.views.values():
                if state.stage == "play":
                    state.stage = "final"

    # ---- input -------------------------------------------------------------------------------------------
    def _acts(self, source: str) -> bool:
        """Whether window ``source`` may act now; counts the keys and clicks of a window that may not."""
        state = self.views[source]
        player = self.session.actor()
        if player is not None and player + 1 in state.players:
            return True
        state.ignored += 1
        self.session.write_status()
        return False

    def _key(self, source: str, key: str) -> None:
        if source not in self.views:
            return
        if self.session.mode == OVER:
            self._next_stage(source, close=key in QUIT_KEYS)
        elif self._acts(source):
            self.session.press(key)

    def _click(self, click: Click) -> None:
        state = self.views.get(click.source)
        if state is None or click.button not in (1, 2, 3):
            return
        if self.session.mode == OVER:
            self._next_stage(click.source, close=False)
            return
        if not self._acts(click.source):
            return
        width, height = state.frame.get_size() if state.frame is not None else state.window.size
        size = (width, height)
        if not self.session.dismiss():
            cell = view.cell_at(click.x, click.y, size)
            row = view.company_row_at(click.x, click.y, size, len(self.game.active_companies()))
            if cell is not None:
                self.session.pick_cell(cell)
            elif row is not None:
                self.session.pick_row(row)

    def _next_stage(self, source: str, close: bool) -> None:
        state = self.views[source]
        if state.stage == "final" and not close:
            state.stage = "chart"
        else:
            state.window.close()
            del self.views[source]
        self.session.changed()

    def _lost(self, source: str) -> None:
        """Window ``source`` closed or lost: the computer plays for its people; the game goes on."""
        state = self.views.pop(source, None)
        if state is not None:
            state.window.close()
            self.session.hand_over(state.players)

    # ---- drawing and status ------------------------------------------------------------------------------
    def screen(self, state: _View) -> view.Screen:
        """What window ``state`` shows now."""
        session = self.session
        game = self.game
        if session.mode == OVER:
            if state.stage == "chart":
                return view.Screen(banner="Game over", chart=True)
            return view.Screen(banner="Game over",
                               popup=(FINAL_TITLE, final_lines(game, session.left_lines())))
        actor = session.actor()
        acting = actor is not None and actor + 1 in state.players
        banner = f"Your turn, {session.names[actor]}" if acting and actor is not None \
            else f"{session.names[session.about]}'s turn"
        lines = self.general_lines(state.window.size) if acting else text_lines(session.watch_lines())
        popup = session.popup and (session.popup[0], text_lines(session.popup[1]))
        if not acting:
            popup = popup and (popup[0], _without_continue(popup[1]))
        if session.notice:
            lines = [*lines, ("", ""), (session.notice, "dim")]
        return view.Screen(lines=lines, marks=session.marks(), cursor=session.panel_row(), popup=popup,
                           banner=banner, title_player=session.about, holder=session.holder(state.players))

    def general_lines(self, size: tuple[int, int] | None = None) -> list[view.Line]:
        """The general window's text now, its amount line fitted to the general window of a window of
        ``size`` pixels (None: not fitted)."""
        if size is None:
            return text_lines(self.session.prompt_lines())
        room = view.layout(size).general.w - 2 * view.PAD
        return text_lines(self.session.prompt_lines(room, lambda text: view.text_pixels(text, bold=True)))

    def render(self) -> None:
        """Render what each window shows (once per distinct screen and size) and present what changed."""
        self.dirty = False
        rendered: dict[tuple[Any, ...], pygame.Surface] = {}
        for state in self.views.values():
            screen = self.screen(state)
            width, height = state.window.size
            size = (width, height)
            key = (size, repr(screen))
            surface = rendered.get(key)
            if surface is None:
                surface = rendered[key] = view.render(self.game, size, screen)
            rect = view.changed_rect(state.frame, surface)
            if rect is not None:
                state.window.present(surface, None if rect == surface.get_rect() else [rect])
            state.frame = surface

    def _status_extra(self) -> dict[str, Any]:
        """The windows' part of the ``--status`` JSON: the general window's text and every window (with the
        keys and clicks it sent while it could not act)."""
        windows = []
        for source, state in self.views.items():
            windows.append({"source": source, "display": state.window.display, "players": list(state.players),
                            "window_id": getattr(state.window, "window_id", None),
                            "size": list(state.window.size), "stage": state.stage, "ignored": state.ignored,
                            "lines": _plain(self.screen(state).lines)})
        return {"lines": _plain(self.general_lines()), "windows": windows}


def _plain(lines: Sequence[view.Line]) -> list[str]:
    """View lines as plain text (a table row's cells joined by blanks)."""
    return [" ".join(text) if isinstance(text, tuple) else text for text, _ in lines]
