"""Curses helpers that know no game: colour or mono, key names, resize, ^Z, numbers that fit, a safe exit.

:class:`Terminal` owns the curses session: it restores the terminal on every way out (normal return,
exception, SIGTERM, SIGHUP), turns ^Z into a clean suspend and resume, and reports resizes.
:meth:`Terminal.read_key` turns what curses delivers into plain key names (``"UP"``, ``"ENTER"``, ``"ESC"``,
``"^C"``, ``"a"`` …). :func:`fit_number`, :func:`clip` and :func:`table` keep any number and any text inside a
given number of columns.
"""

from __future__ import annotations

import contextlib
import curses
import locale
import os
import signal
import sys
import unicodedata
from types import FrameType, TracebackType

from common.cli import not_ignored

REDRAW = "REDRAW"
"""Pseudo key from :func:`read_key`: the screen must be drawn again (resize, resume after ^Z)."""

_NAMED = {
    curses.KEY_UP: "UP",
    curses.KEY_DOWN: "DOWN",
    curses.KEY_LEFT: "LEFT",
    curses.KEY_RIGHT: "RIGHT",
    curses.KEY_ENTER: "ENTER",
    curses.KEY_BACKSPACE: "BACKSPACE",
    curses.KEY_DC: "DELETE",
    curses.KEY_HOME: "HOME",
    curses.KEY_END: "END",
    curses.KEY_NPAGE: "PAGEDOWN",
    curses.KEY_PPAGE: "PAGEUP",
    curses.KEY_RESIZE: "RESIZE",
    curses.KEY_B2: "5",
}
_CONTROL = {"\n": "ENTER", "\r": "ENTER", "\x1b": "ESC", "\x7f": "BACKSPACE", "\b": "BACKSPACE", "\t": "TAB"}
SS3_KEYS = {
    "M": "ENTER", "A": "UP", "B": "DOWN", "C": "RIGHT", "D": "LEFT", "H": "HOME", "F": "END", "E": "5",
    "j": "*", "k": "+", "l": ",", "m": "-", "n": ".", "o": "/", "X": "=",
    **{chr(ord("p") + digit): str(digit) for digit in range(10)},
}
"""Key names of the SS3 sequences ``ESC O x`` of the keypad and cursor keys in application mode, for
terminals whose terminfo entry does not list them (``tmux-256color`` has no ``kent``): ``ESC O M`` is Enter,
``ESC O p`` … ``ESC O y`` the digits 0–9."""
ESC_WAIT_MS = 25
MAX_WAIT_MS = 2**31 - 1
"""The longest single wait curses can take (its timeout is a C int of milliseconds, about 24.8 days): a longer
``timeout_ms`` waits this long and returns None, and the caller waits again for what is left."""


def decode_key(raw: int | str) -> str:
    """Name one key as delivered by ``get_wch``/``getch``.

    Printable characters are returned as themselves; Enter (CR or LF) is ``"ENTER"``, Esc ``"ESC"``, BS and
    DEL ``"BACKSPACE"``, other control characters ``"^A"`` … ``"^Z"``; curses function keys get names such as
    ``"UP"``, ``"DOWN"``, ``"RESIZE"``, else ``curses.keyname`` (``"KEY_F(1)"``).
    """
    if isinstance(raw, int):
        if raw in _NAMED:
            return _NAMED[raw]
        if 0 <= raw < 256:
            return decode_key(chr(raw))
        try:
            return curses.keyname(raw).decode("ascii", "replace")
        except (ValueError, curses.error):
            return f"KEY_{raw}"
    if raw in _CONTROL:
        return _CONTROL[raw]
    code = ord(raw[0]) if raw else 0
    if code < 32:
        return "^" + chr(code + 64)
    return raw


#: Unicode categories a terminal gives no column: marks (Thai vowels and tone marks, variation selectors,
#: combining accents) and format characters (zero-width joiners).
ZERO_WIDTH = ("Mn", "Me", "Cf")


def char_width(char: str) -> int:
    """Columns one character takes on a terminal: wide (East Asian) 2, marks and format characters 0
    (:data:`ZERO_WIDTH`), others 1."""
    if unicodedata.category(char) in ZERO_WIDTH:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_width(text: str) -> int:
    """Columns ``text`` takes on a terminal (:func:`char_width` of each character)."""
    return sum(char_width(char) for char in text)


