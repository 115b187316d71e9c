"""Saved games of motti: the map format of spec/motti.md §3.2 holds a whole game between two actions.

A save is the board (occupied cells uppercase, ``eliminated K`` for players that are out) plus the state
lines of §3.2: ``turn K`` (the player in turn) and ``attacks R`` (attacks left in that turn) while the game
runs, ``turns T`` (turns played), ``reset-rule``, ``capital-rule``, ``tie-rule``, ``max-turns N`` (when there
is a cap), ``takeable K`` (the count of §2.8, under the strict rule), one ``computer K LEVEL`` per computer
player, ``resets T1 T2 ...`` (the turns with a global reset, once there was one), and the last turn (spec §6):
``last-turn P ACTION`` (``reset`` after it when the turn reset the board) and one ``last-cell X Y CHANGE``
per cell it changed, so that a resumed game shows the same marks, and, in the middle of an Attack turn
(attacks left below 6), what that turn has done so far: ``turn-reset`` when it reset the board and one
``turn-cell X Y CHANGE`` per cell it changed, so that the resumed turn marks them too when it ends.
Resuming is loading it as a map: ``motti FILE [PLAYERSTRING...]`` continues with that player, those attacks,
those rules and those computer players; a save without some of these lines takes the command line's values,
else the defaults. Crosses that were placed but not performed and the random generator's state are not part
of a save.

``--save FILE`` keeps FILE up to date after every action; without it, the ``s`` key writes a file of the
game's own in the folder of :func:`default_path` (:func:`claim_default_path`; motti.session says when it
is still the game's own).
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from common.save import write_atomic
from motti.compose import Composer
from motti.levels import DEFAULT_LEVEL
from motti.mapfile import dump_map
from motti.rules import ATTACKS_PER_TURN, Game

if TYPE_CHECKING:
    from motti.announce import LastTurn


#: The resume arguments of a headless match's save (its first line, the line said when it stops).
HEADLESS = " --headless"


def comment(resume_args: str = "") -> str:
    """A save's comment line: the command that resumes it, with *resume_args* (`` -c`` for a game played at
    the terminal, by some of its players or all; :data:`HEADLESS` for a headless match, which takes no player
    strings)."""
    strings = "" if resume_args == HEADLESS else " [PLAYERSTRING...]"
    return f"motti saved game: resume with motti FILE{resume_args}{strings}"


COMMENT = comment()


def default_path() -> Path:
    """Where the ``s`` key saves without ``--save``: ``$XDG_STATE_HOME/motti/saved.map``, with
    ``$XDG_STATE_HOME`` defaulting to ``~/.local/state`` (an unset, empty or relative value uses the default,
    as the XDG base directory specification asks)."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "motti" / "saved.map"


def claim_default_path() -> Path:
    """A file of its own for a game's ``s`` without ``--save``: the first of :func:`default_path`,
    ``saved-2.map``, ``saved-3.map``, ... beside it that nothing holds, created empty at once (exclusively, so
    that two games saving at the same moment never take the same name). Call it holding
    :func:`save_folder_lock`, which makes the folder. Raises OSError when the folder cannot hold it."""
    first = default_path()
    number = 1
    while True:
        path = first if number == 1 else first.with_name(f"{first.stem}-{number}{first.suffix}")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:
            number += 1
        else:
            return path


