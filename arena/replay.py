"""Replays: one JSON object per line (spec/arena.md §4).

Line 1, ``{"type": "header", ...}``: format, map name, walls (normalised rows), toxicity (rows of hundredths),
seed, number of players, their wire ids, F (``quiet_rounds``), MAXR, the timings, the start time and the
initial state (:meth:`arena.rules.Game.snapshot`). Then one ``{"type": "round", ...}`` line per round: the
round number, the MOVEs received in arrival order as ``[player, direction, facing]``, which players were still
connected, the team changes and catches, the refused moves as ``[player, reason]``, the round's duration in
milliseconds (``ms``) and the resulting state. Last, ``{"type": "final", "table": [...],
"diagnostics": [...]}`` (per player what its bot did wrong, :class:`arena.server.Diagnostics`; ``"stopped"``
names why a game was cut short by SIGINT or SIGTERM).

Re-simulating the header and the recorded moves (:func:`verify`) reproduces every state line exactly.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import random
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO

import msgspec
import numpy as np

from arena.mapfile import normalised_text
from arena.rules import Arena, Game, RoundResult
from arena.server import copy_name, final_table, spectator_state
from arena.shapes import Count, Direction, MoveName, PointsText, Refusal, State, Team, WallRows
from common.save import BOM, validation_place

if TYPE_CHECKING:
    from arena.server import ArenaServer, TableRow

FORMAT = 1
log = logging.getLogger("arena.replay")


class ReplayError(ValueError):
    """A replay file that cannot be read; ``str()`` is one line ``FILE:LINE: message``."""


def replay_dir() -> Path:
    """``$XDG_STATE_HOME/arena/replays`` (default ``~/.local/state/arena/replays``)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "arena" / "replays"


def default_path(map_name: str, seed: int, when: float | None = None) -> Path:
    """``replay_dir()/YYYYmmdd-HHMMSS-MAP-sSEED.jsonl`` for a game started at *when* (local time); MAP is
    the map's name as the map copy has it (:func:`arena.server.copy_name`: safe characters, cut short)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return replay_dir() / f"{stamp}-{copy_name(map_name)}-s{seed}.jsonl"


def header(arena: Arena, game: Game, *, seed: int, wire_ids: list[int],
           settings: dict[str, Any]) -> dict[str, Any]:
    """The header line's object for a game about to play its first round."""
    return {
        "type": "header", "format": FORMAT, "map": arena.name,
        "walls": normalised_text(arena).splitlines(),
        "toxicity": [[int(v) for v in row] for row in arena.toxicity],
        "seed": seed, "players": len(game.players), "ids": list(wire_ids),
        "quiet_rounds": game.quiet_rounds, "max_rounds": game.max_rounds, "settings": settings,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "initial": game.snapshot(),
    }


def round_line(game: Game, result: RoundResult, moves: list[tuple[int, str, str]],
               connected: list[bool], ms: float | None = None) -> dict[str, Any]:
    """The line of a round just played by *game* (state after the round); *connected*: per player, whether its
    client was connected in that round; *ms*: the round's duration."""
    line: dict[str, Any] = {
        "type": "round", "round": result.round,
        "moves": [[pid, direction, facing] for pid, direction, facing in moves],
        "connected": list(connected),
        "changes": [[c.id, c.team, c.cause] for c in result.changes],
        "catches": [[blue, list(reds)] for blue, reds in result.catches],
        "refused": [[pid, result.reasons[pid]] for pid in result.refused],
        "state": game.snapshot(),
    }
    if ms is not None:
        line["ms"] = round(ms, 1)
    return line


def arena_of(head: dict[str, Any]) -> Arena:
    """The :class:`Arena` a header describes (walls from its rows, toxicity in hundredths)."""
    walls = np.array([[c == "#" for c in row] for row in head["walls"]], dtype=bool)
    toxicity = np.array(head["toxicity"], dtype=np.int16).reshape(walls.shape)
    return Arena(walls=walls, toxicity=toxicity, name=head["map"])


