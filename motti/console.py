"""The curses console of motti for the players seated at the terminal (`-c`), spec/motti.md §7.

Layout, top to bottom: the status line (`Player 2 | Attack: 5 left | Crosses: 4 | [A]ttack(z)
[D]efend(x) [G]uerilla(c)`, shortened on narrow terminals down to `P2 | Att 5 | X 4 | z x c`; a terminal that
only watches ends it with its own keys, ``watching (? keys, q stops)``), the
information line (the turn with the cap of ``--max-turns``, each player's land: motti.explain), the map framed
with ``-`` and ``|`` (one character per cell, scrolled with the cursor when the map is larger than the
terminal), a one-line legend, the reset line (what stands between the game and the next global reset, in the
windows' words; below 60 columns it goes to the start of the message line instead) and a message line
(events, prompts).

Glyphs (§7): ``' '`` sea, ``p``/``P`` unoccupied/occupied land, ``o`` an open (unoccupied) capital, ``O`` a
safe (occupied) one, ``T`` a threat (an occupied cell from which an open capital can be taken,
motti.explain.threat_cells), ``x`` a cross; the owner is the colour pair, bold. The legend line names them
and the last turn's reverse video, the longest of its variants that fits. Without colours the owner digit is
shown instead, occupied cells in inverse video, capitals underlined and threats dim.

Keys: arrows or ``h j k l`` move the cursor; space toggles a cross; ``z``/``x``/``c`` perform attack, defend,
guerilla with the current crosses (an action the game refuses beeps, and the message line says why in the
windows' words, motti.compose.Composer.why_not_perform); ``a``/``d``/``g`` select an action; ``Enter``
performs the selected one; ``Tab`` cycles it; ``m`` shows the last announcements (after the turns of the
resets); ``?`` shows the rules and keys; ``t`` asks for a tip (the medium player's move as crosses; ``t``
again puts it away); ``p`` passes (ends the turn at once); ``s`` saves the game (motti/savegame.py); ``q``
asks for confirmation, then gives up the terminal's players.

The cells the last turn changed (spec §6 "The last turn") are drawn in reverse video (italic without
colours, where inverse video means occupied) until the next turn ends; ``m`` shows the last 20
announcements in full (any key returns). The message line shows the last announcement, shortened at a word
bound when it does not fit.

Threads: :class:`Console` is a renderer and a key source, nothing more: it runs its own thread, the only one
that ever calls curses. As a front end of the one turn flow (:meth:`Console.attach` to a
:class:`motti.session.Session`, also for a game on the terminal alone) it is handed snapshots through
:meth:`Console.draw` (:meth:`Console.show`), and the session's loop hands it back its own
:class:`common.loop.Command` events (source ``"console"``), which it passes on to
:meth:`motti.session.Session.command` (``q y``: :meth:`motti.session.Session.leave`). The terminal is
restored on every exit path (normal close, exception in the console thread, interpreter exit, SIGTERM and
SIGHUP through the session's loop).
"""

from __future__ import annotations

import atexit
import contextlib
import curses
import os
import sys
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from common.loop import Command, Inbox
from common.term import cursor_addressing_refused, wrap
from motti import explain
from motti.announce import HISTORY, end_text, end_title, quit_question, shorten, who
from motti.rules import Action, GameOver

if TYPE_CHECKING:
    from motti.announce import LastTurn
    from motti.compose import Composer
    from motti.session import Session