def _make_folder(folder: Path) -> None:
    """Make *folder* when missing; a file where it or one of the folders above it should be is named
    (``/x/state is not a folder``)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), folder)
        raise NotADirectoryError(errno.ENOTDIR, f"{blocker} is not a folder") from None


@contextmanager
def save_folder_lock() -> Iterator[None]:
    """Hold the default save folder's lock (``.lock`` in it, made with the folder when missing) while a game
    checks that its own file is still its own and writes it, so that two games never take the same file."""
    folder = default_path().parent
    _make_folder(folder)
    with open(folder / ".lock", "a", encoding="utf-8") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def in_default_folder(path: str | os.PathLike[str]) -> bool:
    """True when *path* is a file in the folder of :func:`default_path` (symbolic links and ``..`` resolved):
    a game resumed from there saves back to it."""
    return Path(path).resolve().parent == default_path().parent.resolve()


def computer_levels(computer: Collection[int]) -> dict[int, str]:
    """The computer players with their levels: *computer* itself when it maps players to levels, else each
    player at the default level ``medium``."""
    if isinstance(computer, Mapping):
        return {int(p): str(level) for p, level in computer.items()}
    return dict.fromkeys(computer, DEFAULT_LEVEL)


def state_lines(game: Game, computer: Mapping[int, str] | None = None,
                last_turn: LastTurn | None = None, turn_so_far: LastTurn | None = None) -> list[str]:
    """The state lines of §3.2 after ``turn``/``attacks``: turns, the rule options (``Rules.save_lines``: the
    reset, capital and tie rules, the turn cap when there is one), the count of §2.8 (under a reset rule that
    keeps it, while the game runs), the computer players ``{player: level}``, the turns of the resets so far,
    the *last_turn* (spec §6: ``last-turn P ACTION [reset]``, then ``last-cell X Y CHANGE`` per cell by row)
    and *turn_so_far*, the record of the turn under way, while the game runs in the middle of an Attack turn
    (``turn-reset`` when it reset the board, then ``turn-cell X Y CHANGE`` per cell by row; nothing for a
    turn that changed nothing)."""
    lines = [f"turns {game.turns}", *game.rules.save_lines()]
    if game.rules.reset.counts_takeable and not game.is_terminal():
        # Once the game is over the count is that of its last running board; a loader computes it again.
        lines.append(f"takeable {game.takeable}")
    lines += [f"computer {p} {level}" for p, level in sorted((computer or {}).items())]
    if game.resets:
        lines.append("resets " + " ".join(map(str, game.resets)))
    if last_turn is not None:
        record = last_turn.to_json()
        reset = " reset" if record["reset"] else ""
        lines.append(f"last-turn {record['player']} {record['action']}{reset}")
        lines += _cell_lines("last-cell", record["cells"])
    if turn_so_far is not None and not game.is_terminal() and game.attacks_left < ATTACKS_PER_TURN:
        record = turn_so_far.to_json()
        if record["reset"]:
            lines.append("turn-reset")
        lines += _cell_lines("turn-cell", record["cells"])
    return lines


def _cell_lines(keyword: str, cells: list[list[int | str]]) -> list[str]:
    """``KEYWORD X Y CHANGE`` (motti.mapfile.CELL_LINES) for each ``[x, y, change]`` of *cells*."""
    return [f"{keyword} {x} {y} {change}" for x, y, change in cells]


def save_text(game: Game | Composer, computer: Mapping[int, str] | None = None,
              comment: str | None = COMMENT, last_turn: LastTurn | None = None,
              turn_so_far: LastTurn | None = None) -> str:
    """The save of *game* in the map format of §3.2 (see the module docstring): ``turn`` and ``attacks`` only
    while the game runs; *last_turn* the turn before, *turn_so_far* the turn under way
    (motti.announce.LastTurn, see :func:`state_lines`)."""
    rules = game.game if isinstance(game, Composer) else game
    running = not rules.is_terminal()
    return dump_map(rules.board, turn=rules.current_player if running else None,
                    attacks=rules.attacks_left if running else None, comment=comment,
                    state=state_lines(rules, computer, last_turn, turn_so_far))


def save_game(game: Game | Composer, path: str | os.PathLike[str] | None = None,
              computer: Mapping[int, str] | None = None, last_turn: LastTurn | None = None,
              turn_so_far: LastTurn | None = None, resume_args: str = "") -> Path:
    """Write *game* atomically to *path* (default :func:`default_path`, whose folder is created), with its
    computer players ``{player: level}``, the turn before (*last_turn*) and the turn under way so far
    (*turn_so_far*), under the :func:`comment` with *resume_args*; return the absolute path written. Raises
    OSError when it cannot be written (the old file is then unchanged)."""
    target = Path(path) if path is not None else default_path()
    if path is None:
        target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, save_text(game, computer, comment(resume_args), last_turn=last_turn,
                                   turn_so_far=turn_so_far))
    return target.absolute()
