"""Tournaments: many games per map between bots run as processes, ranked by spec/arena.md §2.8.

``arena tournament BOT... --maps M1,M2 --games N --players K [--jobs J | --cluster tcp://HOST:PORT] [--seed S]
[--out DIR] [--ratings FILE] [--bot-memory MB --bot-cpu S --bot-files N --bot-fsize MB --bot-procs N]``

- A BOT is an example bot's name (:data:`arena.STRATEGIES`) or a shell command in which ``{host}`` and
  ``{port}`` are replaced. Each game starts its bots at once, each in its own working folder and process
  group, with stdout and stderr kept in that folder, and each with the port of its own seat
  (:attr:`Settings.seat_ports`), so that seats and start cells follow the game seed whoever connects first;
  when the game ends the group is stopped (SIGTERM, then SIGKILL). Each runs within its
  :class:`arena.limits.BotLimits` (:class:`arena.limits.Guard`); one stopped by a limit is recorded as
  :data:`OVER_LIMIT` with the limit's name. An example bot runs ``arena bot`` in a
  process forked from a fork server of its game process that has the bots' modules imported
  (:func:`_fork_example_bot`): it skips the interpreter's start, most of what it costs in a game.
- :func:`schedule` picks N games per map: which bots play a game rotates so that every pair meets equally
  often as far as N allows; seats, maps and game seeds all follow ``--seed``.
- Up to J games run at once, each an :class:`arena.server.ArenaServer` on its own free ports of 127.0.0.1,
  in one of J game processes (:class:`GameRunner`) that each play one game at a time: the servers of games
  played at once run on separate cores. The tournament's own process only hands out the games and keeps the
  results. With ``--cluster`` the games go to a Dask scheduler instead, each played by a game process of the
  worker that takes it (:mod:`arena.cluster`).
- A bot that never joins (crashed at start, wrong port, no ``ID_OKAY``) gets an idle body on its seat
  (:meth:`ArenaServer.add_absent`); one that crashes, leaves or hangs later stays as an idle body too; each
  is recorded with its status and the tournament goes on.
- :func:`standings`: mean points per map, summed over maps (§2.8), with games, wins (rank 1, shared places
  counting), catches, times caught, mean rank and the rating (:mod:`arena.ratings`, from ``--ratings``).
  Written as ``standings.csv`` and ``standings.json``
  (settings, standings, every game with every seat) under the output folder, after every game.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import ctypes
import errno
import heapq
import io
import itertools
import json
import logging
import math
import multiprocessing
import multiprocessing.forkserver
import os
import random
import re
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from fractions import Fraction
from multiprocessing import resource_tracker
from multiprocessing.sharedctypes import RawArray
from pathlib import Path
from types import FrameType

from arena import FORK_SERVER_SPARED, STOP_SIGNALS, STRATEGIES, look, ratings, replay
from arena.limits import BotLimits, Guard, release
from arena.ratings import Rating
from arena.rules import CAUGHT, Arena, RoundResult, format_points
from arena.server import ArenaServer, Diagnostics, ServerError, Settings, TableRow, copy_name, run_dir
from common.cli import not_ignored
from common.save import FileFormatError, write_atomic
from common.term import ljust, rjust, text_width

log = logging.getLogger("arena.tournament")

HOST = "127.0.0.1"
COMBINATION_LIMIT = 3000
"""Up to this many possible line-ups a game's bots are chosen from all of them, beyond it one by one."""
SCHEDULE_TRIES = 16
"""Greedy scheduling passes (different tie-breaks) of which the most even is kept."""
SHELL_OPERATORS = ("<<-", "&&", "||", ";;", "<<", ">>", "<&", ">&", "<>", ">|", ";", "&", "|", "(", ")", "<",
                   ">", "\n")
"""The shell's operators, longest first (:func:`shell_tokens`); a newline ends a command as ``;`` does."""
SHELL_CONTROL = frozenset({"&&", "||", ";;", ";", "&", "|", "(", ")", "\n"})
"""The operators that end a command; the others are redirections."""
SHELL_RESERVED = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "while", "until", "do",
                            "done"})
"""Reserved words: the word after one in a command's place is a command's name too (``if cd bots; then``)."""
SHELL_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
"""How a ``NAME=VALUE`` word starts: an assignment in front of a command, or one of ``env``'s."""
SHELL_POSITIONAL = re.compile(r"\$(?:[0-9@*]|\{[0-9@*]\})")
"""A positional parameter (``$1``, ``"$@"``): where ``sh -c 'CMD "$1"' sh {port}`` puts the port."""
SHELLS = re.compile(r"(?:ba|da|z|k|mk|a)?sh")
"""Shells, whose ``-c`` runs the command string after their options."""
SHELL_OPTION_VALUES = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
"""Options of a shell that take a value (the word after them)."""
ENV_OPTION_VALUES = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
"""Options of ``env`` that take a value (the word after them)."""
TIMEOUT_OPTION_VALUES = frozenset({"-s", "--signal", "-k", "--kill-after"})
"""Options of ``timeout`` that take a value (the word after them); its duration follows its options."""
NICE_OPTION_VALUES = frozenset({"-n", "--adjustment"})
"""Options of ``nice`` that take a value (the word after them)."""
SHELL_SAFE = re.compile(r"[\w@%+=:,./-]+", re.ASCII)
"""Words the shell reads the same bare or quoted (``shlex.quote``'s safe characters; :func:`bot_identity`)."""
PLACEHOLDER = re.compile(r"\{(?:port|host)\}")
"""The placeholders of a bot's command; any other brace is part of its word (``"bots{v2}/b.py"``)."""
LABEL_CHARS = 32
"""Longest label of a bot given as a command."""
JOIN_POLL_S = 0.02
"""How often the seating checks which bots have joined."""
STOP_POLL_S = 0.05
"""How often a game process checks whether the tournament is stopping."""
PARENT_POLL_S = 0.2
"""How often a game process checks that its tournament is still there."""
STOP_REASON_BYTES = 64
"""Room for the reason in the stop flag the game processes share with the tournament."""
STOP_GRACE_S = 1.0
"""Time a bot has to exit after ``DISCONNECT`` (and again after SIGTERM) before its group is killed."""
GROUP_POLL_S = 0.02
"""How often a bot's process group is checked for processes left while it has time to end after SIGTERM."""