SOURCE = "console"
POLL_MS = 40
AWAIT_S = 1.0   # longest wait for the game loop to show the result of a posted command
ACTION_KEYS = {ord("z"): Action.ATTACK, ord("x"): Action.DEFEND, ord("c"): Action.GUERILLA}
SELECT_KEYS = {ord("a"): Action.ATTACK, ord("d"): Action.DEFEND, ord("g"): Action.GUERILLA}
PASS = ord(explain.PASS_KEY)
MOVES = {
    curses.KEY_UP: (0, -1), ord("k"): (0, -1),
    curses.KEY_DOWN: (0, 1), ord("j"): (0, 1),
    curses.KEY_LEFT: (-1, 0), ord("h"): (-1, 0),
    curses.KEY_RIGHT: (1, 0), ord("l"): (1, 0),
}
# Owner colours (spec §6 RGB) for 256-colour terminals, and the nearest of the 8 basic colours otherwise.
COLOURS_256 = {1: 160, 2: 34, 3: 33, 4: 220, 5: 170, 6: 44, 7: 208, 8: 211, 9: 255}
COLOURS_8 = {
    1: curses.COLOR_RED, 2: curses.COLOR_GREEN, 3: curses.COLOR_BLUE, 4: curses.COLOR_YELLOW,
    5: curses.COLOR_MAGENTA, 6: curses.COLOR_CYAN, 7: curses.COLOR_YELLOW, 8: curses.COLOR_WHITE,
    9: curses.COLOR_WHITE,
}
#: The key help of the message line; 79 characters at most, so that it fits an 80-column terminal whole.
KEYS_HELP = f"arrows move  space cross  z/x/c act  {explain.PASS_KEY} pass  Tab action  ? help  t tip  q quit"
ROWS_AROUND_MAP = 7   # status, information, top frame, bottom frame, legend, reset line, message
#: Below this many columns the reset line goes to the start of the message line.
RESET_LINE_COLUMNS = 60
#: The status line's action labels, longest first (the windows' toolbar shortens the same way).
ACTION_LABELS = (
    ((Action.ATTACK, "[A]ttack(z)"), (Action.DEFEND, "[D]efend(x)"), (Action.GUERILLA, "[G]uerilla(c)")),
    ((Action.ATTACK, "Att(z)"), (Action.DEFEND, "Def(x)"), (Action.GUERILLA, "Guer(c)")),
    ((Action.ATTACK, "z"), (Action.DEFEND, "x"), (Action.GUERILLA, "c")),
)


def terminal_problem() -> str | None:
    """Why the console cannot take over this terminal (standard input or output is not a terminal,
    ``$TERM`` is unset or names one without cursor addressing), or None: what :meth:`Console.start` checks
    first, for a caller that must know before it changes anything."""
    for name, stream in (("input", sys.stdin), ("output", sys.stdout)):
        if stream is None or not stream.isatty():
            return f"the console needs a terminal, but standard {name} is not one"
    return cursor_addressing_refused()


class ConsoleError(Exception):
    """The terminal cannot host the console (not a terminal, unknown ``$TERM``); one line for the user."""


@dataclass(frozen=True)
class Snapshot:
    """A read-only copy of everything the console draws and checks, taken in the game loop's thread.

    Arrays are ``(H, W)`` copies (``owner`` int8, the others bool); ``legal`` maps each action to its
    ``Game.legal_mask`` at the time of the snapshot.
    """

    land: np.ndarray
    owner: np.ndarray
    occupied: np.ndarray
    capitals: dict[int, tuple[int, int] | None]
    crosses: tuple[tuple[int, int], ...]
    current_player: int
    attacks_left: int
    selected: Action
    crosses_left: int
    possible: frozenset[Action]
    legal: dict[Action, np.ndarray]
    winner: int | None
    end: GameOver | None
    message: str = ""
    ended: bool = False
    marked: frozenset[tuple[int, int]] = frozenset()
    history: tuple[str, ...] = ()
    computer: frozenset[int] = frozenset()
    info: tuple[str, ...] = ("",)
    reset: tuple[str, ...] = ()
    resets: tuple[int, ...] = ()
    threats: frozenset[tuple[int, int]] = frozenset()

    @classmethod
    def of(cls, game: Composer, message: str = "", last_turn: LastTurn | None = None,
           history: tuple[str, ...] = (), computer: Collection[int] = (), can_pass: bool = True) -> Snapshot:
        """Copy *game*'s state (call in the thread that owns *game*); *last_turn* gives the cells to mark,
        *history* the announcements ``m`` shows, *computer* the computer players; *can_pass* when the
        player in turn is at this terminal (elsewhere the information line names no pass key)."""
        board = game.board
        over = game.is_terminal()
        outlook = game.game.reset_outlook()
        return cls(
            land=board.land.copy(),
            owner=board.owner.copy(),
            occupied=board.occupied.copy(),
            capitals=dict(board.capitals),
            crosses=tuple(game.crosses),
            current_player=game.current_player,
            attacks_left=game.attacks_left,
            selected=game.selected,
            crosses_left=game.crosses_left(),
            possible=frozenset(() if over else game.possible_actions()),
            legal={a: game.legal_mask(a).copy() for a in Action},
            winner=game.winner,
            end=game.end,
            message=message,
            ended=over,
            marked=frozenset(() if last_turn is None else last_turn.cells),
            history=tuple(history),
            computer=frozenset(computer),
            info=explain.head_variants(game.game, can_pass),
            reset=() if outlook is None else explain.reset_variants(outlook),
            resets=tuple(game.resets),
            threats=frozenset(cell for cell, _capital, _owner in explain.threat_cells(board)),
        )

    @property
    def width(self) -> int:
        return int(self.land.shape[1])

    @property
    def height(self) -> int:
        return int(self.land.shape[0])

    @property
    def over(self) -> bool:
        """The game has ended: a winner, a draw, or everyone left."""
        return self.ended or self.winner is not None

    def can_toggle(self, x: int, y: int) -> bool:
        """True when a cross may be added at or removed from (x, y) under the selected action (§2.2)."""
        if (x, y) in self.crosses:
            return True
        return bool(self.legal[self.selected][y, x]) and self.crosses_left > 0


