"""Replays: one JSON object per line (spec/arena.md §4).

Line 1, ``{"type": "header", ...}``: format, map name, walls (normalised rows), toxicity (rows of hundredths),
seed, number of players, their wire ids, F (``quiet_rounds``), MAXR, the timings, the start time and the
initial state (:meth:`arena.rules.Game.snapshot`). Then one ``{"type": "round", ...}`` line per round: the
round number, the MOVEs received in arrival order as ``[player, direction, facing]``, which players were still
connected, the team changes and catches, and the resulting state. Last, ``{"type": "final", "table": [...]}``.

Re-simulating the header and the recorded moves (:func:`verify`) reproduces every state line exactly.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

from arena.mapfile import normalised_text
from arena.rules import Arena, Game, RoundResult

if TYPE_CHECKING:
    from arena.server import ArenaServer, TableRow

FORMAT = 1


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


def round_line(game: Game, result: RoundResult, moves: list[tuple[int, str, str]]) -> dict:
    """The line of a round just played by *game* (state after the round)."""
    return {
        "type": "round", "round": result.round,
        "moves": [[pid, direction, facing] for pid, direction, facing in moves],
        "connected": [p.connected for p in game.players],
        "changes": [[c.id, c.team, c.cause] for c in result.changes],
        "catches": [[blue, list(reds)] for blue, reds in result.catches],
        "state": game.snapshot(),
    }


def arena_of(head: dict) -> Arena:
    """The :class:`Arena` a header describes (walls from its rows, toxicity in hundredths)."""
    walls = np.array([[c == "#" for c in row] for row in head["walls"]], dtype=bool)
    toxicity = np.array(head["toxicity"], dtype=np.int16).reshape(walls.shape)
    return Arena(walls=walls, toxicity=toxicity, name=head["map"])


class ReplayWriter:
    """Server observer writing a replay to *path* line by line, then copying it to ``LAST.jsonl`` beside
    it."""

    def __init__(self, path: str | os.PathLike[str], *, last: bool = True) -> None:
        self.path = Path(path)
        self.last = last
        self._file: TextIO | None = None

    def _write(self, obj: dict) -> None:
        if self._file is not None:
            self._file.write(json.dumps(obj, separators=(",", ":")) + "\n")
            self._file.flush()

    def prepare(self) -> None:
        """Check, before a game starts, that the file can be created: the directory is made and the file
        opened for appending (nothing written; a file that did not exist is removed again).

        Raises OSError when that is impossible (a directory at *path*, no permission, ...)."""
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
        if self._file is None:
            self.open()
        s = server.settings
        settings = {"move_ms": s.move_ms, "prep_ms": s.prep_ms, "host": s.host, "port": server.port}
        self._write(header(server.arena, server.game, seed=s.seed, wire_ids=server.wire_ids,
                           settings=settings))

    def on_round(self, server: ArenaServer, result: RoundResult,
                 moves: list[tuple[int, str, str]]) -> None:
        self._write(round_line(server.game, result, moves))

    def on_end(self, server: ArenaServer, table: list[TableRow]) -> None:
        self._write({"type": "final", "rounds": server.game.round, "table": [row.as_json() for row in table]})
        self.close()
        if self.last:
            shutil.copyfile(self.path, self.path.parent / "LAST.jsonl")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
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
        """(round, state) from the initial state (round 0) to the last recorded round."""
        yield 0, self.header["initial"]
        for line in self.rounds:
            yield line["round"], line["state"]


def load(path: str | os.PathLike[str]) -> Replay:
    """Read a replay file. Raises ReplayError (``FILE:LINE: message``) for anything unreadable."""
    path = Path(path)
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"{path}:0: cannot read: {exc.strerror or exc}") from None
    replay: Replay | None = None
    with handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ReplayError(f"{path}:{number}: not JSON ({exc.msg})") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if replay is None:
                if kind != "header" or obj.get("format") != FORMAT:
                    raise ReplayError(f"{path}:{number}: expected an arena replay header (format {FORMAT})")
                replay = Replay(path, obj)
            elif kind == "round":
                replay.rounds.append(obj)
            elif kind == "final":
                replay.final = obj
            else:
                raise ReplayError(f"{path}:{number}: unexpected line type {kind!r}")
    if replay is None:
        raise ReplayError(f"{path}:1: empty file (expected an arena replay header)")
    return replay


def verify(replay: Replay) -> list[int]:
    """Re-simulate *replay* from its header (seed, map, F) and recorded moves; return the rounds whose
    recorded state differs from the re-simulated one (round 0 = the initial placement). Empty = conformant."""
    head = replay.header
    game = Game(replay.arena, head["players"], random.Random(head["seed"]), quiet_rounds=head["quiet_rounds"])
    bad = [] if game.snapshot() == head["initial"] else [0]
    for line in replay.rounds:
        for player, connected in zip(game.players, line["connected"], strict=True):
            player.connected = connected
        game.play_round([(pid, direction, facing) for pid, direction, facing in line["moves"]])
        if game.snapshot() != line["state"]:
            bad.append(line["round"])
    return bad
