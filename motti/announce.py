"""What happened, in the same words in every front end, and which cells the last turn changed.

A :class:`Chronicle` follows one game's events (the rules' events of motti.rules, spec/motti.md §2) action by
action. For every action it makes one announcement, e.g. ``P2 defended 3 cells``, ``P1 guerilla at 4,9``,
``P1 attack 3 of 6 took 5,2 — encircled 4 cells of P2`` or ``P1 attack 4 of 6 failed``, keeps the last
:data:`HISTORY` of them (the ``m`` key, spec §7) and gathers the cells each turn changed into a
:class:`LastTurn` (spec §6 "The last turn"): the previous turn's record stays until the next turn ends.

:func:`shorten` cuts a text that does not fit at a word bound (never mid-word), for the windows' legend band
and the console's message line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from motti.rules import (
    ATTACKS_PER_TURN,
    AttackDrawn,
    CapitalCaptured,
    Cells,
    CellsChanged,
    Eliminated,
    Encircled,
    GameOver,
    Reset,
    TurnPassed,
)

#: How many announcements the ``m`` key shows (spec §7).
HISTORY = 20
#: Joins an action and what followed from it in one announcement.
THEN = " — "
#: Ends a text shortened by :func:`shorten`.
ELLIPSIS = "…"

#: The changes of a cell in the last turn, spec §6: gains (the mover's) and losses (to a new owner).
GAINS = ("conquered", "occupied", "captured")
LOSSES = ("encircled",)

Cell = tuple[int, int]


def who(player: int | None) -> str:
    """How every front end names a player in announcements: ``P2``."""
    return f"P{player}"


def quit_question(players: Iterable[int]) -> str:
    """The question ``q`` asks in a window and at the console: ``Quit and give up players 1, 2? (y/n)``."""
    players = list(players)
    names = ", ".join(str(p) for p in players)
    return f"Quit and give up player{'s' if len(players) > 1 else ''} {names}? (y/n)"


def plural(count: int, word: str) -> str:
    """``1 cell``, ``3 cells``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


#: Every change a cell can have, by its code in :class:`LastTurn`'s arrays.
CHANGES = GAINS + LOSSES
_CODE = {change: code for code, change in enumerate(CHANGES)}
_GAIN_CODES = np.array([_CODE[change] for change in GAINS], dtype=np.uint8)
_LOSS_CODES = np.array([_CODE[change] for change in LOSSES], dtype=np.uint8)


