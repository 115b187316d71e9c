"""The ``motti`` command line: ``motti [options] [MAP [PLAYERSTRING...]]`` (spec/motti.md §3.1–§3.4, §5).

Startup order: parse the options, load or generate the map, apply ``-p``, write ``-o``, then either play a
script headless (``--script``) or parse the player strings, open every window (all or nothing) and play.

Exit statuses (§3.4): 0 for a finished game, a quit, ``--help``, ``--version`` and the map listing; 2 for
every user error, reported as one line on stderr naming the culprit; 130 after Ctrl-C (143 after SIGTERM);
1 only for an unexpected fault.

Saved games (motti/savegame.py): ``--save FILE`` keeps FILE up to date; a saved game is a map, so
``motti FILE [PLAYERSTRING...]`` resumes it with the player in turn, the attacks left, the turns played, the
rule options and the computer players it holds (a value the file does not hold comes from the command line,
else the default).

Headless matches (``--headless``): computer players only, no display and no terminal; one line at the end
(``P1 wins after 183 turns``, ``P1 wins on land after 400 turns: 160–140``, ``draw: no player can reach
another``), the ``--status`` and ``--save`` files rewritten after every turn (motti/session.py).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from common.cli import (
    EXIT_OK,
    Parser,
    UsageError,
    exit_on_signals,
    program_version,
    refuse_same_file,
    run_main,
    same_file,
    signals_ignored,
)
from common.save import file_problem
from motti.levels import DEFAULT_LEVEL, LEVELS
from motti.rules import RULE_OPTIONS, Rules

if TYPE_CHECKING:  # the other modules of a game are imported when one is played
    from common.displays import Seat
    from motti.compose import Composer
    from motti.mapfile import MapState, SavedTurn
    from motti.rules import Board, Game

T = TypeVar("T")

#: The most digits a whole-number option may have (Python's limit for converting a string to an int).
MAX_DIGITS = sys.int_info.default_max_str_digits

#: Seconds after which generating or loading a map says so on stderr (a 2000x2000 map takes about one).
PROGRESS_AFTER_S = 1.0


def _player_list(text: str) -> dict[int, str | None]:
    """``--computer 2,3`` -> {2: None, 3: None}; ``--computer 2:hard,3:easy`` -> {2: "hard", 3: "easy"}
    (None: the ``--level`` of the command line). A player named twice is an error."""
    players: dict[int, str | None] = {}
    for part in text.split(","):
        number, colon, level = part.partition(":")
        if not (number.isascii() and number.isdigit()):
            raise argparse.ArgumentTypeError(
                f"not a comma-separated list of players, each a number or NUMBER:LEVEL with no spaces "
                f"(2,3:hard): {text!r}")
        if colon and level not in LEVELS:
            raise argparse.ArgumentTypeError(f"{part!r}: the level is one of {', '.join(LEVELS)}")
        if int(number) in players:
            raise argparse.ArgumentTypeError(f"player {int(number)} is named twice: {text!r}")
        players[int(number)] = level if colon else None
    if any(not 1 <= player <= 9 for player in players):
        raise argparse.ArgumentTypeError(f"player numbers run from 1 to 9: {text!r}")
    return players


def _at_least(lowest: int) -> Callable[[str], int]:
    """The parser of a whole number of at least *lowest*."""
    def parse(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS or int(text) < lowest:
            shown = text if len(text) <= 40 else text[:40] + "..."
            raise argparse.ArgumentTypeError(f"expected a whole number of at least {lowest}, found {shown!r}")
        return int(text)

    return parse


def _finite(text: str) -> float:
    """A float option that must be a finite number (``nan`` and ``inf`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


#: The longest ``--delay`` (seconds): a longer one only looks like a game that hangs.
MAX_DELAY_S = 60.0


def _delay(text: str) -> float:
    """``--delay SECONDS``: a finite number from 0 to :data:`MAX_DELAY_S`."""
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a delay cannot be negative: {text!r}")
    if value > MAX_DELAY_S:
        raise argparse.ArgumentTypeError(f"a delay cannot be over {MAX_DELAY_S:g} seconds: {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: the manual's options and defaults (§3.1) plus the project's extras."""
    parser = Parser(
        prog="motti",
        usage="motti [options] [MAP [PLAYERSTRING...]]",
        description="GNU motti: conquer land by encircling it. Without MAP, list the shipped maps. "
        "MAP 'generate' makes a new map. A PLAYERSTRING LIST:DISPLAY puts players (e.g. 1,2) on an X "
        "display; 0:DISPLAY, or a LIST of computer players only, opens an observer window; unnamed players "
        "share a window on $DISPLAY (or the terminal with -c).",
        add_help=False,
        allow_abbrev=False,
    )
    parser.add_argument("--help", action="help", help="show this help and exit")
    parser.add_argument("--version", action="version", version=f"motti {program_version()}")
    parser.add_argument("map", nargs="?", metavar="MAP", help="map name or file, or 'generate'")
    parser.add_argument("seats", nargs="*", metavar="PLAYERSTRING", help="LIST:DISPLAY, e.g. 1,2:host:0")
    gen = parser.add_argument_group("map generation (MAP 'generate')")
    gen.add_argument("-d", "--distance-min", type=_finite, default=8.0, metavar="D",
                     help="minimum distance between capitals (default 8.0)")
    gen.add_argument("-g", "--granularity", type=_finite, default=0.3, metavar="G",
                     help="terrain granularity; larger is more scattered (default 0.3)")
    gen.add_argument("-h", "--heigth", "--height", dest="height", type=int, default=15, metavar="H",
                     help="map height (default 15)")
    gen.add_argument("-m", "--plasma-min", type=_finite, default=0.0, metavar="MIN",
                     help="lowest plasma value (default 0.0)")
    gen.add_argument("-M", "--plasma-max", type=_finite, default=0.3, metavar="MAX",
                     help="highest plasma value (default 0.3)")
    gen.add_argument("-r", "--randomness", type=_finite, default=0.2, metavar="R",
                     help="random term added to each cell (default 0.2)")
    gen.add_argument("-t", "--threshold", type=_finite, default=0.15, metavar="T",
                     help="cells above this value are land (default 0.15)")
    gen.add_argument("-w", "--width", type=int, default=20, metavar="W", help="map width (default 20)")
    play = parser.add_argument_group("game")
    play.add_argument("-p", "--players", type=int, metavar="N",
                      help="players: for 'generate' (default 2, at most 9), or fewer than a loaded map holds")
    play.add_argument("-o", "--output", metavar="FILE",
                      help="write the map (generated or reduced) to FILE first")
    play.add_argument("-c", "--curses", action="store_true", help="unnamed players use this terminal, not X")
    play.add_argument("--computer", type=_player_list, default={}, metavar="LIST",
                      help="players the computer plays, e.g. 2,3 (at --level) or 2:hard,3:easy")
    play.add_argument("--level", choices=LEVELS,
                      help=f"the computer players' level (default {DEFAULT_LEVEL}; given, it also overrides"
                      " a loaded save's levels)")
    play.add_argument("--seed", type=_at_least(0), metavar="INT",
                      help="seed of the random numbers (maps and attacks)")
    play.add_argument("--delay", type=_delay, metavar="SECONDS",
                      help="how long each action of a computer player stays on screen before its next one "
                      "(default 0.4; 0 for none, at most 60; a headless match has none unless given)")
    for option in RULE_OPTIONS:
        if option.variants:
            play.add_argument(f"--{option.word}", choices=option.choices, help=option.usage())
        else:
            play.add_argument(f"--{option.word}", type=_at_least(option.lowest), metavar="N",
                              help=option.usage())
    play.add_argument("--status", metavar="FILE", help="keep FILE updated with the game state as JSON")
    play.add_argument("--save", metavar="FILE",
                      help="save the game to FILE after every action and on quit; resume with 'motti FILE' "
                      "(without --save the s key saves to $XDG_STATE_HOME/motti/saved.map)")
    script = parser.add_argument_group("headless play")
    script.add_argument("--script", metavar="FILE", help="play the actions of FILE without any display")
    script.add_argument("--final", metavar="FILE", help="with --script: write the final board to FILE")
    script.add_argument("--headless", action="store_true",
                        help="play a game of computer players only (--computer), without display or terminal")
    return parser


def _list_maps() -> int:
    from common.data import shipped_dir
    from common.term import ljust, printable, text_width
    from motti.mapfile import list_maps

    maps = list_maps(lambda error: print(f"motti: warning: skipped {error}", file=sys.stderr))
    if not maps:
        print(f"no maps found in {shipped_dir('motti')}")
        return EXIT_OK
    names = [printable(name) for name, *_ in maps]  # a file's name, tabs and escapes shown as ?
    name_width = max(text_width(name) for name in names)
    for name, (_, width, height, players) in zip(names, maps, strict=True):
        print(f"{ljust(name, name_width)}  {width:>4}x{height:<4} {players} players")
    return EXIT_OK


def _named_players(seats: Sequence[str]) -> set[int]:
    """The player numbers the player strings name (lenient: parse_seats reports malformed strings later)."""
    named: set[int] = set()
    for seat in seats:
        for part in seat.partition(":")[0].split(","):
            if part.strip().isdigit():
                named.add(int(part))
    return named


@contextlib.contextmanager
def _progress(what: str) -> Iterator[None]:
    """Say ``motti: WHAT...`` on stderr when the block is still running after :data:`PROGRESS_AFTER_S`
    seconds, and ``motti: WHAT: done in N.N s`` when it ends; a quick block says nothing."""
    start = time.monotonic()
    said = threading.Event()

    def say() -> None:
        said.set()
        print(f"motti: {what}...", file=sys.stderr, flush=True)

    timer = threading.Timer(PROGRESS_AFTER_S, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()
        if said.is_set():
            print(f"motti: {what}: done in {time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)


def _load_board(args: argparse.Namespace, rng: random.Random) -> tuple[Board, Board, MapState | None]:
    """Load or generate the board, apply -p; return (board in play, board to write with -o, the loaded
    MapState whose state lines apply, or None)."""
    from motti.mapfile import MapError, find_map, load_map, reduce_players, renumber

    if args.map == "generate":
        from motti.generate import GenerateError, generate

        players = 2 if args.players is None else args.players
        try:
            with _progress(f"generating a {args.width}x{args.height} map for {players} players"):
                board = generate(args.width, args.height, players, rng, distance_min=args.distance_min,
                                 granularity=args.granularity, plasma_min=args.plasma_min,
                                 plasma_max=args.plasma_max, randomness=args.randomness,
                                 threshold=args.threshold)
        except GenerateError as error:
            raise UsageError(f"generate: {error}") from None
        return board, board, None
    try:
        path = find_map(args.map)
    except FileNotFoundError as error:
        raise UsageError(f"{error} (run motti without arguments to list the shipped maps)") from None
    try:
        with _progress(f"loading {args.map}"):
            state = load_map(path)
    except MapError as error:
        raise UsageError(str(error)) from None
    board = state.board
    if args.players is None:
        return board, board, state
    if args.players == len(board.alive_players()):
        # Nobody to disable, but -o still writes the players renumbered 1..N (a saved game may hold players
        # that are out).
        survivors = {p: new for new, p in enumerate(board.alive_players(), start=1)}
        return board, renumber(board, survivors), state
    try:
        reduced, renumbering = reduce_players(board, args.players, _named_players(args.seats))
    except ValueError as error:
        raise UsageError(f"{path}: {error}") from None
    return reduced, renumber(reduced, renumbering), _reduced_state(state, reduced)


def _reduced_state(state: MapState, reduced: Board) -> MapState:
    """The state lines of a loaded map (a saved game) that still apply once ``-p`` has disabled players: the
    rules, the turns played, the cap and the computer players left; a disabled player in turn hands a whole
    turn to the next player left (what the turn under way had changed goes with it). The count of §2.8 is
    computed again (the board changed)."""
    import dataclasses

    left = reduced.alive_players()
    turn, attacks, turn_so_far = state.turn, state.attacks, state.turn_so_far
    if turn is not None and turn not in left:
        turn, attacks, turn_so_far = next((p for p in left if p > turn), left[0]), None, None
    return dataclasses.replace(state, board=reduced, turn=turn, attacks=attacks, takeable=None,
                               computer={p: level for p, level in state.computer.items() if p in left},
                               turn_so_far=turn_so_far)


def _write_output(path: str, board: Board) -> None:
    from common.save import write_atomic, write_failure
    from motti.mapfile import dump_map

    try:
        write_atomic(path, dump_map(board))
    except OSError as error:
        raise UsageError(f"-o {path}: {write_failure(path, error)}") from None


def _run_script(args: argparse.Namespace, game: Game, last_turn: SavedTurn | None = None,
                turn_so_far: SavedTurn | None = None) -> int:
    """Play the ``--script`` file on *game* (*last_turn* a resumed game's last turn, *turn_so_far* its turn
    under way), write ``--final`` as a save without its comment, print how the game ended; return the exit
    status. Raises UsageError."""
    from common.save import write_atomic, write_failure
    from motti.announce import end_text
    from motti.compose import Composer
    from motti.script import ScriptError, run_script
    from motti.session import Session

    if args.status:
        _write_initial_status(args.status, Composer(game), None)
    try:
        session = Session(Composer(game), status=args.status, last_turn=last_turn, turn_so_far=turn_so_far)
        _say_save_rules(args)
        run_script(game, args.script, session)
    except ScriptError as error:
        raise UsageError(str(error)) from None
    if args.final:
        try:
            write_atomic(args.final, session.save_text(commented=False))
        except OSError as error:
            raise UsageError(f"--final {args.final}: {write_failure(args.final, error)}") from None
    if game.end is not None:
        print(end_text(game.end))
    return EXIT_OK


def run(argv: Sequence[str] | None = None) -> int:
    """Run motti with *argv* (default ``sys.argv[1:]``); return the exit status. Raises UsageError."""
    args = build_parser().parse_intermixed_args(argv)
    for option, path in (("-o", args.output), ("--status", args.status), ("--save", args.save),
                         ("--script", args.script), ("--final", args.final)):
        if path == "":
            raise UsageError(f"{option}: empty file name")
    if args.map is None:
        # Without MAP motti lists the maps; an option for a game would be ignored, so it is refused, even
        # at its default value: parsed again with a default no option can take, only those given differ.
        unset = object()
        probe = build_parser()
        probe.set_defaults(**dict.fromkeys(vars(args), unset))
        parsed = vars(probe.parse_intermixed_args(argv))
        named = [name for name, value in parsed.items() if value is not unset]
        if named:
            option = "--" + named[0].replace("_", "-")
            raise UsageError(f"{option} needs a MAP (run motti without arguments to list the shipped maps)")
        return _list_maps()
    if args.final and not args.script:
        raise UsageError("--final needs --script")
    # A file only read may be any readable file (/dev/null, a FIFO); one written must be a regular file.
    for option, path, written in (("--script", args.script, False), ("-o", args.output, True),
                                  ("--status", args.status, True), ("--save", args.save, True),
                                  ("--final", args.final, True)):
        problem = path and file_problem(path, written=written)
        if problem:
            raise UsageError(f"{option} {path}: {problem}")
    if args.save and args.script:
        raise UsageError("--save is for interactive games (use --final with --script)")
    # The status file is JSON; a map written to the same file would be overwritten by it, and it by the map.
    refuse_same_file("--status", args.status,
                     (("-o", args.output), ("--save", args.save), ("--final", args.final)))
    # The map -o writes would be overwritten by the game's save; the script must outlive its game.
    refuse_same_file("-o", args.output, (("--save", args.save), ("--final", args.final)))
    refuse_same_file("--script", args.script,
                     (("-o", args.output), ("--final", args.final), ("--status", args.status)))
    if (args.status or args.output or args.final) and args.map != "generate":
        from motti.mapfile import find_map

        try:
            source = find_map(args.map)
        except FileNotFoundError:
            source = None
        for option, path, what in (("--status", args.status, "the status"), ("-o", args.output, "the map"),
                                   ("--final", args.final, "the final state")):
            if path and source is not None and same_file(source, path):
                raise UsageError(f"{option} {path} is the map being played: {what} would overwrite it")
    if args.script:
        # Script mode plays every player from the file: seats, the terminal and computer players do not apply
        # (player strings only choose, with -p, which players stay: spec §3.1).
        if args.seats and args.players is None:
            raise UsageError(f"player string {args.seats[0]!r}: --script plays without any display")
        for option, given in (("-c", args.curses), ("--computer", args.computer),
                              ("--level", args.level is not None), ("--headless", args.headless)):
            if given:
                raise UsageError(f"{option} does not apply to --script (the script plays every player)")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    board, output_board, state = _load_board(args, rng)
    if args.output is not None:
        _write_output(args.output, output_board)
    game, computer = _new_game(args, board, state, rng)
    last_turn = state.last_turn if state is not None else None
    turn_so_far = state.turn_so_far if state is not None else None
    if args.script:
        if args.seed is None:
            print(f"motti: seed {seed}", file=sys.stderr)
        return _run_script(args, game, last_turn, turn_so_far)
    bad = sorted(player for player in computer if player > board.players)
    if bad:
        raise UsageError(f"--computer: no player {bad[0]} (the map has {board.players})")
    out = sorted(player for player in args.computer if player not in game.alive)
    if out:
        # Out already (eliminated in a resumed game, or left out by -p): as for a player string.
        alive = ", ".join(map(str, game.alive))
        raise UsageError(f"--computer: player {out[0]} is out of this game (players left: {alive}); "
                         "name only those")
    if args.level is not None and not any(player in game.alive for player in computer):
        # (A save's computer player who is out plays no more.)
        raise UsageError(f"--level {args.level}: no computer player to play at it (name them with "
                         f"--computer, e.g. --computer 2)")
    if args.level is not None and all(computer[player] for player in computer if player in game.alive):
        raise UsageError(f"--level {args.level}: every computer player has a level of its own (as in "
                         f"--computer 2:hard); leave --level out, or name the players without one")
    levels = computer_levels(computer, args.level)
    if args.headless:
        return _run_headless(args, game, levels, random.Random(f"{seed}:computer"), last_turn, turn_so_far,
                             None if args.seed is not None else seed)
    return _play(args, game, levels, random.Random(f"{seed}:computer"), last_turn, turn_so_far)


def _new_game(args: argparse.Namespace, board: Board, state: MapState | None,
              rng: random.Random) -> tuple[Game, dict[int, str | None]]:
    """The rules' game and the computer players ``{player: level}``: each rule line of a loaded save
    (§3.2) first, else the command line's value, else the default; a save's computer players stay computer
    players, but one that a player string names (``2:$DISPLAY``) is played by a person at that display
    unless ``--computer`` names it too. A rule option given on the command line that the save's line
    overrules, and a computer player a player string takes back, are kept for :func:`_say_save_rules`
    (``this save's max-turns 300 is used``)."""
    from motti.rules import ATTACKS_PER_TURN, Game

    if state is None:
        from motti.mapfile import MapState

        state = MapState(board)
    options: dict[str, object] = {}
    args.save_rules = []
    for option in RULE_OPTIONS:
        saved, given = getattr(state, option.field), getattr(args, option.field)
        if saved is not None and given is not None and saved != given:
            args.save_rules.append(f"this save's {option.word} {saved} is used")
        value = saved if saved is not None else given
        if value is not None:
            options[option.field] = value
    cap, played = options.get("max_turns"), state.turns or 0
    if isinstance(cap, int) and played > cap:   # a save's own cap is never below its turns (motti.mapfile)
        raise UsageError(f"--max-turns {cap}: {args.map} has played {played} turns already (give {played} or "
                         f"more)")
    try:
        game = Game(board, rng, rules=Rules(**options), turn=state.turn,  # type: ignore[arg-type]
                    attacks=ATTACKS_PER_TURN if state.attacks is None else state.attacks,
                    turns=state.turns or 0, takeable=state.takeable, resets=state.resets)
    except ValueError as error:
        raise UsageError(f"{args.map}: {error}") from None
    # A level given on the command line (``2:hard``, or ``--level``) wins over the save's; None means --level.
    # A save's computer player that a player string names is a person's again, unless --computer keeps it.
    computer: dict[int, str | None] = {**args.computer}
    named = set() if args.script else _named_players(args.seats)
    for player, level in state.computer.items():
        if player in named and player not in computer:
            args.save_rules.append(f"a player string names player {player}: a person plays it, not this "
                                   f"save's computer {player} {level} "
                                   f"(--computer {player} keeps the computer)")
        elif computer.get(player) is None:
            computer[player] = None if args.level is not None else level
    return game, computer


def _say_save_rules(args: argparse.Namespace) -> None:
    """Say on stderr, once play begins, each rule option of the command line a resumed save overrules and
    each of its computer players a player string takes back."""
    for line in args.save_rules:
        print(f"motti: {line}", file=sys.stderr)


def computer_levels(computer: dict[int, str | None], level: str | None) -> dict[int, str]:
    """Each computer player's level, in player order: its own (``2:hard`` or a save's line), else *level*
    (``--level``), else ``medium``."""
    return {player: own or level or DEFAULT_LEVEL for player, own in sorted(computer.items())}


def _write_initial_status(path: str, game: Composer, console_players: Sequence[int] | None) -> None:
    """Write the ``--status`` file once before any window opens (or before a script or a headless match),
    so that an unusable path is refused now."""
    from motti.status import status_data, write_status

    try:
        write_status(path, status_data(game, console=console_players))
    except OSError as error:
        raise UsageError(f"--status {path}: cannot write: {error.strerror or error}") from None


def _kept_files(*paths: str | None) -> dict[str, bytes | None]:
    """The bytes of each file *paths* name (None: not given; a symbolic link: its target) as they are
    before the game starts, None for one with no file yet, for :func:`_restore_files`; a path that cannot be
    read (a directory) is left out (the first write refuses it)."""
    kept: dict[str, bytes | None] = {}
    for path in filter(None, paths):
        target = os.path.realpath(path)
        try:
            kept[target] = Path(target).read_bytes()
        except FileNotFoundError:
            kept[target] = None
        except OSError:
            continue
    return kept


def _restore_files(kept: dict[str, bytes | None]) -> None:
    """Put the files :func:`_kept_files` read back as they were, written as the game writes them
    (common.save.write_atomic, which a read-only file in a writable folder allows): their bytes again, or no
    file."""
    from common.save import write_atomic

    for target, data in kept.items():
        with contextlib.suppress(OSError):
            if data is None:
                Path(target).unlink(missing_ok=True)
            else:
                write_atomic(target, data)


def _resume_args(curses: bool, seats: Sequence[Seat], console_players: Sequence[int]) -> str:
    """What resuming the game needs besides the file (a save's comment, the resume command): `` -c`` when it
    is played at the terminal, by some of its players (*console_players*) or watched there alone."""
    at_terminal = bool(console_players) or all(seat.display is None for seat in seats)
    return " -c" if curses and at_terminal else ""


def _write_initial_save(path: str, game: Composer, levels: dict[int, str], last_turn: SavedTurn | None,
                        turn_so_far: SavedTurn | None, resume_args: str = "") -> None:
    """Save the game once before any window opens, so that an unusable ``--save`` path is refused now; a
    resumed game's *last_turn* and *turn_so_far* (its turn under way) stay in it, its comment names
    *resume_args* (motti.savegame.comment)."""
    from common.save import write_failure
    from motti.explain import restored_turn
    from motti.savegame import save_game

    try:
        save_game(game, path, levels, last_turn=restored_turn(last_turn, game.board),
                  turn_so_far=restored_turn(turn_so_far, game.board), resume_args=resume_args)
    except OSError as error:
        raise UsageError(f"--save {path}: {write_failure(path, error)}") from None


def _run_headless(args: argparse.Namespace, rules: Game, levels: dict[int, str], rng: random.Random,
                  last_turn: SavedTurn | None = None, turn_so_far: SavedTurn | None = None,
                  chosen_seed: int | None = None) -> int:
    """Play a game of computer players only to its end, with no display or terminal: the session's turn flow
    with no front end, paced only by an explicit ``--delay``; print how it ended (one line), after the
    *chosen_seed* on stderr when no ``--seed`` was given (so that the match can be replayed). The ``--status``
    and ``--save`` files are rewritten after every turn (with a resumed game's *last_turn* until its first
    turn ends, and its *turn_so_far* in that turn's record); a failed write is said once on stderr and the
    game plays on (the last good save stays)."""
    from motti.announce import end_text
    from motti.compose import Composer
    from motti.savegame import HEADLESS
    from motti.session import Session

    if args.seats or args.curses:
        raise UsageError(f"{'-c' if args.curses else 'player strings'}: --headless plays without display or "
                         "terminal")
    humans = [p for p in rules.alive if p not in levels]
    if humans:
        listed = ", ".join(map(str, humans))
        subject = (f"player {listed} is not a computer player" if len(humans) == 1
                   else f"players {listed} are not computer players")
        raise UsageError(f"--headless: {subject} (name every player with --computer)")
    if chosen_seed is not None:
        print(f"motti: seed {chosen_seed}", file=sys.stderr)
    game = Composer(rules)
    if args.status:
        _write_initial_status(args.status, game, None)
    if args.save:
        _write_initial_save(args.save, game, levels, last_turn, turn_so_far, HEADLESS)
    session = Session(game, computer=levels, rng=rng, status=args.status, save=args.save,
                      computer_delay=args.delay or 0.0, every_action=False, last_turn=last_turn,
                      turn_so_far=turn_so_far, resume_args=HEADLESS)
    _say_save_rules(args)
    session.run(until_end=True)
    assert game.end is not None
    print(end_text(game.end))
    return EXIT_OK


def _play(args: argparse.Namespace, rules: Game, levels: dict[int, str], computer_rng: random.Random,
          last_turn: SavedTurn | None = None, turn_so_far: SavedTurn | None = None) -> int:
    """Seat the players (§5), open every window (all or nothing), then run the game loop; *levels* holds each
    computer player's level, *last_turn* a resumed game's last turn (its marks), *turn_so_far* what its turn
    under way had changed (marked with the rest of that turn)."""
    from common.displays import PlayerStringError, Seat, parse_seats
    from common.loop import Inbox
    from common.x11 import DisplayError
    from motti.compose import Composer
    from motti.mapfile import find_map

    game = Composer(rules)
    computer = set(levels)
    default_display = os.environ.get("DISPLAY") or None
    # Players already out (-p, a resumed game) get no seat; without $DISPLAY the unnamed ones sit at the
    # terminal, which only -c or computer players may use.
    try:
        seats = parse_seats(list(args.seats), game.board.players, default_display=default_display,
                            curses=args.curses or default_display is None, seated=game.alive)
    except PlayerStringError as error:
        raise UsageError(str(error)) from None
    given = seats[: len(args.seats)]   # the player strings' seats, in order: the resume command gives them
    for seat in seats:
        out = [p for p in seat.players if p not in game.alive]
        if out:
            alive = ", ".join(map(str, game.alive))
            raise UsageError(f"player {out[0]} is out of this game (players left: {alive}); name only those")
    # Only the people among the unnamed players need a display; computer players play without one.
    unnamed = next((seat.players for seat in seats if seat.display is None), ())
    humans = [p for p in unnamed if p not in computer]
    if not args.curses and humans:
        listed = ",".join(map(str, humans))
        who = f"player {listed} has" if len(humans) == 1 else f"players {listed} have"
        raise UsageError(f"{who} no display: $DISPLAY is not set (name one with {listed}:DISPLAY, or play "
                         "in this terminal with -c)")
    # A seat whose players are all computer players needs no window of its own: one a player string named
    # (parse_seats puts those first, in order) watches them on its display as an observer's window (closing
    # it defeats nobody), the unnamed one gets none; with nobody left to play, the game is watched on the
    # terminal (-c) or in an observer window on $DISPLAY.
    named = len(args.seats)
    seats = [Seat((), seat.display) if index < named and set(seat.players) <= computer else seat
             for index, seat in enumerate(seats)
             if index < named or not seat.players or not set(seat.players) <= computer]
    if not seats:
        if args.curses:
            seats = [Seat((), None)]
        elif default_display is not None:
            seats = [Seat((), default_display)]
        else:
            raise UsageError("no display to watch the computer players on: $DISPLAY is not set (add "
                             "0:DISPLAY, watch in this terminal with -c, or play unwatched with --headless)")
    console_players = tuple(p for seat in seats if seat.display is None for p in seat.players
                            if p not in computer)
    from motti.frontend import Frontend, open_windows
    from motti.session import COMPUTER_DELAY_S, Session

    resume_args = _resume_args(args.curses, seats, console_players)
    # The terminal: its players, or (no window watching) the computer players' game.
    needs_console = args.curses and (bool(console_players) or all(seat.display is None for seat in seats))
    if needs_console:
        from motti.console import terminal_problem

        problem = terminal_problem()
        if problem is not None:
            raise UsageError(problem)
    inbox = Inbox()
    windows = {}
    console = None
    kept = _kept_files(args.status, args.save)
    session = None
    with exit_on_signals():   # from here on SIGTERM and SIGHUP end motti as Ctrl-C does
        try:
            if args.status:
                _write_initial_status(args.status, game, console_players if args.curses else None)
            if args.save:
                _write_initial_save(args.save, game, levels, last_turn, turn_so_far, resume_args)
            if any(seat.display is not None for seat in seats):
                try:
                    windows = open_windows(seats, game, inbox, computer=computer)
                except DisplayError as error:
                    raise UsageError(str(error)) from None
            _say_save_rules(args)   # now, before the console's curses screen takes over stderr's terminal
            if needs_console:
                from motti.console import Console, ConsoleError

                try:
                    console = Console(inbox, console_players)
                    console.start()
                except ConsoleError as error:
                    raise UsageError(str(error)) from None
            resumed = None if args.map == "generate" else str(find_map(args.map))
            delay = COMPUTER_DELAY_S if args.delay is None else args.delay
            session = Session(game, inbox, computer=levels, rng=computer_rng, status=args.status,
                              save=args.save, computer_delay=delay, last_turn=last_turn,
                              turn_so_far=turn_so_far, resumed=resumed, resume_args=resume_args,
                              resume_seats=given)
            Frontend(session, windows)
            if console is not None:
                console.attach(session)
            return session.run()
        except BaseException:
            # A start that failed or was stopped before the game loop began leaves the files as they were, a
            # resumed save included; a signal meanwhile is ignored.
            if session is None or not session.running:
                with signals_ignored():
                    if console is not None:
                        console.close()
                    for window, _seat in windows.values():
                        window.close()
                    _restore_files(kept)
            raise


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point: run motti and turn errors into the exit statuses of spec §3.4."""
    return run_main("motti", lambda: run(argv))
