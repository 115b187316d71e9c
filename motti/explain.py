"""What a newcomer reads off the screen, in the same words in every window and at the console (issue: why a
capital cannot fall yet, what brings the reset, what to try next).

* the capitals' state (spec/motti.md §2.7, §2.8): an occupied capital is **safe** until the next global
  reset, an unoccupied one is **open**; a **threat** is an occupied cell of another player from which an open
  capital can be taken in that player's next turn (by Attack squarely next to it, by Guerilla diagonally too);
* how the turn under way ends (``6 attacks left; Defend or Guerilla ends the turn``);
* the turn (with the cap of ``--max-turns``), each player's land, and the **reset line**: what stands between
  the game and the next global reset under the rule in force (motti.rules.ResetOutlook): under ``strict`` how
  many free cells of another player each player could still take, under ``empty`` how much land is free;
  each text comes in variants, longest first, for the windows' widths and the console's columns;
* the ``m`` view's first line, ``Resets: turns 31, 77``;
* the help of ``?`` (F1 in a window): the rules in eleven lines, then every key and mouse button;
* the tip of ``t``: the ``medium`` level's choice for the player in turn (motti/rollout.py, asked through
  motti.thinking.decide), with one line saying why, computed on a copy of the game (the game never changes).

Pure: no pygame, curses or X here; the views (motti/view.py, motti/console.py) draw these texts.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from motti.announce import plural
from motti.rules import (
    ATTACKS_PER_TURN,
    Action,
    CapitalCaptured,
    Encircled,
    Game,
    Reset,
    ResetOutlook,
    capital_threats,
    why_illegal,
)

if TYPE_CHECKING:
    from motti.announce import LastTurn
    from motti.mapfile import SavedTurn
    from motti.rules import Board

Cell = tuple[int, int]

#: The legend's words: an occupied capital, an unoccupied one, a cell from which a capital can be taken.
SAFE = "safe"
OPEN = "open"
THREAT = "threat"
#: Joins the parts of an information line.
DOT = " · "
#: The key that passes (ends the turn at once, ``Game.pass_turn``), in the windows and at the console.
PASS_KEY = "p"
#: Why an Attack without a cross is refused while the player has a cell to cross (it would be wasted).
NO_CROSS = f"an attack needs crosses: cross free cells first, or press {PASS_KEY} to pass (end the turn)"
#: Why an Attack without a cross passed: the player had no cell to cross.
NO_CELL = "no cell to cross"


def capital_state(board: Board, player: int) -> str:
    """:data:`SAFE` when *player*'s capital is occupied (no Attack or Guerilla can take it before the next
    global reset, §2.8), :data:`OPEN` when it is unoccupied (§2.7). Raises ValueError for a player who is
    out."""
    capital = board.capitals.get(player)
    if capital is None:
        raise ValueError(f"player {player} has no capital")
    return SAFE if board.occupied[capital[1], capital[0]] else OPEN


def threat_cells(board: Board) -> list[tuple[Cell, Cell, int]]:
    """Every cell from which a capital can be taken in its owner's next turn: ``(cell, capital, owner)`` with
    the capital it points at and the player who owns the cell, in player order of the capitals. Of the
    capital's 8 neighbours owned by another alive player (motti.rules.capital_threats), those that are
    occupied while the capital is free (open): from an orthogonal one the capital is a legal Attack (and
    Guerilla) cross, from a diagonal one a legal Guerilla cross (§2.2). A safe capital has none."""
    out = []
    for player, cells in capital_threats(board).items():
        capital = board.capitals[player]
        assert capital is not None
        cx, cy = capital
        if board.occupied[cy, cx]:
            continue
        out += [(cell, capital, owner) for cell, owner in cells if board.occupied[cell[1], cell[0]]
                and why_illegal(board, owner, Action.GUERILLA, cx, cy) is None]
    return out


def turn_variants(turns: int, max_turns: int | None, over: bool = False) -> tuple[str, str]:
    """The turn under way (``turns`` played, plus one while the game runs) with the cap: ``("Turn 12 of
    400", "T12/400")``, or ``("Turn 12", "T12")`` without a cap. Once the game is over, the turns played
    (the last one included), turns being numbered from 1: a game over before its first turn ended shows
    ``Turn 1`` (``P1 wins in turn 1``, motti.announce.end_text)."""
    number = max(turns, 1) if over else turns + 1
    if max_turns is None:
        return f"Turn {number}", f"T{number}"
    return f"Turn {number} of {max_turns}", f"T{number}/{max_turns}"


def land_variants(land: Mapping[int, int]) -> tuple[str, str]:
    """Each alive player's land cells: ``("land P1 40, P2 38", "1:40 2:38")``."""
    return ("land " + ", ".join(f"P{p} {n}" for p, n in land.items()),
            " ".join(f"{p}:{n}" for p, n in land.items()))


def reset_variants(outlook: ResetOutlook) -> tuple[str, str, str]:
    """The reset line (spec §2.8), longest first.

    Under ``strict``: ``Reset when no player can take a free cell of another: P1 can take 5, P2 3``, ``Reset
    when none can take: P1 5, P2 3``, ``Reset: P1 5 P2 3``; right after a reset, while nobody can take
    anything, ``No reset due: nobody can take a free cell of another yet``. Under ``empty``: ``Reset when no
    land is free: 12 free cells left`` …"""
    if outlook.rule == "empty":
        cells = plural(outlook.free, "free cell")
        return (f"Reset when no land is free: {cells} left", f"Reset at no free land: {outlook.free} left",
                f"Reset: {outlook.free} free")
    counts = outlook.takeable
    if not outlook.armed and not any(counts.values()):
        return ("No reset due: nobody can take a free cell of another yet", "No reset due yet",
                "Reset: not due")
    pairs = list(counts.items())
    first, rest = pairs[0], pairs[1:]
    long = ", ".join([f"P{first[0]} can take {first[1]}", *(f"P{p} {n}" for p, n in rest)])
    middle = ", ".join(f"P{p} {n}" for p, n in pairs)
    short = " ".join(f"P{p} {n}" for p, n in pairs)
    return (f"Reset when no player can take a free cell of another: {long}",
            f"Reset when none can take: {middle}", f"Reset: {short}")


def turn_end_variants(game: Game, can_pass: bool = True) -> tuple[str, str, str]:
    """How the turn under way ends (§2.2), longest first: before its first attack ``("6 attacks left;
    Defend or Guerilla ends the turn", "6 attacks, or Defend/Guerilla", "6 att")``; once it has attacked
    ``("4 attacks left, then the turn ends (p ends it now)", "4 attacks left (p ends turn)", "4 att")``,
    the pass key named only where *can_pass* (the window or terminal holds the player in turn: elsewhere
    ``p`` is refused); empty strings once the game is over."""
    if game.is_terminal():
        return "", "", ""
    left = game.attacks_left
    attacks = plural(left, "attack")
    if game.attacks_left == ATTACKS_PER_TURN and not game.attacked:
        return f"{attacks} left; Defend or Guerilla ends the turn", f"{attacks}, or Defend/Guerilla", \
            f"{left} att"
    if not can_pass:
        return f"{attacks} left, then the turn ends", f"{attacks} left", f"{left} att"
    return (f"{attacks} left, then the turn ends ({PASS_KEY} ends it now)",
            f"{attacks} left ({PASS_KEY} ends turn)", f"{left} att")


def info_variants(game: Game, can_pass: bool = True) -> tuple[str, ...]:
    """The information line of the windows, longest first: turn, how the turn ends
    (:func:`turn_end_variants`, *can_pass* as there), land, reset line, e.g. ``Turn 12 of 400 · 6 attacks
    left; Defend or Guerilla ends the turn · land P1 40, P2 38 · Reset when none can take: P1 5, P2 3``; the
    last variant is
    ``T12/400 · 6 att · 1:40 2:38 · Reset: P1 5 P2 3``. Once the game is over: turn and land only."""
    turn = turn_variants(game.turns, game.max_turns, game.is_terminal())
    ends = turn_end_variants(game, can_pass)
    land = land_variants(game.land_counts())
    outlook = game.reset_outlook()
    reset = reset_variants(outlook) if outlook is not None else ("", "", "")
    rows = [(turn[0], ends[0], land[0], reset[0]), (turn[0], ends[0], land[0], reset[1]),
            (turn[0], ends[1], land[1], reset[1]), (turn[1], ends[1], land[1], reset[1]),
            (turn[1], ends[1], land[1], reset[2]), (turn[1], ends[2], land[1], reset[2])]
    return tuple(DOT.join(part for part in row if part) for row in rows)


def head_variants(game: Game, can_pass: bool = True) -> tuple[str, ...]:
    """Turn, how the turn ends and land without the reset line (the console's information line, where the
    reset line has a line of its own), the first that fits first: on a narrow terminal turn and land in words
    (``Turn 1 of 50 · land P1 18, P2 22``) come before the shortest variant; *can_pass* as for
    :func:`turn_end_variants`."""
    turn = turn_variants(game.turns, game.max_turns, game.is_terminal())
    ends = turn_end_variants(game, can_pass)
    land = land_variants(game.land_counts())
    rows = [(turn[0], ends[0], land[0]), (turn[0], ends[1], land[0]), (turn[1], ends[1], land[1]),
            (turn[0], "", land[0]), (turn[1], ends[2], land[1])]
    return tuple(DOT.join(part for part in row if part) for row in rows)


def resets_line(resets: Sequence[int]) -> str:
    """The first line of the ``m`` view: ``Resets: turns 31, 77``, ``Resets: turn 31``, ``Resets: none
    yet``."""
    if not resets:
        return "Resets: none yet"
    return f"Resets: turn{'s' if len(resets) > 1 else ''} " + ", ".join(map(str, resets))


#: The rules in eleven lines (spec §2), for ``?`` in a window and at the console; each fits 79 columns.
RULES = (
    "Take every enemy capital to win. Bright cells are occupied, dark cells free.",
    f"A turn is six attacks, or one Defend, or one Guerilla; {PASS_KEY} passes (ends it now).",
    "Attack: cross up to 6 free cells, yours or squarely next to your occupied ones.",
    "Each attack draws 0-5 and takes the cross of that rank (0 the first), if any.",
    "Defend: occupy 1-3 of your free cells. Occupied cells cannot be attacked.",
    "Guerilla: take 1 free cell touching your occupied land, diagonals too.",
    "Land cut off from its capital by enemy occupied cells is encircled: it is lost.",
    f"A {SAFE} (occupied) capital cannot fall; an {OPEN} one falls from a {THREAT} mark:",
    "an occupied cell squarely next to it (Attack, Guerilla) or diagonal (Guerilla).",
    "Reset: once nobody can take a free cell of another, all land is free again.",
    "The reset line says what still stands before it (rule empty: the free land).",
)

WINDOW_KEYS = (
    "Left button: put or take away a cross; on a toolbar box: select that action.",
    "Middle button: the next action. Right button: perform the selected action.",
    f"{PASS_KEY}: pass (end the turn now). Wheel or + and -: zoom; arrows: pan; Home: all.",
    "t: a tip (the medium computer's move, as crosses); t again takes it away.",
    "m: the last announcements. Outlined cells: the last turn's (dashed: encircled).",
    "s: save; q: give up this window's players (asks y/n). ? or F1: this help.",
)

CONSOLE_KEYS = (
    "arrows or h j k l: move the cursor; space: put or take away a cross.",
    "z/x/c: perform Attack/Defend/Guerilla; a/d/g: select; Tab: next; Enter: do it.",
    f"{PASS_KEY}: pass (end the turn now). Inverse cells: the last turn's.",
    "t: a tip (the medium computer's move, as crosses); t again takes it away.",
    "m: the last announcements; s: save; q: give up this terminal's players; ?: help",
)

#: The keys of a terminal that only watches (every player a computer, ``-c``).
WATCH_KEYS = (
    "arrows or h j k l: move the cursor. Inverse cells: the last turn's.",
    "m: the last announcements; s: save; ?: help",
    "q: stop watching (the game stops unfinished).",
)


def help_lines(where: str) -> tuple[str, ...]:
    """The help of ``?``: a title, the rules, then the keys and mouse buttons of *where* (``"window"``,
    ``"console"``, or ``"watch"`` for a terminal with no player of its own)."""
    keys = {"window": WINDOW_KEYS, "console": CONSOLE_KEYS, "watch": WATCH_KEYS}[where]
    return ("motti: rules and keys (any key returns)", *RULES, "", *keys)


def left_text(players: Sequence[int]) -> str:
    """The last person closing the last window: ``P1 left`` (the game is suspended, not given up)."""
    return ", ".join(f"P{p}" for p in players) + " left"


def restored_turn(saved: SavedTurn | None, board: Board) -> LastTurn | None:
    """A turn of a resumed game (motti.mapfile.SavedTurn: the save's ``last-turn``/``last-cell`` lines, or the
    ``turn-reset``/``turn-cell`` lines of its Attack turn under way) as the record the windows mark
    (motti.announce.LastTurn); None for a save without it."""
    if saved is None:
        return None
    from motti.announce import LastTurn

    return LastTurn.restore(saved.player, saved.action, saved.cells, saved.reset,
                            lambda cell: int(board.owner[cell[1], cell[0]]))


# ---------------------------------------------------------------------------------------------------- tips


@dataclass(frozen=True)
class Tip:
    """The ``medium`` computer player's choice for *player* (spec §2.2 ``Game.apply`` form split up):
    *action* ``attack``, ``defend``, ``guerilla`` or ``pass``, *cells* the crosses, *why* one line."""

    player: int
    action: str
    cells: tuple[Cell, ...]
    why: str

    def text(self) -> str:
        """``Tip for P1: attack 3,4 5,4 — takes a cell next to P2's capital``."""
        cells = " ".join(f"{x},{y}" for x, y in self.cells)
        move = f"{self.action} {cells}" if cells else self.action
        return f"Tip for P{self.player}: {move} — {self.why}"

    def to_json(self) -> dict[str, Any]:
        """The status file's ``tip``: ``{"player", "action", "cells": [[x, y], ...], "why"}``."""
        return {"player": self.player, "action": self.action, "cells": [list(c) for c in self.cells],
                "why": self.why}


def tip_asked(player: int) -> str:
    """What the others are told: ``P1 asked for a tip``."""
    return f"P{player} asked for a tip"


def tip_withdrawn(player: int) -> str:
    """A second ``t`` (or another action chosen): ``P1 put the tip away`` (its crosses are gone)."""
    return f"P{player} put the tip away"


def tip_for(game: Game) -> Tip:
    """The ``medium`` player's choice for the player in turn (motti.thinking.decide on a copy, with a
    generator seeded from the turn, so that the same position gives the same tip) and why. Never changes
    *game*. Raises motti.rules.IllegalAction once the game is over."""
    from motti.thinking import decide

    seed = f"tip:{game.turns}:{game.attacks_left}:{game.current_player}"
    move = decide(game, "medium", random.Random(seed))
    verb = str(move[0])
    if verb == "pass":
        cells: tuple[Cell, ...] = ()
    elif verb == "guerilla":
        cells = (tuple(move[1]),)
    else:
        cells = tuple(tuple(c) for c in move[1])
    return Tip(game.current_player, verb, cells, why(game, verb, cells))


def why(game: Game, verb: str, cells: Sequence[Cell]) -> str:
    """One line saying what *verb* with *cells* does for the player in turn, read off a copy of *game*: it
    takes a capital, a cell next to one, encircles, brings the reset, or simply occupies."""
    board = game.board
    me = game.current_player
    capitals = {c: p for p, c in board.capitals.items() if c is not None and p != me}
    if verb == "pass":
        return f"nothing is worth an attack now: press {PASS_KEY} to pass (end the turn)"
    near = [capitals[c] for c in capitals for x, y in cells if max(abs(c[0] - x), abs(c[1] - y)) <= 1]
    for x, y in cells:
        if (x, y) in capitals:
            return f"takes P{capitals[(x, y)]}'s capital" if verb == "guerilla" else \
                f"attacks P{capitals[(x, y)]}'s open capital"
    effects = _effects(game, verb, cells)
    if effects:
        return effects
    if near:
        return f"takes a cell next to P{near[0]}'s capital" if verb != "defend" else \
            f"occupies cells next to P{near[0]}'s capital"
    if verb == "defend":
        own = board.capitals.get(me)
        if own is not None and own in cells:
            return "occupies your capital: safe until the next reset"
        return "occupies your free cells next to the enemy: occupied cells cannot be attacked"
    enemy = [int(board.owner[y, x]) for x, y in cells if int(board.owner[y, x]) != me]
    if enemy:
        return f"takes free cells of P{enemy[0]} next to your occupied land"
    return "occupies your own free cells, so that they cannot be attacked"


def _effects(game: Game, verb: str, cells: Sequence[Cell]) -> str | None:
    """What playing *verb* on a copy of *game* brings: an encirclement, a captured capital or the reset (for
    an attack: if its first cross is taken)."""
    trial = game.clone().reseed(0)
    if verb == "attack":
        events = trial.attack(list(cells), draw=0) if cells else []
    elif verb == "defend":
        events = trial.defend(list(cells))
    else:
        events = trial.guerilla(cells[0])
    may = "may " if verb == "attack" else ""
    for event in events:
        if isinstance(event, CapitalCaptured):
            return f"{may}take P{event.player}'s capital"
    for event in events:
        if isinstance(event, Encircled) and event.victim != game.current_player:
            count = len(event.cells)
            return f"{may}encircle {plural(count, 'cell')} of P{event.victim}"
    if any(isinstance(event, Reset) for event in events):
        return f"{may}bring the global reset: all land free again"
    return None