BOT_GUARDS = ".bot-guards"
"""In a game's folder while it is played: the cgroup (``cgroup PATH``) or user (``user UID``) of each bot
that has one (:class:`arena.limits.Guard`), so that the tournament can kill them and give them back if the
game process is killed (:func:`clean_up_killed_game`)."""
BOT_GROUPS = ".bot-groups"
"""In a game's folder while it is played: the process group ids of its bots, one a line, so that the
tournament can stop them if the game process is killed (:func:`clean_up_killed_game`)."""
MAP_COPY = ".map-copy"
"""In a game's folder while it is played: the path of the map copy its server handed the bots, so that the
tournament can remove it if the game process is killed (:func:`clean_up_killed_game`)."""
GAME_PROCESS_DIED = "a game process died"
"""Why a tournament stops when one of its game processes ends abruptly."""
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""The errors of a write to a full disk (or past a file-size limit): the results cannot be kept, so the
tournament stops (:meth:`Tournament.stop`, reason ``the results cannot be written: ...``)."""
OK, NEVER_JOINED, CRASHED, LEFT, HUNG = "ok", "never connected", "crashed", "left", "hung"
OVER_LIMIT = "over a limit"
"""A bot stopped by one of its limits (:class:`arena.limits.BotLimits`; the seat's ``limit`` names it)."""
STATUSES = (OK, NEVER_JOINED, CRASHED, LEFT, HUNG, OVER_LIMIT)
SAFE_PATH = "PYTHONSAFEPATH"
"""The environment variable that starts Python with a safe path (``python -P``; :func:`_safe_path`)."""
POLICE_S = 0.25
"""How often a game checks whether a bot has reached its processes' cap (:meth:`arena.limits.Guard.over`)."""


HUNG_ROUNDS = 5
"""A bot still connected at the end is hung when it has had no MOVE for this many rounds (or for the whole
of a shorter game); one slow last decision is not a hang."""


def seat_status(diagnostics: Diagnostics | None, rounds: int) -> str:
    """How a seat's bot took part in a game of *rounds* rounds, from its server diagnostics: one of
    :data:`STATUSES` but CRASHED (which needs the process's exit status)."""
    if diagnostics is None or not diagnostics.joined:
        return NEVER_JOINED
    if diagnostics.left_round is not None:
        return LEFT
    since = diagnostics.silent_since
    if since is not None and rounds - since + 1 >= min(HUNG_ROUNDS, rounds):
        return HUNG
    return OK


class TournamentError(Exception):
    """A user's mistake in the tournament's arguments (one line)."""


# --- bots ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bot:
    """One entrant. ``name``: unique label in the standings; ``spec``: what the user gave; ``strategy``:
    the example bot's strategy, or None for a shell command."""

    name: str
    spec: str
    strategy: str | None

    @property
    def identity(self) -> str:
        """The bot as a ratings file records it (``Rating.bot``, :func:`bot_identity`): the example bot's
        name, or the command as the shell reads it."""
        return bot_identity(self.spec)

    def argv(self, port: int, seed: int) -> list[str]:
        """The command that starts this bot for a server on 127.0.0.1:*port*."""
        if self.strategy is not None:
            return [sys.executable, "-m", "arena", "bot", "--strategy", self.strategy, "--seed", str(seed),
                    HOST, str(port)]
        return ["/bin/sh", "-c", self.spec.replace("{host}", HOST).replace("{port}", str(port))]


@dataclass(frozen=True)
class ShellToken:
    """A word or an operator of a shell command (:func:`shell_tokens`): ``text`` as written, from ``start``
    to ``end``. For a word, ``value`` is the word as the shell passes it on when it expands nothing (quotes
    and escapes removed, a backslash-newline gone: ``my\\ bots`` and ``"my bots"`` are ``my bots``) and
    ``plain`` says that the shell does expand nothing in it (no variable, command substitution, glob or
    ``~``); an operator's ``value`` is None."""

    text: str
    start: int
    end: int
    value: str | None = None
    plain: bool = True


def shell_tokens(command: str) -> list[ShellToken]:
    """The words and operators (:data:`SHELL_OPERATORS`) of *command* as ``/bin/sh`` splits it, in order; a
    backslash-newline is a line continuation (nothing), ``#`` a word like any other. An unclosed quote runs to
    the end (:func:`absolute_paths` refuses such a command)."""
    tokens: list[ShellToken] = []
    i, n = 0, len(command)
    while i < n:
        if command.startswith("\\\n", i) or command[i] in " \t":
            i += 2 if command[i] == "\\" else 1
            continue
        op = next((o for o in SHELL_OPERATORS if command.startswith(o, i)), None)
        if op is not None:
            tokens.append(ShellToken(op, i, i + len(op)))
            i += len(op)
            continue
        start, value, plain = i, [], True
        while i < n and command[i] not in " \t\n;&|()<>":
            c = command[i]
            if c == "\\":  # the next character as it is; a newline: nothing; none: the backslash
                escaped = command[i + 1:i + 2]
                value.append("" if escaped == "\n" else escaped or c)
                i += 2
            elif c == "'":
                end = command.find("'", i + 1) % (n + 1)
                value.append(command[i + 1:end])
                i = end + 1
            elif c == '"':
                i += 1
                while i < n and command[i] != '"':
                    if command[i] == "\\" and command[i + 1:i + 2] in ("$", "`", '"', "\\", "\n"):
                        value.append(command[i + 1].replace("\n", ""))
                        i += 2
                        continue
                    plain = plain and command[i] not in "$`"
                    value.append(command[i])
                    i += 1
                i += 1
            else:
                plain = plain and c not in "$`*?[" and not (c == "~" and i == start)
                value.append(c)
                i += 1
        i = min(i, n)
        tokens.append(ShellToken(command[start:i], start, i, "".join(value), plain))
    return tokens


def _redirected(tokens: Sequence[ShellToken], i: int) -> bool:
    """Whether word *i* of *tokens* is a redirection's target (``> log.txt``) or its file descriptor (the
    ``2`` of ``2>&1``)."""
    before = tokens[i - 1] if i else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if before is not None and before.value is None and before.text not in SHELL_CONTROL:
        return True
    value = tokens[i].value or ""
    return (value.isdigit() and after is not None and after.value is None and after.text not in SHELL_CONTROL
            and after.start == tokens[i].end)


def _word_role(tokens: Sequence[ShellToken], i: int, words: Sequence[ShellToken]) -> str:
    """What word *i* of *tokens* is to its command, whose words so far are *words*: ``redirection`` (a
    redirection's target or file descriptor, :func:`_redirected`), ``prefix`` (before the command's name: a
    reserved word or a ``NAME=VALUE`` assignment), ``name`` or ``argument``."""
    if _redirected(tokens, i):
        return "redirection"
    if words:
        return "argument"
    value = tokens[i].value
    return "prefix" if value in SHELL_RESERVED or SHELL_ASSIGNMENT.match(tokens[i].text) else "name"


def _comments(command: str) -> list[tuple[int, int]]:
    """Where the comments of *command* are, as ``/bin/sh`` reads it: (start, end) of each, from a ``#`` that
    starts a word to the end of its line (the newline left out). A ``#`` inside a word, quoted or escaped
    (``a#b``, ``'#'``, ``\\#``) is the word's, and quotes in a comment are the comment's (``# it's v2``):
    after a comment the command goes on from the newline that ends it."""
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        comment = next((t for t in shell_tokens(command[start:])
                        if t.value is not None and t.text.startswith("#")), None)
        if comment is None:
            return spans
        end = command.find("\n", start + comment.start)
        spans.append((start + comment.start, end if end >= 0 else len(command)))
        if end < 0:
            return spans
        start = end


def _uncommented(command: str) -> str:
    """*command* without its comments (:func:`_comments`): ``python3 b.py {port} # v2`` is ``python3 b.py
    {port} ``."""
    pieces: list[str] = []
    written = 0
    for start, end in _comments(command):
        pieces.append(command[written:start])
        written = end
    return "".join(pieces) + command[written:]


def _uncommented_tokens(command: str) -> list[ShellToken]:
    """The words and operators of *command* (:func:`shell_tokens`) without its comments (:func:`_comments`),
    each where it is in *command*: what the shell runs (``python3 b.py {port} # Ann's v2`` is ``python3``,
    ``b.py`` and ``{port}``)."""
    tokens: list[ShellToken] = []
    start = 0
    for begin, end in [*_comments(command), (len(command), len(command))]:
        tokens += [replace(t, start=t.start + start, end=t.end + start)
                   for t in shell_tokens(command[start:begin])]
        start = end
    return tokens


def bot_identity(spec: str) -> str:
    """Which bot *spec* (an example bot's name, or a command) is, as a ratings file records the bot a rating
    was earned by (``Rating.bot``) and matches it: an example bot's name as it is, a command as the shell
    reads it (:func:`_command_identity`), so that the way it is written (spaces, a comment, quotes that
    change nothing) does not make another bot. ``python3  /b/bot.py {port} # v2``, ``python3
    '/b/bot.py' {port}`` and ``python3 /b/bot.py "{port}"`` are ``python3 /b/bot.py {port}``."""
    return spec if spec in STRATEGIES else _command_identity(spec)


def _command_identity(command: str) -> str:
    """*command* as the shell reads it (:func:`bot_identity`): its words and operators
    (:func:`_uncommented_tokens`: without its comments) one space apart, a word as written
    when nothing in it is quoted or escaped or when the shell expands something in it (``$HOME/b.py``),
    else its value, bare when the shell reads it the same bare (``'b.py'`` is ``b.py``), else quoted
    (``shlex.quote``); a file descriptor stays glued to its redirection (``2>&1``). A newline is ``;``,
    and a ``;`` that ends nothing (first, last, after another operator but ``)``) is left out."""
    items: list[tuple[str, bool]] = []
    """The text of each token kept, and whether it is an operator."""
    previous: ShellToken | None = None
    for token in _uncommented_tokens(command):
        if token.value is None:
            text = ";" if token.text == "\n" else token.text
            if text == ";" and (not items or (items[-1][1] and items[-1][0] != ")")):
                continue
            glued = (text not in SHELL_CONTROL and previous is not None and previous.end == token.start
                     and (previous.value or "").isdigit())
            if glued and items:
                items[-1] = (items[-1][0] + text, True)
            else:
                items.append((text, True))
        else:
            items.append((_identity_word(token), False))
        previous = token
    while items and items[-1] == (";", True):
        items.pop()
    return " ".join(text for text, _ in items)


def _identity_word(token: ShellToken) -> str:
    """A word of a command as :func:`_command_identity` writes it. A placeholder (``{port}``, ``{host}``)
    becomes a number or an address wherever it is written, so it counts as safe characters: ``'{port}'``
    and ``"{port}"`` are ``{port}``; one the shell only makes of an escape (``\\{port\\}``) is no
    placeholder and stays quoted."""
    value = token.value or ""
    if not token.plain or token.text == value:
        return token.text
    replaced = len(PLACEHOLDER.findall(token.text)) == len(PLACEHOLDER.findall(value))
    if not SHELL_SAFE.fullmatch(PLACEHOLDER.sub("0", value) if replaced else value):
        return shlex.quote(value)
    # quoted, a reserved word or an assignment is a plain word: a command's name, not an "if" or a variable
    return f"'{value}'" if value in SHELL_RESERVED or SHELL_ASSIGNMENT.match(value) else value


def absolute_paths(command: str, base: Path) -> str:
    """*command* with every word that names an existing file or folder relative to *base* made absolute (a
    bot runs in its own working folder: ``java -jar bots/a.jar {port}``, ``python3 b.py {port}`` and
    ``cd bots && ./b {port}`` must still find ``bots/a.jar``, ``b.py`` and ``bots``). A word without a ``/``
    counts only as a file, or as the folder of a ``cd`` (``python3 -m arena`` keeps its module name), and
    not as a command's name (looked up in ``PATH``) or after a redirection (``> log.txt`` stays in the
    bot's folder). A word is taken as the shell takes it (``my\\ bots``, ``"my bots"`` and ``'my bots'`` are
    one folder) and made absolute quoted; one the shell expands (a variable, a glob, ``~``) is left as
    written, as are operators, redirections and whatever follows a ``cd``, which the shell finds in the
    folder it changed to (``cd "my bots" && python3 aimless.py {port}`` runs ``my bots/aimless.py`` whatever
    lies beside ``my bots``), up to the end of the subshell the ``cd`` is in (``(cd bots && make); python3
    b.py {port}``). The command string of a shell's ``-c`` (``sh -c 'python3 bots/b.py {port}'``) is
    rewritten so, and quoted back. Only ``{port}`` and ``{host}`` are placeholders, never paths; any other
    brace is part of a word (``"bots{v2}/b.py"``). A comment is left as written, and so are its quotes
    (``# Ann's v2``: :func:`_uncommented_tokens`). Raises TournamentError for unbalanced quotes outside
    comments."""
    try:
        shlex.split(_uncommented(command))
    except ValueError as exc:
        raise TournamentError(f"bot {command!r}: {exc}") from None
    tokens = _uncommented_tokens(command)
    pieces: list[str] = []
    written = 0
    """How much of *command* is in *pieces*."""
    here = True
    """Whether the shell is still in the folder it started in: no ``cd`` so far (but in a subshell ended)."""
    outer: list[bool] = []
    """``here`` as each subshell open began."""
    said: list[ShellToken] = []
    """The words of the command so far, the name first (:func:`_word_role`): where a shell given ``-c`` has
    its command string (:func:`_shell_command`)."""
    for i, token in enumerate(tokens):
        if token.value is None:
            if token.text in SHELL_CONTROL:
                here = here and not (said and said[0].value == "cd")
                if token.text == "(":
                    outer.append(here)
                elif token.text == ")":
                    here = outer.pop() if outer else False
                said = []
            continue
        role = _word_role(tokens, i, said)
        if role in ("name", "argument"):
            said.append(token)
        path = token.value
        if not here or not token.plain or not path:
            continue
        if role == "argument" and _shell_command(said) is token:  # sh -c 'python3 bots/b.py {port}'
            try:
                inner = absolute_paths(path, base)
            except TournamentError:  # unbalanced quotes: the shell's to refuse
                continue
            if inner != path:
                pieces += [command[written:token.start], shlex.quote(inner)]
                written = token.end
            continue
        if path.startswith("/") or PLACEHOLDER.search(path):
            continue
        try:
            if not (base / path).exists():
                continue
            if "/" not in path and (role != "argument" or not (
                    (base / path).is_file() or (len(said) == 2 and said[0].value == "cd"))):
                continue
            absolute = shlex.quote(os.path.abspath(base / path))  # a link stays one: .venv/bin/python
        except OSError:  # a word too long to be a file's name is left to the shell
            continue
        pieces += [command[written:token.start], absolute]
        written = token.end
    return "".join(pieces) + command[written:]


INTERPRETERS: tuple[tuple[re.Pattern[str], frozenset[str], frozenset[str]], ...] = (
    (re.compile(r"java"),
     frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules", "--add-opens",
                "--add-exports", "--add-reads", "--limit-modules"}),
     frozenset({"-jar", "-m", "--module"})),
    (re.compile(r"(?:python|pypy)[0-9.]*"), frozenset({"-W", "-X"}), frozenset({"-m"})),
    (re.compile(r"node|nodejs|ruby|perl|php|lua[0-9.]*|Rscript|mono|dotnet|sh|bash|dash|zsh"),
     frozenset({"-r", "--require", "-I", "-o"}), frozenset()),
)
"""Programs that run a bot's main class or script: (name, options that take a value, options whose value is
the main class, module or archive)."""


