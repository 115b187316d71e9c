"""motti map files: reader, writer, search path and the ``-p`` player reduction (spec/motti.md §3.1–§3.2).

Format (UTF-8 text, ``#`` starts a comment line)::

    motti-map 1
    size W H
    players N
    capital K X Y        (one per player; ``eliminated K`` instead for a player that is out)
    turn K               (optional, player in turn)
    attacks R            (optional, attacks left this turn)
    turns T              (optional, turns played so far)
    reset-rule RULE      (optional, strict or empty, §2.8)
    capital-rule RULE    (optional, v3 or v2, §2.7)
    tie-rule RULE        (optional, mover or lowest, §2.6)
    max-turns N          (optional, the turn cap of §2.9)
    takeable K           (optional, the count of §2.8 after the last action)
    computer K LEVEL     (optional, one per computer player: easy, medium or hard)
    resets T1 T2 ...     (optional, the turns in which a global reset happened, §2.8)
    last-turn P ACTION   (optional, the last turn: its player and attack, defend, guerilla or pass; a third
                          word ``reset`` when a global reset happened in it; spec §6 "The last turn")
    last-cell X Y CHANGE (optional, after last-turn, one per cell that turn changed: conquered, occupied,
                          captured or encircled)
    turn-reset           (optional, while an Attack turn is under way, attacks below 6: a global reset
                          happened in it; ``resets`` names that turn)
    turn-cell X Y CHANGE (optional, likewise: one per cell the turn under way has changed so far, CHANGE as
                          for last-cell)
    grid

The rule lines are those of motti.rules.RULE_OPTIONS (their words and variants).
    H rows of W characters: '.' sea, 'a'-'i' unoccupied land of player 1-9, 'A'-'I' occupied land
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from common.data import shipped_dir
from common.save import BOM, file_problem, read_input, require_regular
from motti.announce import plural
from motti.levels import LEVELS
from motti.rules import (
    ATTACKS_PER_TURN,
    RULE_OPTIONS,
    Board,
    Rules,
    nearest_capital,
    takeable_fault,
    takeable_unkept,
    turns_fault,
)

MAGIC = "motti-map 1"
MAX_PLAYERS = 9
#: Longest side of a map, loaded or generated (cells): larger boards would need gigabytes to hold and draw.
MAX_SIDE = 2000
#: Numbers in a map file have at most this many digits (int() refuses strings above 4300 digits).
_MAX_DIGITS = 18
#: The actions a ``last-turn`` line names and the changes of a ``last-cell`` line (spec §6 "The last turn").
LAST_ACTIONS = ("attack", "defend", "guerilla", "pass")
LAST_CHANGES = ("conquered", "occupied", "captured", "encircled")
#: The lines of a save that name one changed cell each, ``KEYWORD X Y CHANGE``: of the last turn and of the
#: Attack turn under way (motti.savegame.state_lines writes them).
CELL_LINES = ("last-cell", "turn-cell")
#: The longest of those lines, its newline included.
_CELL_LINE_BYTES = max(len(f"{keyword} {MAX_SIDE - 1} {MAX_SIDE - 1} {max(LAST_CHANGES, key=len)}\n")
                       for keyword in CELL_LINES)
#: A map file is read up to this size, that of the largest save (a MAX_SIDE x MAX_SIDE grid, a ``last-cell``
#: and a ``turn-cell`` line per cell, about 244 MB) with 1 MiB for its other lines: ``/dev/zero`` is refused
#: there.
MAX_FILE_BYTES = MAX_SIDE * (MAX_SIDE + 1) + len(CELL_LINES) * MAX_SIDE**2 * _CELL_LINE_BYTES + (1 << 20)
# The state lines of a save (§3.2) after 'turn' and 'attacks': keyword -> (MapState field, allowed words or
# the lowest number); the rule lines come from the rules' one declaration.
_STATE_LINES: dict[str, tuple[str, tuple[str, ...] | int]] = {
    "turns": ("turns", 0),
    **{option.word: (option.field, option.choices or option.lowest) for option in RULE_OPTIONS},
    "takeable": ("takeable", 0),
}


def _rules(state: dict[str, int | str]) -> Rules:
    """The rule options of a save's state lines (checked there): each rule line's value, else the default."""
    return Rules(**{option.field: state[option.field] for option in RULE_OPTIONS  # type: ignore[arg-type]
                    if option.field in state})


class MapError(ValueError):
    """A bad map file: ``str()`` is ``"FILE:LINE:COL: message"`` (line and column 1-based), or
    ``"FILE: message"`` for the file as a whole (line 0).
    """

    def __init__(self, file: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{file}:{line}:{column}: {message}" if line else f"{file}: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.message = message


@dataclass
class MapState:
    """A loaded map: the board, plus the state lines the file holds (§3.2; ``None`` or empty when absent):
    the player in turn, the attacks left, the turns played, the rule options, the count of §2.8, the turn cap,
    the computer players ``{player: level}``, the turns of the resets, the last turn and the Attack turn
    under way so far (``turn_so_far``: the player in turn, action ``attack``, from the ``turn-reset`` and
    ``turn-cell`` lines)."""

    board: Board
    turn: int | None = None
    attacks: int | None = None
    turns: int | None = None
    reset_rule: str | None = None
    capital_rule: str | None = None
    tie_rule: str | None = None
    takeable: int | None = None
    max_turns: int | None = None
    computer: dict[int, str] = field(default_factory=dict)
    resets: tuple[int, ...] = ()
    last_turn: SavedTurn | None = None
    turn_so_far: SavedTurn | None = None


@dataclass
class SavedTurn:
    """The ``last-turn`` and ``last-cell`` lines of a save (spec §6 "The last turn"), or the ``turn-reset``
    and ``turn-cell`` lines of the Attack turn under way: the mover ``player``, its ``action``
    (:data:`LAST_ACTIONS`), whether a global reset happened in it, and each changed cell ``(x, y)`` with its
    change (:data:`LAST_CHANGES`), in file order."""

    player: int
    action: str
    reset: bool = False
    cells: dict[tuple[int, int], str] = field(default_factory=dict)


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        self.filename = filename
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.lines = [line.rstrip("\r") for line in self.lines]
        self.index = 0

    def error(self, line: int, column: int, message: str) -> MapError:
        return MapError(self.filename, line, column, message)

    def next_line(self, expected: str) -> tuple[int, str]:
        """The next line that is neither blank nor a comment, as (1-based number, text)."""
        while self.index < len(self.lines):
            text = self.lines[self.index]
            self.index += 1
            if text.strip() and not text.lstrip().startswith("#"):
                return self.index, text
        raise self.error(len(self.lines) + 1, 1, f"unexpected end of file, expected {expected}")

    def numbers(self, lineno: int, text: str, keyword: str, names: tuple[str, ...]) -> list[int]:
        """Parse ``keyword N1 N2 ...`` into ints, naming the column of anything wrong."""
        tokens = _tokens(text)
        usage = " ".join([keyword, *names])
        if len(tokens) < len(names) + 1:
            raise self.error(lineno, len(text.rstrip()) + 1, f"expected '{usage}', found too few numbers")
        if len(tokens) > len(names) + 1:
            raise self.error(lineno, tokens[len(names) + 1][0], f"expected '{usage}', found too many numbers")
        out = []
        for (column, token), name in zip(tokens[1:], names, strict=True):
            if not re.fullmatch(r"[+-]?[0-9]+", token):      # ASCII digits only (int() takes ３ and 1_0)
                raise self.error(lineno, column, f"expected an integer {name}, found '{token[:40]}'")
            if len(token.lstrip("+-").lstrip("0")) > _MAX_DIGITS:
                raise self.error(lineno, column, f"{name} is far too large ({len(token)} digits)")
            out.append(int(token))
        return out

    def parse(self) -> MapState:
        lineno, text = self.next_line(f"'{MAGIC}'")
        if text.strip() != MAGIC:
            raise self.error(lineno, 1, f"expected '{MAGIC}' as the first line, found '{text.strip()[:40]}'")
        lineno, text = self.next_line("'size W H'")
        if _keyword(text) != "size":
            raise self.error(lineno, 1, f"expected 'size W H', found '{text.strip()[:40]}'")
        width, height = self.numbers(lineno, text, "size", ("W", "H"))
        if width < 1 or height < 1:
            raise self.error(
                lineno, _tokens(text)[1][0], f"size must be at least 1 1, found {width} {height}"
            )
        if width > MAX_SIDE or height > MAX_SIDE:
            column = _tokens(text)[1 if width > MAX_SIDE else 2][0]
            raise self.error(
                lineno, column, f"size must be at most {MAX_SIDE} {MAX_SIDE}, found {width} {height}"
            )
        lineno, text = self.next_line("'players N'")
        if _keyword(text) != "players":
            raise self.error(lineno, 1, f"expected 'players N', found '{text.strip()[:40]}'")
        (players,) = self.numbers(lineno, text, "players", ("N",))
        if not 2 <= players <= MAX_PLAYERS:
            raise self.error(
                lineno, _tokens(text)[1][0], f"players must be 2 to {MAX_PLAYERS}, found {players}"
            )

        capitals: dict[int, tuple[int, int] | None] = {}
        capital_lines: dict[int, tuple[int, int]] = {}
        turn: int | None = None
        attacks: int | None = None
        turn_line = (0, 0)
        state: dict[str, int | str] = {}
        state_at: dict[str, tuple[int, int]] = {}   # field -> line and column of its value
        computer: dict[int, str] = {}
        resets: tuple[int, ...] | None = None
        resets_line = (0, "")
        last_turn: SavedTurn | None = None
        turn_cells: dict[tuple[int, int], str] = {}
        turn_reset = False
        turn_lines: list[tuple[int, str]] = []   # the turn under way's lines: number and keyword
        cell_lines: list[tuple[str, int, int, int, int]] = []   # keyword, x, y, line, column
        while True:
            lineno, text = self.next_line("'capital K X Y' or 'grid'")
            key = _keyword(text)
            if key == "grid":
                if text.strip() != "grid":
                    raise self.error(lineno, 1, "expected 'grid' alone on its line")
                break
            if key in ("capital", "eliminated"):
                names = ("K", "X", "Y") if key == "capital" else ("K",)
                values = self.numbers(lineno, text, key, names)
                player, column = values[0], _tokens(text)[1][0]
                if not 1 <= player <= players:
                    raise self.error(lineno, column, f"expected a player 1 to {players}, found {player}")
                if player in capitals:
                    raise self.error(lineno, column, f"player {player} has a second capital/eliminated line")
                capitals[player] = (values[1], values[2]) if key == "capital" else None
                capital_lines[player] = (lineno, _tokens(text)[2][0] if key == "capital" else column)
            elif key in ("turn", "attacks") and (turn if key == "turn" else attacks) is not None:
                raise self.error(lineno, 1, f"a second '{key}' line")
            elif key == "turn":
                (turn,) = self.numbers(lineno, text, "turn", ("K",))
                turn_line = (lineno, _tokens(text)[1][0])
            elif key == "attacks":
                (attacks,) = self.numbers(lineno, text, "attacks", ("R",))
                if not 1 <= attacks <= ATTACKS_PER_TURN:
                    raise self.error(
                        lineno,
                        _tokens(text)[1][0],
                        f"attacks must be 1 to {ATTACKS_PER_TURN}, found {attacks}",
                    )
            elif key in _STATE_LINES:
                name, allowed = _STATE_LINES[key]
                if name in state:
                    raise self.error(lineno, 1, f"a second '{key}' line")
                state[name] = self.state_value(lineno, text, key, allowed)
                state_at[name] = (lineno, _tokens(text)[1][0])
            elif key == "resets":
                if resets is not None:
                    raise self.error(lineno, 1, "a second 'resets' line")
                resets = self.turn_list(lineno, text)
                resets_line = (lineno, text)
            elif key == "last-turn":
                if last_turn is not None:
                    raise self.error(lineno, 1, "a second 'last-turn' line")
                last_turn = self.last_turn_line(lineno, text, players)
            elif key == "turn-reset":
                tokens = _tokens(text)
                if len(tokens) > 1:
                    raise self.error(lineno, tokens[1][0], "expected 'turn-reset' alone on its line")
                if turn_reset:
                    raise self.error(lineno, 1, "a second 'turn-reset' line")
                turn_reset = True
                turn_lines.append((lineno, key))
            elif key in CELL_LINES:
                if key == "last-cell" and last_turn is None:
                    raise self.error(lineno, 1, "a 'last-cell' line before the 'last-turn' line")
                cells = last_turn.cells if last_turn is not None and key == "last-cell" else turn_cells
                x, y, change, column = self.cell_line(lineno, text, key)
                if (x, y) in cells:
                    raise self.error(lineno, column, f"a second '{key}' line for {x} {y}")
                cells[(x, y)] = change
                cell_lines.append((key, x, y, lineno, column))
                if key == "turn-cell":
                    turn_lines.append((lineno, key))
            elif key == "computer":
                player, level = self.computer_line(lineno, text, players)
                if player in computer:
                    raise self.error(lineno, _tokens(text)[1][0], f"a second 'computer {player}' line")
                computer[player] = level
            else:
                others = [*_STATE_LINES, "computer", "resets", "last-turn", "last-cell", "turn-reset",
                          "turn-cell"]
                raise self.error(
                    lineno,
                    1,
                    f"expected 'capital', 'eliminated', 'turn', 'attacks' or 'grid' (or another state line: "
                    f"{', '.join(others)}), found '{key[:30]}'",
                )
        grid_line = lineno
        for player in range(1, players + 1):
            if player not in capitals:
                raise self.error(grid_line, 1, f"player {player} has no 'capital' or 'eliminated' line")
        rules, turns = _rules(state), int(state.get("turns", 0))
        self.check_state(state, state_at, rules, turns, resets or (), resets_line)
        if turn_lines:
            self.check_turn_under_way(turn_lines, turn, attacks, rules.max_turns, turns, resets or ())

        land = np.zeros((height, width), dtype=bool)
        owner = np.zeros((height, width), dtype=np.int8)
        occupied = np.zeros((height, width), dtype=bool)
        row_lines = []
        for y in range(height):
            lineno, text = self.next_line(f"grid row {y + 1} of {height}")
            row_lines.append(lineno)
            if len(text) != width:
                column = min(len(text), width) + 1
                raise self.error(
                    lineno, column, f"expected a grid row of {width} characters, found {len(text)}"
                )
            for x, ch in enumerate(text):
                if ch == ".":
                    continue
                if "a" <= ch <= "i" or "A" <= ch <= "I":
                    player = ord(ch.lower()) - ord("a") + 1
                    if player > players:
                        raise self.error(
                            lineno, x + 1, f"'{ch}' is land of player {player}, but players is {players}"
                        )
                    if capitals[player] is None:
                        raise self.error(lineno, x + 1, f"'{ch}' is land of eliminated player {player}")
                    land[y, x] = True
                    owner[y, x] = player
                    occupied[y, x] = ch.isupper()
                else:
                    raise self.error(
                        lineno, x + 1, f"unknown character {ch!r}, expected '.', 'a'-'i' or 'A'-'I'"
                    )
        try:
            lineno, text = self.next_line("")
        except MapError:
            pass
        else:
            raise self.error(lineno, 1, f"expected the end of the file after {height} grid rows")

        for player, cell in capitals.items():
            if cell is None:
                continue
            lineno, column = capital_lines[player]
            x, y = cell
            if not (0 <= x < width and 0 <= y < height):
                raise self.error(
                    lineno,
                    column,
                    f"capital of player {player} at ({x},{y}) is outside the {width}x{height} grid",
                )
            if not land[y, x]:
                raise self.error(lineno, column, f"capital of player {player} at ({x},{y}) is on sea")
            if owner[y, x] != player:
                raise self.error(
                    lineno,
                    column,
                    f"capital of player {player} at ({x},{y}) is on land of player {owner[y, x]}",
                )
        if turn is not None and (not 1 <= turn <= players or capitals[turn] is None):
            raise self.error(*turn_line, f"turn must name an alive player, found {turn}")
        board = Board(land, owner, occupied, capitals, players)
        alive = len(board.alive_players())
        if alive < 1:
            raise self.error(grid_line, 1, "no player has a capital")
        takeable = state.get("takeable")
        if isinstance(takeable, int) and (fault := takeable_fault(takeable, alive, rules.reset)):
            raise self.error(*state_at["takeable"], fault)
        for key, x, y, lineno, column in cell_lines:
            if not (0 <= x < width and 0 <= y < height) or not land[y, x]:
                raise self.error(lineno, column, f"{key} {x} {y} is not a land cell of the grid")
        turn_so_far = None
        if turn_lines:
            assert turn is not None
            turn_so_far = SavedTurn(turn, "attack", reset=turn_reset, cells=turn_cells)
        return MapState(board, turn, attacks, computer=computer, resets=resets or (), last_turn=last_turn,
                        turn_so_far=turn_so_far, **state)  # type: ignore[arg-type]

    def check_state(self, state: dict[str, int | str], state_at: dict[str, tuple[int, int]], rules: Rules,
                    turns: int, resets: tuple[int, ...], resets_line: tuple[int, str]) -> None:
        """Refuse state lines that no game reaches under the save's *rules* with *turns* played (0 without a
        ``turns`` line): ``turns`` past ``max-turns`` (the game ends there), a reset after the turn under way
        (``turns`` + 1), ``takeable`` under a reset rule that keeps no such count (§2.8 ``empty``).
        *state_at* holds each state line's line and value column, *resets_line* the ``resets`` line's number
        and text."""
        fault = turns_fault(turns, rules.max_turns)
        if fault is not None:
            raise self.error(*state_at["turns"], fault)
        if resets and resets[-1] > turns + 1:
            lineno, text = resets_line
            column, word = next((column, word) for column, word in _tokens(text)[1:] if int(word) > turns + 1)
            raise self.error(lineno, column, f"a reset in turn {word} cannot be after {turns} turns played "
                             f"(at most turn {turns + 1}, the turn under way)")
        unkept = takeable_unkept(rules.reset)
        if "takeable" in state and unkept is not None:
            raise self.error(*state_at["takeable"], unkept)

    def check_turn_under_way(self, lines: list[tuple[int, str]], turn: int | None, attacks: int | None,
                             cap: int | None, turns: int, resets: tuple[int, ...]) -> None:
        """Refuse the lines of the turn under way (*lines*: ``turn-reset`` and ``turn-cell`` lines, as line
        number and keyword, in file order) where no Attack turn is under way (no ``turn`` line, no
        ``attacks`` line, ``attacks 6``, or the turn cap reached: the game is over), and a ``turn-reset``
        whose turn, *turns* + 1, *resets* does not name; the error is at the first such line, column 1.
        *cap* is the save's ``max-turns``, *turns* its turns played."""
        lineno, key = lines[0]
        found = ("no 'turn' line" if turn is None else "no 'attacks' line" if attacks is None
                 else f"attacks {attacks}" if attacks >= ATTACKS_PER_TURN
                 else f"turns {turns} of max-turns {cap}" if cap is not None and turns >= cap else None)
        if found is not None:
            raise self.error(lineno, 1, f"a '{key}' line needs an Attack turn under way ('turn K' and "
                             f"'attacks' 1 to {ATTACKS_PER_TURN - 1}), found {found}")
        reset_line = next((number for number, word in lines if word == "turn-reset"), None)
        if reset_line is not None and turns + 1 not in resets:
            raise self.error(reset_line, 1, f"a 'turn-reset' line needs the turn under way, {turns + 1}, on "
                             f"the 'resets' line")

    def turn_list(self, lineno: int, text: str) -> tuple[int, ...]:
        """``resets T1 T2 ...``: turn numbers of at least 1, ascending."""
        tokens = _tokens(text)
        out: list[int] = []
        for column, word in tokens[1:]:
            if not re.fullmatch(r"[0-9]{1,18}", word) or int(word) < 1:
                raise self.error(lineno, column, f"expected a turn number of at least 1, found '{word[:40]}'")
            if out and int(word) < out[-1]:
                raise self.error(lineno, column,
                                 f"resets go in ascending order, found {word} after {out[-1]}")
            out.append(int(word))
        return tuple(out)

    def last_turn_line(self, lineno: int, text: str, players: int) -> SavedTurn:
        """``last-turn P ACTION [reset]``."""
        tokens = _tokens(text)
        usage = f"expected 'last-turn P {'|'.join(LAST_ACTIONS)} [reset]'"
        if len(tokens) < 3 or len(tokens) > 4:
            raise self.error(lineno, tokens[4][0] if len(tokens) > 4 else len(text) + 1, usage)
        column, word = tokens[1]
        if not re.fullmatch(r"[0-9]+", word) or not 1 <= int(word) <= players:
            raise self.error(lineno, column, f"expected a player 1 to {players}, found '{word[:40]}'")
        if tokens[2][1] not in LAST_ACTIONS:
            raise self.error(lineno, tokens[2][0], usage)
        if len(tokens) == 4 and tokens[3][1] != "reset":
            raise self.error(lineno, tokens[3][0], usage)
        return SavedTurn(int(word), tokens[2][1], reset=len(tokens) == 4)

    def cell_line(self, lineno: int, text: str, key: str) -> tuple[int, int, str, int]:
        """``KEY X Y CHANGE`` (*key* one of :data:`CELL_LINES`): (x, y, change, column of X)."""
        tokens = _tokens(text)
        if len(tokens) != 4 or tokens[3][1] not in LAST_CHANGES:
            column = tokens[3][0] if len(tokens) >= 4 else len(text) + 1
            raise self.error(lineno, column, f"expected '{key} X Y {'|'.join(LAST_CHANGES)}'")
        for column, word in tokens[1:3]:
            if not re.fullmatch(r"[0-9]{1,18}", word):
                raise self.error(lineno, column, f"expected a cell coordinate, found '{word[:40]}'")
        return int(tokens[1][1]), int(tokens[2][1]), tokens[3][1], tokens[1][0]

    def state_value(self, lineno: int, text: str, key: str, allowed: tuple[str, ...] | int) -> int | str:
        """The value of a state line ``KEY VALUE``: one of the words ``allowed``, or a number at least
        ``allowed``."""
        tokens = _tokens(text)
        if isinstance(allowed, int):
            (value,) = self.numbers(lineno, text, key, ("N",))
            if value < allowed:
                raise self.error(lineno, tokens[1][0], f"{key} must be at least {allowed}, found {value}")
            return value
        if len(tokens) != 2 or tokens[1][1] not in allowed:
            column = tokens[1][0] if len(tokens) > 1 else len(text) + 1
            raise self.error(lineno, column, f"expected '{key} {'|'.join(allowed)}'")
        return tokens[1][1]

    def computer_line(self, lineno: int, text: str, players: int) -> tuple[int, str]:
        """``computer K LEVEL``: a player 1..players and a level of :data:`LEVELS`."""
        tokens = _tokens(text)
        # The column of the first argument that is wrong, missing (the end of the line) or extra.
        bad = [column for index, (column, word) in enumerate(tokens[1:3])
               if not (re.fullmatch(r"[0-9]+", word) if index == 0 else word in LEVELS)]
        if bad or len(tokens) != 3:
            column = bad[0] if bad else tokens[3][0] if len(tokens) > 3 else len(text) + 1
            raise self.error(lineno, column, f"expected 'computer K {'|'.join(LEVELS)}'")
        player = int(tokens[1][1])
        if not 1 <= player <= players:
            raise self.error(lineno, tokens[1][0], f"expected a player 1 to {players}, found {player}")
        return player, tokens[2][1]


