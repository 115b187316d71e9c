"""Ratings of a tournament's bots with their uncertainty: the ``openskill`` library's Plackett-Luce model
(a Bayesian rating in the family of TrueSkill, which Halite rated with), by each game's final ranks (spec
§2.8's table; a shared place is a tie), the games taken in game-number order.

A bot's rating is ``mu`` (the skill it is believed to have) and ``sigma`` (how uncertain that is); bots are
ranked by the conservative estimate ``mu - 3 sigma``, which a bot raises by winning and by playing more
games. A new bot starts at mu 25, sigma 25/3 (conservative estimate 0). The same games, in any order of their
ending, give the same ratings. ``arena tournament --ratings FILE`` starts from the ratings in *FILE* (bots by
name) and writes them back, updated, after every game (:class:`RatingsFile`), merged into what *FILE* holds by
then under a lock (:func:`update`): two tournaments writing the same file keep each other's bots.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import msgspec

from common.save import BOM, decode_json, require_regular, write_atomic, write_failure

MODEL = "openskill PlackettLuce"
"""The model's name in a ratings file: a file of another model is refused."""
MU, SIGMA = 25.0, 25.0 / 3
"""A new bot's rating."""
Z = 3.0
"""Standard deviations below mu of the conservative estimate."""


@dataclass(frozen=True)
class Rating:
    """One bot's rating: ``mu`` and ``sigma`` (skill points, openskill's scale: a new bot 25 ± 8.33), the
    ``games`` rated so far (those of earlier tournaments included) and the ``bot`` it was earned by as a
    ratings file records it (an example bot's name or the command run, as the shell reads it:
    :func:`arena.tournament.bot_identity`; None when not recorded), so that a later tournament does not
    hand it to another bot of the same label."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    bot: str | None = None

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the skill the bot has with about 99.9 % confidence; what bots are ranked by."""
        return self.mu - Z * self.sigma


#: The bounds of a rating read from a file: far beyond any rating a game gives (a new bot is 25 ± 8.33), and
#: within what the model computes with (a mu of 1e6 overflowed it, a sigma of 1e200 made every rating NaN).
MU_BOUND, SIGMA_BOUND = 1000.0, 1000.0


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    mu: Annotated[float, msgspec.Meta(ge=-MU_BOUND, le=MU_BOUND)]
    sigma: Annotated[float, msgspec.Meta(gt=0, le=SIGMA_BOUND)]
    games: Annotated[int, msgspec.Meta(ge=0)] = 0
    bot: str | None = None


class RatingsFile(msgspec.Struct, forbid_unknown_fields=True):
    """A ratings file: ``{"model": "openskill PlackettLuce", "ratings": {"smart": {"mu": 31.2, "sigma":
    1.9, "games": 120, "conservative": 25.5, "bot": "smart"}, ...}}`` (``conservative`` is written for the
    reader and ignored when read; ``bot``, the example bot or the command the rating was earned by, may be
    missing)."""

    model: str
    ratings: dict[str, dict[str, float | int | str | None]]


def load(path: str | os.PathLike[str]) -> dict[str, Rating]:
    """The ratings in the file at *path* by bot name. Raises OSError when it cannot be read and
    :class:`common.save.FileFormatError` (one line naming the file and the place) when it is no ratings
    file: ``league.json: the file is empty, not a ratings file`` for one holding nothing but white space."""
    from common.save import FileFormatError

    try:
        data = decode_json(path, RatingsFile)
    except FileFormatError:
        if _blank(path):
            raise FileFormatError(f"{os.fspath(path)}: the file is empty, not a ratings file") from None
        raise
    if data.model != MODEL:
        raise FileFormatError(f"{os.fspath(path)}: $.model: expected {MODEL!r}, got {data.model!r}")
    out: dict[str, Rating] = {}
    for name, fields in data.ratings.items():
        known = {k: v for k, v in fields.items() if k != "conservative"}
        try:
            entry = msgspec.convert(known, _Entry)
        except msgspec.ValidationError as exc:
            raise FileFormatError(f"{os.fspath(path)}: $.ratings[{name!r}]: {exc}") from None
        out[name] = Rating(entry.mu, entry.sigma, entry.games, entry.bot)
    return out


def _blank(path: str | os.PathLike[str]) -> bool:
    """Whether the file at *path* holds nothing but white space (after a UTF-8 byte-order mark): an empty
    file, whose JSON msgspec calls "truncated". Raises OSError."""
    with open(path, "rb") as handle:
        return not handle.read().removeprefix(BOM).strip()