def command_label(spec: str) -> str:
    """The label in the standings of a bot given as a command: its words (as the shell splits them: a quoted
    or backslash-escaped path with spaces is one word, a backslash-newline nothing) without those holding
    the placeholders ``{port}`` and ``{host}`` (other braces are part of a word: ``${HOME}/b.py``),
    positional parameters (``"$1"``), redirections (``> log.txt``) and comments (``# v2``: the command with
    a comment is labelled as without it, and gets ``#2`` as a second bot of that label does), paths cut to
    their last part, a word that still holds a space quoted (``'my bot.py'``) and no control character (a
    tab or a newline in a word is a space, any other a ``?``), a ``;`` or newline first or last left out.
    Left out, so that the command run labels it: a ``cd
    DIR &&`` (or ``cd DIR;``) it starts with (``cd "my bots" && python3 b.py {port}`` is ``python3 b.py``),
    the parentheses of a subshell it starts with, an ``exec``, ``NAME=VALUE`` assignments and ``env`` with
    its options and assignments (``env -i PATH=/usr/bin python3 b.py {port}`` is ``python3 b.py``),
    ``timeout`` with its options and duration and ``nice`` with its options (``timeout 5 python3 b.py
    {port}`` is ``python3 b.py``); a shell
    given a command with ``-c`` is labelled by that command (``sh -c 'python3 "my bots/b.py" "$1"' sh
    {port}`` is ``python3 b.py``). For an interpreter (java, python, node, ...) its options are left out, so
    the main class or script always shows (``java -cp classes de.binfalse.mar.Main {port}`` is ``java
    de.binfalse.mar.Main``). Words after those two are kept while the label is at most :data:`LABEL_CHARS`
    characters, less the options it would then end with that may take the next word as their value
    (``--name``, ``-x``: :func:`_takes_a_value`; ``python3 -m arena bot --strategy random {port}`` is
    ``python3 arena bot``); the two are cut only beyond twice that, the second left out when it is such an
    option and the word after it is cut."""
    return _label(_uncommented_tokens(spec)) or "bot"


def _label(tokens: list[ShellToken]) -> str:
    """The label of the command of *tokens* (:func:`command_label`); empty when no word is left."""
    tokens = [t for i, t in enumerate(tokens)  # no redirections
              if (t.text in SHELL_CONTROL if t.value is None else not _redirected(tokens, i))]
    significant = [i for i, t in enumerate(tokens) if t.value is not None or t.text not in (";", "\n")]
    tokens = tokens[significant[0]:significant[-1] + 1] if significant else []  # a ";" or newline at an end
    while tokens:
        if tokens[0].value is None and tokens[0].text == "(":  # a subshell first: its command
            depth = itertools.accumulate({"(": 1, ")": -1}.get(t.text, 0) if t.value is None else 0
                                         for t in tokens)
            end = next((i for i, d in enumerate(depth) if d == 0), len(tokens))
            tokens = tokens[1:end] + tokens[end + 1:]
            continue
        end = next((i for i, t in enumerate(tokens) if t.value is None), len(tokens))
        if tokens[0].value != "cd" or end + 1 >= len(tokens) or tokens[end].text not in ("&&", ";", "\n"):
            break
        tokens = tokens[end + 1:]
    tokens = _program(tokens)
    script = _shell_command(tokens)
    if script is not None and (inner := _label(_uncommented_tokens(script.value or ""))):
        return inner
    items: list[str] = []
    glued, end = False, -1
    for token in tokens:
        if token.value is None:
            text = ";" if token.text == "\n" else token.text
        elif PLACEHOLDER.search(token.value) or SHELL_POSITIONAL.fullmatch(token.value):
            continue
        else:
            word = Path(token.value).name or token.value if "/" in token.value else token.value
            word = "".join(c if c.isprintable() else " " if c.isspace() else "?" for c in word)
            text = shlex.quote(word) if not word or " " in word else word
        if items and (glued or token.start == end or text in (";", ";;", ")")):
            items[-1] += text
        else:
            items.append(text)
        glued, end = text == "(", token.end if token.text != "\n" else -1
    if not items:
        return ""
    program, rest = items[0], items[1:]
    for name, takes_value, names_main in INTERPRETERS:
        if name.fullmatch(program):
            kept, skip = [], False
            for i, word in enumerate(rest):
                if skip:
                    skip = False
                elif word in names_main:
                    kept = rest[i + 1:]
                    break
                elif word in takes_value:
                    skip = True
                elif not word.startswith("-"):
                    kept = rest[i:]
                    break
            rest = kept
            break
    label = " ".join([program, *rest[:1]])[:2 * LABEL_CHARS]
    more: list[str] = []
    for word in rest[1:]:
        if len(" ".join([label, *more, word])) > LABEL_CHARS:
            while more and _takes_a_value(more[-1]):  # its value may be the word cut off
                more.pop()
            if not more and _takes_a_value(rest[0]):
                label = program[:2 * LABEL_CHARS]
            break
        more.append(word)
    return " ".join([label, *more])


def _takes_a_value(word: str) -> bool:
    """Whether a command's *word* is an option that may take the next word as its value: ``--name`` or
    ``-x``, not ``--name=value``, ``-O3`` or a number."""
    return re.fullmatch(r"--[^=]+|-[A-Za-z]", word) is not None


def _program(tokens: list[ShellToken]) -> list[ShellToken]:
    """*tokens* from the program their command runs: past an ``exec``, ``NAME=VALUE`` assignments, ``env``
    with its options and assignments, ``timeout`` with its options and duration and ``nice`` with its
    options (``timeout -s KILL 5 nice -n 5 python3 b.py`` runs ``python3 b.py``)."""
    while len(tokens) > 1 and (first := tokens[0].value) is not None:
        name = Path(first).name
        if first == "exec" or SHELL_ASSIGNMENT.match(tokens[0].text):
            rest = tokens[1:]
        elif name == "env":
            rest = _after_options(tokens[1:], ENV_OPTION_VALUES, assignments=True)
        elif name == "timeout":
            rest = _after_options(tokens[1:], TIMEOUT_OPTION_VALUES)[1:]
        elif name == "nice":
            rest = _after_options(tokens[1:], NICE_OPTION_VALUES)
        else:
            break
        if not rest or rest[0].value is None:  # nothing run: the prefix is the program (``timeout 5``)
            break
        tokens = rest
    return tokens


def _shell_command(tokens: list[ShellToken]) -> ShellToken | None:
    """The word of *tokens* (a command's words) that a shell they run takes as its command string (``-c``),
    or None."""
    tokens = _program(tokens)
    if not tokens or tokens[0].value is None or not SHELLS.fullmatch(Path(tokens[0].value).name):
        return None
    options = _after_options(tokens[1:], SHELL_OPTION_VALUES)
    given = [t.value or "" for t in tokens[1:len(tokens) - len(options)]]
    if any(o.startswith("-") and not o.startswith("--") and "c" in o for o in given) and options \
            and options[0].value is not None:
        return options[0]
    return None


def _after_options(tokens: list[ShellToken], take_values: frozenset[str],
                   assignments: bool = False) -> list[ShellToken]:
    """*tokens* from the first word after a program's options (``-x``, ``+o``, ``--long``; those of
    *take_values* with the word after them; and ``NAME=VALUE`` words too when *assignments*, as ``env``
    takes them), past a ``--`` that ends them."""
    i = 0
    while i < len(tokens) and (word := tokens[i].value) is not None:
        if word == "--":
            return tokens[i + 1:]
        if word in take_values:
            i += 2
        elif (len(word) > 1 and word[0] in "-+") or (assignments and SHELL_ASSIGNMENT.match(word)):
            i += 1
        else:
            break
    return tokens[i:]


def _uses_port(command: str) -> bool:
    """Whether *command* holds ``{port}`` where the shell reads it: outside its comments
    (:func:`_comments`), and in the command string of a shell's ``-c`` outside that command's own comments
    (``sh -c 'python3 b.py {port}'`` does, ``python3 b.py 15000 # {port}`` and ``sh -c 'sleep 9 # {port}'``
    do not: the bot would dial a fixed port)."""
    tokens = _uncommented_tokens(command)
    words: list[ShellToken] = []
    """The words of the command so far (:func:`_word_role`), for :func:`_shell_command`."""
    for i, token in enumerate(tokens):
        if token.value is None:
            if token.text in SHELL_CONTROL:
                words = []
            continue
        if _word_role(tokens, i, words) in ("name", "argument"):
            words.append(token)
        if "{port}" in token.text and (_shell_command(words) is not token or _uses_port(token.value)):
            return True
    return False


def _refuse_bad_syntax(command: str) -> None:
    """Raise TournamentError (one line, in ``/bin/sh``'s words) when ``/bin/sh``, which runs a bot given as a
    command (:meth:`Bot.argv`), cannot read *command* (``python3 b.py {port} &&``: ``Syntax error: end of
    file unexpected``); the bot would never connect. ``sh -n`` reads the command without running any of
    it."""
    try:
        checked = subprocess.run(["/bin/sh", "-n", "-c", command], capture_output=True, text=True, timeout=30,
                                 stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):   # no shell to ask: the bot's own start will say
        return
    if checked.returncode != 0:
        said = checked.stderr.strip().splitlines()
        why = said[-1].split(": ", 2)[-1] if said else f"exit status {checked.returncode}"
        raise TournamentError(f"bot {command!r}: /bin/sh cannot read it: {why}")


def parse_bots(specs: Sequence[str], base: Path | None = None,
               recorded: Mapping[str, str] | None = None) -> list[Bot]:
    """Bots from the command line: an example bot's name or a command containing ``{port}`` outside a comment
    (:func:`_uses_port`; relative paths in it resolved against *base*, default the current folder:
    :func:`absolute_paths`). Repeated names get ``#2``, ``#3``, and so does a command labelled with an
    example bot's name (``bots/hunt {port}`` is ``hunt#2``: ``hunt`` is the example's, in the standings and
    in a ratings file); a command is labelled by its words without the placeholders, paths shortened to
    their last part (``java -jar a.jar``; :func:`command_label`). *recorded* (bot -> name, from a ratings
    file) keeps a bot its name of earlier tournaments whatever the order and line-up of this one, and no
    other bot takes that name; a command is that bot when the shell reads the two alike
    (:func:`bot_identity`: ``python3  b.py {port} # v2`` is the bot recorded as ``python3 b.py {port}``).
    Raises TournamentError."""
    parsed: list[tuple[str, str, str | None]] = []   # label, spec, strategy
    for spec in specs:
        if spec in STRATEGIES:
            parsed.append((spec, spec, spec))
        elif _uses_port(spec):
            command = absolute_paths(spec, base or Path.cwd())   # unbalanced quotes refused first
            _refuse_bad_syntax(spec)
            parsed.append((command_label(spec), command, None))
        else:
            commented = " outside a comment (the shell skips a comment)" if "{port}" in spec else ""
            raise TournamentError(f"bot {spec!r}: expected an example bot ({', '.join(STRATEGIES)}) "
                                  f"or a command containing {{port}}{commented}")
    recorded = {bot_identity(bot): name for bot, name in (recorded or {}).items()}
    kept = {spec: recorded[bot_identity(spec)] for _, spec, strategy in parsed
            if strategy is None and bot_identity(spec) in recorded}
    reserved = set(recorded.values())   # names other bots earned their ratings under
    out: list[Bot] = []
    taken: set[str] = set()
    for label, spec, strategy in parsed:
        name = kept.get(spec)
        if name is None or name in taken:
            name, n = label, 1
            # an example bot's name is its own; a name recorded for another bot is that bot's
            while name in taken or (strategy is None and (name in STRATEGIES or name in reserved)):
                n += 1
                name = f"{label}#{n}"
        taken.add(name)
        out.append(Bot(name, spec, strategy))
    return out


