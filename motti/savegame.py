"""Saved games of motti: the map format of spec/motti.md §3.2 holds a whole game between two actions.

A save is the board (occupied cells uppercase, ``eliminated K`` for players that are out) plus the state
lines ``turn K`` (the player in turn) and ``attacks R`` (attacks left in that turn). Resuming is loading it as
a map: ``motti FILE [PLAYERSTRING...]`` continues with that player and those attacks. Crosses that were placed
but not performed, the random generator's state and the rule options are not part of a save (the project's
choice: give ``--capital-rule``/``--reset-rule`` again when resuming).

``--save FILE`` keeps FILE up to date after every action; without it, the ``s`` key writes
:func:`default_path`.
"""

from __future__ import annotations

import os
from pathlib import Path

from common.save import write_atomic
from motti.mapfile import dump_map
from motti.rules import Game

COMMENT = "motti saved game: resume with  motti FILE [PLAYERSTRING...]"


def default_path() -> Path:
    """Where the ``s`` key saves without ``--save``: ``$XDG_STATE_HOME/motti/saved.map``, with
    ``$XDG_STATE_HOME`` defaulting to ``~/.local/state`` (an unset, empty or relative value uses the default,
    as the XDG base directory specification asks)."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "motti" / "saved.map"


def save_text(game: Game) -> str:
    """The save of *game* in the map format of §3.2: with ``turn`` and ``attacks`` lines while the game runs,
    without them once it has a winner."""
    if game.is_terminal():
        return dump_map(game.board, comment=COMMENT)
    return dump_map(game.board, turn=game.current_player, attacks=game.attacks_left, comment=COMMENT)


def save_game(game: Game, path: str | os.PathLike[str] | None = None) -> Path:
    """Write *game* atomically to *path* (default :func:`default_path`, whose folder is created); return the
    absolute path written. Raises OSError when it cannot be written (the old file is then unchanged)."""
    target = Path(path) if path is not None else default_path()
    if path is None:
        target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, save_text(game))
    return target.absolute()
