"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Used for save games, status files and map output; JSON files are read back through a typed decoder
(:func:`decode_json`, :func:`decode_text`) whose errors name the file and the JSON path.

The data goes to a temporary file in the same directory, is flushed and fsynced, then renamed over the target
(``os.replace`` is atomic on POSIX). A rename would replace whatever the name stood for, so a target that is a
directory, FIFO, device or socket is refused (``--save /dev/null`` must not turn the device into a file), and
a symbolic link is written through (the link stays). The file gets the mode a plain ``open()`` would give it:
a replaced file keeps its mode, a new one gets ``0o666`` less the umask (the temporary file alone would be
``0o600``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")
BOM = b"\xef\xbb\xbf"

_SPECIAL = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotARegularFile(OSError):
    """The path names a directory, FIFO, device or socket, which a game never reads as a file or writes over.

    ``strerror`` says what it is, e.g. ``is a character device, not a regular file``.
    """


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What *path* is when it exists and is not a regular file (``"a directory"``, ``"a FIFO"``…), else None.

    Symbolic links are followed. Raises OSError other than FileNotFoundError (e.g. PermissionError).
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    return next((name for test, name in _SPECIAL if test(mode)), None)


def require_regular(path: str | os.PathLike[str]) -> None:
    """Raise :class:`NotARegularFile` when *path* exists and is not a regular file."""
    kind = special_kind(path)
    if kind is not None:
        raise NotARegularFile(errno.EINVAL, f"is {kind}, not a regular file", os.fspath(path))


#: What a file only read may be besides a regular file: ``/dev/null``, ``/dev/stdin``, a FIFO (``<(...)``).
_READABLE_SPECIAL = (stat.S_ISCHR, stat.S_ISFIFO)


def file_problem(path: str | os.PathLike[str], *, written: bool) -> str | None:
    """Why *path* cannot serve as a file that is only read (``written=False``) or that is written
    (``written=True``), in words for a one-line error (``No such file or directory``, ``is a directory, not a
    regular file``, ``cannot write in /etc``), or None when it can.

    A file only read may be any readable file: a regular file, a character device or a FIFO (``/dev/null``, a
    shell's ``<(...)``); a directory, block device or socket is refused. A file written must be a regular
    file or not exist yet, in a folder where a file can be created (:func:`write_problem`):
    :func:`write_atomic` replaces it by renaming, which would turn a device into a file."""
    if written:
        return write_problem(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return error.strerror or str(error)
    kind = next((name for test, name in _SPECIAL if test(mode)), None)
    if kind is not None and not any(test(mode) for test in _READABLE_SPECIAL):
        return f"is {kind}, not a file to read"
    if not os.access(path, os.R_OK):
        return "permission denied"
    return None


def read_input(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a file that is only read (:func:`file_problem` with ``written=False`` says which), at most
    *limit* of them: a device that never ends (``/dev/zero``) is cut there. Raises :class:`InputTooLarge`
    past *limit*, OSError when it cannot be read."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputTooLarge(errno.EFBIG, f"is larger than {limit} bytes", os.fspath(path))
    return data


class InputTooLarge(OSError):
    """A file read by :func:`read_input` is larger than its limit (``strerror``: ``is larger than N bytes``).
    """


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], text: str | bytes) -> None:
    """Write *text* (UTF-8; bytes as they are) to *path* atomically; a symbolic link is written through.

    A replaced file keeps its permission bits; a new file gets ``0o666 & ~umask``. Raises
    :class:`NotARegularFile` when *path* is a directory, FIFO, device or socket, and OSError when the
    directory is not writable; the target is unchanged in both cases.
    """
    target = Path(os.path.realpath(path))
    require_regular(target)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode() if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_failure(path: str | os.PathLike[str], error: OSError) -> str:
    """What is wrong when :func:`write_atomic` of *path* failed with *error*, as a phrase for a one-line
    message: ``is a directory, not a regular file``, ``cannot write in /x: no such folder``, ``cannot write in
    /proc: not writable`` (a folder where no file can be created says so, not "No such file or directory"),
    else the system's words (``No space left on device``)."""
    if isinstance(error, NotARegularFile):
        return error.strerror or str(error)
    folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(folder):
        return f"cannot write in {folder}: {'not a folder' if os.path.exists(folder) else 'no such folder'}"
    if error.errno in (errno.ENOENT, errno.EACCES, errno.EPERM, errno.EROFS):
        reason = "" if error.errno == errno.ENOENT else f" ({error.strerror})"
        return f"cannot write in {folder}: not writable{reason}"
    return error.strerror or str(error)


def write_problem(path: str | os.PathLike[str]) -> str | None:
    """Why :func:`write_atomic` could not write *path* (:func:`write_failure`'s phrase), found before any
    game starts by creating and removing a file beside it; None when it can."""
    try:
        require_regular(path)
        fd, probe = tempfile.mkstemp(prefix=".write-check.", dir=os.path.dirname(os.path.realpath(path)))
    except OSError as error:
        return write_failure(path, error)
    os.close(fd)
    os.unlink(probe)
    return None


def remove_stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files :func:`write_atomic` left beside *path* when its process was killed
    mid-write (``.NAME.PID.XXXXXXXX.tmp`` of a process that is gone). Returns what was removed."""
    target = Path(os.path.realpath(path))
    pattern = re.compile(re.escape(f".{target.name}.") + r"(\d+)\.[^.]+\.tmp$")
    removed: list[Path] = []
    try:
        candidates = list(target.parent.iterdir())
    except OSError:
        return removed
    for candidate in candidates:
        found = pattern.match(candidate.name)
        if found is None or _alive(int(found.group(1))):
            continue
        try:
            candidate.unlink()
        except OSError:
            continue
        removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Sink:
    """One file the game keeps up to date (a save or a status file), with the one failure policy of all games.

    ``write(writer)`` calls ``writer(path)`` (which writes atomically, e.g. with :func:`write_atomic`). A
    failure is reported once, as one line, to ``show`` (where the player looks: the legend band, the message
    line) and on stderr as ``PROG: line`` (unless ``echo`` is false: stderr is the curses screen itself); the
    next ``write`` tries again, and a success after failures clears
    ``failure`` and reports ``"PROG: WHAT PATH: written again"`` on stderr. The last good file is never
    damaged (the write is atomic). Stale temporary files of a killed process are removed when the sink is
    made. ``problem`` is what is wrong while writing fails, in :func:`write_failure`'s words (``cannot write
    in /home/ann/sd2: no such folder``), and ``written`` whether this sink has written its file at all.
    """

    def __init__(self, path: str | os.PathLike[str] | None, what: str, prog: str,
                 show: Callable[[str], None] | None = None, echo: bool = True) -> None:
        self.path = None if path is None else os.fspath(path)
        self.echo = echo
        self.what = what
        self.prog = prog
        self.show = show
        self.failure: str | None = None
        self.problem: str | None = None
        self.written = False
        if self.path is not None:
            remove_stale_temporaries(self.path)

    def write(self, writer: Callable[[str], object]) -> bool:
        """Write through ``writer(path)``; True when written (or nothing to write), False when it failed."""
        if self.path is None:
            return True
        try:
            writer(self.path)
        except OSError as error:
            self.problem = write_failure(self.path, error)
            line = f"cannot write {self.what} {self.path}: {error.strerror or error}"
            if self.failure is None:
                if self.echo:
                    print(f"{self.prog}: {line}", file=sys.stderr)
                if self.show is not None:
                    self.show(line)
            self.failure = line
            return False
        self.problem = None
        self.written = True
        if self.failure is not None:
            self.failure = None
            if self.echo:
                print(f"{self.prog}: {self.what} {self.path}: written again", file=sys.stderr)
        return True

    def write_text(self, text: str) -> bool:
        """``write`` of *text* with :func:`write_atomic`."""
        return self.write(lambda path: write_atomic(path, text))


def save_json(path: str | os.PathLike[str], state: Any) -> None:
    """Write *state* (dicts, lists, strings, numbers, booleans, None) to *path* atomically, pretty-printed
    (one item a line, keys sorted). Encoded with msgspec: a Star Lanes save of 200,000 history rows takes
    0.04 s (``json.dumps`` with an indent took 0.8 s); non-ASCII text is written as UTF-8. Raises OSError,
    and TypeError for what JSON cannot hold."""
    encoded = msgspec.json.format(msgspec.json.encode(state, order="sorted"), indent=1)
    write_atomic(path, encoded.decode("utf-8") + "\n")


def load_json(path: str | os.PathLike[str]) -> Any:
    """Read a JSON file written by :func:`save_json`.

    Raises :class:`NotARegularFile` for a directory, FIFO or device (``/dev/zero`` would never end), OSError
    when the file cannot be read and ValueError (``json.JSONDecodeError``) when it is not JSON.
    """
    require_regular(path)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


class FileFormatError(ValueError):
    """A file that is not what it should be; the message is one line naming the file and the place.

    ``game.json: $.game.companies[0]: expected array of length 2`` (a JSON path) or
    ``game.json:3:14: JSON is malformed: invalid character`` (line and column).
    """


def _line_col(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"{line}:{column}"


def validation_place(error: msgspec.ValidationError) -> tuple[str, str]:
    """msgspec's ``Expected `int`, got `str` - at `$.a[0]``` as (``$.a[0]``, ``expected int, got str``): the
    JSON path and what was expected, as every typed decoder of the project words them."""
    text, _, where = str(error).partition(" - at `")
    text = one_line(text.replace("`", ""))
    return (one_line(where.rstrip("`")) or "$"), text[:1].lower() + text[1:]


def one_line(text: str) -> str:
    """*text* with every unprintable character (a newline in a JSON key the file holds) written as its Python
    escape (``\\n``), so that an error quoting the file stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def decode_json(path: str | os.PathLike[str], type_: type[T]) -> T:
    """Read the JSON file at *path* as *type_* (a ``msgspec.Struct`` or any type msgspec decodes).

    A leading UTF-8 byte-order mark is skipped. Raises :class:`NotARegularFile` for a directory, FIFO or
    device, OSError when the file cannot be read, and :class:`FileFormatError` as :func:`decode_text` does,
    named after the file.
    """
    require_regular(path)
    with open(path, "rb") as handle:
        data = handle.read()
    return decode_text(data, type_, os.fspath(path))


