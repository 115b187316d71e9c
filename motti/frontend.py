"""motti's X windows on any number of displays: drawing and input over the one turn flow (motti/session.py).

Spec/motti.md §5 (player strings, observers, only the player in turn acts), §6 (mouse, drawing, zoom and pan,
the status file's ``windows``) and §2.7 (a closed window defeats that connection's players). Each window's
connection lives in its own I/O thread (common/x11.py) and posts its events to the session's one
:class:`common.loop.Inbox`; :class:`Frontend` turns them into the session's calls and draws every window from
the session's state. Whose turn it is, the computer players, saving, the status file, the announcements and
what a give-up does are the session's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from common.loop import Click, Closed, Command, DisplayLost, Inbox, Key, Resize
from motti import explain, view
from motti.announce import quit_question
from motti.compose import Composer
from motti.viewport import Geometry, Viewport

if TYPE_CHECKING:
    from common.displays import Seat
    from common.x11 import Window
    from motti.session import Session


def seat_title(players: Sequence[int], computer: Collection[int] = ()) -> str:
    """The window title of a seat, naming each of its players: ``motti: player 1``, ``motti: player 1,
    player 2``, ``motti: player 1, player 2 (computer)`` (the computer plays 2) or ``motti: observer``."""
    if not players:
        return "motti: observer"
    return "motti: " + ", ".join(f"player {p}" + (" (computer)" if p in computer else "") for p in players)


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
    """The X windows of one game (spec §5–§6): drawing and input only, over a :class:`motti.session.Session`
    (which holds the turn flow, the computer players, saving and the status file).

    *windows* maps each source to its open window and seat (see :func:`open_windows`); joining the session,
    each window's people (its seat's players that are not computer players) may act there when in turn.
    Every action is announced once, in the same words on every window and the console
    (the session's :class:`motti.announce.Chronicle`), and the previous turn's cells stay marked until the
    next turn ends (spec §6 "The last turn").

    Window keys: ``q`` asks :func:`motti.announce.quit_question` on the legend band and ``y`` gives the
    window's players up (an observer's window, or one whose players are out, closes at once); ``m`` shows the
    turns of the resets and the last announcements over the board until the next key or click, ``?`` or F1
    the help (motti.explain.help_lines); ``t`` a tip (:meth:`Session.give_tip`; a second ``t`` puts it away);
    ``p`` passes (ends the turn at once); ``s`` saves (:meth:`Session.save_now`). Every step of composing an
    action goes through :meth:`Session.command`, as the console's do.
    Closing a window, or losing its display, defeats its players still alive (§2.7, :meth:`Session.leave`).
    """

    uses_terminal = False

    def __init__(self, session: Session, windows: dict[str, tuple[Window, Seat]]) -> None:
        self.session = session
        self.game = session.game
        board = self.game.board
        self.views: dict[str, _View] = {
            source: _View(window, tuple(seat.players),
                          tuple(p for p in seat.players if p not in session.computer),
                          Viewport(focus=board.capitals.get(seat.players[0]) if seat.players else None))
            for source, (window, seat) in windows.items()
        }
        self._said = session.said
        session.attach(self, {source: state.players for source, state in self.views.items()})

    def close(self) -> None:
        """Close every window."""
        for state in self.views.values():
            state.window.close()
        self.views.clear()

    def handle(self, event: object) -> bool:
        """React to one of the windows' events (a click, a key, a resize, a close or a lost display)."""
        if not isinstance(event, Click | Key | Resize | Closed | DisplayLost):
            return False
        if event.source not in self.views:
            return False
        if isinstance(event, Click):
            self._click(event)
        elif isinstance(event, Key):
            self._key(event)
        elif isinstance(event, Resize):
            self.session.changed()
        else:
            self._lost(event.source, "closed")
        return True

    def refuse(self, source: str, text: str) -> None:
        """A window's refused input shows as the session's message (set already) on the legend band."""

    # ---- people --------------------------------------------------------------------------------------------
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
        self.session.changed()
        return True

    def _click(self, click: Click) -> None:
        state = self.views[click.source]
        if state.frame is None:
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
        session = self.session
        if not session.in_turn(state.humans):
            on_board = self._geometry(state, size).cell_at(click.x, click.y) is not None
            if on_board or view.toolbar_box_at(click.x, click.y, size) is not None:
                state.note = session.why_not(state.humans)
                session.changed()
            return
        state.note = None
        source = click.source
        if click.button == 1:
            box = view.toolbar_box_at(click.x, click.y, size)
            if box is not None:
                if box < len(view.TOOLBAR_ACTIONS):
                    session.command(source, Command(source, "select", (view.TOOLBAR_ACTIONS[box].value,)))
                return
            cell = self._geometry(state, size).cell_at(click.x, click.y)
            if cell is not None:
                session.command(source, Command(source, "toggle", (cell,)))
        elif click.button == 2:
            session.command(source, Command(source, "cycle"))
        elif click.button == 3:
            session.command(source, Command(source, "perform"))

    def _key(self, key: Key) -> None:
        state = self.views[key.source]
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
            why = self.session.give_tip(key.source)
            if why is not None:
                state.note = why
                self.session.changed()
            return
        if key.name in ("s", "S"):
            self.session.save_now()
            return
        if key.name == explain.PASS_KEY:
            self._pass(state, key.source)
            return
        if key.name not in ("q", "Q"):
            return
        game = self.game
        if not game.is_terminal() and any(p in game.alive for p in state.humans):
            state.confirming = True
            state.note = quit_question(p for p in state.humans if p in game.alive)
            self.session.changed()
        else:
            self._lost(key.source, "quit")

    def _pass(self, state: _View, source: str) -> None:
        """The pass key: end the turn at once (``Game.pass_turn``), or say why not."""
        session = self.session
        if not session.in_turn(state.humans):
            state.note = session.why_not(state.humans)
            session.changed()
            return
        state.note = None
        session.command(source, Command(source, "pass"))

    def _show_history(self, state: _View, shown: bool, panel: str = "history") -> None:
        """Show (*shown*) the ``m`` panel or, with *panel* ``"help"``, the help; hide either."""
        state.history = shown and panel == "history"
        state.help = shown and panel == "help"
        self.session.changed()

    def _cancel_question(self, state: _View) -> None:
        state.confirming = False
        state.note = None
        self.session.changed()

    def _lost(self, source: str, cause: str) -> None:
        """Window *source* closed, lost or given up: it closes, and the session defeats its players (§2.7)."""
        state = self.views.pop(source)
        state.window.close()
        self.session.leave(source, cause)

    # ---- drawing and status --------------------------------------------------------------------------------
    def draw(self) -> None:
        """Bring every window up to date: the board is rendered once per distinct window size, each window
        gets a copy with its own legend band when its text differs from an observer's (your move, waiting,
        its note or question), and only the rectangles that changed since its last frame. A new announcement
        takes each window's note off (but not a question asked)."""
        session = self.session
        game = self.game
        if session.said != self._said:
            self._said = session.said
            for state in self.views.values():
                if not state.confirming:
                    state.note = None
        last_turn = session.chronicle.last_turn
        computer = session.computer
        boards: dict[Geometry, pygame.Surface] = {}
        rendered: dict[tuple[Any, ...], pygame.Surface] = {}
        for source, state in self.views.items():
            size = state.window.size
            geometry = self._geometry(state, size)
            viewer = state.humans or None   # a computer player at the window is not "you"
            note = self._note(source, state)
            key = (geometry, view.turn_text(game, viewer, computer), note, state.history, state.help)
            surface = rendered.get(key)
            if surface is None:
                base = boards.get(geometry)
                if base is None:
                    base = boards[geometry] = view.render(game, size, None, session.message,
                                                          computer=computer, last_turn=last_turn,
                                                          geometry=geometry)
                surface = rendered[key] = base.copy()
                view.draw_legend(surface, game, viewer, session.message, computer=computer, note=note)
                if view.viewer_in_turn(game, viewer):   # the shared board names no pass key; here p passes
                    view.draw_info(surface, game, size, True)
                if state.history:
                    view.draw_history(surface, session.chronicle.lines, resets=game.resets)
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

    def _note(self, source: str, state: _View) -> str | None:
        """Window *source*'s own line: its question or why a click did nothing, else the tip it asked for."""
        return state.note if state.note is not None else self.session.note_for(source)

    def status_fields(self) -> dict[str, Any]:
        """The status file's ``windows`` (spec §6, motti/status.py)."""
        windows = []
        for source, state in self.views.items():
            size = state.frame.get_size() if state.frame is not None else state.window.size
            note = self._note(source, state)
            windows.append({"source": source, "display": state.window.display, "players": list(state.players),
                            "window_id": getattr(state.window, "window_id", None), "size": list(size),
                            **self._geometry(state, size).as_status(), "note": note,
                            "legend": view.legend_text(self.game, state.humans or None, self.session.message,
                                                       computer=self.session.computer, note=note),
                            "history": state.history, "help": state.help})
        return {"windows": windows}


#: Zoom keys and mouse buttons (spec §6): +1 zooms in, -1 out; arrows pan (quarter windows right, down).
_ZOOM_KEYS = {"plus": 1, "KP_Add": 1, "equal": 1, "minus": -1, "KP_Subtract": -1}
_WHEEL = {4: "plus", 5: "minus"}
_PAN_KEYS = {"Left": (-1, 0), "Right": (1, 0), "Up": (0, -1), "Down": (0, 1),
             "KP_Left": (-1, 0), "KP_Right": (1, 0), "KP_Up": (0, -1), "KP_Down": (0, 1)}

#: Key names that alone do not answer the quit question (Shift for a capital Y, and the like).
_MODIFIERS = frozenset({"Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Caps_Lock",
                        "Meta_L", "Meta_R", "Super_L", "Super_R", "ISO_Level3_Shift"})

