"""motti's game loop: X windows on any number of displays, an optional curses console, computer players.

Spec/motti.md §5 (player strings, observers, only the player in turn acts), §6 (mouse, drawing, status file)
and §2.7 (a closed window defeats that connection's players), plus saved games (motti/savegame.py:
``--save`` keeps a file up to date after every action, ``s`` saves on demand). One :class:`common.loop.Inbox`
receives every window's events (each window's connection lives in its own I/O thread, common/x11.py), the
console's commands and the computer players' timers; this module is its only consumer and the only code that
changes the :class:`Game`.
"""

from __future__ import annotations

import random
import signal
import sys
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from common.loop import Click, Closed, Command, DisplayLost, Inbox, Key, Resize, Timer
from motti import savegame, view
from motti import status as status_json
from motti.announce import describe
from motti.commands import apply_command
from motti.rules import (
    Game,
    IllegalAction,
)

if TYPE_CHECKING:
    from common.displays import Seat
    from common.x11 import Window

#: Pause between two moves of a computer player, so that people can follow them (seconds).
COMPUTER_DELAY_S = 0.35
#: How long one wait on the inbox lasts before the loop looks again (seconds; keeps Ctrl-C responsive).
POLL_S = 0.5
COMPUTER_TIMER = "computer"
CONSOLE_SOURCE = "console"


def seat_title(players: Sequence[int], computer: Collection[int] = ()) -> str:
    """The window title of a seat: ``motti: player 1``, ``motti: players 1, 2``, ``motti: players 1,
    2 computer`` (the computer plays 2) or ``motti: observer``."""
    if not players:
        return "motti: observer"
    names = [f"{p} computer" if p in computer else str(p) for p in players]
    if len(players) == 1:
        return f"motti: player {names[0]}"
    return "motti: players " + ", ".join(names)


def open_windows(seats: Sequence[Seat], game: Game, inbox: Inbox, *, timeout: float = 5.0,
                 computer: Collection[int] = ()) -> dict[str, tuple[Window, Seat]]:
    """Open one window per seat that has a display, all or nothing: on the first DisplayError the windows
    opened so far are closed and the error propagates. Titles name the *computer* players
    (:func:`seat_title`). Returns ``{source: (window, seat)}``, sources ``seat0``, ``seat1``… by the seat's
    index.

    Raises common.x11.DisplayError (its message names the display).
    """
    from common.x11 import open_windows as open_all

    indexed = [(f"seat{index}", seat) for index, seat in enumerate(seats) if seat.display is not None]
    windows = open_all([(source, seat.display, seat_title(seat.players, computer))
                         for source, seat in indexed],
                       size=view.default_size(game.board.width, game.board.height), inbox=inbox,
                       timeout=timeout)
    return {source: (windows[source], seat) for source, seat in indexed}


@dataclass
class _View:
    """One open window: who sits at it and the frame it shows now."""

    window: Window
    players: tuple[int, ...]      # every player of the seat (shown as "yours")
    humans: tuple[int, ...]       # the seat's players that people play (not --computer ones)
    frame: pygame.Surface | None = None