def decode_text(data: str | bytes, type_: type[T], name: str) -> T:
    """Decode the JSON document *data* as *type_*. Raises :class:`FileFormatError` with one line naming
    *name* and the line and column (bad JSON, a truncated document included: ``game.json:3:14: JSON is
    malformed: invalid character``) or the JSON path (wrong shape or type: ``game.json: $.a[0]: expected
    int, got str``), nesting too deep included; TypeError when *data* is not text."""
    if not isinstance(data, str | bytes):
        raise TypeError(f"{name}: expected JSON text, not {type(data).__name__}")
    body = data.encode() if isinstance(data, str) else data
    body = body[len(BOM):] if body.startswith(BOM) else body
    try:
        return msgspec.json.decode(body, type=type_)
    except msgspec.ValidationError as error:
        _malformed(body, name)  # msgspec types the fields as it reads: a field may fail before a cut-off end
        where, what = validation_place(error)
        raise FileFormatError(f"{name}: {where}: {what}") from None
    except msgspec.DecodeError as error:
        raise _syntax_error(body, name, error) from None
    except RecursionError:
        raise FileFormatError(f"{name}: nested too deeply to be a file of this kind") from None


def _malformed(body: bytes, name: str) -> None:
    """Raise the :class:`FileFormatError` of *body*'s JSON syntax, if it is not well-formed JSON (nesting too
    deep to read untyped is left to the typed decoder's error)."""
    with contextlib.suppress(RecursionError):
        try:
            msgspec.json.decode(body)
        except msgspec.DecodeError as error:
            raise _syntax_error(body, name, error) from None


def _syntax_error(body: bytes, name: str, error: msgspec.DecodeError) -> FileFormatError:
    text = str(error)
    found = re.search(r"\(byte (\d+)\)", text)
    offset = int(found.group(1)) if found else len(body) if "truncated" in text else None
    place = None if offset is None else _line_col(body, offset)
    text = re.sub(r"\s*\(byte \d+\)", "", text)
    return FileFormatError(f"{name}:{place}: {text}" if place else f"{name}: {text}")