# --- schedule -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scheduled:
    """One game of the schedule: its number (1-based), map name, seed and the bots' indices in seat
    order (seat k gets wire id k when every bot joins)."""

    number: int
    map: str
    seed: int
    seats: tuple[int, ...]


def _pairs(lineup: Sequence[int]) -> list[tuple[int, int]]:
    return list(itertools.combinations(sorted(lineup), 2))


def _lineups(n_bots: int, maps: Sequence[str], games: int, players: int,
             rng: random.Random) -> list[tuple[str, list[int]]]:
    """One greedy pass of :func:`schedule`: (map, line-up) per game, ties drawn with *rng*."""
    lineups = (list(itertools.combinations(range(n_bots), players))
               if math.comb(n_bots, players) <= COMBINATION_LIMIT else None)
    pair_map = {m: dict.fromkeys(_pairs(range(n_bots)), 0) for m in maps}
    seen_map = {m: [0] * n_bots for m in maps}
    pair_all = dict.fromkeys(_pairs(range(n_bots)), 0)
    seen_all = [0] * n_bots
    out: list[tuple[str, list[int]]] = []
    for _ in range(games):
        for name in maps:
            pm, sm = pair_map[name], seen_map[name]

            def cost(lineup: Sequence[int], pm: dict[tuple[int, int], int] = pm,
                     sm: list[int] = sm) -> tuple[int, ...]:
                pairs = _pairs(lineup)
                return (sum(sm[b] for b in lineup), sum(seen_all[b] for b in lineup),
                        max(pair_all[p] for p in pairs), sum(pair_all[p] for p in pairs),
                        sum(pm[p] for p in pairs))

            if lineups is not None:
                costs = [cost(lineup) for lineup in lineups]
                best = min(costs)
                chosen = list(rng.choice([lu for lu, c in zip(lineups, costs, strict=True) if c == best]))
            else:
                chosen = []
                while len(chosen) < players:
                    rest = [b for b in range(n_bots) if b not in chosen]
                    keyed = [(sm[b], seen_all[b], sum(pair_all[(min(b, c), max(b, c))] for c in chosen))
                             for b in rest]
                    least = min(keyed)
                    chosen.append(rng.choice([b for b, k in zip(rest, keyed, strict=True) if k == least]))
            for p in _pairs(chosen):
                pm[p] += 1
                pair_all[p] += 1
            for b in chosen:
                sm[b] += 1
                seen_all[b] += 1
            out.append((name, chosen))
    return out


def schedule(n_bots: int, maps: Sequence[str], games: int, players: int, seed: int) -> list[Scheduled]:
    """*games* games on each of *maps* (interleaved: game 1 on every map, then game 2, ...) for *players*
    of *n_bots* bots.

    Each game takes the line-up of the bots that have played least on that map, then overall, then whose
    pairs have met least (the most-met pair, then all pairs); ties are drawn at random, and of
    :data:`SCHEDULE_TRIES` such passes the one whose pair meetings are the most even is kept. Seats are
    shuffled and each game gets a seed; everything is drawn from ``random.Random(seed)``, so one ``seed``
    always gives the same schedule. Every bot plays each map equally often (±1), and pairs meet equally often
    as far as the number of games allows. Raises ValueError when *players* is not 2..n_bots.
    """
    if not 2 <= players <= n_bots:
        raise ValueError(f"a game needs 2..{n_bots} players, got {players}")
    rng = random.Random(seed)
    best: tuple[tuple[int, int], list[tuple[str, list[int]]]] | None = None
    for _ in range(SCHEDULE_TRIES):
        plan = _lineups(n_bots, maps, games, players, random.Random(rng.randrange(1 << 31)))
        met = Counter(p for _, lineup in plan for p in _pairs(lineup))
        counts = [met[p] for p in _pairs(range(n_bots))]
        score = (max(counts) - min(counts), sum(c * c for c in counts))
        if best is None or score < best[0]:
            best = (score, plan)
    assert best is not None
    out: list[Scheduled] = []
    for name, chosen in best[1]:
        rng.shuffle(chosen)
        out.append(Scheduled(len(out) + 1, name, rng.randrange(1 << 31), tuple(chosen)))
    return out


# --- results ------------------------------------------------------------------------------------------------

@dataclass
class SeatResult:
    """One bot in one game: seat, wire id, exact points, rank, how it left BLUE, catches, its status
    (:data:`STATUSES`), the exit status of its process (None: stopped by the tournament, with the signal that
    ended it in ``killed``: "SIGTERM", or "SIGKILL" when it outlived SIGTERM) and the server's
    :class:`Diagnostics`."""

    bot: int
    seat: int
    id: int | None
    """The wire id; None for a bot that had not joined when its game was stopped before round 1."""
    points: Fraction = Fraction(0)
    rank: int = 0
    switch_round: int | None = None
    cause: str | None = None
    catches: int = 0
    status: str = OK
    exit: int | None = None
    killed: str | None = None
    diagnostics: Diagnostics | None = None
    limit: str | None = None
    """The limit that stopped the bot (:data:`arena.limits.LIMITS`: "memory", "cpu", "files", "file size",
    "processes"), None when none did."""

    def as_json(self, entrants: Sequence[Bot]) -> dict[str, object]:
        return {"bot": entrants[self.bot].name, "seat": self.seat, "id": self.id,
                "points": f"{self.points.numerator}/{self.points.denominator}",
                "shown": format_points(self.points), "rank": self.rank, "switch_round": self.switch_round,
                "cause": self.cause, "catches": self.catches, "status": self.status, "exit": self.exit,
                "killed": self.killed, "limit": self.limit,
                "diagnostics": self.diagnostics.as_json() if self.diagnostics else None}


@dataclass
class GameRecord:
    """A game played (or cut short: ``stopped``): its schedule entry, folder, rounds and seats;
    ``replay_error`` says why its replay could not be written (a full disk: the game went on without it)."""

    game: Scheduled
    folder: Path
    rounds: int = 0
    seats: list[SeatResult] = field(default_factory=list)
    stopped: str | None = None
    error: str | None = None
    replay_error: str | None = None
    full: str | None = None
    """Why the game's files could not be written when the disk is full (its ``error`` then says which
    file): the tournament stops."""
    seconds: float = 0.0
    """Wall seconds its game process spent on it, bots' start and stop included."""
    worker: str | None = None
    """The address of the Dask worker that played it (``tcp://10.0.0.7:40211``; :mod:`arena.cluster`), None
    when a game process of the tournament's own machine did."""

    @property
    def counts(self) -> bool:
        """Whether the game enters the standings (finished, not stopped, no server error)."""
        return self.stopped is None and self.error is None


def took_part(seat: SeatResult) -> bool:
    """Whether the seat's bot played its game: it had joined and was still there when round 1 began (a bot
    that never connected, or left or crashed during the preparation, did not; its idle body played)."""
    if seat.diagnostics is None:
        return seat.status != NEVER_JOINED
    return seat.diagnostics.joined and seat.diagnostics.left_round != 0


def players(records: Sequence[GameRecord]) -> set[int]:
    """The entrants (by index) that played a game of *records* that counts (:func:`took_part`)."""
    return {s.bot for r in records if r.counts for s in r.seats if took_part(s)}


@dataclass
class Standing:
    """One line of the standings (§2.8): ``points`` = sum over maps of the mean points per game there. A bot
    that played no game (:func:`players`) has no place: ``rank`` and ``rating_rank`` None, no games, points
    or map columns, only its faults."""

    bot: str
    rank: int | None
    points: Fraction
    per_map: dict[str, Fraction]
    games: int
    wins: int
    catches: int
    caught: int
    mean_rank: Fraction | None
    faults: dict[str, int]
    rating: Rating = field(default_factory=Rating)
    """Its rating after the games so far (:mod:`arena.ratings`), from the one ``--ratings`` gave."""
    rating_rank: int | None = None
    """Its place by the rating's conservative estimate (``mu - 3 sigma``) among the bots that played."""

    @property
    def placed(self) -> bool:
        """Whether the bot has a place: it played a game."""
        return self.rank is not None

    def rating_cells(self) -> dict[str, str]:
        """Its rating as the standings' text table and web page show it: ``rating`` the conservative
        estimate, ``spread`` ``mu ± sigma`` (two decimals each), ``rated`` its place by the rating (``-``
        for a bot with no place)."""
        return {"rating": f"{self.rating.conservative:.2f}",
                "spread": f"{self.rating.mu:.2f} ± {self.rating.sigma:.2f}",
                "rated": "-" if self.rating_rank is None else str(self.rating_rank)}

    def as_json(self) -> dict[str, object]:
        placed = self.placed
        return {"rank": self.rank, "bot": self.bot, "points": format_points(self.points) if placed else None,
                "points_exact": f"{self.points.numerator}/{self.points.denominator}" if placed else None,
                "per_map": {m: format_points(v) for m, v in self.per_map.items()}, "games": self.games,
                "wins": self.wins, "catches": self.catches, "caught": self.caught,
                "mean_rank": None if self.mean_rank is None else round(float(self.mean_rank), 2),
                "faults": self.faults,
                "rating": {"mu": round(self.rating.mu, 4), "sigma": round(self.rating.sigma, 4),
                           "conservative": round(self.rating.conservative, 4), "games": self.rating.games},
                "rating_rank": self.rating_rank}


def rated(entrants: Sequence[Bot], records: Sequence[GameRecord],
          prior: Mapping[str, Rating] | None = None) -> dict[str, Rating]:
    """The ratings (:func:`arena.ratings.rate`) of *prior* (``--ratings``) updated by the finished games of
    *records* in game-number order, whatever the order they ended in: every entrant and every bot of
    *prior*. The seats of a bot that played no game (:func:`players`) are left out: it keeps the rating it
    came with, and the others are rated by their places among themselves."""
    played = players(records)
    games = [[(entrants[s.bot].name, s.rank) for s in r.seats if s.bot in played]
             for r in sorted(records, key=lambda r: r.game.number) if r.counts]
    return ratings.rate(games, prior, [b.name for b in entrants])


def rated_here(entrants: Sequence[Bot], records: Sequence[GameRecord],
               prior: Mapping[str, Rating] | None = None) -> dict[str, Rating]:
    """The ratings (:func:`rated`) of the entrants that played a game of *records* that counts
    (:func:`players`): the bots this tournament rated, by name; what it writes into the ratings file
    (:func:`arena.ratings.update`)."""
    now = rated(entrants, records, prior)
    played = players(records)
    return {b.name: now[b.name] for i, b in enumerate(entrants) if i in played}