class _Marks(NamedTuple):
    """Cells marked, in the order they were marked: columns, rows, change codes (:data:`CHANGES`), owners."""

    xs: np.ndarray
    ys: np.ndarray
    changes: np.ndarray
    owners: np.ndarray

    @classmethod
    def of(cls, xs: np.ndarray | Sequence[int], ys: np.ndarray | Sequence[int], change: int | Sequence[int],
           owner: int | Sequence[int]) -> _Marks:
        xs, ys = np.asarray(xs, dtype=np.int64), np.asarray(ys, dtype=np.int64)
        return cls(xs, ys, np.broadcast_to(np.asarray(change, dtype=np.uint8), xs.shape),
                   np.broadcast_to(np.asarray(owner, dtype=np.int64), xs.shape))

    def cells(self, index: np.ndarray | slice = slice(None)) -> list[Cell]:
        """The cells at *index* (default: all) as ``(x, y)`` tuples."""
        return list(zip(self.xs[index].tolist(), self.ys[index].tolist(), strict=True))

    def within(self, box: tuple[int, int, int, int] | None, codes: np.ndarray) -> np.ndarray:
        """The indices of the marks with a change of *codes* inside *box* ``(x0, y0, x1, y1)`` (exclusive
        ends; None: anywhere)."""
        keep = np.isin(self.changes, codes)
        if box is not None:
            x0, y0, x1, y1 = box
            xs, ys = self.xs, self.ys
            keep &= (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
        return np.flatnonzero(keep)


class LastTurn:
    """The cells one turn changed (spec §6): *player* the mover, *action* ``attack``, ``defend``,
    ``guerilla`` or ``pass`` (a turn without any action), *cells* each changed cell ``(x, y)`` with its last
    change (``conquered``, ``occupied``, ``captured``, ``encircled``), in the order of their last change,
    *owners* the owner each cell went to, *reset* whether a global reset (§2.8) happened in the turn
    (announced, not marked cell by cell).

    The marks are kept in numpy arrays, one block per :meth:`mark`, and merged (each cell once, with its last
    change) only when read: a player leaving a large board hands over some 100 000 cells in one action, and
    marking them builds no Python object per cell. :attr:`cells` and :attr:`owners` build dicts when asked;
    :meth:`gained`, :meth:`lost` and :meth:`to_json` read the arrays, the first two only the cells inside a
    box when given one."""

    def __init__(self, player: int, action: str = "pass", cells: Mapping[Cell, str] | None = None,
                 owners: Mapping[Cell, int] | None = None, reset: bool = False) -> None:
        self.player = player
        self.action = action
        self.reset = reset
        self._blocks: list[_Marks] = []
        # What was read of the marks, kept until the next mark: the cells' dict and to_json's list.
        self._cells: dict[Cell, str] | None = None
        self._listed: list[list[int | str]] | None = None
        if cells:
            listed = list(cells)
            owner = owners or {}
            self._blocks.append(_Marks.of([x for x, _ in listed], [y for _, y in listed],
                                          [_CODE[cells[cell]] for cell in listed],
                                          [owner.get(cell, player) for cell in listed]))

    def __repr__(self) -> str:
        return (f"LastTurn({self.player!r}, {self.action!r}, {self.cells!r}, {self.owners!r}, "
                f"{self.reset!r})")

    def mark(self, cells: Sequence[Cell], change: str, owner: int) -> None:
        """Mark *cells* (an event's :class:`motti.rules.Cells`, or ``(x, y)`` tuples) changed by *change*
        to *owner*; a cell marked before keeps only this, its last change, and moves after the others."""
        if isinstance(cells, Cells):
            marks = _Marks.of(cells.xs, cells.ys, _CODE[change], owner)
        else:
            marks = _Marks.of([x for x, _ in cells], [y for _, y in cells], _CODE[change], owner)
        if len(marks.xs):
            self._blocks.append(marks)
            self._cells = self._listed = None

    def _merged(self) -> _Marks:
        """Every cell once, with its last change and owner, in the order of the last changes."""
        blocks = self._blocks
        if not blocks:
            return _Marks.of([], [], [], [])
        if len(blocks) > 1:
            xs = np.concatenate([block.xs for block in blocks])
            ys = np.concatenate([block.ys for block in blocks])
            key = ys * (int(xs.max()) + 1) + xs
            order = np.argsort(key, kind="stable")
            ordered = key[order]
            last = np.ones(len(order), dtype=bool)
            last[:-1] = ordered[1:] != ordered[:-1]
            keep = np.sort(order[last])
            blocks[:] = [_Marks(xs[keep], ys[keep],
                                np.concatenate([block.changes for block in blocks])[keep],
                                np.concatenate([block.owners for block in blocks])[keep])]
        return blocks[0]

    @property
    def cells(self) -> dict[Cell, str]:
        """Each cell marked and its last change, in the order of the last changes; made once and given again
        until the next :meth:`mark` (the console asks for it at every redraw): do not change it."""
        if self._cells is None:
            marks = self._merged()
            changes = [CHANGES[code] for code in marks.changes.tolist()]
            self._cells = dict(zip(marks.cells(), changes, strict=True))
        return self._cells

    @property
    def owners(self) -> dict[Cell, int]:
        marks = self._merged()
        return dict(zip(marks.cells(), marks.owners.tolist(), strict=True))

    def gained(self, box: tuple[int, int, int, int] | None = None) -> list[Cell]:
        """The cells the mover gained (outlined in the mover's colour); only those inside *box* ``(x0, y0,
        x1, y1)`` (exclusive ends) when given."""
        marks = self._merged()
        return marks.cells(marks.within(box, _GAIN_CODES))

    def lost(self, box: tuple[int, int, int, int] | None = None) -> list[tuple[Cell, int]]:
        """The cells lost to another player, with their new owner (outlined dashed in its colour); only those
        inside *box* when given."""
        marks = self._merged()
        index = marks.within(box, _LOSS_CODES)
        return list(zip(marks.cells(index), marks.owners[index].tolist(), strict=True))

    def to_json(self) -> dict[str, Any]:
        """The status file's ``last_turn`` (spec §6): ``{"player", "action", "cells": [[x, y, CHANGE], ...],
        "reset"}``, cells ordered by row, then column. The cells' list is made once and given again until the
        next :meth:`mark` (the status file lists the previous turn after every action of the next one, and a
        player leaving a large board made it 100 000 cells long): do not change it."""
        if self._listed is None:
            marks = self._merged()
            order = np.lexsort((marks.xs, marks.ys))
            changes = [CHANGES[code] for code in marks.changes[order].tolist()]
            cells = zip(marks.cells(order), changes, strict=True)
            self._listed = [[x, y, change] for (x, y), change in cells]
        return {"player": self.player, "action": self.action, "cells": self._listed, "reset": self.reset}

    @classmethod
    def restore(cls, player: int, action: str, cells: dict[Cell, str], reset: bool,
                owner: Callable[[Cell], int]) -> LastTurn:
        """The record of a saved game's ``last-turn``/``last-cell`` lines (motti.mapfile.SavedTurn): each
        lost cell's new owner is its owner on the board now (*owner* ``(x, y) -> player``)."""
        return cls(player, action, dict(cells), {cell: owner(cell) for cell in cells}, reset)


_WHY_OUT = {"capital": "is out", "closed": "left, out", "quit": "quit, out"}


class Chronicle:
    """Announcements and last-turn records of one game (see the module docstring).

    *player* is the player in turn when following starts and *attacks_left* its attacks left (a resumed game
    may start in the middle of an Attack turn: its attacks are numbered on from there, and it ends as an
    attack turn); *last_turn* the turn before and *turn_so_far* what the turn under way has changed so far
    (*player*'s, action ``attack``), as a resumed game's save holds them: the record of the turn goes on
    from there (None: from nothing).
    """

    def __init__(self, player: int, attacks_left: int = ATTACKS_PER_TURN, history: int = HISTORY,
                 last_turn: LastTurn | None = None, turn_so_far: LastTurn | None = None) -> None:
        self.turn = turn_so_far if turn_so_far is not None else \
            LastTurn(player, "attack" if attacks_left < ATTACKS_PER_TURN else "pass")
        self.attacks_done = ATTACKS_PER_TURN - attacks_left
        self.last_turn: LastTurn | None = last_turn
        self.lines: deque[str] = deque(maxlen=history)

    def record(self, events: Iterable[object], action: str | None = None,
               why: str | None = None) -> str | None:
        """Follow the *events* of one action and return its announcement (also kept in :attr:`lines`), or
        None when there is nothing to say. *action* names what was done (``attack``, ``defend``,
        ``guerilla``, ``pass``) or None for what no action of the mover caused (a window closed, a player
        quit); Defend and Guerilla are known by it, attacks by their ``AttackDrawn`` events; *why* follows a
        pass (``P1 passed: no cell to cross``). A reset in the middle of a turn says who goes on:
        ``reset: all land is free; P1 goes on with 3 attacks``. Cells won name their taker, but for the mover
        until another taker is named (``P1 guerilla at 3,2 — encircled 1 cell of P4 — P2 encircled 1 cell of
        P1``, ``... — P2 encircled 1 cell of P1 — P1 encircled 1 cell of P4``)."""
        events = list(events)
        turn_ends = any(isinstance(e, TurnPassed | GameOver) for e in events)
        turn_passed = any(isinstance(e, TurnPassed) for e in events)
        left = any(isinstance(e, Eliminated) and e.cause in ("closed", "quit") for e in events)
        parts: list[str] = []
        turn = self.turn
        first_cells = True
        encircled: tuple[int, int, int, int] | None = None   # the last such clause: to, victim, index, cells
        others = False   # a clause named another taker: from then on the mover's are named too
        for event in events:
            turn = self.turn
            if isinstance(event, AttackDrawn):
                self.attacks_done += 1
                turn.action = "attack"
                head = f"{who(event.player)} attack {self.attacks_done} of {ATTACKS_PER_TURN}"
                if event.cell is None:
                    parts.append(f"{head} failed")
                else:
                    turn.mark([event.cell], "conquered", event.player)
                    parts.append(f"{head} took {event.cell[0]},{event.cell[1]}")
            elif isinstance(event, CellsChanged) and first_cells and action in ("defend", "guerilla"):
                first_cells = False
                turn.action = action
                change = "occupied" if action == "defend" else "conquered"
                turn.mark(event.cells, change, turn.player)
                if action == "defend":
                    parts.append(f"{who(turn.player)} defended {plural(len(event.cells), 'cell')}")
                else:
                    x, y = event.cells[0]
                    parts.append(f"{who(turn.player)} guerilla at {x},{y}")
            elif isinstance(event, Encircled):
                turn.mark(event.cells, "encircled", event.to)
                if not left:
                    # The pockets one player hands another in a row are one clause, their cells summed.
                    count = len(event.cells)
                    if encircled is not None and encircled[:2] == (event.to, event.victim) \
                            and encircled[2] == len(parts) - 1:
                        count += encircled[3]
                        parts.pop()
                    taker = "" if event.to == turn.player and not others else f"{who(event.to)} "
                    others |= event.to != turn.player
                    parts.append(f"{taker}encircled {plural(count, 'cell')} of {who(event.victim)}")
                    encircled = (event.to, event.victim, len(parts) - 1, count)
            elif isinstance(event, CapitalCaptured):
                turn.mark([event.cell], "captured", event.by)
                taker = "" if event.by == turn.player and not others else f"{who(event.by)} "
                others |= event.by != turn.player
                parts.append(f"{taker}captured the capital of {who(event.player)}")
            elif isinstance(event, Eliminated):
                parts.append(f"{who(event.player)} {_WHY_OUT.get(event.cause, event.cause + ', out')}")
            elif isinstance(event, Reset):
                turn.reset = True
                remaining = ATTACKS_PER_TURN - self.attacks_done
                parts.append("reset: all land is free again" if turn_ends else
                             f"reset: all land is free; {who(turn.player)} goes on with "
                             f"{plural(remaining, 'attack')}")
            elif isinstance(event, TurnPassed):
                if action == "pass":
                    parts.append(_passed(turn, why))
                self._end_turn(event.to)
            elif isinstance(event, GameOver):
                if action == "pass" and not turn_passed:   # the turn cap (§2.9) ended the game on this pass
                    parts.append(_passed(turn, why))
                self._end_turn(None)
                parts.append(_game_over(event))
        if not parts:
            return None
        text = parts[0] + "".join(f"{THEN}{part}" for part in parts[1:])
        self.lines.append(text)
        return text

    def note(self, text: str) -> None:
        """Keep *text* (e.g. ``saved to FILE``) among the announcements shown by ``m``."""
        self.lines.append(text)

    def _end_turn(self, to: int | None) -> None:
        self.last_turn = self.turn
        self.turn = LastTurn(to if to is not None else self.turn.player)
        self.attacks_done = 0


def _passed(turn: LastTurn, why: str | None) -> str:
    """The clause of a pass that ends *turn*: ``P1 passed`` (``: why`` after it) when nothing was done,
    ``P1 ended the turn`` after an attack."""
    because = f": {why}" if why else ""
    done = "passed" if turn.action == "pass" else "ended the turn"
    return f"{who(turn.player)} {done}{because}"


def _game_over(event: GameOver) -> str:
    return end_text(event)


def end_text(end: GameOver, *, short: bool = True) -> str:
    """How the game ended, in the words every front end, script mode and headless matches use (§2.9,
    §2.10): ``P1 wins after 183 turns``, ``P1 wins on land after 400 turns: 160–140`` (the land of the alive
    players, most first), ``draw on land after 400 turns: 150–150``, ``draw: no player can reach another``,
    ``everyone left: game over``; a game won before its first turn ended (the others left in it) says ``P1
    wins in turn 1``, as the windows' information line says ``Turn 1``; *short* names players ``P1``,
    otherwise ``player 1``."""
    name = f"P{end.winner}" if short else f"player {end.winner}"
    when = f"after {plural(end.turns, 'turn')}" if end.turns else "in turn 1"
    land = "–".join(str(n) for n in end.land)
    if end.winner is not None and end.result == "land":
        return f"{name} wins on land {when}: {land}"
    if end.winner is not None:
        return f"{name} wins {when}"
    if end.reason == "unreachable":
        return "draw: no player can reach another"
    if end.reason == "land":
        return f"draw on land {when}: {land}"
    return "everyone left: game over"


def end_line(end: GameOver) -> str:
    """How the game ended as a window's legend band says it once the game is over, players named in words:
    ``Player 1 wins after 183 turns``, ``Player 1 wins on land after 400 turns: 160–140``, ``Draw: no player
    can reach another``, ``Everyone left: game over``."""
    text = end_text(end, short=False)
    return text[0].upper() + text[1:]


def end_title(end: GameOver) -> str:
    """The heading of a finished game on a window's legend or the console's status line: ``Player 1 wins``,
    ``Draw: no player can reach another``, ``Game over: everyone left``."""
    if end.winner is not None:
        return f"Player {end.winner} wins"
    if end.reason == "left":
        return "Game over: everyone left"
    text = end_text(end)
    return text[0].upper() + text[1:]


def shorten(text: str, fits: Callable[[str], bool]) -> str:
    """*text* itself if ``fits(text)``, else the longest run of its first words followed by ``…`` that fits
    (never cut mid-word; a lone ``…`` or an empty string when not even that fits)."""
    if fits(text):
        return text
    words = text.split(" ")
    for count in range(len(words) - 1, 0, -1):
        head = " ".join(words[:count]).rstrip(" —;,·")
        if head and fits(head + ELLIPSIS):
            return head + ELLIPSIS
    return ELLIPSIS if fits(ELLIPSIS) else ""