def save(path: str | os.PathLike[str], ratings: Mapping[str, Rating]) -> None:
    """Write *ratings* to *path* (replaced whole, :func:`common.save.write_atomic`), best first, each with
    the bot it was earned by (``Rating.bot``, left out when not recorded). Raises OSError."""
    order = sorted(ratings, key=lambda n: (-ratings[n].conservative, n))
    body = {"model": MODEL, "ratings": {
        n: {"mu": round(ratings[n].mu, 6), "sigma": round(ratings[n].sigma, 6), "games": ratings[n].games,
            "conservative": round(ratings[n].conservative, 6),
            **({"bot": ratings[n].bot} if ratings[n].bot else {})}
        for n in order}}
    write_atomic(path, msgspec.json.format(msgspec.json.encode(body), indent=1).decode() + "\n")


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of the ratings file at *path*: ``FILE.lock`` beside the file it names (a symbolic link
    resolved, as :func:`common.save.write_atomic` writes through it)."""
    target = Path(os.path.realpath(path))
    return target.with_name(target.name + ".lock")


def _lock_name(path: str | os.PathLike[str]) -> str:
    """The lock file of the ratings file at *path* (:func:`lock_path`) as a message names it: ``FILE.lock``
    as *path* is spelled (``league.json.lock``), the path it resolves to when a link leads elsewhere."""
    spelled = f"{os.fspath(path)}.lock"
    lock = lock_path(path)
    return spelled if os.path.abspath(spelled) == str(lock) else str(lock)


@contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive advisory lock (``fcntl.flock``) on the lock file of the ratings file at *path*
    (:func:`lock_path`) for the block, waiting while another process holds it. The lock file is made when
    missing and left in place: removed, two writers could each lock a file of their own. The ratings file
    itself cannot be locked, as every write replaces it. Raises OSError (PermissionError in a folder where
    the lock file cannot be made, :class:`common.save.NotARegularFile` for a lock file that is a folder,
    FIFO, device or socket)."""
    lock = lock_path(path)
    require_regular(lock)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError as denied:  # another user's lock file: flock needs no write access
        try:
            fd = os.open(lock, os.O_RDONLY)
        except FileNotFoundError:  # none, and none can be made here: not "No such file or directory"
            raise denied from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # which releases the lock


def check_lock(path: str | os.PathLike[str]) -> None:
    """Take the lock of the ratings file at *path* once and let it go (:func:`locked`), so that a lock file
    that can never be taken is found before a tournament starts, not when its first game ends; the lock file
    is made when missing, as the first write would make it. Raises OSError in the words of :func:`update`
    (``league.json.lock: is a directory, not a regular file``, ``league.json.lock: cannot write in /x: no
    such folder``)."""
    with _taken(path):
        pass