def standings(entrants: Sequence[Bot], records: Sequence[GameRecord], maps: Sequence[str],
              prior: Mapping[str, Rating] | None = None) -> list[Standing]:
    """The standings of the finished games in *records* (spec §2.8): per bot the mean points per map it
    played, summed over maps; higher first, equal sums share a place, then by name. Each row has the bot's
    rating from *prior* and these games (:func:`rated`) and its place by the rating. A bot that played no
    game (:func:`players`: it never connected, or left before round 1, in every game so far) comes after
    them by name, with no place (:attr:`Standing.placed`), no games and its faults."""
    now = rated(entrants, records, prior)
    played = players(records)
    places = ratings.ranks(now, [b.name for i, b in enumerate(entrants) if i in played])
    rows: list[Standing] = []
    unplaced: list[Standing] = []
    for index, bot in enumerate(entrants):
        seats = [(r.game.map, s) for r in records if r.counts for s in r.seats if s.bot == index]
        faults = {status: n for status in STATUSES[1:]
                  if (n := sum(1 for _, s in seats if s.status == status))}
        if index not in played:
            unplaced.append(Standing(bot.name, None, Fraction(0), {}, 0, 0, 0, 0, None, faults,
                                     now[bot.name]))
            continue
        per_map: dict[str, Fraction] = {}
        for name in maps:
            points = [s.points for m, s in seats if m == name]
            if points:
                per_map[name] = sum(points, Fraction(0)) / len(points)
        rows.append(Standing(
            bot.name, 0, sum(per_map.values(), Fraction(0)), per_map, len(seats),
            sum(1 for _, s in seats if s.rank == 1), sum(s.catches for _, s in seats),
            sum(1 for _, s in seats if s.cause == CAUGHT),
            Fraction(sum(s.rank for _, s in seats), len(seats)) if seats else None, faults,
            now[bot.name], places[bot.name]))
    rows.sort(key=lambda r: (-r.points, r.bot))
    for i, row in enumerate(rows):
        row.rank = rows[i - 1].rank if i and rows[i - 1].points == row.points else i + 1
    return rows + sorted(unplaced, key=lambda r: r.bot)


def format_standings(rows: Sequence[Standing], maps: Sequence[str]) -> str:
    """The standings as a text table: rank, bot, points, one column per map, games, wins, catches, caught,
    mean rank, rating (the conservative estimate), mu ± sigma, the place by rating, faults. A bot with no
    place has ``-`` for its places, points and means."""
    width = max([3, *(text_width(r.bot) for r in rows)])
    map_cols = [max(8, text_width(m)) for m in maps]
    head = (f"{'rank':>4}  {'bot':<{width}} {'points':>8} "
            + "".join(f"{rjust(m, w)} " for m, w in zip(maps, map_cols, strict=True))
            + f"{'games':>5} {'wins':>4} {'catches':>7} {'caught':>6} {'mean rank':>9} {'rating':>7} "
            + f"{'mu ± sigma':>13} {'rated':>5}  faults")
    lines = [head]
    for r in rows:
        cells = "".join(f"{format_points(r.per_map[m]) if m in r.per_map else '-':>{w}} "
                        for m, w in zip(maps, map_cols, strict=True))
        mean = "-" if r.mean_rank is None else f"{float(r.mean_rank):.2f}"
        faults = ", ".join(f"{n} {status}" for status, n in r.faults.items()) or "-"
        rating = r.rating_cells()
        rank, points = (r.rank, format_points(r.points)) if r.placed else ("-", "-")
        lines.append(f"{rank:>4}  {ljust(r.bot, width)} {points:>8} {cells}"
                     f"{r.games:>5} {r.wins:>4} {r.catches:>7} {r.caught:>6} {mean:>9} "
                     f"{rating['rating']:>7} {rating['spread']:>13} {rating['rated']:>5}  {faults}")
    return "\n".join(lines)


# --- running ------------------------------------------------------------------------------------------------

@dataclass
class Config:
    """A tournament: bots, maps (name -> loaded arena), games per map, players per game, parallel games,
    seed, output folder and the server's timings (milliseconds)."""

    bots: list[Bot]
    maps: dict[str, Arena]
    games: int
    players: int
    out: Path
    jobs: int = 1
    seed: int = 0
    prep_ms: int = 2000
    move_ms: int = 1000
    quiet_rounds: int = 30
    connect_ms: int = 10000
    limits: BotLimits = field(default_factory=BotLimits)
    """The bounds of every bot (``--bot-memory`` ...)."""
    ratings: dict[str, Rating] = field(default_factory=dict)
    """The ratings the tournament starts from (``--ratings``), by bot name."""
    ratings_file: Path | None = None
    """Where the ratings, updated, are written after every game (``--ratings``), or None."""
    cluster: str | None = None
    """The Dask scheduler's address (``tcp://HOST:PORT``) that plays the games (:func:`arena.cluster.play`),
    or None: this machine's ``jobs`` game processes."""


class _Causes:
    """Server observer keeping how each player left BLUE (cause per player index); as the game begins it
    notes the server's map copy in *folder* (:data:`MAP_COPY`)."""

    def __init__(self, folder: Path) -> None:
        self.cause: dict[int, str] = {}
        self.folder = folder

    def on_start(self, server: ArenaServer) -> None:
        if server.map_copy is not None:
            with contextlib.suppress(OSError):  # a full disk: only a killed game process would need it
                (self.folder / MAP_COPY).write_text(f"{server.map_copy}\n", encoding="utf-8")

    def on_round(self, server: ArenaServer, result: RoundResult, moves: list[tuple[int, str, str]]) -> None:
        for change in result.changes:
            self.cause[change.id] = change.cause

    def on_end(self, server: ArenaServer, table: list[TableRow]) -> None:
        pass


class _Forked:
    """An example bot's process forked from the game process's fork server (:func:`_fork_example_bot`), with
    what the game needs of an ``asyncio.subprocess.Process``: ``pid``, ``returncode`` and ``await wait()``."""

    def __init__(self, process: multiprocessing.process.BaseProcess) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        assert self._process.pid is not None
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    async def wait(self) -> int:
        loop = asyncio.get_running_loop()
        while (code := self._process.exitcode) is None:
            ended: asyncio.Future[None] = loop.create_future()

            def readable(ended: asyncio.Future[None] = ended) -> None:
                if not ended.done():
                    ended.set_result(None)

            loop.add_reader(self._process.sentinel, readable)
            try:
                await ended
            finally:
                loop.remove_reader(self._process.sentinel)
        return code


_forks: list[multiprocessing.context.ForkServerContext] = []
"""The game process's fork server (:func:`_start_fork_server`)."""
_command_env: dict[str, str] | None = None
"""The environment the bots given as commands start with: the tournament's as it was given it (a cluster
worker's as it was started), before :func:`python_safe_path` (None: this process's own, as for ``arena
play``). The tournament (the worker) hands it to its game processes (:func:`start_game_process`)."""


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """Within it, the Python interpreters this process starts run with a safe path (``PYTHONSAFEPATH``, as
    ``python -P``): the folder they start in is not put first on their ``sys.path``. The variable is as
    before afterwards, so that the bots given as commands, started later, get the environment they had."""
    before = os.environ.get(SAFE_PATH)
    os.environ[SAFE_PATH] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ[SAFE_PATH]
        else:
            os.environ[SAFE_PATH] = before


@contextlib.contextmanager
def python_safe_path() -> Iterator[dict[str, str]]:
    """Within it, every Python this process starts runs with a safe path (:func:`_safe_path`), and so does
    every one those start in turn: multiprocessing's resource tracker, the game processes and their fork
    servers. Each starts as ``python -c ...`` in the folder the tournament was started from, which such an
    interpreter puts first on its ``sys.path``: a ``socket.py`` (``signal.py``, ``threading.py``, ...)
    there was imported in place of Python's own as they started, and every game process died. The bots given
    as commands start with the environment as it was (:data:`_command_env`, ``PYTHONSAFEPATH`` set or not
    as the user had it), which it yields, for the game processes (:func:`start_game_process`). Within one
    already, it changes nothing. The environment is the process's: a process whose threads start Pythons
    (a cluster's worker, :mod:`arena.cluster`) enters it in one thread at a time."""
    global _command_env
    if _command_env is not None:
        yield _command_env
        return
    _command_env = given = dict(os.environ)
    try:
        with _safe_path():
            yield given
    finally:
        _command_env = None


def hide_main() -> dict[str, object]:
    """Keep the Pythons multiprocessing starts from this process from running this program's main module
    again, and return what :func:`main_module_hidden` needs to undo it. Its preparation of a child runs the
    main module again, as ``__mp_main__``, by its module name (``__main__.__spec__``: ``python -m NAME``) or
    its path (``__main__.__file__``), and nothing a tournament starts needs it: on a Dask worker that module
    is the ``dask`` command's (or ``python -m distributed.cli.dask_worker``'s), whose imports cost each game
    process and each example bot forked for its games 0.3 s of CPU or more, and a game took twice as long
    on a worker as on the tournament's machine (five times with ``python -m``). Python 3.11's fork server
    cannot import it once for all the bots it forks: its preload of ``"__main__"`` never gets the path."""
    main = vars(sys.modules["__main__"])
    hidden: dict[str, object] = {name: main.pop(name) for name in ("__file__", "__spec__") if name in main}
    main["__spec__"] = None
    return hidden


@contextlib.contextmanager
def main_module_hidden() -> Iterator[None]:
    """Within it, the Pythons multiprocessing starts from this process do not run this program's main module
    again (:func:`hide_main`). The main module is the process's: a process whose threads start Pythons
    enters it in one thread at a time (:func:`arena.cluster._submit`); a game process hides it for good
    (:func:`start_game_process`)."""
    hidden = hide_main()
    try:
        yield
    finally:
        main = vars(sys.modules["__main__"])
        main.pop("__spec__", None)
        main.update(hidden)


def _start_fork_server() -> multiprocessing.context.ForkServerContext:
    """The game process's fork server of example bots, started on the first call (the game process starts
    it as it begins, so that its imports overlap the game's preparation).

    The fork server is an interpreter started with ``-c`` in the folder the tournament was started from,
    which such an interpreter puts first on its ``sys.path``, and Python 3.11's fork server does not take
    the game process's ``sys.path`` for its imports: a ``common.py`` or ``arena.py`` there was imported in
    place of the project's packages, and every example bot failed to start (``No module named
    'common.cli'``). It runs with a safe path (:func:`_safe_path`); the bots it forks take the game
    process's ``sys.path`` (multiprocessing's preparation), which holds no such folder either."""
    if not _forks:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["arena.bots", "arena.smart", "common.cli", "socket",
                                        "encodings.idna"])
        # The fork server lives in the tournament's process group: a closed terminal's SIGHUP or a SIGTERM to
        # the group must not end it while its game process goes on (the game process stops the game; the
        # server ends with it). Blocked, not ignored, while it starts: this process still gets them after.
        signal.pthread_sigmask(signal.SIG_BLOCK, FORK_SERVER_SPARED)
        try:
            with _safe_path():
                multiprocessing.forkserver.ensure_running()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, FORK_SERVER_SPARED)
        _forks.append(context)
    return _forks[0]