def ljust(text: str, width: int) -> str:
    """``text`` padded with spaces on the right to ``width`` columns (:func:`text_width`), as ``str.ljust``
    pads to ``width`` characters: a name of wide characters in a printed table keeps its columns."""
    return text + " " * (width - text_width(text))


def rjust(text: str, width: int) -> str:
    """``text`` padded with spaces on the left to ``width`` columns (:func:`text_width`)."""
    return " " * (width - text_width(text)) + text


def clip(text: str, width: int) -> str:
    """The longest prefix of ``text`` that takes at most ``width`` columns."""
    out = []
    used = 0
    for char in text:
        w = char_width(char)
        if used + w > width:
            break
        out.append(char)
        used += w
    return "".join(out)


def printable(text: str) -> str:
    """``text`` with every non-printable character replaced by ``?`` (names are shown literally, §0)."""
    return "".join(c if c.isprintable() else "?" for c in text)


def fit_number(value: int, width: int, prefix: str = "") -> str:
    """``value`` in at most ``width`` columns: all digits (``$6150``) when they fit, else ``$1.234e15``.

    The compact form keeps as many leading digits as fit (truncated, never rounded up); when not even ``9e9``
    fits, ``width`` ``#`` signs are returned. Exact for every integer size.
    """
    full = f"{'-' if value < 0 else ''}{prefix}{abs(value)}"
    if len(full) <= width:
        return full
    digits = str(abs(value))
    sign = "-" if value < 0 else ""
    exponent = len(digits) - 1
    for keep in range(len(digits) - 1, -1, -1):
        tail = digits[1:1 + keep].rstrip("0")
        mantissa = digits[0] + ("." + tail if tail else "")
        text = f"{sign}{prefix}{mantissa}e{exponent}"
        if len(text) <= width:
            return text
    return "#" * max(width, 0)


def money(value: int) -> str:
    """Dollars as plain digits with a ``$``: ``$6150`` (spec/starlanes.md §0)."""
    return f"{'-' if value < 0 else ''}${abs(value)}"


def cursor_addressing_refused() -> str | None:
    """Why ``$TERM`` cannot host a curses screen (one line, for the user), or None when it can.

    Looks the terminal up in terminfo for standard output; a terminal without cursor addressing (``dumb``),
    an unknown or an empty ``$TERM`` is refused: ``cannot use the terminal: TERM='nosuchterm' is not a
    terminal type this system knows (set TERM, e.g. TERM=xterm)``, ``cannot use the terminal (TERM='dumb'): it
    cannot move the cursor (set TERM, e.g. TERM=xterm)``.
    """
    name = os.environ.get("TERM", "")
    advice = "(set TERM, e.g. TERM=xterm)"
    try:
        curses.setupterm(name or None, sys.stdout.fileno())
    except curses.error:
        if name:
            return f"cannot use the terminal: TERM={name!r} is not a terminal type this system knows {advice}"
    else:
        if curses.tigetstr("cup") is not None:
            return None
    return f"cannot use the terminal (TERM={name!r}): it cannot move the cursor {advice}"


class TerminalError(RuntimeError):
    """The terminal cannot be used (unknown ``TERM``, no terminal); the message says why."""


