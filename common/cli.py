"""What the three programs share on the command line: one-line usage errors, exit statuses, the version.

Exit statuses, the same for ``motti``, ``starlanes`` and ``arena``:

====================  ======
what                  status
====================  ======
done (``--help`` too)  0
unexpected fault       1
user error             2
SIGHUP                 129
Ctrl-C (SIGINT)        130
closed pipe            141
SIGTERM                143
====================  ======

A user error is one line on stderr, ``PROG: message``, never a usage block or a traceback; so is output that
cannot be written (a full disk), with status 1. An argument missing or not known ends with where the usage is:
``arena: the following arguments are required: MAP (arena serve --help shows the usage)``. A closed pipe
(``motti | head -1``) drops the rest of the output quietly.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import signal
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress

from common.launch import INTERRUPTED

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing's import is left to the programs that need it (a bot's start-up is short)
    from typing import Any, NoReturn, TypeVar

    _Signal = TypeVar("_Signal", bound=int)

__all__ = [
    "DISTRIBUTION",
    "EXIT_FAULT",
    "EXIT_HANGUP",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PIPE",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "Parser",
    "UsageError",
    "as_typed",
    "exit_on_signals",
    "program_version",
    "refuse_same_file",
    "run_main",
    "same_file",
    "typed_command",
]

EXIT_OK = 0
EXIT_FAULT = 1
EXIT_USAGE = 2
EXIT_HANGUP = 128 + signal.SIGHUP
EXIT_INTERRUPTED = INTERRUPTED
EXIT_PIPE = 128 + signal.SIGPIPE
EXIT_TERMINATED = 128 + signal.SIGTERM

DISTRIBUTION = "motti-games"


class UsageError(Exception):
    """A mistake of the user's (bad option, file, player string): one line on stderr and exit status 2."""