def _fork_example_bot(strategy: str, port: int, seed: int, folder: Path, guard: Guard) -> _Forked:
    """Start the example bot *strategy* for the server on 127.0.0.1:*port* (as ``arena bot`` would) as a
    process forked from a fork server that has the bots' modules imported already: the bot skips the
    interpreter's start and its imports, most of what it costs in a game (:func:`arena.bots.forked_bot`
    gives it its session, folder, output files and *guard*'s limits)."""
    from arena.bots import forked_bot

    process = _start_fork_server().Process(target=forked_bot, args=(HOST, port, strategy, seed, str(folder)),
                                           kwargs={"guard": guard}, name="arena bot")
    process.start()
    return _Forked(process)


@dataclass
class _Process:
    bot: int
    seat: int
    process: asyncio.subprocess.Process | _Forked
    guard: Guard | None = None
    """What keeps the bot in its bounds (None: a process started otherwise, as the tests do)."""
    folder: Path = Path(".")
    """The bot's working folder."""
    exit: int | None = None
    killed: str | None = None
    """The signal that ended the process when it did not end by itself: "SIGTERM" or "SIGKILL"."""
    limit: str | None = None
    """The limit that stopped it (:meth:`Guard.over` during the game, :meth:`Guard.reached` after)."""


async def _start_guarded(folder: Path, limits: BotLimits, argv: list[str] | None = None,
                         example: tuple[str, int, int] | None = None,
                         ) -> tuple[asyncio.subprocess.Process | _Forked, Guard]:
    """Start a bot in the working folder *folder* (made), its output in ``stdout.txt`` and ``stderr.txt``
    there, in a process group of its own, within *limits*: the command *argv* (in the environment
    :data:`_command_env`), or the example bot *example* (strategy, port, seed) forked from the fork server
    (:func:`_fork_example_bot`)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "stdout.txt", "wb") as out, open(folder / "stderr.txt", "wb") as err:
        guard = Guard(limits, folder)
        try:
            if argv is None:
                assert example is not None, "a command or an example bot"
                return _fork_example_bot(*example, folder, guard), guard
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=folder, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True, preexec_fn=guard.apply, env=_command_env)
        except BaseException:
            guard.close()
            raise
    return process, guard


async def run_bot_process(argv: list[str], folder: Path, limits: BotLimits) -> str | None:
    """Run one bot, *argv*, to its end as a game of a tournament runs a bot given as a command: in the
    working folder *folder* (made) with its output in ``stdout.txt`` and ``stderr.txt`` there, in a process
    group of its own, within *limits*; return the limit that stopped it (None: none). Cancelled (its game
    is over and it has not left), it is stopped as a game stops its bots (:func:`_stop_group`)."""
    process, guard = await _start_guarded(folder, limits, argv)
    proc = _Process(0, 0, process, guard, folder)
    police = asyncio.ensure_future(_police([proc]))
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await process.wait()
    finally:
        police.cancel()
        await _stop_group(proc)
        proc.limit = proc.limit or guard.reached(proc.exit, process.pid, folder)
        guard.close()
    return proc.limit


async def _police(processes: list[_Process]) -> None:
    """Every :data:`POLICE_S` during a game: stop each bot that has reached its processes' cap (a fork
    bomb kept to its cgroup or ``RLIMIT_NPROC`` forks on for ever), with every process it has."""
    while True:
        await asyncio.sleep(POLICE_S)
        for proc in list(processes):
            guard = proc.guard
            if guard is not None and proc.limit is None and proc.process.returncode is None:
                proc.limit = guard.over(proc.process.pid)
                if proc.limit is not None:
                    log.warning("seat %d: over its limit of %s: stopped", proc.seat, proc.limit)
                    guard.stop()
                    with contextlib.suppress(OSError):
                        os.killpg(proc.process.pid, signal.SIGKILL)


def _group_alive(group: int) -> bool:
    """Whether process group *group* still has a process that is not a zombie. A bot given as a command runs
    under ``/bin/sh -c``, which SIGTERM ends at once while the bot itself may still be running (or handling
    it); the bot's exited processes may stay zombies for a while where nothing reaps orphans, so where
    ``/proc`` tells, those do not count."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # state, ppid, pgrp, ... after "pid (comm)"
        if len(fields) > 2 and fields[2] == str(group).encode() and fields[0] != b"Z":
            return True
    return False


async def _stop_group(proc: _Process) -> None:
    """Give a bot's process STOP_GRACE_S to end by itself (keeping its exit status), then SIGTERM its process
    group, give the whole group STOP_GRACE_S more (not only the process started, a ``/bin/sh`` that SIGTERM
    ends at once for a command), then SIGKILL what is left of the group. ``proc.exit`` is the exit status
    when the process ended by itself, else None and ``proc.killed`` names the signal that ended the bot:
    "SIGKILL" when some process of its group outlived SIGTERM."""
    process = proc.process
    try:
        proc.exit = await asyncio.wait_for(process.wait(), STOP_GRACE_S)
    except TimeoutError:
        proc.exit = None
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        if proc.exit is None:
            proc.killed = sig.name
        if sig == signal.SIGTERM:
            deadline = time.monotonic() + STOP_GRACE_S
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), STOP_GRACE_S)
            while _group_alive(process.pid) and time.monotonic() < deadline:
                await asyncio.sleep(GROUP_POLL_S)
            if not _group_alive(process.pid):
                break
    await process.wait()


def clean_up_killed_game(folder: Path) -> None:
    """What a game process that was killed could not do for the game in *folder*: SIGKILL the process groups
    of its bots (their ids are in :data:`BOT_GROUPS` until the game ends; a group whose leader is gone, or
    whose id is no longer a group leader's, is left alone), and those of the processes still working in the
    game's folder (a bot killed with its game process before its id was written: :func:`_groups_under`),
    kill what is left in their cgroups or of their users and give those back (:data:`BOT_GUARDS`,
    :func:`arena.limits.release`) and remove the map copy its server handed the bots (named in
    :data:`MAP_COPY`; only a file of the servers' folder for map copies)."""
    with contextlib.suppress(OSError):
        for group in map(int, (folder / BOT_GROUPS).read_text(encoding="ascii").split()):
            with contextlib.suppress(OSError):
                if os.getpgid(group) == group:
                    os.killpg(group, signal.SIGKILL)
        (folder / BOT_GROUPS).unlink(missing_ok=True)
    for group in _groups_under(folder):
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    with contextlib.suppress(OSError):
        for note in (folder / BOT_GUARDS).read_text(encoding="utf-8").splitlines():
            release(note)
        (folder / BOT_GUARDS).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        copy = Path((folder / MAP_COPY).read_text(encoding="utf-8").strip())
        if copy.suffix == ".map" and copy.parent == run_dir().resolve():
            copy.unlink(missing_ok=True)
        (folder / MAP_COPY).unlink(missing_ok=True)


def _groups_under(folder: Path) -> set[int]:
    """The process groups, other than this process's own, of the processes whose working folder is *folder*
    or lies under it (from ``/proc``; empty where it cannot tell)."""
    groups: set[int] = set()
    try:
        entries = os.listdir("/proc")
        root = folder.resolve()
    except OSError:
        return groups
    ours = os.getpgrp()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if not Path(os.readlink(f"/proc/{entry}/cwd")).is_relative_to(root):
                continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
            group = int(stat[stat.rfind(b")") + 2:].split()[2])  # state, ppid, pgrp after "pid (comm)"
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not ours to read
        if group != ours:
            groups.add(group)
    return groups


class _GameLog(logging.FileHandler):
    """A game's ``server.log``. A write that fails (a full disk) is kept in ``failed``, not logging's
    traceback on stderr for every line; the game goes on."""

    failed: str | None = None

    def handleError(self, record: logging.LogRecord) -> None:
        self._failed(sys.exc_info()[1])

    def close(self) -> None:
        try:
            super().close()  # flushes what could not be written
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: BaseException | None) -> None:
        if self.failed is None:
            self.failed = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def game_error(record: GameRecord, exc: OSError, out: Path) -> None:
    """Record in *record* why its game could not be played: the error and the file it names (relative to
    the results folder *out*); ``full`` too when the disk is full."""
    where = ""
    if exc.filename is not None:
        name = Path(os.fsdecode(exc.filename))
        where = f" ({name.relative_to(out) if name.is_relative_to(out) else name})"
    record.error = f"{exc.strerror or exc}{where}"
    if exc.errno in WRITE_FAILURES:
        record.full = exc.strerror or str(exc)


def game_folder(out: Path, game: Scheduled) -> Path:
    """The folder of *game* under the results folder *out*: ``games/NNN-MAP-sSEED``."""
    return out / "games" / f"{game.number:03d}-{copy_name(game.map)}-s{game.seed}"