def _tokens(text: str) -> list[tuple[int, str]]:
    """Whitespace-separated tokens with their 1-based columns."""
    return [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)]


def _keyword(text: str) -> str:
    parts = text.split()
    return parts[0] if parts else ""


def parse_map(text: str, filename: str = "<map>") -> MapState:
    """Parse map text (§3.2). Raises :class:`MapError` naming file, line, column and what was expected."""
    return _Parser(text, filename).parse()


def utf8_text(data: bytes, filename: str) -> str:
    """*data* as UTF-8 text, a leading byte-order mark dropped. Raises :class:`MapError` at the line and
    column (in characters) of the first byte that is not UTF-8: ``FILE:2:7: not UTF-8 text (invalid start
    byte)``."""
    body = data.removeprefix(BOM)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        start = body.rfind(b"\n", 0, err.start) + 1
        column = len(body[start:err.start].decode("utf-8")) + 1
        raise MapError(filename, body.count(b"\n", 0, err.start) + 1, column,
                       f"not UTF-8 text ({err.reason})") from None


def _file_error(path: Path, problem: str) -> MapError:
    """The :class:`MapError` of a file that cannot be read (line 0): ``FILE: is a directory, not a file to
    read``, ``FILE: cannot read: Permission denied``."""
    return MapError(str(path), 0, 0, problem if problem.startswith("is ") else f"cannot read: {problem}")


