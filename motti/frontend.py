"""motti's game loop: X windows on any number of displays, an optional curses console, computer players.

Spec/motti.md §5 (player strings, observers, only the player in turn acts), §6 (mouse, drawing, status file)
and §2.7 (a closed window defeats that connection's players), plus saved games (motti/savegame.py:
``--save`` keeps a file up to date after every action, ``s`` saves on demand). One :class:`common.loop.Inbox`
receives every window's events (each window's connection lives in its own I/O thread, common/x11.py), the
console's commands and the computer players' timers; this module is its only consumer and the only code that
changes the game (a :class:`motti.compose.Composer`: the rules' game and the selection being composed).
"""

from __future__ import annotations

import random
import signal
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from common.loop import Click, Closed, Command, DisplayLost, Inbox, Key, Resize, Timer
from common.save import Sink
from motti import explain, savegame, view
from motti import status as status_json
from motti.announce import Chronicle, end_text, quit_question, who
from motti.commands import apply_command
from motti.compose import Composer
from motti.rules import Action, IllegalAction
from motti.thinking import SOURCE as THINKER
from motti.thinking import Thinker
from motti.viewport import Geometry, Viewport

if TYPE_CHECKING:
    from common.displays import Seat
    from common.x11 import Window
    from motti.mapfile import SavedTurn

#: How long each action of a computer player stays on screen before its next one (seconds; ``--delay``).
COMPUTER_DELAY_S = 0.4
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


def open_windows(seats: Sequence[Seat], game: Composer, inbox: Inbox, *, timeout: float = 5.0,
                 computer: Collection[int] = ()) -> dict[str, tuple[Window, Seat]]:
    """Open one window per seat that has a display, all or nothing: on the first DisplayError the windows
    opened so far are closed and the error propagates. Titles name the *computer* players
    (:func:`seat_title`). Returns ``{source: (window, seat)}``, sources ``seat0``, ``seat1``… by the seat's
    index.

    Raises common.x11.DisplayError (its message names the display).
    """
    from common.x11 import open_windows as open_all

    indexed = [(f"seat{index}", seat, seat.display) for index, seat in enumerate(seats)
               if seat.display is not None]
    windows = open_all([(source, display, seat_title(seat.players, computer))
                         for source, seat, display in indexed],
                       size=view.default_size(game.board.width, game.board.height), inbox=inbox,
                       timeout=timeout)
    return {source: (windows[source], seat) for source, seat, _ in indexed}


@dataclass
class _View:
    """One open window: who sits at it and the frame it shows now."""

    window: Window
    players: tuple[int, ...]      # every player of the seat (shown as "yours")
    humans: tuple[int, ...]       # the seat's players that people play (not --computer ones)
    viewport: Viewport            # the window's zoom and pan (spec §6)
    frame: pygame.Surface | None = None
    note: str | None = None       # this window's own line on the legend band (why a click did nothing)
    confirming: bool = False      # "Quit and give up ...? (y/n)" is asked
    history: bool = False         # the ``m`` panel (the last announcements) is shown
    help: bool = False            # the help of ``?``/F1 is shown
    drawn_history: bool = False   # whether the frame last presented had a panel (``m`` or the help)