class GameRunner:
    """Plays games of a :class:`Config`'s schedule one at a time (``await play(game)``), in the process that
    runs it: a game process of :class:`Tournament`. *stop_reason* says why the games must stop (None: go on);
    it is polled every :data:`STOP_POLL_S` and a game under way is then cut short."""

    def __init__(self, config: Config, stop_reason: Callable[[], str | None]) -> None:
        self.config = config
        self.stop_reason = stop_reason

    async def play(self, game: Scheduled) -> GameRecord:
        """Play one game of the schedule; never raises for a bot's fault. The server's log of the game goes
        to ``server.log`` in the game's folder."""
        began = time.monotonic()
        record = await self._play(game)
        record.seconds = time.monotonic() - began
        return record

    async def _play(self, game: Scheduled) -> GameRecord:
        cfg = self.config
        folder = game_folder(cfg.out, game)
        record = GameRecord(game, folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handler = _GameLog(folder / "server.log", encoding="utf-8")
        except OSError as exc:
            game_error(record, exc, cfg.out)
            return record
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        arena_log = logging.getLogger("arena")
        if arena_log.getEffectiveLevel() > logging.INFO:
            arena_log.setLevel(logging.INFO)  # the game's log is complete whatever the console shows
        arena_log.addHandler(handler)
        causes = _Causes(folder)
        writer = replay.ReplayWriter(folder / "replay.jsonl", last=False)
        settings = Settings(players=len(game.seats), host=HOST, port=0, seed=game.seed, move_ms=cfg.move_ms,
                            prep_ms=cfg.prep_ms, quiet_rounds=cfg.quiet_rounds, id_timeout_ms=cfg.connect_ms,
                            seat_ports=True)
        server = ArenaServer(cfg.maps[game.map], settings, [writer, causes])
        processes: list[_Process] = []
        ids: dict[int, int] = {}
        absent: set[int] = set()
        watch = asyncio.ensure_future(self._watch(server))
        police = asyncio.ensure_future(_police(processes))
        try:
            await server.start()
            running = asyncio.ensure_future(server.run())
            for seat, index in enumerate(game.seats):
                port = server.seat_ports[seat]
                processes.append(await self._start_bot(folder, seat, index, port, game.seed))
                with open(folder / BOT_GROUPS, "a", encoding="ascii") as groups:
                    groups.write(f"{processes[-1].process.pid}\n")
                if (guard := processes[-1].guard) is not None and (note := guard.note()):
                    with open(folder / BOT_GUARDS, "a", encoding="utf-8") as guards:
                        guards.write(f"{note}\n")
            await self._seat(server, processes, running, ids, absent)
            table = await running
            record.rounds = server.game.round if server.game else 0
            record.stopped = server.stopped
            if server.game is not None:
                self._seat_results(record, game, server, table, ids, causes)
            else:  # stopped while its bots were starting: each seat's bot, whether it had joined, its exit
                at_stop = watch.result() if watch.done() and not watch.cancelled() else {}
                joined = {seat: wire_id for seat, wire_id in {**ids, **at_stop}.items() if seat not in absent}
                record.seats = [SeatResult(p.bot, p.seat, joined.get(p.seat),
                                           status=OK if p.seat in joined else NEVER_JOINED)
                                for p in processes]
        except ServerError as exc:
            record.error = str(exc)
            log.warning("game %d: %s", game.number, exc)
        except OSError as exc:
            game_error(record, exc, cfg.out)
            log.warning("game %d: %s", game.number, record.error)
        finally:
            watch.cancel()
            police.cancel()
            writer.close()
            record.replay_error = writer.failed
            await server.close()
            await asyncio.gather(*(_stop_group(p) for p in processes))
            for proc in processes:
                if proc.guard is not None:
                    proc.limit = proc.limit or proc.guard.reached(proc.exit, proc.process.pid, proc.folder)
                    proc.guard.close()
            for note in (BOT_GROUPS, BOT_GUARDS, MAP_COPY):
                with contextlib.suppress(OSError):
                    (folder / note).unlink(missing_ok=True)
            arena_log.removeHandler(handler)
            handler.close()
        for proc in processes:
            for result in record.seats:
                if result.seat == proc.seat:
                    result.exit, result.killed = proc.exit, proc.killed
                    if result.status == LEFT and proc.exit not in (None, 0):
                        result.status = CRASHED
                    if proc.limit is not None:
                        result.status, result.limit = OVER_LIMIT, proc.limit
        return record

    async def _watch(self, server: ArenaServer) -> dict[int, int]:
        """Stop *server*'s game as soon as :attr:`stop_reason` gives a reason; return the seats joined at that
        moment (seat -> wire id), before the stop disconnects the bots waiting in the lobby."""
        while (reason := self.stop_reason()) is None:
            await asyncio.sleep(STOP_POLL_S)
        joined = server.joined_seats
        server.stop(reason)
        return joined

    async def _start_bot(self, folder: Path, seat: int, index: int, port: int, game_seed: int) -> _Process:
        bot = self.config.bots[index]
        where = folder / f"{seat}-{copy_name(bot.name)}"
        bot_seed = random.Random(game_seed * 17 + seat).randrange(1 << 31)
        if bot.strategy is not None:
            process, guard = await _start_guarded(where, self.config.limits,
                                                  example=(bot.strategy, port, bot_seed))
        else:
            process, guard = await _start_guarded(where, self.config.limits, bot.argv(port, bot_seed))
        return _Process(index, seat, process, guard, where)

    async def _seat(self, server: ArenaServer, processes: list[_Process],
                    running: asyncio.Future[list[TableRow]], ids: dict[int, int], absent: set[int]) -> None:
        """Wait until every seat is taken: by its bot joining through the seat's port (*ids*: seat -> wire
        id), or by an idle body (:meth:`ArenaServer.add_absent`, the seat then in *absent*) when the bot's
        process has ended or ``connect_ms`` has passed first (also for a bot that joined and left before the
        game began). It watches until the game has begun, not only until every seat is taken: a bot can join
        the last free seat and leave before the server begins, and its seat then needs its idle body. It stops
        watching once the game is stopped: a bot the stop disconnects has not left its seat."""
        end = time.monotonic() + self.config.connect_ms / 1000
        while not running.done() and server.game is None and server.stopped is None:
            joined = server.joined_seats
            for proc in processes:
                if proc.seat in joined:
                    ids[proc.seat] = joined[proc.seat]
                elif proc.seat not in absent:
                    ids.pop(proc.seat, None)
                    if proc.process.returncode is not None or time.monotonic() > end:
                        ids[proc.seat] = server.add_absent(proc.seat)
                        absent.add(proc.seat)
            await asyncio.sleep(JOIN_POLL_S)
        ids.update(server.joined_seats)

    def _seat_results(self, record: GameRecord, game: Scheduled, server: ArenaServer, table: list[TableRow],
                      ids: dict[int, int], causes: _Causes) -> None:
        rows = {row.id: row for row in table}
        diagnostics = {d.id: d for d in server.diagnostics()}
        for seat, index in enumerate(game.seats):
            if seat not in ids:
                continue
            wire_id = ids[seat]
            result = SeatResult(index, seat, wire_id)
            row = rows.get(wire_id)
            if row is not None:
                result.points, result.rank = row.points, row.rank
                result.switch_round, result.catches = row.switch_round, row.catches
                player = server.wire_ids.index(wire_id)
                result.cause = causes.cause.get(player)
            diag = diagnostics.get(wire_id)
            result.diagnostics = diag
            result.status = seat_status(diag, record.rounds)
            record.seats.append(result)


# --- game processes -----------------------------------------------------------------------------------------
# Each game process (one per job) holds a GameRunner and plays the games the tournament hands it, one at a
# time, each in a fresh event loop. It ignores SIGINT: a Ctrl-C reaches the whole foreground process group,
# and the tournament tells its game processes to stop through the shared stop flag. A SIGTERM or SIGHUP sent
# to a game process (alone, or with its group when the terminal closes), or the end of the tournament's
# process (killed), stops the game under way the same way, so that its bots are never left behind; the
# tournament then stops too, and a game process whose tournament is gone exits.

_runner: GameRunner | None = None
_stopping: list[str] = []
"""Why this game process stops its games whatever the tournament says (SIGTERM, tournament gone)."""
_playing = threading.Lock()
"""Held while this game process plays a game."""


def start_game_process(config: Config, flag: ctypes.Array[ctypes.c_char], parent: int,
                       command_env: dict[str, str] | None = None) -> None:
    """Initialise a game process (``ProcessPoolExecutor`` initializer) of the tournament *parent*; its bots
    given as commands start with the environment *command_env* (None: the game process's own)."""
    global _runner, _command_env
    _command_env = command_env
    hide_main()  # for good: nothing forked here needs the program's main module
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in not_ignored(STOP_SIGNALS):  # what the tournament was started ignoring (nohup), it ignores
        if sig != signal.SIGINT:
            signal.signal(sig, _stop_game_process)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by the tournament as it started it
    logging.getLogger("arena").addHandler(logging.NullHandler())  # between games: no stray console lines
    threading.Thread(target=_leave_with, args=(parent,), daemon=True).start()

    def stop_reason() -> str | None:
        return flag.value.decode() or (_stopping[0] if _stopping else None)

    _runner = GameRunner(config, stop_reason)
    if any(bot.strategy is not None for bot in config.bots):
        _start_fork_server()


def _stop_game_process(signum: int, frame: FrameType | None) -> None:
    _stopping.append(STOP_SIGNALS[signal.Signals(signum)])


def _leave_with(parent: int) -> None:
    """Once the tournament's process *parent* is gone: stop the game under way, then exit."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    _stopping.append("the tournament is gone")
    with _playing:
        os._exit(1)


def play_in_game_process(game: Scheduled) -> GameRecord:
    assert _runner is not None, "not a game process"
    with _playing:
        return asyncio.run(_runner.play(game))


Elsewhere = Callable[["Tournament", list[Scheduled]], Awaitable[None]]
"""What plays a tournament's games somewhere else than its own game processes (:func:`arena.cluster.play`):
called with the tournament and the games to play, it hands them out (:meth:`Tournament.hand_out`)."""


class Tournament:
    """Runs a :class:`Config`'s schedule (``await run()``) in ``jobs`` game processes, each playing one game
    at a time (:class:`GameRunner`): the games' servers use as many cores as there are jobs. ``stop()``
    (SIGINT, SIGTERM) cuts the games under way short and starts no more. ``records``: the games played so
    far, in the order they ended."""

    def __init__(self, config: Config,
                 progress: Callable[[Tournament, GameRecord], None] | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.schedule = schedule(len(config.bots), list(config.maps), config.games, config.players,
                                 config.seed)
        self.records: list[GameRecord] = []
        self.under_way: dict[int, float] = {}
        """When each game under way was handed out (``time.monotonic()``), by game number."""
        self.progress = progress
        self.notice: Callable[[str], None] = notice or (lambda line: None)
        """Where a line for the organiser goes that is not a game's (``tournament: waiting up to 60 s for a
        worker to join the scheduler``)."""
        self.started = time.monotonic()
        self.stopped: str | None = None
        self.write_error: str | None = None
        """Why the standings files could not be written the last time (None: they are up to date)."""
        self.ratings_error: str | None = None
        """Why the ratings file (``--ratings``) could not be written the last time (None: it is up to date,
        or there is none)."""
        self.ratings_names: dict[str, str] = {}
        """Where the ratings file has each bot this tournament rated (its name -> the file's name for it):
        under another name when another tournament wrote a bot of its own under that one meanwhile."""
        self.slots = max(1, config.jobs)
        """Games played at once: ``jobs``, or the threads of the cluster's workers."""
        self._context = multiprocessing.get_context("spawn")
        self._flag = RawArray(ctypes.c_char, STOP_REASON_BYTES)

    @property
    def total(self) -> int:
        return len(self.schedule)

    def standings(self) -> list[Standing]:
        return standings(self.config.bots, self.records, list(self.config.maps), self.config.ratings)

    def stop(self, reason: str) -> None:
        if self.stopped is None:
            self.stopped = reason
            self._flag.value = reason.encode()[:STOP_REASON_BYTES - 1]

    async def run(self, elsewhere: Elsewhere | None = None) -> list[Standing]:
        """Play the schedule: in ``jobs`` game processes of this machine, or through *elsewhere* (the games
        and the tournament: :func:`arena.cluster.play` for ``--cluster``, which imports this module, not
        this module it); the standings at the end."""
        self.config.out.mkdir(parents=True, exist_ok=True)
        self.started = time.monotonic()
        queue = list(self.schedule)
        if elsewhere is not None:
            await elsewhere(self, queue)
        else:
            await self._play_here(queue)
        self.write()
        return self.standings()

    async def _play_here(self, queue: list[Scheduled]) -> None:
        loop = asyncio.get_running_loop()
        self.slots = max(1, min(self.config.jobs, len(queue)))
        with python_safe_path(), ProcessPoolExecutor(
                self.slots, mp_context=self._context, initializer=start_game_process,
                initargs=(self.config, self._flag, os.getpid(), _command_env)) as pool:

            async def play(game: Scheduled) -> GameRecord:
                try:
                    # A game process starts (if one is needed) as the game is handed out: it inherits the
                    # stop signals blocked, so that a Ctrl-C (SIGTERM, SIGHUP) to the process group during
                    # its imports waits until it handles them (it was a KeyboardInterrupt traceback, or an
                    # end without a word, and its game "a game process died"); here the signal waits until
                    # the game is handed out.
                    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
                    try:
                        handed = loop.run_in_executor(pool, play_in_game_process, game)
                    finally:
                        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
                    return await handed
                except BrokenProcessPool:  # killed, out of memory: its game and the rest cannot be played
                    record = GameRecord(game, game_folder(self.config.out, game), error=GAME_PROCESS_DIED)
                    clean_up_killed_game(record.folder)
                    return record

            await self.hand_out(queue, self.slots, play)

    async def hand_out(self, queue: list[Scheduled], slots: int,
                       play: Callable[[Scheduled], Awaitable[GameRecord]]) -> None:
        """Play the games of *queue* in its order, *slots* at a time, each through *play*, until the queue
        is empty or the tournament stops; each record is kept as it comes (:meth:`finished`)."""

        async def slot() -> None:
            while queue and not self.stopped:
                game = queue.pop(0)
                self.under_way[game.number] = time.monotonic()
                try:
                    record = await play(game)
                finally:
                    del self.under_way[game.number]
                self.finished(record)

        await asyncio.gather(*(slot() for _ in range(slots)))

    def finished(self, record: GameRecord) -> None:
        """Keep a game's *record*: stop the tournament when its game process died, was sent SIGTERM alone
        or could not write its files, then write the standings and show the progress."""
        if record.error == GAME_PROCESS_DIED:
            self.stop(GAME_PROCESS_DIED)
        if record.stopped and not self.stopped:  # its game process alone was sent SIGTERM
            self.stop(record.stopped)
        if record.full:
            self.stop(f"the results cannot be written: {record.full}")
        self.records.append(record)
        self.write()
        if self.progress:
            self.progress(self, record)

    # --- files ----------------------------------------------------------------------------------------------

    def write(self) -> None:
        """Write ``standings.csv`` and ``standings.json`` under the output folder (the games so far), each
        replaced whole (a file that cannot be written keeps its last version), then merge the ratings into
        the ratings file (``--ratings``: :func:`arena.ratings.update`), whichever of the two could not be
        written. ``write_error`` says why the standings files could not be, ``ratings_error`` why the
        ratings file could not be (one that is no ratings file any more is left as it is); a full disk
        stops the tournament."""
        self.write_error = self._attempt(self._write_standings)
        if self.config.ratings_file is not None:
            self.ratings_error = self._attempt(self._write_ratings)

    def _attempt(self, write: Callable[[], None]) -> str | None:
        """Run *write*: None when it wrote its file, else why not (the error's words: for the ratings file,
        the file and what is wrong, :func:`arena.ratings.update`; or the line of the
        :class:`common.save.FileFormatError` of a ratings file that is no ratings file any more). A full
        disk (:data:`WRITE_FAILURES`) stops the tournament."""
        try:
            write()
        except FileFormatError as exc:
            return str(exc)
        except OSError as exc:
            error = exc.strerror or str(exc)
            if exc.errno in WRITE_FAILURES:
                self.stop(f"the results cannot be written: {error}")
            return error
        return None

    def _write_ratings(self) -> None:
        """Merge the ratings of the bots this tournament rated into the ratings file (``--ratings``), each
        with the bot it was earned by (:attr:`Bot.identity`). Raises OSError and FileFormatError
        (:func:`arena.ratings.update`)."""
        cfg = self.config
        assert cfg.ratings_file is not None, "a tournament with --ratings"
        ours = rated_here(cfg.bots, self.records, cfg.ratings)
        self.ratings_names = ratings.update(cfg.ratings_file, ours, {b.name: b.identity for b in cfg.bots},
                                            self.ratings_names, key=bot_identity)

    def _write_standings(self) -> None:
        """Write ``standings.csv`` and ``standings.json`` (:meth:`write`). Raises OSError."""
        cfg = self.config
        maps = list(cfg.maps)
        rows = self.standings()
        table = io.StringIO(newline="")
        out = csv.writer(table)
        out.writerow(["rank", "bot", "points", *maps, "games", "wins", "catches", "caught", "mean_rank",
                      "rating", "mu", "sigma", "rating_rank", *STATUSES[1:]])
        for r in rows:  # a bot with no place: its places and points left empty
            out.writerow(["" if r.rank is None else r.rank, r.bot,
                          format_points(r.points) if r.placed else "",
                          *(format_points(r.per_map[m]) if m in r.per_map else "" for m in maps),
                          r.games, r.wins, r.catches, r.caught,
                          "" if r.mean_rank is None else f"{float(r.mean_rank):.2f}",
                          f"{r.rating.conservative:.4f}", f"{r.rating.mu:.4f}", f"{r.rating.sigma:.4f}",
                          "" if r.rating_rank is None else r.rating_rank,
                          *(r.faults.get(s, 0) for s in STATUSES[1:])])
        write_atomic(cfg.out / "standings.csv", table.getvalue())
        data = {
            "settings": {"bots": [{"name": b.name, "spec": b.spec} for b in cfg.bots], "maps": maps,
                         "games": cfg.games, "players": cfg.players,
                         "jobs": None if cfg.cluster else cfg.jobs, "seed": cfg.seed,
                         "prep_ms": cfg.prep_ms, "move_ms": cfg.move_ms, "quiet_rounds": cfg.quiet_rounds,
                         "connect_ms": cfg.connect_ms, "cluster": cfg.cluster,
                         "ratings": None if cfg.ratings_file is None else str(cfg.ratings_file)},
            "played": sum(1 for r in self.records if r.counts), "scheduled": self.total,
            "stopped": self.stopped,
            "standings": [r.as_json() for r in rows],
            "games": [{"game": r.game.number, "map": r.game.map, "seed": r.game.seed,
                       "folder": str(r.folder.relative_to(cfg.out)), "rounds": r.rounds, "stopped": r.stopped,
                       "seconds": round(r.seconds, 2), "worker": r.worker, "error": r.error,
                       "replay_error": r.replay_error,
                       "seats": [s.as_json(cfg.bots) for s in r.seats]}
                      for r in sorted(self.records, key=lambda r: r.game.number)],
        }
        write_atomic(cfg.out / "standings.json", json.dumps(data, indent=1) + "\n")


def clock(seconds: float) -> str:
    """``H:MM:SS`` (or ``M:SS`` under an hour)."""
    whole = round(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def time_left(t: Tournament, now: float | None = None) -> float:
    """Seconds the games not yet ended should take, from the mean time of a game so far: a game under way
    takes that less the time it has run (nothing once it has run longer), and each game not yet handed out
    takes it whole on whichever game process (``--jobs``) is free first. Counting a game under way as half
    played was half a game off whenever the other games had just begun (or were nearly done); the time
    since the start over the games ended would count as many games per slot as ``--jobs``."""
    times = [r.seconds for r in t.records]
    left = t.total - len(t.records)
    if not times or left <= 0:
        return 0.0
    mean = statistics.fmean(times)
    now = time.monotonic() if now is None else now
    free = [max(0.0, mean - (now - began)) for began in t.under_way.values()]
    free += [0.0] * max(0, t.slots - len(free))
    heapq.heapify(free)
    for _ in range(left - len(t.under_way)):
        heapq.heapreplace(free, free[0] + mean)
    return max(free)


def progress_line(t: Tournament, record: GameRecord) -> str:
    """One line: ``game 3/24 done (#3 office, seed 5, 61 rounds): hunt 12.30, flee 0.00 (crashed) |
    elapsed 0:42, about 2:48 left``; for a game that does not count, ``game #4 field, seed 9: stopped:
    interrupted (does not count)``; a replay that could not be written adds ``| replay not written: No
    space left on device`` before the times."""
    lost = "" if record.replay_error is None else f" | replay not written: {record.replay_error}"
    if not record.counts:
        game, what = record.game, record.error or f"stopped: {record.stopped}"
        return f"game #{game.number} {game.map}, seed {game.seed}: {what} (does not count){lost}"
    done = len(t.records)
    elapsed = time.monotonic() - t.started
    left = time_left(t)
    entrants = t.config.bots
    seats = ", ".join(f"{entrants[s.bot].name} {format_points(s.points)}"
                      + ("" if s.status == OK else f" ({s.status})")
                      for s in sorted(record.seats, key=lambda s: (s.rank, s.id)))
    return (f"game {done}/{t.total} done (#{record.game.number} {record.game.map}, seed {record.game.seed}, "
            f"{look.counted(look.ROUNDS, record.rounds)}): {seats}{lost} | elapsed {clock(elapsed)}, about "
            f"{clock(left)} left")


def run(config: Config, *, show: Callable[[str], None],
        elsewhere: Elsewhere | None = None,
        serve: Callable[[Tournament], Awaitable[None]] | None = None) -> tuple[Tournament, list[Standing]]:
    """Run a tournament in a new event loop, SIGINT, SIGTERM and SIGHUP stopping it (the games under way are
    cut short and do not count); *show* gets one progress line per game and the tournament's other lines
    (:attr:`Tournament.notice`); *elsewhere* plays the games instead of this machine's game processes
    (:meth:`Tournament.run`); *serve* (the web view, :meth:`arena.web.TournamentSite.serve`) runs on the
    same loop for the whole tournament, cancelled at its end.

    The game processes are started the ``spawn`` way, which imports the main module again: a script calling
    this must do so under ``if __name__ == "__main__":`` (the ``arena`` command does)."""
    tournament = Tournament(config, lambda t, r: show(progress_line(t, r)), show)
    with python_safe_path():
        return tournament, _run(tournament, elsewhere, serve)


def _run(tournament: Tournament, elsewhere: Elsewhere | None,
         serve: Callable[[Tournament], Awaitable[None]] | None) -> list[Standing]:
    """:func:`run` once its Pythons start with a safe path (:func:`python_safe_path`)."""
    # multiprocessing's resource tracker, a child of this process, ignores SIGINT and SIGTERM but not SIGHUP:
    # started now with SIGHUP ignored, it outlives a closed terminal to the end of the tournament.
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        resource_tracker.ensure_running()
    finally:
        signal.signal(signal.SIGHUP, previous)

    async def main() -> list[Standing]:
        loop = asyncio.get_running_loop()
        handled = not_ignored(STOP_SIGNALS)  # under nohup a closed terminal does not stop the tournament
        for sig in handled:
            loop.add_signal_handler(sig, tournament.stop, STOP_SIGNALS[sig])
        site = asyncio.ensure_future(serve(tournament)) if serve else None
        try:
            return await tournament.run(elsewhere)
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)
            if site:
                site.cancel()
                await asyncio.gather(site, return_exceptions=True)

    return asyncio.run(main())