class ReplayWriter:
    """Server observer writing a replay to *path* line by line, then copying it to ``LAST.jsonl`` beside
    it.

    A write that fails during the game (disk full, ``/dev/full``) is one warning in the log; the writer then
    stops writing and the game goes on (``failed`` holds the reason).

    The round lines, written every round on the server's hot path, are encoded with msgspec; the header and
    the final line with :mod:`json` (non-ASCII map names escaped as ``\\uXXXX``). Both give the same compact
    bytes for what a round line holds (ASCII names, integers, booleans and ``ms`` floats)."""

    def __init__(self, path: str | os.PathLike[str], *, last: bool = True,
                 tee: Callable[[bytes], None] | None = None) -> None:
        self.path = Path(path)
        self.last = last
        self.tee = tee
        """Also handed every line as written (``\\n`` included), even once the file has failed: the web
        viewers' relay (:class:`arena.web.WebRelay`)."""
        self.failed: str | None = None
        self.partial: Path | None = None
        self._file: BinaryIO | None = None
        self._opened = False
        self._encode = msgspec.json.Encoder().encode

    def _fail(self, exc: OSError) -> None:
        self.failed = exc.strerror or str(exc)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        self.partial = _set_aside(self.path) if self._opened else None
        kept = f" (what was written is in {self.partial})" if self.partial else ""
        log.warning("cannot write the replay %s: %s; the game goes on without it%s", self.path, self.failed,
                    kept)

    def _write(self, obj: dict[str, Any]) -> None:
        self._write_line(json.dumps(obj, separators=(",", ":")).encode("ascii"))

    def _write_line(self, data: bytes) -> None:
        if self.tee is not None:
            self.tee(data + b"\n")
        if self._file is not None:
            try:
                self._file.write(data + b"\n")
                self._file.flush()
            except OSError as exc:
                self._fail(exc)

    def prepare(self) -> None:
        """Check, before a game starts, that the file can be created, creating nothing: an existing file is
        opened for appending (nothing written); else a file is made and removed again in the nearest folder
        of the path that exists (the missing folders are made at the first write, :meth:`open`).

        Raises OSError when that is impossible (a directory at *path*, a file where a folder should be, no
        permission, ...)."""
        folder = next(f for f in (self.path.parent, *self.path.parent.parents) if f.exists())
        if not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
        if self.path.exists() or folder == self.path.parent:
            existed = self.path.exists()
            with open(self.path, "a", encoding="utf-8"):
                pass
            if not existed:
                self.path.unlink()
            return
        fd, probe = tempfile.mkstemp(prefix=".replay-check.", dir=folder)
        os.close(fd)
        os.unlink(probe)

    def open(self) -> None:
        """Create the file, and the folders on its path that are missing. Raises OSError when that is
        impossible."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed in on_end/close
        self._opened = True

    def on_start(self, server: ArenaServer) -> None:
        if self._file is None and self.failed is None:
            try:
                self.open()
            except OSError as exc:
                self._fail(exc)
                return
        s = server.settings
        settings = {"move_ms": s.move_ms, "prep_ms": s.prep_ms, "host": s.host, "port": server.port}
        self._write(header(server.arena, server.playing, seed=s.seed, wire_ids=server.wire_ids,
                           settings=settings))

    def on_round(self, server: ArenaServer, result: RoundResult,
                 moves: list[tuple[int, str, str]]) -> None:
        self._write_line(self._encode(round_line(server.playing, result, moves, server.connected,
                                                 server.round_ms[-1] if server.round_ms else None)))

    def on_end(self, server: ArenaServer, table: list[TableRow]) -> None:
        final = {"type": "final", "rounds": server.playing.round, "table": [row.as_json() for row in table],
                 "diagnostics": [d.as_json() for d in server.diagnostics()]}
        if server.stopped:
            final["stopped"] = server.stopped
        self._write(final)
        self.close()
        if self.last and self.failed is None:
            last = self.path.parent / "LAST.jsonl"
            try:
                shutil.copyfile(self.path, last)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    last.unlink()  # a copy cut short is no replay
                log.warning("cannot copy the replay to %s: %s", last, exc.strerror or exc)

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._fail(exc)
            self._file = None


def _set_aside(path: Path) -> Path | None:
    """Rename a replay file cut short (a full disk, a file-size limit) to ``NAME.partial``, so that no
    truncated file is found under the replay's name; returns the new name, or None when *path* is no regular
    file (``/dev/full``) or cannot be renamed (then it is removed if it can be)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    partial = path.with_name(path.name + ".partial")
    try:
        os.replace(path, partial)
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return partial


