"""Where the shipped data (maps) of a game lives, after a source checkout, an editable and a regular install.

Order: the environment variable (``MOTTI_MAPDIR`` for motti, ``ARENA_MAPDIR`` for arena) when set, then the
checkout's ``maps/<game>/`` (source tree and editable installs), then ``<prefix>/share/games/<game>/`` where a
regular install puts the data files (ARCHITECTURE.md, "maps/").
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path


def shipped_dir(game: str) -> Path:
    """Return the directory of *game*'s shipped maps (it may not exist if nothing was installed).

    Raises nothing; callers report a missing directory in their own words.
    """
    env = os.environ.get(f"{game.upper()}_MAPDIR")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parent.parent / "maps" / game
    if checkout.is_dir():
        return checkout
    installed = Path(sysconfig.get_path("data")) / "share" / "games" / game
    if installed.is_dir():
        return installed
    return checkout