class Terminal:
    """A curses session as a context manager; ``screen`` is the standard screen while it is open.

    ``colour``: ``True`` forces colour, ``False`` forces mono, ``None`` uses colour when the terminal has it.
    On entry: locale from the environment, raw keys (so ^C and ^Z arrive as keys), no echo, keypad on, Esc
    delay 25 ms, cursor hidden. On exit, by any path, the terminal is restored. SIGTERM and SIGHUP end the
    program through ``SystemExit(128 + signal)``, so the restoring code runs.
    """

    def __init__(self, colour: bool | None = None) -> None:
        self.want_colour = colour
        self.colour = False
        self.screen: curses.window | None = None
        self._saved: dict[int, signal._HANDLER] = {}
        self._resumed = False

    def __enter__(self) -> Terminal:
        with contextlib.suppress(locale.Error):
            locale.setlocale(locale.LC_ALL, "")
        for sig in not_ignored((signal.SIGTERM, signal.SIGHUP)):  # nohup's SIGHUP stays ignored
            self._saved[sig] = signal.signal(sig, self._on_exit_signal)
        self._saved[signal.SIGTSTP] = signal.signal(signal.SIGTSTP, self._on_suspend_signal)
        os.environ.setdefault("ESCDELAY", "25")
        try:
            name = os.environ.get("TERM", "")
            refused = cursor_addressing_refused()
            if refused is not None:
                raise TerminalError(refused)
            try:
                self.screen = curses.initscr()
            except curses.error as exc:
                raise TerminalError(f"cannot use the terminal (TERM={name!r}): {exc}") from None
            curses.noecho()
            curses.raw()
            self.screen.keypad(True)
            with contextlib.suppress(AttributeError, curses.error):
                curses.set_escdelay(25)
            with contextlib.suppress(curses.error):
                curses.curs_set(0)
            if self.want_colour is not False and (self.want_colour or curses.has_colors()):
                try:
                    curses.start_color()
                    curses.use_default_colors()
                    self.colour = True
                except curses.error:
                    self.colour = False
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Restore the terminal and the signal handlers; safe to call more than once."""
        if self.screen is not None:
            try:
                self.screen.keypad(False)
                curses.noraw()
                curses.echo()
                curses.curs_set(1)
            except curses.error:
                pass
            with contextlib.suppress(curses.error):
                curses.endwin()
            self.screen = None
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)
        self._saved.clear()

    def _on_exit_signal(self, signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    def _on_suspend_signal(self, signum: int, frame: FrameType | None) -> None:
        self.suspend()

    def suspend(self) -> None:
        """Give the terminal back and stop the process (as ^Z does); on ``fg`` take the terminal again.

        While the terminal is given back its line discipline turns a typed ^C into SIGINT (the keys arrive
        raw only while the game holds the terminal); a SIGINT from the moment the terminal is given back until
        it is taken again is read as the ^C key, as it would be at any other moment of the game.
        """
        if self.screen is None:
            return
        interrupted: list[int] = []
        on_interrupt = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
        try:
            curses.def_prog_mode()
            curses.endwin()
            on_suspend = signal.signal(signal.SIGTSTP, signal.SIG_DFL)
            try:
                os.kill(os.getpid(), signal.SIGTSTP)
            finally:
                signal.signal(signal.SIGTSTP, on_suspend)
            curses.reset_prog_mode()
        finally:
            signal.signal(signal.SIGINT, on_interrupt)
        self.screen.refresh()
        self._resumed = True
        if interrupted:
            curses.unget_wch("\x03")

    def read_key(self, timeout_ms: int | None = None) -> str | None:
        """Wait for the next key and return its name (:func:`decode_key`; an SS3 keypad sequence that curses
        did not decode is named as its key, see :data:`SS3_KEYS`); with ``timeout_ms``, None when no key
        came in that many milliseconds.

        ^Z suspends the program and returns :data:`REDRAW` after ``fg``; a resize returns :data:`REDRAW` too
        (``curses.LINES``/``COLS`` are updated first).
        """
        assert self.screen is not None
        while True:
            self.screen.timeout(-1 if timeout_ms is None else min(timeout_ms, MAX_WAIT_MS))
            try:
                raw = self.screen.get_wch()
            except curses.error:
                if self._resumed:
                    self._resumed = False
                    return REDRAW
                if timeout_ms is not None:
                    return None
                continue
            finally:
                self.screen.timeout(-1)
            if self._resumed:
                self._resumed = False
                self._unread(raw)
                return REDRAW
            key = decode_key(raw)
            if key == "ESC":
                key = self._escape()
            if key == "^Z":
                self.suspend()
                self._resumed = False
                return REDRAW
            if key == "RESIZE":
                curses.update_lines_cols()
                return REDRAW
            return key

    def _escape(self) -> str:
        """After an Esc: the keypad key of an SS3 sequence (:data:`SS3_KEYS`) that follows at once, else
        ``"ESC"`` (whatever followed stays unread)."""
        assert self.screen is not None
        self.screen.timeout(ESC_WAIT_MS)
        try:
            try:
                second = self.screen.get_wch()
            except curses.error:
                return "ESC"
            if second != "O":
                self._unread(second)
                return "ESC"
            try:
                final = self.screen.get_wch()
            except curses.error:
                self._unread(second)
                return "ESC"
            if isinstance(final, str) and final in SS3_KEYS:
                return SS3_KEYS[final]
            self._unread(final)
            self._unread(second)
            return "ESC"
        finally:
            self.screen.timeout(-1)

    def pause(self, milliseconds: int) -> None:
        """Wait ``milliseconds`` or until a key arrives, whichever is first; the key stays unread."""
        assert self.screen is not None
        self.screen.timeout(milliseconds)
        try:
            self._unread(self.screen.get_wch())
        except curses.error:
            pass
        finally:
            self.screen.timeout(-1)

    @staticmethod
    def _unread(raw: int | str) -> None:
        if isinstance(raw, int):
            curses.ungetch(raw)
        else:
            curses.unget_wch(raw)

    def size(self) -> tuple[int, int]:
        """``(lines, columns)`` of the screen now."""
        assert self.screen is not None
        return self.screen.getmaxyx()


Cell = str | tuple[int, str]
"""A table cell: text (left-aligned) or ``(number, prefix)`` (right-aligned, shrunk by :func:`fit_number`)."""


def _natural(cell: Cell) -> int:
    if isinstance(cell, tuple):
        value, prefix = cell
        return len(f"{'-' if value < 0 else ''}{prefix}{abs(value)}")
    return text_width(cell)


def _shortest(cell: Cell) -> int:
    """The fewest columns a number cell can take (``$1e40``: one digit and the exponent); 0 for text."""
    if not isinstance(cell, tuple):
        return 0
    value, prefix = cell
    digits = str(abs(value))
    full = len(digits) + len(prefix) + (value < 0)
    return min(full, 1 + len(f"e{len(digits) - 1}") + len(prefix) + (value < 0))


def table(headers: list[str], rows: list[list[Cell]], width: int, flex: int = 0, gap: int = 2) -> list[str]:
    """Lay out a table in at most ``width`` columns: a header line, then one line per row.

    Columns are as wide as their widest cell. When that is too wide, every column keeps a minimum (a number
    column its header and its shortest compact form, the text column ``flex`` up to 15 columns), the text
    column then gets the room its longest text needs (names are not cut while there is room) and the widest
    number column gives up one digit at a time (:func:`fit_number`, ``$1.23e14``) until the table fits, so
    each keeps the most digits that fit; narrowed text is clipped. Only when not even the minimums fit are
    headers clipped. No line is ever wider than ``width``.
    """
    count = len(headers)
    natural = [max([text_width(headers[i])] + [_natural(r[i]) for r in rows]) for i in range(count)]
    room = max(0, width - gap * (count - 1))
    widths = list(natural)
    if sum(natural) > room:
        least = [min(natural[i], 15 if i == flex else max([text_width(headers[i])]
                                                           + [_shortest(r[i]) for r in rows]))
                 for i in range(count)]
        widths[flex] = max(least[flex], min(natural[flex], room - sum(least) + least[flex]))

        def used(i: int, columns: int) -> int:
            numbers = [cell for r in rows if isinstance(cell := r[i], tuple)]
            return max([text_width(headers[i])] + [len(fit_number(v, columns, p)) for v, p in numbers])

        # The widest number column gives up a digit at a time, so every column keeps the most digits.
        while sum(widths) > room:
            shrinkable = [i for i in range(count) if i != flex and widths[i] > least[i]]
            if not shrinkable:
                break
            i = max(shrinkable, key=lambda i: (widths[i], -i))
            widths[i] = max(least[i], used(i, widths[i] - 1))
        if sum(widths) > room:  # the text column gives way before any header is clipped
            widths[flex] -= min(sum(widths) - room, widths[flex] - min(widths[flex], 3))
        if sum(widths) > room:
            widths = [max(1, w * room // max(sum(least), 1)) for w in least]
        widths[flex] = min(natural[flex], widths[flex] + max(0, room - sum(widths)))

    def render(cells: list[Cell]) -> str:
        parts = []
        for i, cell in enumerate(cells):
            if isinstance(cell, tuple):
                parts.append(fit_number(cell[0], widths[i], cell[1]).rjust(widths[i]))
            else:
                text = clip(cell, widths[i])
                parts.append(text + " " * (widths[i] - text_width(text)))
        return clip((" " * gap).join(parts).rstrip(), width)

    header_cells: list[Cell] = list(headers)
    lines = [render(header_cells)]
    lines.extend(render(r) for r in rows)
    return lines


def wrap(text: str, width: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns (:func:`text_width`); a word longer
    than a line is cut. An empty text is one empty line."""
    width = max(width, 1)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if text_width(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while text_width(word) > width:
            head = clip(word, width) or word[0]
            lines.append(head)
            word = word[len(head):]
        line = word
    lines.append(line)
    return lines
