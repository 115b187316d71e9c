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

import errno
import json
import logging
import os
import random
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

from arena.mapfile import normalised_text
from arena.rules import BLUE, DIRECTIONS, MOVES, RED, REFUSALS, START_ENERGY, Arena, Game, RoundResult
from arena.server import final_table, spectator_state

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
    """``replay_dir()/YYYYmmdd-HHMMSS-MAP-sSEED.jsonl`` for a game started at *when* (local time)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return replay_dir() / f"{stamp}-{map_name}-s{seed}.jsonl"


def header(arena: Arena, game: Game, *, seed: int, wire_ids: list[int], settings: dict) -> dict:
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
               connected: list[bool], ms: float | None = None) -> dict:
    """The line of a round just played by *game* (state after the round); *connected*: per player, whether its
    client was connected in that round; *ms*: the round's duration."""
    line = {
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


def arena_of(head: dict) -> Arena:
    """The :class:`Arena` a header describes (walls from its rows, toxicity in hundredths)."""
    walls = np.array([[c == "#" for c in row] for row in head["walls"]], dtype=bool)
    toxicity = np.array(head["toxicity"], dtype=np.int16).reshape(walls.shape)
    return Arena(walls=walls, toxicity=toxicity, name=head["map"])


class ReplayWriter:
    """Server observer writing a replay to *path* line by line, then copying it to ``LAST.jsonl`` beside
    it.

    A write that fails during the game (disk full, ``/dev/full``) is one warning in the log; the writer then
    stops writing and the game goes on (``failed`` holds the reason)."""

    def __init__(self, path: str | os.PathLike[str], *, last: bool = True) -> None:
        self.path = Path(path)
        self.last = last
        self.failed: str | None = None
        self._file: TextIO | None = None

    def _fail(self, exc: OSError) -> None:
        self.failed = exc.strerror or str(exc)
        log.warning("cannot write the replay %s: %s; the game goes on without it", self.path, self.failed)
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None

    def _write(self, obj: dict) -> None:
        if self._file is not None:
            try:
                self._file.write(json.dumps(obj, separators=(",", ":")) + "\n")
                self._file.flush()
            except OSError as exc:
                self._fail(exc)

    def prepare(self) -> None:
        """Check, before a game starts, that the file can be created: the directory is made and the file
        opened for appending (nothing written; a file that did not exist is removed again).

        Raises OSError when that is impossible (a directory at *path*, a file where a folder should be, no
        permission, ...)."""
        for folder in (self.path.parent, *self.path.parent.parents):
            if folder.exists():
                if not folder.is_dir():
                    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
                break
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        with open(self.path, "a", encoding="utf-8"):
            pass
        if not existed:
            self.path.unlink()

    def open(self) -> None:
        """Create the file. Raises OSError when that is impossible."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed in on_end/close

    def on_start(self, server: ArenaServer) -> None:
        if self._file is None and self.failed is None:
            try:
                self.open()
            except OSError as exc:
                self._fail(exc)
                return
        s = server.settings
        settings = {"move_ms": s.move_ms, "prep_ms": s.prep_ms, "host": s.host, "port": server.port}
        self._write(header(server.arena, server.game, seed=s.seed, wire_ids=server.wire_ids,
                           settings=settings))

    def on_round(self, server: ArenaServer, result: RoundResult,
                 moves: list[tuple[int, str, str]]) -> None:
        self._write(round_line(server.game, result, moves, server.connected,
                               server.round_ms[-1] if server.round_ms else None))

    def on_end(self, server: ArenaServer, table: list[TableRow]) -> None:
        final = {"type": "final", "rounds": server.game.round, "table": [row.as_json() for row in table],
                 "diagnostics": [d.as_json() for d in server.diagnostics()]}
        if server.stopped:
            final["stopped"] = server.stopped
        self._write(final)
        self.close()
        if self.last and self.failed is None:
            try:
                shutil.copyfile(self.path, self.path.parent / "LAST.jsonl")
            except OSError as exc:
                log.warning("cannot copy the replay to %s: %s", self.path.parent / "LAST.jsonl",
                            exc.strerror or exc)

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._fail(exc)
            self._file = None


@dataclass
class Replay:
    """A loaded replay: header, round lines in order, final line (None if the game was cut off)."""

    path: Path
    header: dict
    rounds: list[dict] = field(default_factory=list)
    final: dict | None = None

    @property
    def arena(self) -> Arena:
        return arena_of(self.header)

    def states(self) -> Iterator[tuple[int, dict]]:
        """(round, state) from the initial state (round 0) to the last recorded round; each state as the
        spectator window shows it (:func:`arena.server.spectator_state`: with the connection flags)."""
        yield 0, self.header["initial"]
        for line in self.rounds:
            yield line["round"], spectator_state(line["state"], line["connected"])


class _Bad(Exception):
    """What is wrong with one line (becomes ``FILE:LINE: message``)."""


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _Bad(message)


def _is_int(value: object, low: int | None = None, high: int | None = None) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and (low is None or value >= low)
            and (high is None or value <= high))


def _is_fraction(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        Fraction(value)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _check_state(state: object, head: dict, walls: np.ndarray) -> None:
    _expect(isinstance(state, dict) and _is_int(state.get("round"), 0)
            and _is_int(state.get("max_rounds"), 0), "state: expected round and max_rounds")
    players = state.get("players")
    _expect(isinstance(players, list) and len(players) == head["players"],
            f"state: expected {head['players']} players")
    height, width = walls.shape
    for index, p in enumerate(players):
        what = f"state: player {index}"
        _expect(isinstance(p, dict) and p.get("id") == index, f"{what}: expected id {index}")
        _expect(_is_int(p.get("x"), 0, width - 1) and _is_int(p.get("y"), 0, height - 1)
                and not walls[p["y"], p["x"]], f"{what}: position is not a free cell of the map")
        _expect(p.get("facing") in DIRECTIONS, f"{what}: unknown facing {p.get('facing')!r}")
        _expect(p.get("team") in (BLUE, RED), f"{what}: unknown team {p.get('team')!r}")
        _expect(_is_int(p.get("energy"), 0, START_ENERGY), f"{what}: energy must be 0..{START_ENERGY}")
        _expect(_is_fraction(p.get("points")), f"{what}: points must be \"num/den\"")
        _expect(p.get("switch_round") is None or _is_int(p.get("switch_round"), 0),
                f"{what}: bad switch_round")
        _expect(_is_int(p.get("catches"), 0), f"{what}: bad catches")


def _check_header(head: dict) -> np.ndarray:
    """Check a header's fields; return its wall grid."""
    _expect(isinstance(head.get("map"), str), "header: expected the map name")
    rows = head.get("walls")
    _expect(isinstance(rows, list) and rows and all(isinstance(r, str) for r in rows)
            and len({len(r) for r in rows}) == 1 and len(rows[0]) > 0
            and all(set(r) <= {"#", " "} for r in rows), "header: walls must be equal rows of '#' and ' '")
    walls = np.array([[c == "#" for c in row] for row in rows], dtype=bool)
    tox = head.get("toxicity")
    _expect(isinstance(tox, list) and len(tox) == walls.shape[0]
            and all(isinstance(r, list) and len(r) == walls.shape[1] and all(_is_int(v, 1, 20) for v in r)
                    for r in tox),
            f"header: toxicity must match the walls: {walls.shape[0]} rows of {walls.shape[1]} "
            f"hundredths 1..20")
    _expect(_is_int(head.get("seed"), 0), "header: expected a seed >= 0")
    _expect(_is_int(head.get("players"), 1, min(16, int((~walls).sum()))),
            "header: players must be 1..16 and no more than the free cells")
    ids = head.get("ids")
    _expect(isinstance(ids, list) and len(ids) == head["players"] and all(_is_int(i, 0) for i in ids),
            f"header: expected {head['players']} wire ids")
    _expect(_is_int(head.get("quiet_rounds"), 1), "header: quiet_rounds must be >= 1")
    _expect(isinstance(head.get("started"), str), "header: expected the start time")
    _check_state(head.get("initial"), head, walls)
    return walls


def _check_round(line: dict, head: dict, walls: np.ndarray, number: int) -> None:
    _expect(line.get("round") == number, f"expected round {number}, got {line.get('round')!r}")
    n = head["players"]
    moves = line.get("moves")
    _expect(isinstance(moves, list), "moves: expected a list")
    movers = set()
    for move in moves:
        _expect(isinstance(move, list) and len(move) == 3, f"moves: expected [player, direction, facing], "
                                                           f"got {move!r}")
        pid, direction, facing = move
        _expect(_is_int(pid, 0, n - 1) and pid not in movers, f"moves: bad or repeated player {pid!r}")
        _expect(direction in MOVES, f"moves: unknown direction {direction!r}")
        _expect(facing in DIRECTIONS, f"moves: unknown facing {facing!r}")
        movers.add(pid)
    connected = line.get("connected")
    _expect(isinstance(connected, list) and len(connected) == n
            and all(isinstance(c, bool) for c in connected), f"connected: expected {n} true/false values")
    changes = line.get("changes")
    _expect(isinstance(changes, list) and all(
        isinstance(c, list) and len(c) == 3 and _is_int(c[0], 0, n - 1) and c[1] in (BLUE, RED)
        and isinstance(c[2], str) for c in changes), "changes: expected [player, team, cause] lists")
    catches = line.get("catches")
    _expect(isinstance(catches, list) and all(
        isinstance(c, list) and len(c) == 2 and _is_int(c[0], 0, n - 1) and isinstance(c[1], list)
        and all(_is_int(r, 0, n - 1) for r in c[1]) for c in catches),
        "catches: expected [blue, [reds]] lists")
    refused = line.get("refused", [])
    _expect(isinstance(refused, list) and all(
        isinstance(r, list) and len(r) == 2 and _is_int(r[0], 0, n - 1) and r[1] in REFUSALS
        for r in refused),
        f"refused: expected [player, reason] lists, reasons {', '.join(REFUSALS)}")
    ms = line.get("ms", 0)
    _expect(isinstance(ms, int | float) and not isinstance(ms, bool) and ms >= 0,
            "ms: expected the round's duration in milliseconds")
    _check_state(line.get("state"), head, walls)


def _check_final(line: dict, head: dict) -> None:
    table = line.get("table")
    ids = set(head["ids"])
    _expect(_is_int(line.get("rounds"), 0), "final: expected the number of rounds")
    _expect(isinstance(table, list) and all(
        isinstance(r, dict) and r.get("id") in ids and _is_fraction(r.get("points"))
        and (r.get("switch_round") is None or _is_int(r.get("switch_round"), 0))
        and _is_int(r.get("catches"), 0) and _is_int(r.get("rank"), 1) for r in table),
        "final: expected table rows of id, points, switch_round, catches, rank")


def load(path: str | os.PathLike[str]) -> Replay:
    """Read and check a replay file: field types, sizes and ranges of every line (not yet the game's rules:
    see :func:`verify`). Raises ReplayError (``FILE:LINE: message``) for anything unreadable or malformed."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ReplayError(f"{path}:{line}: not a text file") from None
    replay: Replay | None = None
    walls = np.zeros((0, 0), dtype=bool)
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}:{number}: not JSON ({exc.msg})") from None
        kind = obj.get("type") if isinstance(obj, dict) else None
        try:
            if replay is None:
                if kind != "header" or obj.get("format") != FORMAT:
                    raise ReplayError(f"{path}:{number}: expected an arena replay header (format {FORMAT})")
                walls = _check_header(obj)
                replay = Replay(path, obj)
            elif replay.final is not None:
                raise _Bad(f"a {kind!r} line after the final table")
            elif kind == "round":
                _check_round(obj, replay.header, walls, len(replay.rounds) + 1)
                replay.rounds.append(obj)
            elif kind == "final":
                _check_final(obj, replay.header)
                replay.final = obj
            else:
                raise _Bad(f"unexpected line type {kind!r}")
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


def differences(number: int, recorded: dict, simulated: dict, ids: list[int]) -> list[str]:
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


def _rules_state(state: dict) -> dict:
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