@dataclass
class _View:
    """The console thread's own state: cursor, scroll offsets, prompt."""

    cursor: tuple[int, int] = (0, 0)
    origin: tuple[int, int] = (0, 0)
    confirming: bool = False
    history: bool = False   # the announcements of ``m`` are shown
    help: bool = False      # the rules and keys of ``?`` are shown
    note: str | None = None   # why the last key did nothing (until the next snapshot)
    placed: bool = False
    last_local: int | None = None


class Console:
    """The curses console for *players* (spec §7), in a thread of its own that alone calls curses.

    ``inbox`` receives ``Command(source="console", verb, args)`` events (verbs of ``motti.commands``).
    ``mono`` forces the colourless rendering (True), colours (False) or decides from the terminal and
    ``$NO_COLOR`` (None).
    """

    uses_terminal = True

    def __init__(self, inbox: Inbox, players: tuple[int, ...], *, mono: bool | None = None) -> None:
        self.inbox = inbox
        self.players = tuple(players)
        self.mono = mono
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._beeps = 0
        self._thread: threading.Thread | None = None
        self._view = _View()
        self._colour = False
        self._too_small = False   # the last draw had no room for the map: only q (and its y/n) act
        self._awaiting = 0.0   # monotonic deadline while a posted command has not been shown yet
        self._repaint = False   # the next draw clears the terminal first
        self.session: Session | None = None

    # ---- the game loop's side -------------------------------------------------------------------------
    def start(self) -> None:
        """Take over the terminal in the console thread; returns once curses is set up.

        Raises :class:`ConsoleError` when standard input or output is not a terminal, ``$TERM`` is unset or
        names a terminal without cursor addressing (``dumb``), or curses cannot set up.
        """
        if self._thread is not None:
            return
        problem = terminal_problem()
        if problem is not None:
            raise ConsoleError(problem)
        self._thread = threading.Thread(target=self._run, name="motti-console", daemon=True)
        atexit.register(self.close)
        self._thread.start()
        self._ready.wait(10.0)
        if self.error is not None:
            self.close()
            raise ConsoleError(f"cannot use the terminal (TERM={os.environ.get('TERM', '')!r}): {self.error}")

    def show(self, game: Composer, message: str | None = None, *, last_turn: LastTurn | None = None,
             history: tuple[str, ...] = (), computer: Collection[int] = ()) -> None:
        """Redraw from *game* (copied now, in the caller's thread): *message* on the message line, the cells
        of *last_turn* in reverse video, *history* (the announcements, oldest first) for ``m``; *computer*
        the computer players (named while they think)."""
        snap = Snapshot.of(game, message or "", last_turn, history, computer,
                           can_pass=game.current_player in self.players)
        with self._lock:
            self._snapshot = snap
        self._dirty.set()

    # ---- a front end of the session ------------------------------------------------------------------
    def attach(self, session: Session) -> None:
        """Show *session*'s game and pass it the terminal players' commands (the seat ``"console"``)."""
        self.session = session
        session.attach(self, {SOURCE: self.players})

    def draw(self) -> None:
        """Show the session's game, its message (or the tip the terminal asked for), last turn,
        announcements and computer players."""
        session = self.session
        if session is not None:
            self.show(session.game, session.note_for(SOURCE) or session.message,
                      last_turn=session.chronicle.last_turn,
                      history=tuple(session.chronicle.lines), computer=session.computer)

    def handle(self, event: object) -> bool:
        """The console's own commands: ``quit`` closes the console and gives its players up (saying on the
        terminal what happened); the others go to :meth:`motti.session.Session.command`. Raises RuntimeError
        when the console thread failed."""
        session = self.session
        if not isinstance(event, Command) or event.source != SOURCE or session is None:
            return False
        if event.verb != "quit":
            session.command(SOURCE, event)
            return True
        self.close()
        session.detach(self, ())
        if self.error is not None:
            raise RuntimeError(f"terminal console failed: {self.error}")
        session.leave(SOURCE, "quit", tell=True)
        return True

    def status_fields(self) -> dict[str, object]:
        """The status file's ``console``: the players at the terminal."""
        return {"console": list(self.players)}

    def refuse(self, source: str, message: str) -> None:
        """Beep and show *message* when *source* is the console (an action the game refused)."""
        if source != SOURCE:
            return
        with self._lock:
            self._beeps += 1
            if self._snapshot is not None:
                self._snapshot = _with_message(self._snapshot, message)
        self._dirty.set()

    def close(self) -> None:
        """Restore the terminal and stop the console thread (idempotent)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread() and thread.ident is not None:
            thread.join(5.0)   # (no ident: a signal cut its start short, and it never ran)
        atexit.unregister(self.close)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ---- the console thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        stdscr = None
        try:
            stdscr = curses.initscr()
            curses.noecho()
            curses.cbreak()
            stdscr.keypad(True)
            stdscr.timeout(POLL_MS)
            curses.set_escdelay(25)
            self._setup_colours()
            with contextlib.suppress(curses.error):
                curses.curs_set(1)
            self._ready.set()
            self._loop(stdscr)
        except BaseException as exc:  # the terminal must come back and the game must hear of it
            self.error = exc
            if self._ready.is_set():
                self.inbox.put(Command(SOURCE, "quit"))
        finally:
            self._ready.set()
            if stdscr is not None:
                _restore(stdscr)

    def _setup_colours(self) -> None:
        wanted = not self.mono if self.mono is not None else not os.environ.get("NO_COLOR")
        self._colour = False
        if not wanted or not curses.has_colors():
            return
        curses.start_color()
        background = -1
        try:
            curses.use_default_colors()
        except curses.error:
            background = curses.COLOR_BLACK
        table = COLOURS_256 if curses.COLORS >= 256 else COLOURS_8
        for player, colour in table.items():
            curses.init_pair(player, colour, background)
        self._colour = True

    def _loop(self, stdscr: curses.window) -> None:
        while not self._stop.is_set():
            if self._dirty.is_set():
                self._dirty.clear()
                self._awaiting = 0.0
                self._view.note = None
                self._draw(stdscr)
            if self._awaiting and time.monotonic() < self._awaiting:
                # A command is on its way: leave further keys in the terminal's buffer until the game loop
                # shows its result, so that " x" typed fast performs with the new cross.
                self._dirty.wait(POLL_MS / 1000)
                continue
            key = stdscr.getch()
            if key == -1:
                continue
            if key == curses.KEY_RESIZE:
                curses.update_lines_cols()
                self._draw(stdscr)
                continue
            self._key(key)
            self._draw(stdscr)

    def _current(self) -> Snapshot | None:
        with self._lock:
            return self._snapshot

    def _beep(self) -> None:
        curses.beep()

    def _post(self, verb: str, *args: object) -> None:
        self._awaiting = time.monotonic() + AWAIT_S
        self.inbox.put(Command(SOURCE, verb, tuple(args)))

    def _key(self, key: int) -> None:
        snap = self._current()
        view = self._view
        if snap is None:
            return
        if view.confirming:
            view.confirming = False
            if key in (ord("y"), ord("Y")):
                self._post("quit")
            return
        if view.history or view.help:
            view.history = view.help = False
            self._repaint = True
            return
        if key in (ord("m"), ord("M"), ord("?")) and not self._too_small:
            view.history, view.help = key != ord("?"), key == ord("?")
            self._repaint = True
            return
        if self._too_small and key not in (ord("q"), ord("Q")):
            return
        if key in MOVES:
            dx, dy = MOVES[key]
            x, y = view.cursor
            view.cursor = (min(max(x + dx, 0), snap.width - 1), min(max(y + dy, 0), snap.height - 1))
            return
        if key in (ord("q"), ord("Q")):
            if snap.over or not self._local_alive(snap):
                self._post("quit")
            else:
                view.confirming = True
            return
        if key in (ord("s"), ord("S")):
            self._post("save")
            return
        if snap.over or snap.current_player not in self.players:
            if key in (ord(" "), ord("\t"), ord("\n"), ord("t"), PASS, curses.KEY_ENTER, *ACTION_KEYS,
                       *SELECT_KEYS):
                self._beep()
                self._say(_why_not(snap, self.players))
            return
        if key == ord(" "):
            x, y = view.cursor
            if snap.can_toggle(x, y):
                self._post("toggle", (x, y))
            else:
                self._beep()
        elif key in ACTION_KEYS:
            self._post("perform", ACTION_KEYS[key].value)   # the game refuses what it cannot, saying why
        elif key in SELECT_KEYS:
            self._post("select", SELECT_KEYS[key].value)   # the game refuses an impossible one, saying why
        elif key in (ord("\n"), ord("\r"), curses.KEY_ENTER):
            self._post("perform")
        elif key == ord("\t"):
            self._post("cycle")
        elif key == ord("t"):
            self._post("tip")
        elif key == PASS:
            self._post("pass")

    def _say(self, text: str) -> None:
        """Show *text* on the message line until the game loop shows the next snapshot."""
        self._view.note = text

    def _local_alive(self, snap: Snapshot) -> bool:
        return any(snap.capitals.get(p) is not None for p in self.players)

    def _follow_turn(self, snap: Snapshot) -> None:
        """Put the cursor on a capital at the start and when the terminal's player in turn changes."""
        view = self._view
        target: int | None = None
        if not view.placed:
            view.placed = True
            target = next((p for p in self.players if snap.capitals.get(p)), None)
            if target is None:
                view.cursor = (snap.width // 2, snap.height // 2)
        if snap.current_player in self.players and snap.current_player != view.last_local:
            view.last_local = snap.current_player
            target = snap.current_player
        if target is not None and (capital := snap.capitals.get(target)):
            view.cursor = capital

    def _draw(self, stdscr: curses.window) -> None:
        with self._lock:
            snap = self._snapshot
            beeps, self._beeps = self._beeps, 0
        for _ in range(beeps):
            self._beep()
        if self._repaint:
            # A whole new screen (the m announcements, or back from them): repaint it all rather than let
            # curses scroll what it finds alike.
            self._repaint = False
            stdscr.clear()
        else:
            stdscr.erase()
        rows, cols = stdscr.getmaxyx()
        if snap is None:
            _put(stdscr, 0, 0, "motti: waiting for the game", curses.A_BOLD)
            stdscr.refresh()
            return
        self._follow_turn(snap)
        view = self._view
        if view.history:
            self._draw_history(stdscr, snap, rows, cols)
            return
        if view.help:
            self._draw_help(stdscr, rows, cols)
            return
        reset_row = cols >= RESET_LINE_COLUMNS
        around = ROWS_AROUND_MAP - (0 if reset_row else 1)
        vw = min(snap.width, cols - 2)
        vh = min(snap.height, rows - around)
        self._too_small = vw < 1 or vh < 1
        if self._too_small:
            _put(stdscr, 0, 0, "terminal too small", curses.A_BOLD)
            if view.confirming:
                _put(stdscr, 1, 0, self._message(snap))
            stdscr.refresh()
            return
        view.origin = (_scroll(view.origin[0], view.cursor[0], vw, snap.width),
                       _scroll(view.origin[1], view.cursor[1], vh, snap.height))
        ox, oy = view.origin
        self._draw_status(stdscr, snap, cols)
        _put(stdscr, 1, 0, _fit(snap.info, cols - 1))
        frame = "-" * (vw + 2)
        _put(stdscr, 2, 0, frame)
        _put(stdscr, 3 + vh, 0, frame)
        crosses = set(snap.crosses)
        capitals = {c: p for p, c in snap.capitals.items() if c is not None}
        for row in range(vh):
            y = oy + row
            _put(stdscr, 3 + row, 0, "|")
            _put(stdscr, 3 + row, vw + 1, "|")
            for col in range(vw):
                x = ox + col
                glyph, attr = self._cell(snap, x, y, (x, y) in crosses, capitals.get((x, y)),
                                         (x, y) in snap.threats)
                if (x, y) in snap.marked:
                    # The last turn's cells (spec §7); without colours inverse video means occupied.
                    attr |= curses.A_REVERSE if self._colour else curses.A_ITALIC
                _put(stdscr, 3 + row, 1 + col, glyph, attr)
        self._draw_legend(stdscr, 4 + vh, cols, snap)
        message = self._message(snap)
        if reset_row:
            _put(stdscr, 5 + vh, 0, _fit(snap.reset, cols - 1))
        elif snap.reset:
            message = explain.DOT.join(text for text in (snap.reset[-1], message) if text)
        _put(stdscr, around - 1 + vh, 0, shorten(message, lambda text: len(text) <= cols - 1))
        cx, cy = view.cursor
        with contextlib.suppress(curses.error):
            stdscr.move(3 + cy - oy, 1 + cx - ox)
        stdscr.refresh()

    def _cell(self, snap: Snapshot, x: int, y: int, crossed: bool, capital_of: int | None,
              threat: bool = False) -> tuple[str, int]:
        if not snap.land[y, x]:
            return " ", curses.A_NORMAL
        owner = int(snap.owner[y, x])
        occupied = bool(snap.occupied[y, x])
        is_capital = capital_of is not None and capital_of == owner
        if self._colour:
            attr = curses.color_pair(owner) | curses.A_BOLD
            if crossed:
                return "x", attr
            glyph = "o" if is_capital else "t" if threat else "p"
            return (glyph.upper() if occupied else glyph), attr
        attr = curses.A_BOLD
        if occupied:
            attr |= curses.A_REVERSE
        if is_capital:
            attr |= curses.A_UNDERLINE
        if threat:
            attr = attr & ~curses.A_BOLD | curses.A_DIM
        return ("x" if crossed else str(owner)), attr

    def _draw_status(self, stdscr: curses.window, snap: Snapshot, cols: int) -> None:
        if snap.over:
            head = end_title(snap.end) if snap.end is not None else "Game over"
            _put(stdscr, 0, 0, f"{head} | q quits"[: cols - 1], curses.A_BOLD)
            return
        attr = curses.color_pair(snap.current_player) | curses.A_BOLD if self._colour else curses.A_BOLD
        if not self.players:
            head, tail = watch_status(snap, cols - 1)
            col = _put(stdscr, 0, 0, head, attr, cols)
            _put(stdscr, 0, col, tail, curses.A_NORMAL, cols)
            return
        head, labels = status_variant(snap, cols - 1)
        col = _put(stdscr, 0, 0, head, attr, cols)
        for i, (action, label) in enumerate(labels):
            if i:
                col = _put(stdscr, 0, col, " ", curses.A_NORMAL, cols)
            if action is snap.selected:
                style = curses.A_BOLD | curses.A_UNDERLINE
            elif action in snap.possible:
                style = curses.A_NORMAL
            else:
                style = curses.A_DIM
            col = _put(stdscr, 0, col, label, style, cols)

    def _draw_legend(self, stdscr: curses.window, row: int, cols: int, snap: Snapshot) -> None:
        if self._colour:
            text = _fit(LEGEND_COLOUR, cols - 1 - 2 * len(snap.capitals))
            col = _put(stdscr, row, 0, text, curses.A_NORMAL, cols)
            for player in sorted(snap.capitals):
                if snap.capitals[player] is None:
                    continue
                col = _put(stdscr, row, col, f" {player}", curses.color_pair(player) | curses.A_BOLD, cols)
        else:
            _put(stdscr, row, 0, _fit(LEGEND_MONO, cols - 1), curses.A_NORMAL, cols)

    def _message(self, snap: Snapshot) -> str:
        if self._view.confirming:
            return quit_question(self.players)
        if self._view.note is not None:
            return self._view.note
        if snap.over:
            return snap.message or ("" if snap.end is None else end_text(snap.end))
        player = snap.current_player
        if player not in self.players:
            waiting = f"{who(player)} (computer) is thinking" if player in snap.computer else \
                f"waiting for {who(player)}"
            return " · ".join(t for t in (waiting, snap.message) if t)
        return snap.message or KEYS_HELP

    def _draw_history(self, stdscr: curses.window, snap: Snapshot, rows: int, cols: int) -> None:
        """The ``m`` screen: the last announcements in full, newest last, wrapped at word bounds."""
        width = max(cols - 1, 1)
        lines: list[str] = []
        for said in snap.history[-HISTORY:]:
            lines += wrap(said, width)
        head = wrap(explain.resets_line(snap.resets), width)
        room = max(rows - 2 - len(head), 0)
        _put(stdscr, 0, 0, f"The last {HISTORY} announcements (any key returns)"[:width], curses.A_BOLD)
        for row, text in enumerate(head + (lines[-room:] if room else [])):
            _put(stdscr, 1 + row, 0, text)
        if not lines:
            _put(stdscr, 1 + len(head), 0, "nothing happened yet"[:width])
        stdscr.refresh()

    def _draw_help(self, stdscr: curses.window, rows: int, cols: int) -> None:
        """The ``?`` screen: the rules and the keys (motti.explain.help_lines; a watching terminal's own),
        wrapped at word bounds."""
        width = max(cols - 1, 1)
        title, *lines = explain.help_lines("console" if self.players else "watch")
        _put(stdscr, 0, 0, title[:width], curses.A_BOLD)
        wrapped: list[str] = []
        for line in lines:
            wrapped += wrap(line, width) or [""]
        for row, text in enumerate(wrapped[:max(rows - 1, 0)]):
            _put(stdscr, 1 + row, 0, text)
        stdscr.refresh()


#: The legend line, longest first (colour terminals; the player numbers follow in their colours).
LEGEND_COLOUR = (
    f"p/P free/occupied  o/O capital {explain.OPEN}/{explain.SAFE}  T {explain.THREAT}  x cross  inverse: "
    "the last turn's cells (gained or encircled)  players:",
    f"p/P free/occ  o/O {explain.OPEN}/{explain.SAFE}  T {explain.THREAT}  x cross  inverse last turn  "
    "players:",
    f"p/P free/occ  o {explain.OPEN} O {explain.SAFE}  T {explain.THREAT}  x cross  players:",
    f"o {explain.OPEN} O {explain.SAFE} T {explain.THREAT} x cross",
)
LEGEND_MONO = (
    f"1-9 owner  inverse occupied  underline capital ({explain.OPEN}/{explain.SAFE})  dim {explain.THREAT}  "
    "x cross  italic: the last turn's cells",
    f"1-9 owner  inverse occ  underline cap.  dim {explain.THREAT}  x cross  italic last turn",
    f"1-9 owner  inverse occupied  underline capital  dim {explain.THREAT}  x cross",
)


def _fit(variants: tuple[str, ...], width: int) -> str:
    """The first of *variants* (longest first) no longer than *width*, else the last shortened at a word
    bound."""
    for text in variants:
        if len(text) <= width:
            return text
    return shorten(variants[-1], lambda text: len(text) <= width) if variants else ""


def status_variant(snap: Snapshot, width: int) -> tuple[str, tuple[tuple[Action, str], ...]]:
    """The status line as a head (player, action, crosses) and the action labels, the longest that fits
    *width* columns: ``Player 2 | Attack: 5 left | Crosses: 4 |`` with ``[A]ttack(z)``…, then ``P2 | Att 5 |
    X 4 |`` with ``Att(z)``…, then with ``z x c`` (the windows' toolbar shortens to ``Att 5`` and ``X 4``
    too)."""
    heads = _status_heads(snap)
    options = [(heads[0], ACTION_LABELS[0]), (heads[1], ACTION_LABELS[0]), (heads[1], ACTION_LABELS[1]),
               (heads[1], ACTION_LABELS[2])]
    for head, labels in options:
        if len(head) + sum(len(label) + 1 for _action, label in labels) - 1 <= width:
            return head, labels
    return options[-1]


def _status_heads(snap: Snapshot) -> tuple[str, str]:
    """The status line's head, long and short: ``Player 2 | Attack: 5 left | Crosses: 4 | `` and ``P2 | Att 5
    | X 4 | ``."""
    player, attacks, crosses = snap.current_player, snap.attacks_left, snap.crosses_left
    doing = f"Attack: {attacks} left" if snap.selected is Action.ATTACK else snap.selected.value.capitalize()
    short = f"Att {attacks}" if snap.selected is Action.ATTACK else snap.selected.value.capitalize()[:3]
    return f"Player {player} | {doing} | Crosses: {crosses} | ", f"P{player} | {short} | X {crosses} | "


#: The end of a watching terminal's status line, longest first: its keys instead of a player's actions.
WATCH_TAILS = ("watching (? keys, q stops)", "watching (? keys)", "watching")


def watch_status(snap: Snapshot, width: int) -> tuple[str, str]:
    """The status line of a terminal that only watches, as a head (:func:`status_variant`'s) and a tail
    (:data:`WATCH_TAILS`), the longest that fits *width* columns: ``Player 2 | Attack: 5 left | Crosses: 4 |
    watching (? keys, q stops)`` down to ``P2 | Att 5 | X 4 | watching``."""
    heads = _status_heads(snap)
    options = [(head, tail) for head in heads for tail in WATCH_TAILS]
    return next((o for o in options if len(o[0]) + len(o[1]) <= width), options[-1])


def _why_not(snap: Snapshot, players: tuple[int, ...]) -> str:
    """Why a game key at the terminal of *players* does nothing now (the words of the windows)."""
    if snap.over:
        return "the game is over"
    if not players:
        return "you are watching"
    player = snap.current_player
    if player in snap.computer:
        return f"not your turn: {who(player)} (computer) is thinking"
    return f"not your turn: waiting for {who(player)}"


def _with_message(snap: Snapshot, message: str) -> Snapshot:
    return replace(snap, message=message)


def _scroll(origin: int, cursor: int, visible: int, total: int) -> int:
    """The smallest change of *origin* that keeps *cursor* in ``[origin, origin + visible)``, clamped."""
    if cursor < origin:
        origin = cursor
    elif cursor >= origin + visible:
        origin = cursor - visible + 1
    return min(max(origin, 0), max(total - visible, 0))


def _put(win: curses.window, row: int, col: int, text: str, attr: int = curses.A_NORMAL,
         cols: int | None = None) -> int:
    """Write *text* clipped to the window; return the column after it. Never raises for off-screen text."""
    rows, width = win.getmaxyx()
    if cols is None:
        cols = width
    room = min(cols, width) - col
    if row >= rows or room <= 0:
        return col + len(text)
    with contextlib.suppress(curses.error):  # the bottom-right cell moves the cursor off screen, text shown
        win.addstr(row, col, text[:room], attr)
    return col + len(text)


def _restore(stdscr: curses.window) -> None:
    steps: tuple[Callable[[], object], ...] = (lambda: stdscr.keypad(False), curses.nocbreak, curses.echo,
                                              curses.endwin)
    for step in steps:
        with contextlib.suppress(curses.error):
            step()