def load_map(path: str | Path) -> MapState:
    """Read and parse a map file (UTF-8, a leading byte-order mark is allowed). Any readable file will do, a
    FIFO or a character device too (``motti <(gunzip -c big.map.gz)``, common.save.file_problem); a
    directory, a file that cannot be read or one larger than :data:`MAX_FILE_BYTES` is a :class:`MapError`
    at line 0 naming the file, a byte that is not UTF-8 one naming its line and column (:func:`utf8_text`)."""
    path = Path(path)
    problem = file_problem(path, written=False)
    if problem is not None:
        raise _file_error(path, problem)
    try:
        data = read_input(path, MAX_FILE_BYTES)
    except OSError as err:
        raise MapError(str(path), 0, 0, f"cannot read: {err.strerror or err}") from None
    return parse_map(utf8_text(data, str(path)), str(path))


def dump_map(
    board: Board,
    turn: int | None = None,
    attacks: int | None = None,
    comment: str | None = None,
    state: Sequence[str] = (),
) -> str:
    """The map text of ``board`` (§3.2): occupied cells uppercase, ``eliminated`` lines for players that are
    out, optional ``turn``/``attacks`` lines and further ``state`` lines (``"turns 12"``…) after the capitals,
    and ``# comment`` lines first."""
    lines = [f"# {part}" for part in comment.splitlines()] if comment else []
    lines += [MAGIC, f"size {board.width} {board.height}", f"players {board.players}"]
    for player in range(1, board.players + 1):
        cell = board.capitals.get(player)
        lines.append(f"eliminated {player}" if cell is None else f"capital {player} {cell[0]} {cell[1]}")
    if turn is not None:
        lines.append(f"turn {turn}")
    if attacks is not None:
        lines.append(f"attacks {attacks}")
    lines += state
    lines.append("grid")
    letters = "." + "".join(chr(ord("a") + i) for i in range(MAX_PLAYERS)) + \
        "".join(chr(ord("A") + i) for i in range(MAX_PLAYERS))
    table = np.frombuffer(letters.encode("ascii"), dtype=np.uint8)
    code = np.where(board.land, board.owner.astype(np.int64) + np.where(board.occupied, MAX_PLAYERS, 0), 0)
    # The grid as one block of bytes, a newline ending each row: no Python step per row or cell.
    grid = np.full((board.height, board.width + 1), ord("\n"), dtype=np.uint8)
    grid[:, :-1] = table[code]
    return "\n".join(lines) + "\n" + grid.tobytes().decode("ascii")


