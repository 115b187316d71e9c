"""Headless script mode: play a game from a text file of actions (spec/motti.md §3.3).

One line is one action of the player in turn; blank lines and lines starting with ``#`` are ignored::

    attack [x,y ...]          one attack; the 0..6 cells replace the crosses, then one randrange(6) is drawn
    defend x,y [x,y [x,y]]    a whole turn
    guerilla x,y              a whole turn
    pass                      ends the turn at once, drawing nothing

Each line becomes one whole action played through the one turn flow (motti/session.py), so a script's run
announces, keeps the last turn and writes the ``--status`` file as every game does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from common.save import read_input
from motti.announce import end_text
from motti.compose import Composer
from motti.mapfile import MapError, utf8_text
from motti.rules import Event, Game, IllegalAction, Move
from motti.session import Session

_CELL = re.compile(r"(-?[0-9]+),(-?[0-9]+)")   # ASCII digits only (not full-width ３)
VERBS = ("attack", "defend", "guerilla", "pass")
#: A script is read up to this size (any readable file: a FIFO or /dev/null too; /dev/zero stops here).
MAX_SCRIPT_BYTES = 256 * 1024 * 1024


class ScriptError(ValueError):
    """A script line that cannot be played: ``str()`` is ``"FILE:LINE: message"``, ``"FILE:LINE:COLUMN:
    message"`` when a column is given (a byte that is not UTF-8), or ``"FILE: message"`` for the file as a
    whole (line 0)."""

    def __init__(self, file: str, line: int, message: str, column: int = 0) -> None:
        place = f"{line}:{column}" if column else str(line)
        super().__init__(f"{file}:{place}: {message}" if line else f"{file}: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.message = message


def parse_line(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``(verb, cells)`` of one script line, ``None`` for a blank or comment line.

    Raises ``ValueError`` with the reason for a malformed line.
    """
    words = text.split()
    if not words or words[0].startswith("#"):
        return None
    verb, args = words[0], words[1:]
    if verb not in VERBS:
        raise ValueError(f"unknown action '{verb}', expected one of {', '.join(VERBS)}")
    cells = []
    for word in args:
        match = _CELL.fullmatch(word)
        if not match:
            raise ValueError(f"expected a cell x,y, found '{word}'")
        cells.append((int(match.group(1)), int(match.group(2))))
    counts = {"attack": (0, 6), "defend": (1, 3), "guerilla": (1, 1), "pass": (0, 0)}
    low, high = counts[verb]
    if not low <= len(cells) <= high:
        wanted = f"{low} to {high}" if low != high else str(low)
        raise ValueError(f"'{verb}' takes {wanted} cells, found {len(cells)}")
    return verb, cells


def script_actions(text: str, filename: str = "<script>") -> Iterator[tuple[int, Move]]:
    """The actions of ``text``, each with its line number: ``(number, action)`` in :meth:`Game.apply` form
    (``("attack", [(3, 1)])``, ``("defend", [...])``, ``("guerilla", (x, y))``, ``("pass",)``). Raises
    :class:`ScriptError` naming the line for a malformed line (when that line is reached)."""
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            parsed = parse_line(line)
        except ValueError as err:
            raise ScriptError(filename, number, str(err)) from None
        if parsed is None:
            continue
        verb, cells = parsed
        if verb == "pass":
            yield number, ("pass",)
        elif verb == "guerilla":
            yield number, ("guerilla", cells[0])
        else:
            yield number, (verb, cells)


def play_script(game: Game, text: str, filename: str = "<script>", session: Session | None = None
                ) -> list[Event]:
    """Play every line of ``text`` on ``game`` through *session*'s turn flow (motti/session.py: each action
    announced, the ``--status`` file rewritten; default: a session with no files); return all events.
    Raises :class:`ScriptError` naming the line for a malformed line, an illegal action or cross, and any
    action after the game has ended."""
    if session is None:
        session = Session(Composer(game))
    events: list[Event] = []
    for number, action in script_actions(text, filename):
        if game.is_terminal():
            assert game.end is not None
            raise ScriptError(filename, number,
                              f"the game is over ({end_text(game.end)}); no further action is possible")
        try:
            events += session.play(action)
        except IllegalAction as err:
            raise ScriptError(filename, number, f"player {game.current_player}: {action[0]}: {err}") from None
    return events


def run_script(game: Game, path: str | Path, session: Session | None = None) -> None:
    """Play the script file ``path`` on ``game`` (§3.3), through *session* (see :func:`play_script`). Raises
    :class:`ScriptError`: at line 0 when the file cannot be read, at the line and column of its first byte
    that is not UTF-8 (``FILE:2:7: not UTF-8 text (invalid start byte)``, as a map says it)."""
    try:
        data = read_input(path, MAX_SCRIPT_BYTES)
    except OSError as err:
        raise ScriptError(str(path), 0, f"cannot read the script: {err.strerror or err}") from None
    try:
        text = utf8_text(data, str(path))
    except MapError as err:
        raise ScriptError(err.file, err.line, err.message, err.column) from None
    play_script(game, text, str(path), session)
