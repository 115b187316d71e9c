"""The ``starlanes`` command (spec/starlanes.md §10 command line, with §0).

``starlanes`` asks for 1–4 players, their names and who plays each (a human or the computer), then plays in
colour when the terminal has it. ``-m`` forces mono, ``-c`` colour, ``-v`` prints the version. Beyond the
original: ``--seed N`` (a reproducible game), ``--computer N`` / ``--level`` (the last N players are
computers), ``--save FILE`` (saved at every prompt) and ``--resume FILE``. ``--rules 1977`` plays Steven
Faber's 1977 original (spec/starlanes-1977.md) instead of the 1995 rules.

With player strings (``starlanes [options] PLAYERSTRING...``, motti's syntax: ``1,2:host:0``, ``0:host:0`` for
an observer) the game is played in X windows, one per string; players no string names share a window on
``$DISPLAY`` (:mod:`starlanes.xfront`). ``--players N`` (default: the highest player named, at least 2) and
``--names "Ann,Bob"`` set up that game; ``--status FILE`` keeps a JSON picture of it up to date and
``--delay SECONDS`` sets the pace of the computer players there. A bad player string or a display that
cannot be opened is a one-line error with status 2 (the windows opened so far are closed again).

Exit status: 0 for a finished or quit game and for ``-v``; 2 for bad options or an unreadable save; 1 only for
an unexpected fault.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shlex
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING

from common.cli import (
    EXIT_FAULT,
    Parser,
    UsageError,
    program_version,
    refuse_same_file,
    run_main,
    typed_command,
)
from common.save import write_problem
from common.term import Terminal, TerminalError
from starlanes.ai import LEVELS
from starlanes.console import Console, QuitGame, standings_text
from starlanes.rules import MAX_NAME, MAX_PLAYERS, RULE_SETS, Game, rule_set
from starlanes.save import HUMAN, SaveError, load_game

if TYPE_CHECKING:
    from starlanes.session import Session
    from starlanes.xfront import XGame


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="starlanes",
        description="Star Lanes: a game of interstellar commerce for 1 to 4 players.",
    )
    p.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    colour = p.add_mutually_exclusive_group()
    colour.add_argument("-c", "--colour", "--color", dest="colour", action="store_const", const=True,
                        help="force colour")
    colour.add_argument("-m", "--mono", dest="colour", action="store_const", const=False, help="force mono")
    p.add_argument("--seed", type=int, help="seed of the random generator (a reproducible game)")
    p.add_argument("--rules", choices=tuple(RULE_SETS), help="the rules: 1995 (the C game, the default) or "
                   "1977 (the original BASIC game: 12x9 map, no black holes, 48 moves)")
    p.add_argument("--computer", type=int, metavar="N",
                   help=f"the last N players (0-{MAX_PLAYERS}) are played by the computer, the others by "
                   "people: who plays each is not asked (the number of players, at least N, and the names "
                   "are; a computer's name is offered)")
    p.add_argument("--level", choices=LEVELS, default="hard", help="strength of those computer players")
    p.add_argument("--delay", type=_delay, default=1.0, metavar="SECONDS",
                   help="how long a computer player's steps and announcements stay up (default 1.0; any key "
                   "goes on sooner in the terminal)")
    p.add_argument("--save", metavar="FILE", help="save the game to FILE at every prompt")
    p.add_argument("--resume", metavar="FILE", help="continue the game saved in FILE (and keep saving there)")
    x = p.add_argument_group("X windows (with player strings)")
    x.add_argument("seats", nargs="*", metavar="PLAYERSTRING",
                   help="LIST:DISPLAY plays in X windows, e.g. 1:host:0 2:other:0 (0:DISPLAY watches); "
                   "players not named share a window on $DISPLAY")
    x.add_argument("--players", type=int, metavar="N",
                   help="number of players (default: the highest player named, at least 2)")
    x.add_argument("--names", metavar="LIST", help='the players\' names, e.g. "Ann,Bob" (default "Player N")')
    x.add_argument("--status", metavar="FILE", help="keep FILE updated with the game state as JSON")
    return p


def _delay(text: str) -> float:
    """``--delay``: a finite number of seconds, 0 or more (``inf``, ``nan`` and ``-1`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, 0 or more: {text!r}")
    return value


def _highest_named(seats: Sequence[str]) -> int:
    """The highest player number the player strings name (malformed strings are reported later)."""
    numbers = [int(part) for seat in seats for part in seat.partition(":")[0].split(",")
               if part.strip().isdigit()]
    return max(numbers, default=0)


def _names(text: str | None, count: int) -> list[str]:
    given = [] if text is None else [name.strip() for name in text.split(",")]
    if len(given) > count:
        raise UsageError(f"--names: {len(given)} names for {count} players")
    names = [name or f"Player {i + 1}" for i, name in enumerate(given)]
    names += [f"Player {i + 1}" for i in range(len(names), count)]
    long = next((name for name in names if len(name) > MAX_NAME), None)
    if long is not None:
        raise UsageError(f"--names: \"{long}\" is longer than {MAX_NAME} characters")
    return names


def play_x(args: argparse.Namespace, resumed: tuple[Game, list[str]] | None) -> XGame:
    """Seat the players at X displays (spec §0, motti's player strings), open every window (all or nothing)
    and play until no window is left. On resume a player string seats its players as humans again. Returns
    the finished :class:`~starlanes.xfront.XGame` (``over`` is false when the windows were all closed before
    the end). Raises UsageError."""
    from common.displays import PlayerStringError, Seat, parse_seats
    from common.loop import Inbox
    from common.x11 import DisplayError
    from starlanes.xfront import XGame, open_windows

    if resumed is not None:
        game, controllers = resumed
        count = len(game.players)
        if args.players is not None and args.players != count:
            raise UsageError(f"--players {args.players}: the saved game has {count} players")
        if args.names is not None:
            raise UsageError("--names: a resumed game keeps its players' names")
    else:
        # Derived from the strings, the count stops at the most players a game has: a string naming a player
        # beyond it is then reported as that string's mistake, not as a --players the user never gave.
        count = (args.players if args.players is not None
                 else min(MAX_PLAYERS, max(2, _highest_named(args.seats))))
        if not 1 <= count <= MAX_PLAYERS:
            raise UsageError(f"--players must be 1 to {MAX_PLAYERS}, not {count}")
        computers = args.computer or 0
        if computers > count:
            raise UsageError(f"--computer {computers}: the game has {count} players")
        names = _names(args.names, count)
        controllers = [HUMAN] * (count - computers) + [args.level] * computers
        game = None
    display = os.environ.get("DISPLAY") or None
    named = {int(part) for seat in args.seats for part in seat.partition(":")[0].split(",")
             if part.strip().isdigit()}
    unnamed = set(range(1, count + 1)) - named
    if resumed is not None:
        # A player string seats its players as humans again (a lost display made them computers).
        controllers = [HUMAN if i + 1 in named else c for i, c in enumerate(controllers)]
    humans = {i + 1 for i, c in enumerate(controllers) if c == HUMAN}
    try:
        seats = parse_seats(list(args.seats), count, default_display=display,
                            curses=display is None and not unnamed & humans, seated=humans)
    except PlayerStringError as error:
        raise UsageError(str(error)) from None
    # Unnamed computer players need no window; every named display gets one (to watch, at least).
    seats = [seat for seat in seats if seat.display is not None]
    if not seats:
        if display is None:
            raise UsageError("no display to watch the computer players on: DISPLAY is not set "
                             "(add 0:DISPLAY)")
        seats = [Seat((), display)]
    if game is None:
        game = new_game(names, args)
    inbox = Inbox()
    try:
        windows = open_windows(seats, [p.name for p in game.players], inbox)
    except DisplayError as error:
        raise UsageError(str(error)) from None
    played = XGame(game, inbox, windows, controllers, level=args.level, status=args.status,
                   save_path=args.save or args.resume, delay=args.delay)
    played.run()
    return played


def unfinished_text(session: Session) -> str:
    """What the shell is told of a game in X windows left before its end. After ``q`` and ``y``: the lines the
    windows show (:meth:`~starlanes.session.Session.left_lines`: who quit, then where the game is saved and
    how to go on, that it could not be saved and why, or that it was not saved), as the terminal game does.
    When every window closed: that no window is left, then where the game is saved and how to go on, that it
    could not be saved (:meth:`~starlanes.session.Session.save_lines`), or that it was not saved."""
    if session.quit:
        return "\n".join(text for text, _ in session.left_lines() if isinstance(text, str))
    gone = "The game was left unfinished (no window is left)"
    if session.save_path is None:
        return f"{gone} and was not saved (see --save)."
    if session.saves.failure is not None:
        return "\n".join([f"{gone}.", *(text for text, _ in session.save_lines() if isinstance(text, str))])
    where = os.path.abspath(session.save_path)
    return (f"{gone}; it is saved in {where}\n"
            f"Go on with: {typed_command('starlanes')} --resume {shlex.quote(where)} PLAYERSTRING...")


def check_save_path(path: str | None, option: str) -> None:
    """Refuse a path of a file the game writes (``--save``, ``--status``) that it could never write (empty, a
    directory, FIFO or device, a folder that is missing or where no file can be created, as /proc) before
    any window or curses screen opens. Raises UsageError: ``--status .: is a directory, not a regular
    file``."""
    if path is None:
        return
    if not path:
        raise UsageError(f"{option}: empty file name")
    problem = write_problem(path)
    if problem is not None:
        raise UsageError(f"{option} {path}: {problem}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the program; returns the exit status (common/cli.py)."""
    return run_main("starlanes", lambda: _run(argv))


def new_game(names: Sequence[str], args: argparse.Namespace) -> Game:
    """A new game of ``names`` under ``--rules`` (default 1995) from ``--seed``."""
    return Game.new(names, random.Random(args.seed), rule_set(args.rules or "1995"))


def _run(argv: Sequence[str] | None) -> int:
    args = parser().parse_intermixed_args(argv)
    if args.version:
        print(f"starlanes {program_version()}")
        return 0
    if args.computer is not None and not 0 <= args.computer <= MAX_PLAYERS:
        raise UsageError(f"--computer must be 0 to {MAX_PLAYERS}, not {args.computer}")
    for option, path in (("--resume", args.resume), ("--status", args.status)):
        if path == "":
            raise UsageError(f"{option}: empty file name")
    check_save_path(args.save, "--save")
    check_save_path(args.status, "--status")
    # The status file is JSON rewritten after every change: on the save's file (or the one resumed) it would
    # overwrite the game with what no --resume reads.
    refuse_same_file("--status", args.status, (("--save", args.save), ("--resume", args.resume)))
    resumed = None
    if args.resume is not None:
        try:
            resumed = load_game(args.resume)
        except SaveError as exc:
            raise UsageError(f"cannot resume {exc}") from None
        saved = resumed[0].rules.name
        if args.rules is not None and args.rules != saved:
            raise UsageError(f"--rules {args.rules}: the game in {args.resume} plays the {saved} rules")
    if args.seats:
        played = play_x(args, resumed)
        print(standings_text(played.game))
        if not played.over:
            print(unfinished_text(played.session))
        print("Thank you for playing Star Lanes!")
        return 0
    for option in ("players", "names", "status"):
        if getattr(args, option) is not None:
            raise UsageError(f"--{option} needs a player string (the game in X windows)")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("needs a terminal (standard input and output)")
    save_path = args.save or args.resume
    game = None
    left: list[str] = []   # why a game the players quit ended, and how to go on with it
    try:
        with Terminal(args.colour) as term:
            console = Console(term, save_path)
            if resumed is not None:
                game, controllers = resumed
            else:
                try:
                    names, controllers = console.setup(args.computer, args.level)
                except QuitGame:
                    names = None
                if names is not None:
                    game = new_game(names, args)
            if game is not None:
                console.play(game, controllers, args.delay)
                if console.session is not None:
                    left = [text for text, _ in console.session.left_lines() if isinstance(text, str)]
    except TerminalError as exc:
        raise UsageError(str(exc)) from None
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception:
        traceback.print_exc()
        print("starlanes: unexpected fault (the terminal has been restored)", file=sys.stderr)
        return EXIT_FAULT
    if game is not None:
        print(standings_text(game))
        if left:
            print("\n".join(left))
    print("Thank you for playing Star Lanes!")
    return 0

if __name__ == "__main__":
    sys.exit(main())