def find_map(name: str) -> Path:
    """Locate a map (§3.1): the current directory first (``name``, then ``name.map``), then the shipped map
    directory (``common.data.shipped_dir("motti")``); when no file matches, an existing non-file ``name``
    (directory, FIFO, device) is returned for :func:`load_map` to refuse. Raises ``FileNotFoundError`` saying
    where it looked."""
    shipped = shipped_dir("motti")
    if not name:  # Path("") is the current folder
        raise FileNotFoundError(f"an empty map name is no map file in the current directory or in {shipped}")
    names = [name] if name.endswith(".map") else [name, name + ".map"]
    for base in (Path.cwd(), shipped):
        for candidate in names:
            path = base / candidate
            if path.is_file():
                return path
    # Something that is not a file (a directory, FIFO, /dev/null): load_map says what it is.
    for candidate in names:
        if Path(candidate).exists():
            return Path(candidate)
    raise FileNotFoundError(f"map '{name}' not found in the current directory or in {shipped}")


def list_maps(skipped: Callable[[MapError], None] | None = None) -> list[tuple[str, int, int, int]]:
    """``(name, W, H, players)`` of every readable map in the shipped map directory, sorted by name.

    A file that does not load is left out, and so is anything but a regular file, unopened (a FIFO would wait
    for a writer for ever); *skipped*, if given, is called with its :class:`MapError`
    (``FILE: is a FIFO, not a regular file``)."""
    out: list[tuple[str, int, int, int]] = []
    directory = shipped_dir("motti")
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.map")):
        try:
            require_regular(path)
            state = load_map(path)
        except OSError as error:
            failure = _file_error(path, error.strerror or str(error))
        except MapError as error:
            failure = error
        else:
            out.append((path.stem, state.board.width, state.board.height, state.board.players))
            continue
        if skipped is not None:
            skipped(failure)
    return out


