"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Used for save games, status files and map output. The data goes to a temporary file in the same directory, is
flushed and fsynced, then renamed over the target (``os.replace`` is atomic on POSIX).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write *text* (UTF-8) to *path* atomically.

    Raises OSError when the directory is not writable; the target is then unchanged.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def save_json(path: str | os.PathLike[str], state: Any) -> None:
    """Write *state* (anything ``json.dumps`` accepts) to *path* atomically, pretty-printed."""
    write_atomic(path, json.dumps(state, indent=1, sort_keys=True) + "\n")


def load_json(path: str | os.PathLike[str]) -> Any:
    """Read a JSON file written by :func:`save_json`.

    Raises OSError when the file cannot be read and ValueError (``json.JSONDecodeError``) when it is not JSON.
    """
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)
