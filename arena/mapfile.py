"""arena map files: ``NAME.map`` and the optional ``NAME.toxic`` beside it (spec/arena.md §2.2).

``.map``: ``#`` = wall, space or ``.`` = free; rows shorter than the longest are padded with free cells;
empty lines at the end are ignored (a row of spaces is a row, so the normalised copy reads back unchanged).
Both files are UTF-8; a leading byte-order mark is skipped.
``.toxic``: the same grid, space or ``.`` = 0.01, ``1``…``9`` = digit × 0.02, ``0`` and ``#`` = 0.20 (stored
as integer hundredths 1..20); shorter rows and missing rows are 0.01.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from arena.maptext import read_file, split_rows
from arena.rules import Arena
from common.data import shipped_dir
from common.save import special_kind

_TOXIC_VALUES = {" ": 1, ".": 1, "0": 20, "#": 20, **{str(d): 2 * d for d in range(1, 10)}}
_MAP_CHARS = "'#', ' ' or '.'"
_TOXIC_CHARS = "' ', '.', '0'-'9' or '#'"


class MapError(ValueError):
    """A map that can't be used.

    ``str()`` is ``"FILE:LINE:COL: message"`` (line and column 1-based), or ``"FILE: message"`` when it is not
    about one place (line and col 0).
    """

    def __init__(self, file: str | Path, line: int, col: int, message: str):
        self.file = str(file)
        self.line = line
        self.col = col
        self.message = message
        super().__init__(f"{self.file}:{line}:{col}: {message}" if line else f"{self.file}: {message}")


def _read_rows(path: Path, expected: str) -> list[str]:
    """The file's rows without line ends and trailing blank lines. Raises MapError when unreadable
    (*expected* names the characters the file should hold)."""
    try:
        raw = read_file(path)
    except IsADirectoryError:
        raise MapError(path, 0, 0, "is a directory, not a file") from None
    except OSError as exc:
        raise MapError(path, 0, 0, f"cannot read: {exc.strerror or exc}") from None
    raw = raw.removeprefix(codecs.BOM_UTF8)  # a leading byte-order mark is not part of the first row
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MapError(path, line, col, f"not a text file (expected {expected})") from None
    return split_rows(text)


def parse_map(rows: list[str], file: str | Path = "<map>") -> np.ndarray:
    """Map rows (``#`` wall, space or ``.`` free) to an ``(H, W)`` bool wall array, short rows padded free.

    Raises MapError naming file, line and column of a bad character (line 1, column 1 for an empty map).
    """
    if not rows:
        raise MapError(file, 1, 1, f"empty map (expected rows of {_MAP_CHARS})")
    width = max(len(row) for row in rows)
    walls = np.zeros((len(rows), width), dtype=bool)
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                walls[y, x] = True
            elif ch not in " .":
                raise MapError(file, y + 1, x + 1, f"unexpected character {ch!r} (expected {_MAP_CHARS})")
    return walls


def parse_toxic(rows: list[str], shape: tuple[int, int], file: str | Path = "<toxic>") -> np.ndarray:
    """Toxicity rows for a map of ``shape`` (H, W) to an int16 array of hundredths (1..20); short rows and
    missing rows are 0.01.

    Raises MapError for a character other than space, ``.``, ``0``-``9`` or ``#``, or a grid larger than the
    map, whichever comes first in the file.
    """
    height, width = shape
    tox = np.ones(shape, dtype=np.int16)
    for y, row in enumerate(rows):  # the first fault in the file's order is the one named
        if y >= height:
            raise MapError(file, y + 1, 1, f"toxicity grid has more rows than the map ({height})")
        for x, ch in enumerate(row):
            value = _TOXIC_VALUES.get(ch)
            if value is None:
                raise MapError(file, y + 1, x + 1,
                               f"unexpected character {ch!r} (expected {_TOXIC_CHARS})")
            if x >= width:
                raise MapError(file, y + 1, x + 1, f"toxicity row is wider than the map ({width})")
            tox[y, x] = value
    return tox


def arena_from_text(map_text: str, toxic_text: str | None = None, name: str = "arena") -> Arena:
    """An :class:`Arena` from the text of a ``.map`` and optionally a ``.toxic`` file (no validation).

    Raises MapError (file names ``NAME.map`` / ``NAME.toxic``).
    """
    walls = parse_map(split_rows(map_text), f"{name}.map")
    if toxic_text is None:
        tox = np.ones(walls.shape, dtype=np.int16)
    else:
        tox = parse_toxic(split_rows(toxic_text), walls.shape, f"{name}.toxic")
    return Arena(walls=walls, toxicity=tox, name=name)


def load_arena(map_path: str | Path, toxic_path: str | Path | None = None, players: int = 1) -> Arena:
    """Load a map and its toxicity (§2.2).

    ``toxic_path`` None: ``NAME.toxic`` beside the map if it exists (a directory of that name is an error,
    as for ``--toxic``), else 0.01 everywhere. The map is checked for room for *players* and connectivity
    (:func:`validate`). Raises MapError.
    """
    map_path = Path(map_path)
    rows = _read_rows(map_path, _MAP_CHARS)
    walls = parse_map(rows, map_path)
    if toxic_path is None:
        candidate = map_path.with_suffix(".toxic")
        toxic_path = candidate if candidate.exists() else None
    if toxic_path is None:
        tox = np.ones(walls.shape, dtype=np.int16)
    else:
        tox = parse_toxic(_read_rows(Path(toxic_path), _TOXIC_CHARS), walls.shape, toxic_path)
    arena = Arena(walls=walls, toxicity=tox, name=map_path.stem, path=str(map_path))
    validate(arena, players, [len(row) for row in rows])
    return arena


def validate(arena: Arena, n_players: int, row_lengths: Sequence[int] | None = None) -> None:
    """Check that ``arena`` can host ``n_players`` (§2.2).

    At least one free cell per player, and all free cells connected under the movement rules of §2.4.

    Diagonal moves need both orthogonal corners free, so they connect nothing that side steps don't: the test
    joins free cells by side steps (:func:`_first_unreached`). Raises MapError (line/col of an unreachable
    cell; no place for the count). *row_lengths*, the length of each row in the file (:func:`load_arena`),
    lets the message say when a cell it names lies past the end of a short line, where the file has no
    character: the free padding of §2.2 (:func:`_past_the_end`).
    """
    file = arena.path or arena.name
    free = ~arena.walls
    n_free = int(free.sum())
    if n_free < n_players:
        need = "1 player needs one" if n_players == 1 else f"{n_players} players need one each"
        cells = "1 free cell" if n_free == 1 else f"{n_free} free cells"
        raise MapError(file, 0, 0, f"{cells}, but {need}")
    unreached = _first_unreached(free)
    if unreached is not None:
        y, x = unreached
        y0, x0 = (int(i) for i in np.unravel_index(np.flatnonzero(free)[0], free.shape))
        lengths = row_lengths or ()
        first = _past_the_end(y0, x0, lengths)
        start = f"the free cell at line {y0 + 1}, column {x0 + 1}{',' if first else ''}{first}"
        raise MapError(file, y + 1, x + 1, f"free cell{_past_the_end(y, x, lengths)} cannot be reached from "
                                           f"{start} (all free cells must be connected)")


def _past_the_end(y: int, x: int, row_lengths: Sequence[int]) -> str:
    """``""``, or when the cell at row *y*, column *x* (0-based) lies past the end of its line in the file
    (*row_lengths*), words saying so: `` past the end of line 2 (4 characters long; short lines are padded
    with free cells)``. No character of the file stands there, so the column alone would not show it."""
    if y >= len(row_lengths) or x < row_lengths[y]:
        return ""
    length = row_lengths[y]
    long = "an empty line" if length == 0 else f"{length} character{'' if length == 1 else 's'} long"
    return f" past the end of line {y + 1} ({long}; short lines are padded with free cells)"


def _first_unreached(free: np.ndarray) -> tuple[int, int] | None:
    """(y, x) of the first free cell (reading order) that side steps cannot reach from the first free cell,
    None when every free cell is reached: the test of :func:`validate`.

    The free cells of a row come in runs; a run reaches the runs of the next row that share a column with it.
    The runs are joined into groups with numpy, a few passes over all the joins at once: each group takes the
    lowest run number it is joined to, then every run follows its group's pointers to the end. Not
    ``scipy.ndimage.label``, whose import took 0.2 s of every ``arena serve``, ``play`` and ``tournament``
    start, nor a flood fill in Python, cell by cell (9 s on a 4000×4000 map) or run by run (slower than
    cell by cell on maps of short runs such as diagonal corridors)."""
    width = free.shape[1]
    edges = np.diff(free.astype(np.int8), axis=1, prepend=0, append=0)  # +1 where a run starts, -1 after it
    rows, starts = np.nonzero(edges == 1)  # the runs in reading order
    ends = np.nonzero(edges == -1)[1]  # each run's end (exclusive)
    # Keys that order rows first: the runs of the next row sharing a column with a run are those ending after
    # its start and starting before its end, one slice of the runs.
    row_keys = rows * (width + 1)
    start_keys, end_keys = row_keys + starts, row_keys + ends
    first = np.searchsorted(end_keys, start_keys + width + 1, side="right")
    counts = np.maximum(np.searchsorted(start_keys, end_keys + width + 1, side="left") - first, 0)
    upper = np.repeat(np.arange(len(starts)), counts)  # every join (upper[k], lower[k]) of two runs
    lower = first[upper] + np.arange(len(upper)) - np.repeat(np.cumsum(counts) - counts, counts)
    group = np.arange(len(starts))  # a run's pointer: a lower run of its group, or itself at the group's end
    while True:
        a, b = group[upper], group[lower]
        apart = a != b
        if not apart.any():
            break
        a, b = a[apart], b[apart]
        np.minimum.at(group, np.maximum(a, b), np.minimum(a, b))
        while not np.array_equal(followed := group[group], group):
            group = followed
    # Run 0 holds the first free cell, and the lowest run of a group ends its pointers.
    missed = np.flatnonzero(group)
    return None if len(missed) == 0 else (int(rows[missed[0]]), int(starts[missed[0]]))


def normalised_text(arena: Arena) -> str:
    """The map in the original format: rows exactly W wide, ``#`` and spaces only, each ending in ``\\n``."""
    return "".join("".join("#" if w else " " for w in row) + "\n" for row in arena.walls)


def find_map(name: str | Path) -> Path:
    """Resolve a map argument: an existing file, else a shipped name ("office" -> maps/arena/office.map).

    As motti's lookup (:func:`motti.mapfile.find_map`), a file is looked for first, so that a folder, FIFO
    or device of that name in the current folder does not hide a shipped map; such a name that is no
    shipped map is refused saying what it is (``/dev/zero: is a character device, not a map file``,
    :func:`common.save.special_kind`). Raises MapError naming the shipped maps when nothing of that name
    exists.
    """
    path = Path(name)
    shipped = shipped_dir("arena")
    names = sorted(p.stem for p in shipped.glob("*.map")) if shipped.is_dir() else []
    known = ", ".join(names) if names else "none"
    if not str(name):  # Path("") is the current folder
        raise MapError("''", 0, 0, f"an empty name is no map file or shipped map (shipped maps: {known})")
    try:
        if path.is_file():
            return path
        candidate = shipped / f"{path.name}.map" if path.suffix != ".map" else shipped / path.name
        if str(name) == path.name and candidate.is_file():
            return candidate
        kind = special_kind(path)
    except NotADirectoryError:  # "file.map/x": nothing of that name
        kind = None
    except OSError as exc:  # a name too long for the file system, a folder that may not be searched
        raise MapError(str(name), 0, 0, f"cannot read: {exc.strerror or exc}") from None
    if kind is not None:
        raise MapError(str(name), 0, 0, f"is {kind}, not a map file")
    raise MapError(str(name), 0, 0, f"no such map file or shipped map (shipped maps: {known})")