@dataclass
class Replay:
    """A loaded replay: header, round lines in order, final line (None if the game was cut off).

    *cut_short*: None, or one line ``FILE:LINE: the last line is cut short; using the R rounds before it``
    when the file ends inside its last line (a game killed while writing, a full disk: ``FILE.partial``);
    that line is left out, and *final* is None."""

    path: Path
    header: dict[str, Any]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] | None = None
    cut_short: str | None = None

    @property
    def arena(self) -> Arena:
        return arena_of(self.header)

    def states(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(round, state) from the initial state (round 0) to the last recorded round; each state as the
        spectator window shows it (:func:`arena.server.spectator_state`: with the connection flags)."""
        yield 0, self.header["initial"]
        for line in self.rounds:
            yield line["round"], spectator_state(line["state"], line["connected"])


class _Bad(Exception):
    """What is wrong with one line (becomes ``FILE:LINE: message``)."""


class _NotJson(_Bad):
    """A line that is no JSON text; *ran_out*: the text ended before the JSON did (a line cut short)."""

    def __init__(self, message: str, *, ran_out: bool) -> None:
        super().__init__(message)
        self.ran_out = ran_out


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _Bad(message)


# The shapes and types of the lines, decoded with msgspec (their words and numbers: arena/shapes.py): a wrong
# one names its JSON path. What a type cannot say (positions on free cells, sizes that must agree with the
# header) is checked after decoding.


class HeaderLine(msgspec.Struct, tag_field="type", tag="header"):
    """Line 1."""

    format: int
    map: str
    walls: WallRows
    toxicity: list[list[Annotated[int, msgspec.Meta(ge=1, le=20)]]]
    seed: Count
    players: Annotated[int, msgspec.Meta(ge=1, le=16)]
    ids: list[Count]
    quiet_rounds: Annotated[int, msgspec.Meta(ge=1)]
    started: str
    initial: State


class RoundLine(msgspec.Struct, tag_field="type", tag="round"):
    """One line per round."""

    round: int
    moves: list[tuple[Count, MoveName, Direction]]
    connected: list[bool]
    changes: list[tuple[Count, Team, str]]
    catches: list[tuple[Count, list[Count]]]
    state: State
    refused: list[tuple[Count, Refusal]] = []
    ms: Annotated[float, msgspec.Meta(ge=0)] = 0.0


class FinalRow(msgspec.Struct):
    """A row of the final table."""

    id: Count
    points: PointsText
    catches: Count
    rank: Annotated[int, msgspec.Meta(ge=1)]
    switch_round: Count | None = None


class FinalLine(msgspec.Struct, tag_field="type", tag="final"):
    """The last line: the final table (the table so far, and why, when a signal stopped the game)."""

    rounds: Count
    table: list[FinalRow]
    stopped: Annotated[str, msgspec.Meta(min_length=1)] | None = None


Line = HeaderLine | RoundLine | FinalLine


def _check_state(state: State, players: int, walls: np.ndarray) -> None:
    _expect(len(state.players) == players, f"state: expected {players} players")
    height, width = walls.shape
    for index, p in enumerate(state.players):
        what = f"state: player {index}"
        _expect(p.id == index, f"{what}: expected id {index}")
        _expect(p.x < width and p.y < height and not walls[p.y, p.x], f"{what}: position is not a free cell "
                "of the map")


def _check_header(head: HeaderLine) -> np.ndarray:
    """Check what the header's types cannot say; return its wall grid."""
    rows = head.walls
    _expect(len({len(r) for r in rows}) == 1, "header: walls must be equal rows of '#' and ' '")
    walls = np.array([[c == "#" for c in row] for row in rows], dtype=bool)
    _expect(len(head.toxicity) == walls.shape[0] and all(len(r) == walls.shape[1] for r in head.toxicity),
            f"header: toxicity must match the walls: {walls.shape[0]} rows of {walls.shape[1]} "
            f"hundredths 1..20")
    _expect(head.players <= int((~walls).sum()),
            "header: players must be 1..16 and no more than the free cells")
    _expect(len(head.ids) == head.players,
            f"header: {len(head.ids)} wire ids for {head.players} player{'' if head.players == 1 else 's'} "
            "(one each)")
    _expect(len(set(head.ids)) == len(head.ids), "header: wire ids must be distinct")
    _check_state(head.initial, head.players, walls)
    return walls


def _check_round(line: RoundLine, head: HeaderLine, walls: np.ndarray, number: int) -> None:
    _expect(line.round == number, f"expected round {number}, got {line.round!r}")
    n = head.players
    movers: set[int] = set()
    for pid, _, _ in line.moves:
        _expect(pid < n and pid not in movers, f"moves: bad or repeated player {pid}")
        movers.add(pid)
    _expect(len(line.connected) == n, f"connected: expected {n} true/false values")
    _expect(all(c[0] < n for c in line.changes), "changes: expected [player, team, cause] lists")
    _expect(all(blue < n and all(r < n for r in reds) for blue, reds in line.catches),
            "catches: expected [blue, [reds]] lists")
    _expect(all(pid < n for pid, _ in line.refused), "refused: expected [player, reason] lists")
    _check_state(line.state, n, walls)


def _check_final(line: FinalLine, head: HeaderLine) -> None:
    ids = set(head.ids)
    _expect(all(row.id in ids for row in line.table), "final: table rows must name the header's ids")


def _decode(data: bytes) -> object:
    try:
        return msgspec.json.decode(data)
    except RecursionError:
        raise _Bad("nested too deeply to be a replay line") from None
    except msgspec.DecodeError as exc:
        what, _, where = str(exc).partition(" (byte ")
        # msgspec: "Input data was truncated", or a malformed number at the end ("12." cut from "12.5")
        ran_out = "truncated" in what or ("trailing" not in what and where[:-1].isdigit()
                                          and int(where[:-1]) >= len(data.rstrip()))
        raise _NotJson(f"not JSON ({what})", ran_out=ran_out) from None


def _typed(obj: object, kind: Any) -> Any:
    """*obj* as the line type *kind*; a wrong shape or type is a _Bad naming its JSON path."""
    try:
        return msgspec.convert(obj, type=kind)
    except msgspec.ValidationError as exc:
        where, what = validation_place(exc)
        raise _Bad(f"{where}: {what}") from None


def _json_text(value: object, limit: int = 40) -> str:
    """*value* as JSON text, as it stands in the file, cut to about *limit* characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _json_kind(value: object) -> str:
    """What a JSON value is, in the words of the JSON format: ``null``, ``an array``, ``a number``...; an
    object is ``an object without "type"``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _json_text(value)
    kinds = ((dict, 'an object without "type"'), (list, "an array"), (str, "a string"),
             (int | float, "a number"))
    return next((words for kind, words in kinds if isinstance(value, kind)), "another value")


def _line_kind(record: dict[str, Any]) -> str:
    """A line named by its ``"type"`` for a message: ``a "round" line``, or ``a line`` without one."""
    kind = record.get("type")
    return f"a {_json_text(kind)} line" if isinstance(kind, str) else "a line"


def _rounds_before(count: int) -> str:
    if count == 0:
        return "the start before it (no round)"
    return f"the {count} round{'' if count == 1 else 's'} before it"


_HEADER_START = b'{"type":"header"'
"""How the writer begins a header line: a first line cut short is recognised by it."""


def load(path: str | os.PathLike[str]) -> Replay:
    """Read and check a replay file: the shapes, types and ranges of every line, typed with msgspec, and
    what they must agree on (not yet the game's rules: see :func:`verify`). Raises ReplayError with one line,
    ``FILE:LINE: $.json.path: what was expected`` or ``FILE:LINE: message``, for anything unreadable or
    malformed; a leading UTF-8 byte-order mark is skipped.

    A file that ends inside its last line (the last non-empty line is JSON that ends too early, or ends
    inside a UTF-8 character) is read up to that line: the replay is cut off (``final`` None) and
    ``cut_short`` says so. Such a line anywhere else is an error, and so is a header line cut short
    (``FILE:1: the header line is cut short: there is nothing to replay``)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):  # /dev/zero was read until memory ran out
                raise ReplayError(f"{path}: cannot read: a device, not a replay file")
            raw = handle.read()
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read: {exc.strerror or exc}") from None
    raw = raw.removeprefix(BOM)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason != "unexpected end of data":  # else the file ends inside a character: a line cut short
            where = raw.count(b"\n", 0, exc.start) + 1
            raise ReplayError(f"{path}:{where}: not a text file") from None
    replay: Replay | None = None
    head: HeaderLine | None = None
    walls = np.zeros((0, 0), dtype=bool)
    lines = raw.split(b"\n")
    last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=0)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            try:
                obj = _decode(line)
            except _NotJson as exc:
                stripped = line.strip()
                after_final = replay is not None and replay.final is not None
                if number != last or not exc.ran_out or not stripped.startswith(b"{") or after_final:
                    raise  # every line begins with "{"; nothing follows the final line
                if replay is None:
                    if stripped.startswith(_HEADER_START) or _HEADER_START.startswith(stripped):
                        raise _Bad("the header line is cut short: there is nothing to replay") from None
                    raise
                replay.cut_short = (f"{path}:{number}: the last line is cut short; using "
                                    f"{_rounds_before(len(replay.rounds))}")
                break
            record: dict[str, Any] = obj if isinstance(obj, dict) else {}
            kind = record.get("type")
            if replay is None or head is None:
                if kind != "header" or record.get("format") != FORMAT:
                    raise ReplayError(f"{path}:{number}: expected an arena replay header (format {FORMAT})")
                head = _typed(obj, HeaderLine)
                walls = _check_header(head)
                replay = Replay(path, record)
            elif replay.final is not None:
                raise _Bad(f"{_line_kind(record)} after the final table (nothing follows it)")
            elif kind == "round":
                _check_round(_typed(obj, RoundLine), head, walls, len(replay.rounds) + 1)
                replay.rounds.append(record)
            elif kind == "final":
                _check_final(_typed(obj, FinalLine), head)
                replay.final = record
            elif "type" not in record:  # not an object, or one without a "type"
                raise _Bad(f'$: expected an object with "type" "round" or "final", got {_json_kind(obj)}')
            else:
                raise _Bad(f'$.type: expected "round" or "final", got {_json_text(kind)}')
        except _Bad as exc:
            raise ReplayError(f"{path}:{number}: {exc}") from None
    if replay is None:
        raise ReplayError(f"{path}:1: empty file (expected an arena replay header)")
    return replay


@dataclass
class Verdict:
    """What :func:`verify` found. *rounds*: the rounds whose recorded state differs from the re-simulated one
    (0 = the initial placement); *ending*: one-line descriptions of what is wrong with the end of the game
    (it does not finish, the final table is missing or differs from the re-simulated one). Both empty =
    conformant. *details*: one line per difference in those rounds, naming the round, the player and the
    field (``round 12: player 3 energy: recorded 9870, re-simulated 9868``)."""

    rounds: list[int] = field(default_factory=list)
    ending: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.rounds and not self.ending


def differences(number: int, recorded: dict[str, Any], simulated: dict[str, Any],
                ids: list[int]) -> list[str]:
    """Lines naming what differs between a *recorded* and a *simulated* state of round *number*: the round
    counters, then per player (``player INDEX (id WIRE)``) each field that differs."""
    out = []
    where = "initial state" if number == 0 else f"round {number}"
    for key, value in simulated.items():
        if key != "players" and recorded.get(key) != value:
            out.append(f"{where}: {key}: recorded {recorded.get(key)!r}, re-simulated {value!r}")
    players = recorded.get("players", [])
    for index, want in enumerate(simulated["players"]):
        got = players[index] if index < len(players) else {}
        for key, value in want.items():
            if got.get(key) != value:
                out.append(f"{where}: player {index} (id {ids[index]}) {key}: recorded {got.get(key)!r}, "
                           f"re-simulated {value!r}")
    return out


def _check_ending(replay: Replay, game: Game) -> list[str]:
    """Compare the end of *replay* with the re-simulated *game* (after all recorded rounds)."""
    stopped = replay.final is not None and replay.final.get("stopped")
    if not game.is_over() and not stopped:
        return [f"the game does not finish: the replay stops after round {game.round} with blue players left"]
    if replay.final is None:
        return [f"no final table (the game finished in round {game.round})"]
    problems = []
    if replay.final["rounds"] != game.round:
        problems.append(f"final: rounds {replay.final['rounds']!r}, re-simulated {game.round}")
    expected = [row.as_json() for row in final_table(game, replay.header["ids"])]
    recorded = replay.final["table"]
    if len(recorded) != len(expected):
        problems.append(f"final table: {len(recorded)} rows, re-simulated {len(expected)}")
    for number, (got, want) in enumerate(zip(recorded, expected, strict=False), 1):
        for key, value in want.items():
            if got.get(key) != value:
                problems.append(f"final table row {number}: {key} {got.get(key)!r}, re-simulated {value!r}")
    return problems


def _rules_state(state: dict[str, Any]) -> dict[str, Any]:
    """A recorded state without the ``connected`` flags that older replays kept in each player."""
    if not any("connected" in p for p in state["players"]):
        return state
    return {**state, "players": [{k: v for k, v in p.items() if k != "connected"} for p in state["players"]]}


def verify(replay: Replay) -> Verdict:
    """Re-simulate *replay* from its header (seed, map, F) and recorded moves; compare every recorded state,
    whether the game finishes, and the final table (spec §4) with the re-simulation."""
    head = replay.header
    game = Game(replay.arena, head["players"], random.Random(head["seed"]), quiet_rounds=head["quiet_rounds"])
    ids = head["ids"]
    verdict = Verdict()
    initial = _rules_state(head["initial"])
    if game.snapshot() != initial:
        verdict.rounds.append(0)
        verdict.details += differences(0, initial, game.snapshot(), ids)
    for line in replay.rounds:
        if game.is_over():
            verdict.rounds.append(line["round"])
            verdict.details.append(f"round {line['round']}: recorded after the game was over")
            continue
        result = game.play_round([(pid, direction, facing) for pid, direction, facing in line["moves"]])
        details = differences(line["round"], _rules_state(line["state"]), game.snapshot(), ids)
        refused = [[pid, result.reasons[pid]] for pid in result.refused]
        if "refused" in line and line["refused"] != refused:
            details.append(f"round {line['round']}: refused: recorded {line['refused']!r}, "
                           f"re-simulated {refused!r}")
        if details:
            verdict.rounds.append(line["round"])
            verdict.details += details
    if not verdict.rounds:
        verdict.ending = _check_ending(replay, game)
    return verdict
