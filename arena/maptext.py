"""Reading the text of map and toxicity files (spec/arena.md §2.2) without numpy: what the server's map loader
(:mod:`arena.mapfile`) and the example bots (:mod:`arena.bots`) share. A bot starts in every game of a
tournament, so what it imports is kept small."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_FILE_BYTES = 16 << 20
"""Largest map or toxicity file read (metropolis, 204×204, is 42 kB): /dev/zero is not a map."""


def split_rows(text: str) -> list[str]:
    """The rows of a map or toxicity text without line ends; only empty lines at the end are dropped (a row of
    spaces is a row of free cells)."""
    rows = [row.rstrip("\r") for row in text.split("\n")]
    while rows and rows[-1] == "":
        rows.pop()
    return rows


def read_file(path: str | Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_FILE_BYTES`. Raises OSError (``strerror`` says
    why) for anything else: a device, a FIFO (never waited on), a folder, a larger file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file")
        raw = handle.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_FILE_BYTES} bytes")
    return raw
