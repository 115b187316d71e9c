"""The ``starlanes`` command (spec/starlanes.md §10 command line, with §0).

``starlanes`` asks for 1–4 players, their names and who plays each (a human or the computer), then plays in
colour when the terminal has it. ``-m`` forces mono, ``-c`` colour, ``-v`` prints the version. Beyond the
original: ``--seed N`` (a reproducible game), ``--computer N`` / ``--level`` (the last N players are
computers), ``--save FILE`` (saved at every prompt) and ``--resume FILE``.

Exit status: 0 for a finished or quit game and for ``-v``; 2 for bad options or an unreadable save; 1 only for
an unexpected fault.
"""

from __future__ import annotations

import argparse
import random
import sys
import traceback
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from common.term import Terminal, TerminalError
from starlanes.ai import LEVELS
from starlanes.console import Console, QuitGame, standings_text
from starlanes.rules import MAX_PLAYERS, Game
from starlanes.save import SaveError, load_game


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="starlanes",
        description="Star Lanes: a game of interstellar commerce for 1 to 4 players.",
    )
    p.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    colour = p.add_mutually_exclusive_group()
    colour.add_argument("-c", "--colour", "--color", dest="colour", action="store_const", const=True,
                        help="force colour")
    colour.add_argument("-m", "--mono", dest="colour", action="store_const", const=False, help="force mono")
    p.add_argument("--seed", type=int, help="seed of the random generator (a reproducible game)")
    p.add_argument("--computer", type=int, default=0, metavar="N",
                   help=f"the last N players (0-{MAX_PLAYERS}) are played by the computer; nobody is asked")
    p.add_argument("--level", choices=LEVELS, default="hard", help="strength of those computer players")
    p.add_argument("--save", metavar="FILE", help="save the game to FILE at every prompt")
    p.add_argument("--resume", metavar="FILE", help="continue the game saved in FILE (and keep saving there)")
    return p


def program_version() -> str:
    """The installed distribution's version (the project is one distribution, ``motti-games``)."""
    try:
        return version("motti-games")
    except PackageNotFoundError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the program; returns the exit status."""
    args = parser().parse_args(argv)
    if args.version:
        print(f"starlanes {program_version()}")
        return 0
    if not 0 <= args.computer <= MAX_PLAYERS:
        print(f"starlanes: --computer must be 0 to {MAX_PLAYERS}, not {args.computer}", file=sys.stderr)
        return 2
    resumed = None
    if args.resume:
        try:
            resumed = load_game(args.resume)
        except SaveError as exc:
            print(f"starlanes: cannot resume {exc}", file=sys.stderr)
            return 2
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("starlanes: needs a terminal (standard input and output)", file=sys.stderr)
        return 2
    save_path = args.save or args.resume
    game = None
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
                    game = Game.new(names, random.Random(args.seed))
            if game is not None:
                console.play(game, controllers)
    except TerminalError as exc:
        print(f"starlanes: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception:
        traceback.print_exc()
        print("starlanes: unexpected fault (the terminal has been restored)", file=sys.stderr)
        return 1
    if game is not None:
        print(standings_text(game))
    print("Thank you for playing Star Lanes!")
    return 0


if __name__ == "__main__":
    sys.exit(main())