def reduce_players(board: Board, n: int, keep: set[int]) -> tuple[Board, dict[int, int]]:
    """§3.1 ``-p N`` on a loaded map: disable the highest-numbered alive players not in ``keep`` (the players
    named by player strings) until ``n`` remain. Each cell of a disabled player goes to the survivor whose
    capital is nearest by Euclidean distance, ties to the lowest number (occupied flags kept, the old capital
    becomes an ordinary cell).

    Returns a new board that keeps the player numbers (disabled players are eliminated: capital ``None``) and
    the renumbering ``{old: new}`` of the survivors to 1..n for writing with ``-o`` (see :func:`renumber`).
    Raises ``ValueError`` if ``n`` is below 2, above the number of alive players, or if too few players are
    unnamed."""
    alive = board.alive_players()
    if n < 2:
        raise ValueError(f"-p must be at least 2, found {n}")
    if n > len(alive):
        counted = plural(len(alive), "player")
        if len(alive) < board.players:
            raise ValueError(f"-p {n} is more than the {counted} still alive on this map "
                             f"({board.players} in the file)")
        raise ValueError(f"-p {n} is more than the {counted} of this map")
    removable = [p for p in reversed(alive) if p not in keep]
    drop = len(alive) - n
    if drop > len(removable):
        raise ValueError(
            f"-p {n}: cannot disable {drop} players, player strings name {len(alive) - len(removable)}"
        )
    disabled = set(removable[:drop])
    out = board.copy()
    survivors = [(p, board.capitals[p]) for p in alive if p not in disabled]
    gone = np.isin(out.owner, list(disabled)) & out.land
    ys, xs = np.nonzero(gone)
    if len(ys):
        out.owner[ys, xs] = nearest_capital(ys, xs, survivors)  # type: ignore[arg-type]
    for p in disabled:
        out.capitals[p] = None
    mapping = {p: i for i, (p, _) in enumerate(survivors, start=1)}
    return out, mapping


def renumber(board: Board, mapping: dict[int, int]) -> Board:
    """A copy of ``board`` holding only the players in ``mapping`` ({old: new}), renumbered; ``players``
    becomes ``len(mapping)``. Every land cell must belong to a mapped player."""
    lut = np.zeros(256, dtype=np.int8)
    for old, new in mapping.items():
        lut[old] = new
    owner = lut[board.owner.astype(np.int64) & 0xFF].astype(np.int8)
    capitals = {new: board.capitals[old] for old, new in mapping.items()}
    return Board(board.land.copy(), owner, board.occupied.copy(), capitals, len(mapping))
