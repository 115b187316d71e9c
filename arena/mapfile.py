"""arena map files: ``NAME.map`` and the optional ``NAME.toxic`` beside it (spec/arena.md §2.2).

``.map``: ``#`` = wall, space or ``.`` = free; rows shorter than the longest are padded with free cells;
empty lines at the end are ignored (a row of spaces is a row, so the normalised copy reads back unchanged).
Both files are UTF-8; a leading byte-order mark is skipped.
``.toxic``: the same grid, space or ``.`` = 0.01, ``1``…``9`` = digit × 0.02, ``0`` and ``#`` = 0.20 (stored
as integer hundredths 1..20); shorter rows and missing rows are 0.01.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import numpy as np

from arena.maptext import read_file, split_rows
from arena.rules import Arena
from common.data import shipped_dir

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
    map.
    """
    height, width = shape
    tox = np.ones(shape, dtype=np.int16)
    if len(rows) > height:
        raise MapError(file, height + 1, 1, f"toxicity grid has more rows than the map ({height})")
    for y, row in enumerate(rows):
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
    walls = parse_map(_read_rows(map_path, _MAP_CHARS), map_path)
    if toxic_path is None:
        candidate = map_path.with_suffix(".toxic")
        toxic_path = candidate if candidate.exists() else None
    if toxic_path is None:
        tox = np.ones(walls.shape, dtype=np.int16)
    else:
        tox = parse_toxic(_read_rows(Path(toxic_path), _TOXIC_CHARS), walls.shape, toxic_path)
    arena = Arena(walls=walls, toxicity=tox, name=map_path.stem, path=str(map_path))
    validate(arena, players)
    return arena


def validate(arena: Arena, n_players: int) -> None:
    """Check that ``arena`` can host ``n_players`` (§2.2).

    At least one free cell per player, and all free cells connected under the movement rules of §2.4.

    Diagonal moves need both orthogonal corners free, so they connect nothing that side steps don't: the test
    is a flood fill by side steps. Raises MapError (line/col of an unreachable cell; no place for the count).
    """
    file = arena.path or arena.name
    free = ~arena.walls
    n_free = int(free.sum())
    if n_free < n_players:
        need = "1 player needs one" if n_players == 1 else f"{n_players} players need one each"
        raise MapError(file, 0, 0, f"{n_free} free cells, but {need}")
    reached = _reached_from_first(free)
    if not reached.all():
        y0, x0 = np.unravel_index(np.flatnonzero(free)[0], free.shape)
        ys, xs = np.nonzero(~reached)
        raise MapError(file, int(ys[0]) + 1, int(xs[0]) + 1,
                       f"free cell cannot be reached from the free cell at line {y0 + 1}, column {x0 + 1} "
                       f"(all free cells must be connected)")


def _reached_from_first(free: np.ndarray) -> np.ndarray:
    """H×W bool: True for a wall and for every free cell joined to the first free cell (reading order) by
    side steps, the test of :func:`validate`.

    A flood fill over the flat cells, not ``scipy.ndimage.label``: importing scipy took 0.2 s of every
    ``arena serve``, ``play`` and ``tournament`` start, longer than filling the largest shipped map."""
    height, width = free.shape
    cells = free.ravel().tolist()
    if True not in cells:
        return ~free
    reached = bytearray((~free).tobytes())  # 1 for a wall: never entered
    first = cells.index(True)
    reached[first] = 1
    todo = [first]
    while todo:
        i = todo.pop()
        x = i % width
        for j, inside in ((i - width, i >= width), (i + width, i + width < len(cells)),
                          (i - 1, x > 0), (i + 1, x + 1 < width)):
            if inside and not reached[j]:
                reached[j] = 1
                todo.append(j)
    return np.frombuffer(bytes(reached), dtype=bool).reshape(height, width)


def normalised_text(arena: Arena) -> str:
    """The map in the original format: rows exactly W wide, ``#`` and spaces only, each ending in ``\\n``."""
    return "".join("".join("#" if w else " " for w in row) + "\n" for row in arena.walls)


def find_map(name: str | Path) -> Path:
    """Resolve a map argument: an existing path, else a shipped name ("office" -> maps/arena/office.map).

    Raises MapError naming the shipped maps when neither exists, or saying that *name* is a directory.
    """
    path = Path(name)
    if path.is_file():
        return path
    if path.is_dir():
        raise MapError(str(name), 0, 0, "is a directory, not a map file")
    shipped = shipped_dir("arena")
    candidate = shipped / f"{path.name}.map" if path.suffix != ".map" else shipped / path.name
    if str(name) == path.name and candidate.is_file():
        return candidate
    names = sorted(p.stem for p in shipped.glob("*.map")) if shipped.is_dir() else []
    known = ", ".join(names) if names else "none"
    raise MapError(str(name), 0, 0, f"no such map file or shipped map (shipped maps: {known})")