class Frontend:
    """Runs one game: the one controller of every window, the console and the computer players (spec §5–§7).

    It reacts to window events, console commands and computer timers until no window and no console is left,
    or until every player has left (quit or closed their windows): then the observers' windows close too. A
    game played on the terminal alone runs here as well, with no window.

    *windows* maps each source to its open window and seat (see :func:`open_windows`); *console* is the
    :class:`motti.console.Console` of the curses players *console_players* (or None); *computer* holds the
    players that :mod:`motti.ai` plays (a mapping player -> level, or a collection of players at ``medium``),
    thinking in a worker thread (motti/thinking.py) so that the windows keep redrawing and a quit is handled
    at once, with *rng* for its choices, each of their actions staying on screen
    *computer_delay* seconds before the next (``--delay``; the windows stay responsive meanwhile); *status*
    is the ``--status`` file or None; *save* is the ``--save`` file or None; *last_turn* the last turn a
    resumed game's save holds (its marks are shown at once).

    Every action is announced once, in the same words on every window and the console
    (:class:`motti.announce.Chronicle`), and the previous turn's cells stay marked until the next turn ends
    (spec §6 "The last turn"; the status file's ``last_turn``).

    Saving (motti/savegame.py): with *save*, the game is written there after every action that changed it and
    when the loop ends (quit, last window closed, Ctrl-C, SIGTERM). A quit or close that leaves no person
    playing suspends the game rather than forfeiting it, unless the game plays on in a window still open (an
    observer's, watching the computer players): the file keeps the state before that defeat, so that
    ``motti FILE`` resumes it. The ``s`` key (and the console's ``s``) saves to *save*, or without it to
    :func:`motti.savegame.default_path`, and says where.

    Window keys: ``q`` asks :func:`motti.announce.quit_question` on the legend band and ``y`` gives the
    window's players up (an observer's window, or one whose players are out, closes at once); ``m`` shows the
    turns of the resets and the last announcements over the board until the next key or click, ``?`` or F1
    the help (motti.explain.help_lines); ``t`` a tip (:meth:`give_tip`); ``s`` saves.
    """

    def __init__(self, game: Composer, inbox: Inbox, windows: dict[str, tuple[Window, Seat]], *,
                 computer: Collection[int] = (), rng: random.Random | None = None, status: str | None = None,
                 console: Any = None, console_players: Collection[int] = (),
                 computer_delay: float = COMPUTER_DELAY_S, save: str | None = None,
                 last_turn: SavedTurn | None = None) -> None:
        self.game = game
        self.inbox = inbox
        self.computer = frozenset(computer)
        # Saves name the computer players with their levels (``computer K LEVEL``, §3.2).
        self.levels = savegame.computer_levels(computer)
        self.rng = rng if rng is not None else random.Random()
        self.thinker = Thinker(inbox, self.levels, self.rng)
        self.status = status
        self.console = console
        self.console_players = tuple(p for p in console_players if p not in self.computer)
        self.computer_delay = computer_delay
        self.chronicle = Chronicle(game.current_player, game.attacks_left,
                                   last_turn=explain.restored_turn(last_turn, game.board))
        self.tip: explain.Tip | None = None      # the tip shown, until the game changes
        self.console_note: str | None = None     # the console's own line (its tip), as a window's note
        self.left_last = False                   # the last person left by closing a window: say so
        # A game decided before its first move (§2.9: nobody can reach anybody) says so at once.
        self.message: str | None = None if game.end is None else end_text(game.end)
        if self.message is not None:
            self.chronicle.note(self.message)
        self.computer_pending = False
        self.save = save
        # One failure policy for both files (common.save.Sink): said once on the legend band or the console's
        # message line (and on stderr unless the console is that stderr), tried again at the next chance.
        self.saves = Sink(save, "the save", "motti", show=self._show_failure, echo=console is None)
        self.status_file = Sink(status, "--status", "motti", show=self._show_failure, echo=console is None)
        self.save_suspended = False   # the save holds the state before a quit that ended the session
        self.told_unfinished = False  # the console's quit has printed that the game stops unfinished
        self.views: dict[str, _View] = {
            source: _View(window, tuple(seat.players), tuple(p for p in seat.players if p not in computer),
                          Viewport(focus=game.board.capitals.get(seat.players[0]) if seat.players else None))
            for source, (window, seat) in windows.items()
        }

    # ---- the loop ------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Play until no window (and no console) is left; return the exit status 0. Ctrl-C propagates
        (KeyboardInterrupt) after every window is closed; SIGTERM (in the main thread) ends the loop the same
        way with SystemExit(143); a console whose thread failed raises RuntimeError. With ``--save`` the game
        is saved on the way out."""
        previous = _exit_on_sigterm()
        try:
            self.refresh()
            self.write_status()
            self._schedule_computer()
            while self.views or self.console is not None:
                event = self.inbox.get(POLL_S)
                if event is not None:
                    self.handle(event)
            self._end_unfinished()
        finally:
            self.close_all()
            if not self.save_suspended:
                self.write_save()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        return 0

    def _end_unfinished(self) -> None:
        """The last window and console are gone while the game goes on (computer players are left): the
        session ends here, and the status file's message says so after the last announcement, as does a line
        on stdout (unless the console's quit has said it there)."""
        if self.game.is_terminal():
            if self.left_last and not self.save_suspended and not self.told_unfinished:
                print(f"motti: {self.message}", flush=True)
            if self.save_suspended:
                # A last quit ended the game: the status says, as the console does, that the game before it
                # can be resumed.
                said = self._saved_before_quit()
                if not (self.message or "").endswith(said):
                    self.message = f"{self.message}; {said}" if self.message else said
                    self.write_status()
            return
        self.write_save()
        said = self._unfinished()
        self.message = f"{self.message} — {said}" if self.message else said
        self.write_status()
        if not self.told_unfinished:
            print(f"motti: {self.message}", flush=True)

    def _unfinished(self) -> str:
        said = "nobody is left at a window or the terminal: the game stops unfinished"
        if self.save_suspended:
            return f"{said}; {self._saved_before_quit()}"
        if self.save is not None:
            return f"{said}; it is saved in {self.save} (motti {self.save} resumes it)"
        return said

    def _saved_before_quit(self) -> str:
        return f"the game before the quit is saved in {self.save} (motti {self.save} resumes it)"

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
        elif isinstance(event, Command) and event.source == THINKER:
            self._computer_answer(event)
        elif isinstance(event, Command):
            self._command(event)

    # ---- people --------------------------------------------------------------------------------------------
    def _in_turn(self, humans: Collection[int]) -> bool:
        return not self.game.is_terminal() and self.game.current_player in humans

    def _why_not(self, humans: Collection[int]) -> str:
        """Why input at a seat of *humans* does nothing now."""
        game = self.game
        if game.is_terminal():
            return "the game is over"
        if not any(p in game.alive for p in humans):
            return "you are out of the game: watching"
        player = game.current_player
        if player in self.computer:
            return f"not your turn: {who(player)} (computer) is thinking"
        return f"not your turn: waiting for {who(player)}"

    def _geometry(self, state: _View, size: tuple[int, int] | None = None) -> Geometry:
        """Where window *state* shows the board at *size* (default: its current size)."""
        board = self.game.board
        return state.viewport.geometry(size or state.window.size, board.width, board.height)

    def _view_control(self, state: _View, name: str, pointer: tuple[int, int] | None) -> bool:
        """Zoom and pan (spec §6), in any window: wheel or ``+``/``-`` zoom about *pointer*, arrows pan a
        quarter window, ``Home`` shows the whole board. Returns True when *name* was one of these."""
        board = self.game.board
        size = state.frame.get_size() if state.frame is not None else state.window.size
        viewport = state.viewport
        if name in _ZOOM_KEYS:
            viewport.zoom(size, board.width, board.height, _ZOOM_KEYS[name], pointer)
        elif name in _PAN_KEYS:
            viewport.pan(size, board.width, board.height, *_PAN_KEYS[name])
        elif name in ("Home", "KP_Home"):
            viewport.home()
        else:
            return False
        self.refresh()
        self.write_status()
        return True

    def _click(self, click: Click) -> None:
        state = self.views.get(click.source)
        if state is None or state.frame is None:
            return
        if state.confirming:
            self._cancel_question(state)
            return
        if state.history or state.help:
            self._show_history(state, False)
            return
        if click.button in _WHEEL:
            self._view_control(state, _WHEEL[click.button], (click.x, click.y))
            return
        size = state.frame.get_size()
        if not self._in_turn(state.humans):
            on_board = self._geometry(state, size).cell_at(click.x, click.y) is not None
            if state.humans and (on_board or view.toolbar_box_at(click.x, click.y, size) is not None):
                state.note = self._why_not(state.humans)
                self.refresh()
                self.write_status()
            return
        state.note = None
        if click.button == 1:
            box = view.toolbar_box_at(click.x, click.y, size)
            if box is not None:
                if box < len(view.TOOLBAR_ACTIONS):
                    self._act(lambda: self.game.choose(view.TOOLBAR_ACTIONS[box]))
                return
            cell = self._geometry(state, size).cell_at(click.x, click.y)
            if cell is not None:
                self._act(lambda: self.game.toggle_cross(*cell))
        elif click.button == 2:
            self._act(self.game.cycle_action)
        elif click.button == 3:
            self._act(self.game.perform, self.game.selected.value)

    def _key(self, key: Key) -> None:
        state = self.views.get(key.source)
        if state is None:
            return
        if state.confirming:
            if key.name in ("y", "Y"):
                self._lost(key.source, "quit")
            elif key.name not in _MODIFIERS:
                self._cancel_question(state)
            return
        if state.history or state.help:
            if key.name not in _MODIFIERS:
                self._show_history(state, False)
            return
        pointer = None if key.x is None or key.y is None else (key.x, key.y)
        if self._view_control(state, key.name, pointer):
            return
        if key.name in ("m", "M"):
            self._show_history(state, True)
            return
        if key.name in ("question", "F1"):
            self._show_history(state, True, panel="help")
            return
        if key.name in ("t", "T"):
            self.give_tip(state)
            return
        if key.name in ("s", "S"):
            self.save_now()
            return
        if key.name not in ("q", "Q"):
            return
        if not self.game.is_terminal() and any(p in self.game.alive for p in state.humans):
            state.confirming = True
            state.note = quit_question(p for p in state.humans if p in self.game.alive)
            self.refresh()
            self.write_status()
        else:
            state.window.close()
            del self.views[key.source]
            self.refresh()
            self.write_status()

    def _show_history(self, state: _View, shown: bool, panel: str = "history") -> None:
        """Show (*shown*) the ``m`` panel or, with *panel* ``"help"``, the help; hide either."""
        state.history = shown and panel == "history"
        state.help = shown and panel == "help"
        self.refresh()
        self.write_status()

    def give_tip(self, state: _View | None) -> None:
        """The ``t`` key of window *state* (None: the console): the medium player's choice for the player in
        turn shown as that seat's crosses, not performed, with one line why on that seat; the others are told
        ``P1 asked for a tip`` (motti.explain). The game does not change."""
        humans = self.console_players if state is None else state.humans
        if not self._in_turn(humans):
            why = self._why_not(humans)
            if state is None:
                if self.console is not None:
                    self.console.refuse(why)
            else:
                state.note = why
                self.refresh()
                self.write_status()
            return
        tip = explain.tip_for(self.game.game)
        self.game.propose(Action.ATTACK if tip.action == "pass" else Action(tip.action), tip.cells)
        self.tip = tip
        self.message = explain.tip_asked(tip.player)
        self.chronicle.note(self.message)
        if state is None:
            self.console_note = tip.text()
        else:
            state.note = tip.text()
        self.refresh()
        self.write_status()

    def _cancel_question(self, state: _View) -> None:
        state.confirming = False
        state.note = None
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
        if command.verb == "tip":
            self.give_tip(None)
            return
        if not self._in_turn(self.console_players):
            if self.console is not None:
                self.console.refuse(self._why_not(self.console_players))
            return
        game = self.game
        action = None
        if command.verb == "perform":
            action = command.args[0] if command.args else game.selected.value
        self._act(lambda: apply_command(game, command), action)

    def _console_quit(self) -> None:
        console = self.console
        players = [p for p in self.console_players if p in self.game.alive]
        if console is not None:
            console.close()
            self.console = None
            if console.error is not None:
                raise RuntimeError(f"terminal console failed: {console.error}")
        if not players or self.game.is_terminal():
            return
        self._suspend_if_last(players)
        said = self._after(self.game.defeat(players, cause="quit"))
        # The terminal is no longer the console's: say there what happened, and where the game goes on.
        if self.views and not self.game.is_terminal():
            said = f"{said}; the game goes on in the windows"
        elif not self.game.is_terminal():
            said = f"{said} — {self._unfinished()}"
            self.told_unfinished = True
        elif self.save_suspended:
            said = f"{said}; {self._saved_before_quit()}"
        print(f"motti: {said}", flush=True)

    def _act(self, change: Callable[[], Any], action: str | None = None) -> None:
        """Apply one change to the game (a callable returning events or None; *action* names what is
        performed, for the announcement); announce, redraw, save."""
        try:
            events = change() or []
        except (IllegalAction, ValueError) as error:
            self.message = str(error)
            if self.console is not None:
                self.console.refuse(str(error))
            self.refresh()
            self.write_status()
            return
        self._after(events, action)

    def _after(self, events: Sequence[object], action: str | None = None) -> str | None:
        """Announce *events* (the result of *action*), save, redraw, write the status, schedule the computer.
        Returns the announcement."""
        if events and self.thinker.busy:
            # The game changed while a computer player was thinking (a quit, a closed window): think again.
            self.thinker.cancel()
            self.computer_pending = False
        said = self.chronicle.record(events, action)
        if events:
            self.tip = None
        if said is not None:
            self.message = said
            self.console_note = None
            for state in self.views.values():
                if not state.confirming:
                    state.note = None
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
        return said

    def _lost(self, source: str, cause: str) -> None:
        """Window *source* closed or lost: defeat its players still alive (§2.7); observers defeat nobody."""
        state = self.views.pop(source, None)
        if state is None:
            return
        state.window.close()
        players = [p for p in state.humans if p in self.game.alive]
        if players and not self.game.is_terminal():
            if cause == "closed" and self.save is not None and not self.views and self.console is None:
                # The last person closed the last window: the game is suspended, not given up; the save
                # holds it as it is, and the session's end says so (one message, on the terminal too).
                self.message = explain.left_text(players)
                self.chronicle.note(self.message)
                self.write_save()
                self.write_status()
                return
            self._suspend_if_last(players)
            self._after(self.game.defeat(players, cause=cause))
            self.left_last = not self.views and self.console is None
        else:
            self.refresh()
            self.write_status()

    # ---- saving --------------------------------------------------------------------------------------------
    def _suspend_if_last(self, leaving: Collection[int]) -> None:
        """Before a quit/close defeat of *leaving* (their window or the console already gone): if no person
        is left playing afterwards and the game does not play on in a window still open (computer players
        watched by an observer), save the game as it is now and keep that save (the session ends; ``motti
        FILE`` resumes it). A game that plays on is saved as usual, the defeat included."""
        people = any(state.humans for state in self.views.values())
        if self.console is not None and self.console_players:
            people = True
        watched = bool(self.views) or self.console is not None
        if watched and len([p for p in self.game.alive if p not in leaving]) >= 2:
            return
        if not people and self.save is not None and not self.save_suspended:
            self.write_save()
            self.save_suspended = True

    def write_save(self) -> None:
        """Write the game to the ``--save`` file atomically (no-op without one, or once suspended)."""
        if not self.save_suspended:
            self.saves.write(lambda path: savegame.save_game(self.game, path, self.levels,
                                                             last_turn=self.chronicle.last_turn))

    def _show_failure(self, line: str) -> None:
        """A save or status file that could not be written: on every window and the console."""
        self.message = line if self.message is None else f"{self.message}; {line}"

    def save_now(self) -> None:
        """The ``s`` key: save to the ``--save`` file or the default save path, and say where (or why not)."""
        target = self.save if self.save is not None else savegame.default_path()
        if self.save_suspended:
            # The last person's quit ended the game; an observer's s keeps the game before it to resume.
            self.message = self._saved_before_quit()
            self.chronicle.note(self.message)
            self.refresh()
            self.write_status()
            return
        try:
            path = savegame.save_game(self.game, self.save, self.levels, last_turn=self.chronicle.last_turn)
        except OSError as error:
            self.message = f"cannot save to {target}: {error.strerror or error}"
        else:
            self.message = f"saved to {path}"
        self.chronicle.note(self.message)
        self.refresh()
        self.write_status()

    # ---- computer players ----------------------------------------------------------------------------------
    def _schedule_computer(self) -> None:
        game = self.game
        if not game.is_terminal() and game.current_player in self.computer and not self.computer_pending:
            self.computer_pending = True
            self.inbox.call_later(self.computer_delay, COMPUTER_TIMER)

    def _computer_move(self) -> None:
        """The computer's timer: start thinking in a worker thread (motti/thinking.py); the loop goes on."""
        game = self.game
        if game.is_terminal() or game.current_player not in self.computer:
            return
        self.computer_pending = True
        self.thinker.start(game.game)

    def _computer_answer(self, answer: Command) -> None:
        action = self.thinker.take(answer)
        if action is None:
            return
        self.computer_pending = False
        self._after(self.game.apply(action), str(action[0]))

    # ---- drawing and status --------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring every window (and the console) up to date: the board is rendered once per distinct window
        size, each window gets a copy with its own legend band when its text differs from an observer's
        (your move, waiting, its note or question), and only the rectangles that changed since its last
        frame."""
        game = self.game
        last_turn = self.chronicle.last_turn
        boards: dict[Geometry, pygame.Surface] = {}
        rendered: dict[tuple[Any, ...], pygame.Surface] = {}
        for state in self.views.values():
            size = state.window.size
            geometry = self._geometry(state, size)
            viewer = state.humans or None   # a computer player at the window is not "you"
            key = (geometry, view.turn_text(game, viewer, self.computer), state.note, state.history,
                   state.help)
            surface = rendered.get(key)
            if surface is None:
                base = boards.get(geometry)
                if base is None:
                    base = boards[geometry] = view.render(game, size, None, self.message,
                                                          computer=self.computer, last_turn=last_turn,
                                                          geometry=geometry)
                surface = rendered[key] = base.copy()
                view.draw_legend(surface, game, viewer, self.message, computer=self.computer, note=state.note)
                if state.history:
                    view.draw_history(surface, self.chronicle.lines, resets=game.resets)
                if state.help:
                    view.draw_help(surface)
            rects = view.dirty_rects(state.frame, surface, geometry)
            panel = state.history or state.help
            if panel or state.drawn_history:
                rects = None   # the panel covers the whole board area: present it (and its end) whole
            state.drawn_history = panel
            if rects is None:
                state.window.present(surface)
            elif rects:
                state.window.present(surface, rects)
            state.frame = surface
        if self.console is not None:
            self.console.show(game, message=self.console_note or self.message, last_turn=last_turn,
                              history=tuple(self.chronicle.lines), computer=self.computer)

    def status_data(self) -> dict[str, Any]:
        """The ``--status`` JSON of spec §6 as a dict (motti/status.py)."""
        windows = []
        for source, state in self.views.items():
            size = state.frame.get_size() if state.frame is not None else state.window.size
            windows.append({"source": source, "display": state.window.display, "players": list(state.players),
                            "window_id": getattr(state.window, "window_id", None), "size": list(size),
                            **self._geometry(state, size).as_status(), "note": state.note,
                            "legend": view.legend_text(self.game, state.humans or None, self.message,
                                                       computer=self.computer, note=state.note),
                            "history": state.history, "help": state.help})
        return status_json.status_data(self.game, message=self.message, windows=windows,
                                       console=self.console_players if self.console is not None else None,
                                       last_turn=self.chronicle.last_turn, tip=self.tip)

    def write_status(self) -> None:
        """Rewrite the ``--status`` file atomically (no-op without one)."""
        self.status_file.write(lambda path: status_json.write_status(path, self.status_data()))


#: Zoom keys and mouse buttons (spec §6): +1 zooms in, -1 out; arrows pan (quarter windows right, down).
_ZOOM_KEYS = {"plus": 1, "KP_Add": 1, "equal": 1, "minus": -1, "KP_Subtract": -1}
_WHEEL = {4: "plus", 5: "minus"}
_PAN_KEYS = {"Left": (-1, 0), "Right": (1, 0), "Up": (0, -1), "Down": (0, 1),
             "KP_Left": (-1, 0), "KP_Right": (1, 0), "KP_Up": (0, -1), "KP_Down": (0, 1)}

#: Key names that alone do not answer the quit question (Shift for a capital Y, and the like).
_MODIFIERS = frozenset({"Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Caps_Lock",
                        "Meta_L", "Meta_R", "Super_L", "Super_R", "ISO_Level3_Shift"})


def _exit_on_sigterm() -> Any:
    """In the main thread, turn SIGTERM into SystemExit(143), so that windows close and the game is saved on
    the way out; returns the previous handler (None when not in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def leave(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    return signal.signal(signal.SIGTERM, leave)