#: What the parser takes for a negative number rather than an option: -1, -1.5, -.5, -1e308, -1.5E-3.
_NEGATIVE_NUMBER = re.compile(r"^-(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def _message_start(template: str) -> str:
    """The text argparse's message *template* begins with, in the language argparse speaks (its gettext)."""
    from gettext import gettext

    return gettext(template).split("%s")[0]


#: The errors of an argument missing or not known: the user is told where the usage is.
_POINT_TO_HELP = ("the following arguments are required: %s", "unrecognized arguments: %s")


def as_typed(path: str) -> str:
    """*path*'s bare name when the shell's search path finds *path* under it, else *path* itself; quoted for
    the shell where it needs it (a space)."""
    import shlex
    import shutil

    name = os.path.basename(path)
    found = shutil.which(name)
    on_path = found is not None and os.path.abspath(found) == os.path.abspath(path)
    return shlex.quote(name if on_path else path)


def typed_command(program: str) -> str:
    """How the user can type *program* (``motti``, ``starlanes``, ``arena``) again, as this process was
    started: ``.venv/bin/arena`` (the installed command, through a link of another name too) or
    ``/path/to/python -m arena``; a bare name (``arena``, ``python``) only when the shell's search path finds
    that same file under it; *program* itself when it runs inside another program (a test runner)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    module = spec.name.removesuffix(".__main__") if spec is not None else ""
    entry = getattr(main, "main", None)
    if module.partition(".")[0] == program:  # not another program's __main__, as pytest's
        return f"{as_typed(sys.executable)} -m {module}"
    if getattr(entry, "__module__", "").partition(".")[0] == program:   # the installed command
        return as_typed(sys.argv[0])
    return program


class Parser(argparse.ArgumentParser):
    """argparse whose errors raise :class:`UsageError` (one line, exit 2), never a usage block; a value such
    as ``-1e308`` or ``-1e-3`` is a negative number, not an option (argparse before Python 3.13 knows only
    ``-1`` and ``-.5``).

    An argument missing or not known ends with where the usage is, the (sub)command as the user can type
    it again (:meth:`invocation`): ``the following arguments are required: MAP (arena serve --help shows
    the usage)``. Other errors say what was expected already (``argument --players: expected a number 2..16,
    got '1'``, ``invalid choice: ... (choose from ...)``) and are left as they are."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def invocation(self) -> str:
        """The (sub)command as the user can type it again: ``prog`` (``arena serve``) with its first word as
        :func:`typed_command` gives it."""
        program, _, rest = self.prog.partition(" ")
        return f"{typed_command(program)} {rest}".rstrip()

    def error(self, message: str) -> NoReturn:
        if message.startswith(tuple(_message_start(template) for template in _POINT_TO_HELP)):
            message += f" ({self.invocation()} --help shows the usage)"
        raise UsageError(message)


def same_file(one: str | os.PathLike[str], other: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file: by the file itself when both exist (a hard link, a symbolic link,
    another spelling of the path), else by the paths with every link resolved (a file still to be written,
    reached through a linked folder or a dangling link)."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return os.path.realpath(one) == os.path.realpath(other)


def refuse_same_file(option: str, path: str | None, others: Sequence[tuple[str, str | None]]) -> None:
    """Refuse, before anything starts, a file that *option* writes (``--status``) when one of *others*
    (``(option, path)`` pairs; None or empty: not given) names the same file (:func:`same_file`): one would
    overwrite the other. Raises :class:`UsageError`: ``--status and --save name the same file st2.json: each
    needs its own``."""
    if not path:
        return
    for other, given in others:
        if given and same_file(given, path):
            raise UsageError(f"{option} and {other} name the same file {given}: each needs its own")


def program_version() -> str:
    """The installed distribution's version, from the package metadata (``"unknown"`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version  # slow to import: only when asked

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


def not_ignored(signals: Iterable[_Signal]) -> list[_Signal]:
    """The *signals* the program was not started ignoring, in their order: ``nohup`` starts it ignoring
    SIGHUP, a shell's script its background jobs ignoring SIGINT, and a program that handled them anyway
    stopped when its terminal closed (or at a Ctrl-C meant for another). Python keeps an ignored SIGINT so."""
    return [sig for sig in signals if signal.getsignal(sig) is not signal.SIG_IGN]


@contextmanager
def _handled(signals: Collection[int], handler: Callable[[int, object], None]) -> Iterator[None]:
    """Within the block *handler* handles *signals*; after it each has its handler of before. Outside the main
    thread (which alone may set handlers) it does nothing."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)


@contextmanager
def exit_on_signals(signals: Sequence[int] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block, the first of the given signals raises ``SystemExit(128 + signal)`` (Ctrl-C, as ever,
    ``KeyboardInterrupt``) so that ``finally`` clauses run (windows close, the terminal is restored, the game
    is saved); the signals that follow it within the block, Ctrl-C included, are ignored, so that they cannot
    cut that work short. Outside the main thread it does nothing."""
    fired = False

    def leave(signum: int, frame: object) -> None:
        nonlocal fired
        if fired:
            return
        fired = True
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    with _handled(not_ignored({*signals, signal.SIGINT}), leave):
        yield


@contextmanager
def signals_ignored(
        signals: Sequence[int] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block the given signals are ignored, so that a second Ctrl-C or SIGTERM cannot cut short
    what the first one started (files being put back); one that came just before the block is ignored too.
    Outside the main thread it does nothing."""

    def ignore(signum: int, frame: object) -> None:
        return None

    with _handled(signals, ignore):
        yield


WRITE_FAILURES = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
"""What a write can fail with that is no fault of the program (``arena replay FILE > /dev/full``): one line
naming the file (none for the output) and status 1, not a traceback."""


def _quiet_stdout() -> None:
    """The reader of stdout has gone: send the rest, including the interpreter's last flush, nowhere."""
    with suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_main(prog: str, body: Callable[[], int]) -> int:
    """Run ``body`` and turn its outcome into the exit status of the table above.

    ``UsageError`` prints ``PROG: message`` on stderr (status 2); Ctrl-C gives 130; ``SystemExit`` keeps its
    code (argparse's ``--help`` and the signal handlers of :func:`exit_on_signals`); a closed stdout gives 141
    with nothing printed; a full disk (:data:`WRITE_FAILURES`) one line and status 1.
    """
    try:
        status = body()
        sys.stdout.flush()
    except UsageError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except SystemExit as exit_:
        code = exit_.code
        if code is None:
            return EXIT_OK
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_PIPE
    except OSError as error:
        if error.errno not in WRITE_FAILURES:
            raise
        _quiet_stdout()
        print(f"{prog}: {error.filename or 'cannot write the output'}: {error.strerror}", file=sys.stderr)
        return EXIT_FAULT
    return status