@contextmanager
def _taken(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the lock of the ratings file at *path* for the block (:func:`locked`), an OSError while taking it
    raised again naming the lock file (:func:`_naming`); one in the block is the block's own."""
    with ExitStack() as held:
        with _naming(_lock_name(path), written=True):
            held.enter_context(locked(path))
        yield


def _next_free(name: str, taken: set[str]) -> str:
    """*name* with the next number no name of *taken* has: ``bot#2`` -> ``bot#3``, ``bot`` -> ``bot#2``."""
    base, _, number = name.rpartition("#")
    if not (base and number.isdigit()):
        base, number = name, "1"
    n = int(number) + 1
    while f"{base}#{n}" in taken:
        n += 1
    return f"{base}#{n}"


def merge(current: Mapping[str, Rating], ours: Mapping[str, Rating], bots: Mapping[str, str],
          names: Mapping[str, str] | None = None, key: Callable[[str], str] | None = None
          ) -> tuple[dict[str, Rating], dict[str, str]]:
    """The ratings a file holding *current* holds once a tournament wrote *ours* (the ratings of the bots it
    rated, by its names; *bots*: name -> the example bot or command, recorded as each rating's ``bot``),
    and where in the file each of *ours* is (its name -> the file's name for it). Every entry of *current*
    stays as it is but those *ours* replace. Two bots are the same when *key* (default: the text as it is)
    gives both the same text: :func:`arena.tournament.bot_identity` reads a command as the shell does.

    A bot is written under *names*' name for it (where an earlier write put it), else its own, unless the
    entry there records another bot (another tournament gave the same name to a bot of its own since this
    one started): then over the entry recording the same bot under another name, else under the next free
    number of its name (``bot#2`` -> ``bot#3``, never the name of an entry or of another of *ours*)."""
    same = key or (lambda bot: bot)
    earned = {n: same(r.bot) for n, r in current.items() if r.bot is not None}
    wanted_bot = {name: same(bots[name]) for name in ours}
    where: dict[str, str] = {}
    for name in ours:
        wanted = (names or {}).get(name, name)
        if earned.get(wanted, wanted_bot[name]) == wanted_bot[name]:
            where[name] = wanted
    for name in ours:
        if name in where:
            continue
        ours_too = set(ours) | set(where.values())
        found = [n for n, bot in earned.items() if bot == wanted_bot[name] and n not in ours_too]
        where[name] = found[0] if found else _next_free(name, set(current) | ours_too)
    merged = dict(current)
    for name, there in where.items():
        merged[there] = replace(ours[name], bot=bots[name])
    return merged, where


def update(path: str | os.PathLike[str], ours: Mapping[str, Rating], bots: Mapping[str, str],
           names: Mapping[str, str] | None = None, key: Callable[[str], str] | None = None
           ) -> dict[str, str]:
    """Write the ratings of the bots a tournament rated (*ours*, *bots*, *names* and *key* as
    :func:`merge` takes them) into the ratings file at *path*, merged into what it holds now
    (:func:`merge`; a file not there yet holds nothing), the reading and the writing under the file's lock
    (:func:`locked`), the file replaced whole (:func:`save`). Returns where in the file each of *ours* is
    (its name -> the file's name for it), for the next write. Raises OSError whose ``strerror`` names the
    file that failed, the lock file or the ratings file, and what is wrong (:func:`_naming`:
    ``league.json.lock: is a directory, not a regular file``), and :class:`common.save.FileFormatError`
    when the file is no ratings file any more (it is then left as it is)."""
    with _taken(path):
        with _naming(path, written=False):
            try:
                current = load(path)
            except FileNotFoundError:
                current = {}
        merged, where = merge(current, ours, bots, names, key)
        with _naming(path, written=True):
            save(path, merged)
    return where


@contextmanager
def _naming(path: str | os.PathLike[str], *, written: bool) -> Iterator[None]:
    """Within the block, an OSError is raised again as one whose ``strerror`` names *path* and says what is
    wrong, its errno kept (a full disk is still one): for a file *written*, in the words of
    :func:`common.save.write_failure` (``league.json.lock: is a directory, not a regular file``,
    ``league.json: cannot write in /x: no such folder``), else in the system's (``league.json: Permission
    denied``)."""
    try:
        yield
    except OSError as error:
        reason = write_failure(path, error) if written else error.strerror or str(error)
        raise OSError(error.errno, f"{os.fspath(path)}: {reason}") from None


def rate(games: Iterable[Sequence[tuple[str, int]]], prior: Mapping[str, Rating] | None = None,
         names: Iterable[str] = ()) -> dict[str, Rating]:
    """The ratings after *games*, each the (bot name, final rank) of its seats (rank 1 best, equal ranks a
    tie), taken in the order given (the tournament gives them in game-number order), from *prior* (a bot
    not in it starts at :data:`MU`, :data:`SIGMA`). Every bot of *prior* and *names* is in the result, rated
    or not. A game with fewer than two seats changes nothing."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=MU, sigma=SIGMA)
    current = dict(prior or {})
    for name in names:
        current.setdefault(name, Rating())
    for seats in games:
        if len(seats) < 2:
            continue
        teams = [[model.rating(mu=current.get(n, Rating()).mu, sigma=current.get(n, Rating()).sigma)]
                 for n, _ in seats]
        rated = model.rate(teams, ranks=[float(rank) for _, rank in seats])
        for (name, _), [after] in zip(seats, rated, strict=True):
            current[name] = Rating(after.mu, after.sigma, current.get(name, Rating()).games + 1)
    return current


def ranks(ratings: Mapping[str, Rating], names: Sequence[str]) -> dict[str, int]:
    """The place of each of *names* by the conservative estimate (1 best; equal estimates share a place)."""
    order = sorted(names, key=lambda n: -ratings[n].conservative)
    out: dict[str, int] = {}
    for i, name in enumerate(order):
        same = i and ratings[order[i - 1]].conservative == ratings[name].conservative
        out[name] = out[order[i - 1]] if same else i + 1
    return out