class Frontend:
    """Runs one game: reacts to window events, console commands and computer timers until no window is left,
    or until every player has left (quit or closed their windows): then the observers' windows close too.

    *windows* maps each source to its open window and seat (see :func:`open_windows`); *console* is an
    object with ``show(game)`` and ``close()`` for the curses players *console_players* (or None); *computer*
    holds the players that :mod:`motti.ai` plays, with *rng* for its choices; *status* is the ``--status``
    file or None; *save* is the ``--save`` file or None.

    Saving (motti/savegame.py): with *save*, the game is written there after every action that changed it and
    when the loop ends (quit, last window closed, Ctrl-C, SIGTERM). A quit or close that leaves no person
    playing suspends the game rather than forfeiting it: the file keeps the state before that defeat, so that
    ``motti FILE`` resumes it. The ``s`` key (and the console's ``s``) saves to *save*, or without it to
    :func:`motti.savegame.default_path`, and says where on the legend band.
    """

    def __init__(self, game: Game, inbox: Inbox, windows: dict[str, tuple[Window, Seat]], *,
                 computer: Collection[int] = (), rng: random.Random | None = None, status: str | None = None,
                 console: Any = None, console_players: Collection[int] = (),
                 computer_delay: float = COMPUTER_DELAY_S, save: str | None = None) -> None:
        self.game = game
        self.inbox = inbox
        self.computer = frozenset(computer)
        self.rng = rng if rng is not None else random.Random()
        self.status = status
        self.console = console
        self.console_players = tuple(p for p in console_players if p not in self.computer)
        self.computer_delay = computer_delay
        self.message: str | None = None
        self.computer_pending = False
        self.status_failed = False
        self.save = save
        self.save_failed = False
        self.save_suspended = False   # the save holds the state before a quit that ended the session
        self.views: dict[str, _View] = {
            source: _View(window, tuple(seat.players), tuple(p for p in seat.players if p not in computer))
            for source, (window, seat) in windows.items()
        }

    # ---- the loop ------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Play until no window (and no console) is left; return the exit status 0. Ctrl-C propagates
        (KeyboardInterrupt) after every window is closed; SIGTERM (in the main thread) ends the loop the same
        way with SystemExit(143). With ``--save`` the game is saved on the way out."""
        previous = _exit_on_sigterm()
        try:
            self.refresh()
            self.write_status()
            self._schedule_computer()
            while self.views or self.console is not None:
                event = self.inbox.get(POLL_S)
                if event is not None:
                    self.handle(event)
        finally:
            self.close_all()
            if not self.save_suspended:
                self.write_save()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        return 0

    def close_all(self) -> None:
        """Close every window and the console."""
        for state in self.views.values():
            state.window.close()
        self.views.clear()
        if self.console is not None:
            self.console.close()
            self.console = None

    def handle(self, event: object) -> None:
        """React to one inbox event."""
        if isinstance(event, Click):
            self._click(event)
        elif isinstance(event, Key):
            self._key(event)
        elif isinstance(event, Resize):
            if event.source in self.views:
                self.refresh()
                self.write_status()
        elif isinstance(event, Closed | DisplayLost):
            self._lost(event.source, "closed")
        elif isinstance(event, Timer):
            if event.name == COMPUTER_TIMER:
                self.computer_pending = False
                self._computer_move()
        elif isinstance(event, Command):
            self._command(event)

    # ---- people --------------------------------------------------------------------------------------------
    def _in_turn(self, humans: Collection[int]) -> bool:
        return self.game.winner is None and self.game.current_player in humans

    def _click(self, click: Click) -> None:
        state = self.views.get(click.source)
        if state is None or state.frame is None or not self._in_turn(state.humans):
            return
        size = state.frame.get_size()
        if click.button == 1:
            box = view.toolbar_box_at(click.x, click.y, size)
            if box is not None:
                if box < len(view.TOOLBAR_ACTIONS):
                    self._act(lambda: self.game.choose(view.TOOLBAR_ACTIONS[box]))
                return
            cell = view.cell_at(click.x, click.y, size, self.game.board.width, self.game.board.height)
            if cell is not None:
                self._act(lambda: self.game.toggle_cross(*cell))
        elif click.button == 2:
            self._act(self.game.cycle_action)
        elif click.button == 3:
            self._act(self.game.perform)

    def _key(self, key: Key) -> None:
        state = self.views.get(key.source)
        if state is None:
            return
        if key.name in ("s", "S"):
            self.save_now()
            return
        if key.name not in ("q", "Q"):
            return
        if self.game.winner is None and any(p in self.game.alive for p in state.humans):
            self._lost(key.source, "quit")
        else:
            state.window.close()
            del self.views[key.source]
            self.refresh()
            self.write_status()

    def _command(self, command: Command) -> None:
        if command.source != CONSOLE_SOURCE:
            return
        if command.verb == "quit":
            self._console_quit()
            return
        if command.verb == "save":
            self.save_now()
            return
        if not self._in_turn(self.console_players):
            return
        game = self.game
        self._act(lambda: apply_command(game, command))

    def _console_quit(self) -> None:
        players = [p for p in self.console_players if p in self.game.alive]
        if self.console is not None:
            self.console.close()
            self.console = None
        if players and self.game.winner is None:
            self._suspend_if_last()
            self._after(self.game.defeat(players, cause="quit"), self.game.current_player)

    def _act(self, change) -> None:
        """Apply one change to the game (a callable returning events or None); announce, redraw, save."""
        mover = self.game.current_player
        try:
            events = change() or []
        except IllegalAction as error:
            self.message = str(error)
            self.refresh()
            self.write_status()
            return
        self._after(events, mover)

    def _after(self, events: list[object], mover: int | None = None) -> None:
        said = describe(events, mover, short=True)
        if said is not None or events:
            self.message = said
        if events:
            self.write_save()
        self.refresh()
        self.write_status()
        self._schedule_computer()
        if self.game.is_terminal() and not self.game.alive:
            # Every player has left: nobody can play on, so the session ends and the observers' windows close
            # (the status file keeps the final message).
            self.close_all()
            self.write_status()

    def _lost(self, source: str, cause: str) -> None:
        """Window *source* closed or lost: defeat its players still alive (§2.7); observers defeat nobody."""
        state = self.views.pop(source, None)
        if state is None:
            return
        state.window.close()
        players = [p for p in state.humans if p in self.game.alive]
        if players and self.game.winner is None:
            self._suspend_if_last()
            self._after(self.game.defeat(players, cause=cause), self.game.current_player)
        else:
            self.refresh()
            self.write_status()

    # ---- saving --------------------------------------------------------------------------------------------
    def _suspend_if_last(self) -> None:
        """Before a quit/close defeat: if no person is left playing afterwards, save the game as it is now
        and keep that save (the session ends; ``motti FILE`` resumes it)."""
        people = any(state.humans for state in self.views.values())
        if self.console is not None and self.console_players:
            people = True
        if not people and self.save is not None and not self.save_suspended:
            self.write_save()
            self.save_suspended = True

    def write_save(self) -> None:
        """Write the game to the ``--save`` file atomically (no-op without one, or once suspended)."""
        if self.save is None or self.save_suspended:
            return
        try:
            savegame.save_game(self.game, self.save)
        except OSError as error:
            # Shown on the legend band of every window (and kept on stderr once): the game is not being saved.
            failed = f"cannot save to {self.save}: {error.strerror or error}"
            self.message = failed if self.message is None else f"{self.message}; {failed}"
            if not self.save_failed:
                print(f"motti: --save {self.save}: {error.strerror or error}", file=sys.stderr)
            self.save_failed = True

    def save_now(self) -> None:
        """The ``s`` key: save to the ``--save`` file or the default save path, and say where (or why not)."""
        target = self.save if self.save is not None else savegame.default_path()
        try:
            path = savegame.save_game(self.game, self.save)
        except OSError as error:
            self.message = f"cannot save to {target}: {error.strerror or error}"
        else:
            self.message = f"saved to {path}"
        self.refresh()
        self.write_status()

    # ---- computer players ----------------------------------------------------------------------------------
    def _schedule_computer(self) -> None:
        game = self.game
        if game.winner is None and game.current_player in self.computer and not self.computer_pending:
            self.computer_pending = True
            self.inbox.call_later(self.computer_delay, COMPUTER_TIMER)

    def _computer_move(self) -> None:
        from motti import ai

        game = self.game
        if game.winner is not None or game.current_player not in self.computer:
            return
        mover = game.current_player
        action = ai.choose_action(game, self.rng)
        self._after(game.apply(action), mover)

    # ---- drawing and status --------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring every window (and the console) up to date: the board is rendered once per distinct window
        size (the windows of the player in turn get a copy with their own legend), and each window gets only
        the rectangles that changed since its last frame."""
        game = self.game
        width, height = game.board.width, game.board.height
        rendered: dict[tuple[Any, ...], pygame.Surface] = {}
        for state in self.views.values():
            size = tuple(state.window.size)
            in_turn = view.viewer_in_turn(game, state.players)
            surface = rendered.get((size, in_turn))
            if surface is None:
                base = rendered.get((size, False))
                if base is None:
                    base = rendered[(size, False)] = view.render(game, size, None, self.message)
                surface = base
                if in_turn:
                    surface = rendered[(size, True)] = base.copy()
                    view.draw_legend(surface, game, state.players, self.message)
            rects = view.dirty_rects(state.frame, surface, width, height)
            if rects is None:
                state.window.present(surface)
            elif rects:
                state.window.present(surface, rects)
            state.frame = surface
        if self.console is not None:
            self.console.show(game, message=self.message)

    def status_data(self) -> dict[str, Any]:
        """The ``--status`` JSON of spec §6 as a dict (motti/status.py)."""
        board = self.game.board
        windows = []
        for source, state in self.views.items():
            size = tuple(state.frame.get_size()) if state.frame is not None else tuple(state.window.size)
            x0, y0, cell = view.layout(size[0], size[1], board.width, board.height)
            windows.append({"source": source, "display": state.window.display, "players": list(state.players),
                            "window_id": getattr(state.window, "window_id", None), "size": list(size),
                            "x0": x0, "y0": y0, "c": cell})
        return status_json.status_data(self.game, message=self.message, windows=windows,
                                  console=self.console_players if self.console is not None else None)

    def write_status(self) -> None:
        """Rewrite the ``--status`` file atomically (no-op without one)."""
        if self.status is None:
            return
        try:
            status_json.write_status(self.status, self.status_data())
        except OSError as error:
            if not self.status_failed:
                print(f"motti: --status {self.status}: {error.strerror or error}", file=sys.stderr)
            self.status_failed = True


def _exit_on_sigterm() -> Any:
    """In the main thread, turn SIGTERM into SystemExit(143), so that windows close and the game is saved on
    the way out; returns the previous handler (None when not in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def leave(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    return signal.signal(signal.SIGTERM, leave)
