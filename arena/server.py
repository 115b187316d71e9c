"""The arena game server: asyncio streams speaking the 2010 wire protocol (spec/arena.md §3, §4, §2.9).

One :class:`ArenaServer` plays one game: it accepts clients (ids 0, 1, 2, … in accept order, ``ID`` and
``ID_OKAY`` handshake), waits until ``settings.players`` have joined, hands them ``MAP <path>`` of a
normalised copy of the map, waits ``prep_ms``, then runs rounds until :meth:`arena.rules.Game.is_over`. Each
round it sends every connected player, in rotating order starting at index ``r mod N``, ``SET``,
``SEE_PLAYER``* (team-mates and visible opponents by id), ``TOXIC``, ``LIFE``, the previous round's
``TEAMCHANGE``* and ``START r``; then it collects ``MOVE``s in arrival order until every connected player has
moved or ``move_ms`` has passed.

Robustness (§3): malformed messages, unknown commands, a second ``MOVE`` and ``MOVE``s outside a round are
ignored and logged; a message over 256 bytes, more than 64 messages in a round, a client that has not answered
``ID`` within ``id_timeout_ms`` or one that stops reading are disconnected; a disconnected player stays on the
board as an idle body. Nothing a client does can make a round last longer than its deadline.

Observers (spectator windows, the replay writer) get ``on_start(server)``, ``on_round(server, result, moves)``
and ``on_end(server, table)`` calls on the event loop; they must not block.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import random
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from arena import look
from arena import protocol as wire
from arena.mapfile import normalised_text
from arena.rules import RED, REFUSALS, START_ENERGY, Arena, Game, RoundResult, format_points
from arena.rules import TeamChange as RuleTeamChange
from arena.vision import visibility

log = logging.getLogger("arena.server")

WRITE_BUFFER_LIMIT = 1 << 20
"""Bytes queued for a client that does not read; beyond this it is disconnected (never stalls the game)."""
LOGGED_IGNORED = 3
"""Ignored messages logged one by one per client; later ones are only counted (one summary line when the
client leaves or the game ends)."""
LOGGED_MISSING = 3
"""Rounds without a MOVE in time logged one by one per client; later ones are only counted, as ignored
messages are (:data:`LOGGED_IGNORED`): a silent bot is not one line per round."""


@dataclass
class Settings:
    """Server settings; times in milliseconds (spec §2.9, §6 defaults)."""

    players: int = 4
    host: str = "127.0.0.1"
    port: int = 15000
    seed: int = 0
    move_ms: int = 5000
    prep_ms: int = 5000
    quiet_rounds: int = 30
    id_timeout_ms: int = 10000
    ping_ms: int = 2000
    seat_ports: bool = False
    """Also listen on one free port per seat (``ArenaServer.seat_ports``): a client joining through seat k's
    port plays as player k (start cell k of the seed), whenever it joins; tournaments start all bots at once
    and still seat them by the seed; seat k's first client has wire id k, and its idle body the id of the
    seat's latest client (k unless one came back after leaving). A seat's port takes one connection at a
    time. Clients of the main port take the seats left, in joining order."""
    round_pause_ms: int = 0
    """Pause between the end of a round's MOVE window and the next round's messages, the time spent applying
    the round counted in (0 = next round at once); ``arena play`` uses it to keep a game watchable. MOVEs
    arriving during the pause are ignored."""


@dataclass
class TableRow:
    """One line of the final table (spec §4): wire id, exact points, switch round (None = blue), rank."""

    id: int
    points: Fraction
    switch_round: int | None
    catches: int
    rank: int

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "points": f"{self.points.numerator}/{self.points.denominator}",
                "shown": format_points(self.points), "switch_round": self.switch_round,
                "catches": self.catches, "rank": self.rank}


def format_table(rows: Sequence[TableRow]) -> str:
    """The final table as printed by ``arena serve``: id, points (2 decimals), switch round, catches, rank."""
    lines = [f"{'id':>3} {'points':>9} {'switch':>6} {'catches':>7} {'rank':>4}"]
    for row in rows:
        switch = "-" if row.switch_round is None else str(row.switch_round)
        lines.append(f"{row.id:>3} {format_points(row.points):>9} {switch:>6} {row.catches:>7} {row.rank:>4}")
    return "\n".join(lines)


def final_table(game: Game, wire_ids: Sequence[int]) -> list[TableRow]:
    """The final table of a finished *game* (spec §4), sorted by rank then wire id; *wire_ids* maps player
    indices to the ids the clients know."""
    by_id = {p.id: p for p in game.players}
    rows = [TableRow(wire_ids[pid], points, by_id[pid].switch_round, by_id[pid].catches, rank)
            for rank, pid, points in game.standings()]
    rows.sort(key=lambda r: (r.rank, r.id))
    return rows


def send_order(round_number: int, n: int) -> list[int]:
    """Player indices in the order round *round_number*'s messages go out: from ``r mod N`` on (§2.9)."""
    return [(round_number + k) % n for k in range(n)]


def round_messages(game: Game, index: int, seen: dict[int, set[int]], changes: Sequence[RuleTeamChange],
                   wire_ids: Sequence[int]) -> list[wire.Message]:
    """The messages for player *index* before round ``game.round + 1``, in the normative order of §3.

    ``SET``; ``SEE_PLAYER`` for every team-mate and every opponent in ``seen[index]``, ids ascending;
    ``TOXIC`` of the own cell; ``LIFE`` (own energy); ``TEAMCHANGE`` for each of *changes* (the previous
    round's), ids ascending; ``START``. *wire_ids* maps player indices to the ids the clients know.
    """
    me = game.players[index]
    out: list[wire.Message] = [wire.Set(me.x, me.y, me.facing)]
    for other in sorted(game.players, key=lambda p: wire_ids[p.id]):
        if other.id != index and (other.team == me.team or other.id in seen.get(index, ())):
            out.append(wire.SeePlayer(other.x, other.y, other.facing, wire_ids[other.id]))
    out.append(wire.Toxic(me.x, me.y, int(game.arena.toxicity[me.y, me.x])))
    out.append(wire.Life(me.energy, wire_ids[index]))
    out.extend(wire.TeamChange(c.team, wire_ids[c.id]) for c in sorted(changes, key=lambda c: wire_ids[c.id]))
    out.append(wire.Start(game.round + 1))
    return out


@functools.cache
def _energy_texts() -> list[str]:
    """Every energy value a player can have (hundredths, 0 … START_ENERGY) as the wire writes it:
    ``_energy_texts()[9873]`` = "98.73"."""
    return [wire.format_hundredths(energy) for energy in range(START_ENERGY + 1)]


class _ToxicTexts(dict[tuple[int, int], str]):
    """``TOXIC x,y value|`` of the cells (x, y) of one map, each made on first use and kept (one per arena:
    :meth:`Arena.derived`)."""

    def __init__(self, arena: Arena) -> None:
        super().__init__()
        self.rows = arena.toxicity_rows

    def __missing__(self, cell: tuple[int, int]) -> str:
        x, y = cell
        text = self[cell] = f"TOXIC {x},{y} {wire.format_hundredths(self.rows[y][x])}|"
        return text


@functools.lru_cache(maxsize=16)
def _wire_order(wire_ids: tuple[int, ...]) -> list[int]:
    """Player indices sorted by wire id."""
    return sorted(range(len(wire_ids)), key=wire_ids.__getitem__)


def round_payloads(game: Game, seen: dict[int, set[int]], changes: Sequence[RuleTeamChange],
                   wire_ids: Sequence[int]) -> list[bytes]:
    """Every player's wire bytes before round ``game.round + 1``, by player index: the same messages as
    :func:`round_messages`, encoded (the server's hot path).

    Each player's ``SEE_PLAYER`` text is made once for everyone, and each team's texts once in wire-id
    order: a player that sees no opponent gets its team's text without its own piece. The ``TOXIC`` text of
    a cell and the wire texts of the energy values are made once and kept."""
    players = game.players
    by_wire = _wire_order(tuple(wire_ids))
    see = [f"SEE_PLAYER {p.x},{p.y} {p.facing} {wire_ids[k]}|" for k, p in enumerate(players)]
    teams = [p.team for p in players]
    team_text = {team: "".join([see[k] for k in by_wire if teams[k] == team]) for team in set(teams)}
    ordered = sorted(changes, key=lambda c: wire_ids[c.id])
    tail = "".join([f"TEAMCHANGE {c.team} {wire_ids[c.id]}|" for c in ordered]) + f"START {game.round + 1}|"
    toxic = game.arena.derived(_ToxicTexts)
    energies = _energy_texts()
    out: list[bytes] = []
    for k, me in enumerate(players):
        team = teams[k]
        opponents = seen.get(k)
        if opponents:
            listed = "".join([see[j] for j in by_wire if j != k and (teams[j] == team or j in opponents)])
        else:  # a SEE_PLAYER text names its player's id: it is in its team's text once
            listed = team_text[team].replace(see[k], "", 1)
        energy = energies[me.energy] if 0 <= me.energy <= START_ENERGY else wire.format_hundredths(me.energy)
        out.append(f"SET {me.x},{me.y} {me.facing}|{listed}{toxic[me.x, me.y]}LIFE {energy} "
                   f"{wire_ids[k]}|{tail}".encode("ascii"))
    return out


def spectator_state(snapshot: dict[str, Any], connected: Sequence[bool]) -> dict[str, Any]:
    """A rules snapshot (:meth:`arena.rules.Game.snapshot`) with each player's ``connected`` flag added, as
    the spectator window shows it (connections are the server's state, not the rules')."""
    players = [{**p, "connected": bool(c)} for p, c in zip(snapshot["players"], connected, strict=True)]
    return {**snapshot, "players": players}


class Observer(Protocol):
    def on_start(self, server: ArenaServer) -> None: ...
    def on_round(self, server: ArenaServer, result: RoundResult,
                 moves: list[tuple[int, str, str]]) -> None: ...
    def on_end(self, server: ArenaServer, table: list[TableRow]) -> None: ...


class ServerError(Exception):
    """A one-line reason the server cannot run (port in use, run directory not writable)."""


@dataclass
class Diagnostics:
    """What one bot did wrong in a game (issue-free bots have all zeros).

    ``refused``: moves refused per reason (:data:`arena.rules.REFUSALS`: wall, player, corner); ``late``:
    MOVEs that answered a ``START`` after that round's deadline; ``missing``: rounds in which the bot was
    connected but had no valid MOVE by the deadline; ``ignored``: messages ignored (malformed, unknown, a
    second MOVE, a MOVE outside a round); ``joined``: False for a seat whose bot never joined;
    ``left_round``: the round during which the connection ended before the game did (0 = during the
    preparation), with ``left_reason``.
    """

    id: int
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REFUSALS, 0))
    late: int = 0
    missing: int = 0
    ignored: int = 0
    joined: bool = True
    silent_since: int | None = None
    """The first round of the run of rounds without a valid MOVE that lasts to now (None: it moved in the
    last round played); a bot still connected but silent at the end of the game hangs."""
    left_round: int | None = None
    left_reason: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "refused": dict(self.refused), "late": self.late, "missing": self.missing,
                "ignored": self.ignored, "joined": self.joined, "silent_since": self.silent_since,
                "left_round": self.left_round,
                "left_reason": self.left_reason}

    def summary(self) -> str:
        """One line for the server log: ``refused 3 (wall 2, player 1, corner 0), late 1, ...``."""
        refused = ", ".join(f"{reason} {count}" for reason, count in self.refused.items())
        text = (f"refused {sum(self.refused.values())} ({refused}), late {self.late}, "
                f"missing {self.missing}, ignored {self.ignored}")
        if not self.joined:
            text += ", never joined"
        elif self.left_round is not None:
            text += f", left in round {self.left_round} ({self.left_reason})"
        return text


@dataclass(eq=False)
class _Client:
    id: int
    reader: asyncio.StreamReader | None
    writer: asyncio.StreamWriter | None
    splitter: wire.Splitter = field(default_factory=wire.Splitter)
    okayed: bool = False
    alive: bool = True
    player: int | None = None
    count: int = 0
    ignored: int = 0
    unanswered: int = 0
    """Rounds whose deadline passed without a MOVE from this client (:data:`LOGGED_MISSING`)."""
    task: asyncio.Task[None] | None = None
    id_timer: asyncio.TimerHandle | None = None
    seat: int | None = None
    starts: list[int] = field(default_factory=list)
    """Round numbers of the ``START``s sent, in order."""
    answered: int = 0
    """How many of those ``START``s a MOVE has answered (the k-th MOVE answers the k-th START)."""
    diagnostics: Diagnostics = field(init=False)

    def __post_init__(self) -> None:
        self.diagnostics = Diagnostics(self.id)


MAP_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
"""What the map copy's name may not contain: 2010 bots split messages on spaces and commas."""


COPY_NAME_CHARS = 64
"""Longest :func:`copy_name`: file names made from it (map copy, replay, tournament folders) add up to 40
characters and must stay within the file system's 255 bytes whatever the map is called."""


def copy_name(map_name: str) -> str:
    """The prefix of the map copy's file name: *map_name* with every run of characters outside
    ``[A-Za-z0-9._-]`` replaced by ``_`` ("my office,v2" -> "my_office_v2"; "arena" when nothing is left),
    cut to :data:`COPY_NAME_CHARS`."""
    return MAP_NAME_CHARS.sub("_", map_name).strip("_")[:COPY_NAME_CHARS] or "arena"


PROTOCOL_UNSAFE = re.compile(r"[\s,|]")
"""What a path on the ``MAP`` line must not hold: a 2010 bot splits the server's messages on spaces and commas
(and ``|`` ends a message)."""


def run_dir() -> Path:
    """Where the normalised map copies for bots go (made mode 0755; the copies are 0644): the first of
    ``$XDG_RUNTIME_DIR/arena``, ``<tmp>/arena-<uid>`` (``$TMPDIR``), ``/tmp/arena-<uid>`` and
    ``/var/tmp/arena-<uid>`` whose full path holds no space, comma or ``|`` (:data:`PROTOCOL_UNSAFE`), so that
    the ``MAP`` line stays one word for every bot. Raises ServerError when none does."""
    candidates = []
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        candidates.append(Path(base) / "arena")
    uid = os.getuid()
    candidates += [Path(folder) / f"arena-{uid}" for folder in (tempfile.gettempdir(), "/tmp", "/var/tmp")]
    for folder in candidates:
        if not PROTOCOL_UNSAFE.search(str(folder.resolve())):
            return folder
    raise ServerError(f"no folder for the map copy whose path a bot can read on the MAP line (no space, "
                      f"comma or '|'): {candidates[0]}")


class ArenaServer:
    """One game on one listening socket.

    ``await start()`` binds (``port`` then holds the real port, useful with port 0); ``await run()`` waits for
    the players, plays the game and returns the final table."""

    def __init__(self, arena: Arena, settings: Settings, observers: Sequence[Observer] = ()) -> None:
        self.arena = arena
        self.settings = settings
        self.observers = list(observers)
        self.port = settings.port
        self.game: Game | None = None
        self.wire_ids: list[int] = []
        self.connected: list[bool] = []
        """Per player index: whether its client was still connected when the last round was played."""
        self.map_copy: Path | None = None
        self.round_times: list[float] = []
        """Server time per round in seconds (vision, state messages, rules and the observers, such as the
        replay line), for benchmarks."""
        self.round_cpu: list[float] = []
        """This thread's CPU seconds per round for vision, building the state messages, the rules and the
        observers (without the time it waited for a core on a busy machine, and without handing the messages
        to the sockets: that is :attr:`send_cpu`)."""
        self.send_cpu: list[float] = []
        """This thread's CPU seconds per round spent handing the state messages to the sockets (the kernel's
        loopback TCP work is done in this thread)."""
        self.round_ms: list[float] = []
        """Wall-clock duration of each round in milliseconds: from its first message to its moves applied."""
        self.stopped: str | None = None
        """Why the game was stopped before its end (:meth:`stop`), else None."""
        self._finished = False
        """True once the game is over and its table made: a late stop() changes nothing."""
        self._server: asyncio.Server | None = None
        self._seat_servers: list[asyncio.Server] = []
        self.seat_ports: list[int] = []
        """With ``settings.seat_ports``: the port of each seat, once started."""
        self._next_id = settings.players if settings.seat_ports else 0
        self._seat_ids: dict[int, int] = {}
        """Seat -> wire id of its latest client (the seat's number for its first)."""
        self._pending: list[_Client] = []
        self._lobby: list[_Client] = []
        self._players: list[_Client] = []
        self._started = False
        self._changed = asyncio.Event()
        self._window: int | None = None
        self._moves: list[tuple[int, str, str]] = []
        self._moved: set[int] = set()
        self._all_moved = asyncio.Event()
        self._last_changes: list[RuleTeamChange] = []
        """The team changes of the last round played, until they are sent (before the next ``START``, or
        before ``DISCONNECT``): a round dropped by a stop does not send them twice."""
        self._absent: list[_Client] = []
        self._left_early: dict[int, str] = {}
        """Seat -> why the bot that joined through it left before the game began."""
        self._stop = asyncio.Event()

    @property
    def playing(self) -> Game:
        """The game, from its preparation on (:attr:`game` is None before). Raises RuntimeError before."""
        if self.game is None:
            raise RuntimeError("the game has not begun")
        return self.game

    @property
    def waiting_for(self) -> int:
        """How many players are still missing before the game can start (0 once it has started)."""
        return 0 if self._started else max(0, self.settings.players - len(self._lobby) - len(self._absent))

    @property
    def joined_ids(self) -> list[int]:
        """Wire ids of the clients that have answered ``ID_OKAY`` and wait for the game, in joining order."""
        return [c.id for c in self._lobby]

    @property
    def joined_seats(self) -> dict[int, int]:
        """Seat -> wire id of the clients that joined through a seat port and wait for the game."""
        return {c.seat: c.id for c in self._lobby if c.seat is not None}

    def _seat_taken(self, seat: int | None) -> bool:
        return seat is not None and any(c.seat == seat for c in [*self._lobby, *self._absent])

    def add_absent(self, seat: int | None = None) -> int:
        """Reserve a seat (*seat*, or the next free one) for a bot that never joined, or joined and left
        before the game began: it plays as an idle body (spec §2.9), and the game starts once the joined
        clients and the reserved seats fill ``settings.players``. The idle body has the wire id of the seat's
        latest client (a client of the seat still to answer ``ID`` is dropped as when its ID timeout passes:
        the caller's time for it is up), else the seat's own or the next one. The seat's diagnostics say
        which (``joined`` False, or ``left_round`` 0 with the reason). Returns the seat's wire id. Raises
        RuntimeError once the game has started or when *seat* is taken."""
        if self._started or self._seat_taken(seat):
            raise RuntimeError("the game has started" if self._started else f"seat {seat} is taken")
        for waiting in [c for c in self._pending if seat is not None and c.seat == seat]:
            self._id_timeout(waiting)
        wire_id = self._seat_ids[seat] if seat in self._seat_ids else self._new_id(seat)
        client = _Client(wire_id, None, None, okayed=True, alive=False, seat=seat)
        if seat in self._left_early:
            client.diagnostics.left_round, client.diagnostics.left_reason = 0, self._left_early[seat]
        else:
            client.diagnostics.joined = False
        self._absent.append(client)
        self._changed.set()
        return client.id

    def stop(self, reason: str) -> None:
        """Stop the game early (SIGINT, SIGTERM; call on the event loop): the round under way is dropped,
        every bot gets ``DISCONNECT`` and :meth:`run` returns the table so far (empty before the game
        began). Idempotent."""
        if self._finished:  # played out: the table and the replay's final line are written, nothing to stop
            return
        if self.stopped is None:
            self.stopped = reason
            log.warning("stopping: %s", reason)
        self._stop.set()
        self._changed.set()
        self._all_moved.set()

    # --- lifecycle ------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind and listen. Raises ServerError (one line) when the address cannot be bound."""
        try:
            self._server = await asyncio.start_server(self._accept, self.settings.host, self.settings.port)
        except OSError as exc:
            # asyncio rewords strerror ("error while attempting to bind"); a gaierror's errno is negative
            errno = exc.errno or 0
            reason = os.strerror(errno) if errno > 0 else exc.strerror or str(exc)
            where = f"{self.settings.host}:{self.settings.port}"
            raise ServerError(f"cannot listen on {where}: {reason}") from None
        except UnicodeError:  # a host name with a part longer than 63 characters fails to encode
            where = f"{self.settings.host}:{self.settings.port}"
            raise ServerError(f"cannot listen on {where}: not a valid host name") from None
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("listening on %s:%d", self.settings.host, self.port)
        if self.settings.seat_ports:
            for seat in range(self.settings.players):
                server = await asyncio.start_server(functools.partial(self._accept, seat=seat),
                                                    self.settings.host, 0)
                self._seat_servers.append(server)
                self.seat_ports.append(server.sockets[0].getsockname()[1])
            log.info("seat ports %s", " ".join(map(str, self.seat_ports)))

    async def run(self) -> list[TableRow]:
        """Wait for the players, play one game, return the final table (sorted by rank, then id)."""
        if self._server is None:
            await self.start()
        try:
            await self._wait_for_players()
            if self.stopped:  # no game: the bots waiting for it hear so, as the bots of a game at its end
                for client in [*self._pending, *self._lobby]:
                    self._send(client, wire.Disconnect())
                return []
            self._begin()
            for observer in self.observers:
                observer.on_start(self)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.settings.prep_ms / 1000)
            while not self.playing.is_over() and not self.stopped:
                await self._round()
            table = self._finish()
            self._finished = True
            for observer in self.observers:
                observer.on_end(self, table)
            return table
        finally:
            await self.close()

    async def close(self) -> None:
        """Stop listening, close every connection and remove the map copy (idempotent)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for server in self._seat_servers:
            server.close()
        self._seat_servers = []
        clients = [*self._pending, *self._lobby, *self._players]
        for client in clients:  # (a drop takes a client out of the lobby: its task is awaited all the same)
            self._drop(client, None, announce=False)
        tasks = [c.task for c in clients if c.task is not None and c.task is not asyncio.current_task()]
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        if self.map_copy is not None:
            self.map_copy.unlink(missing_ok=True)

    # --- connections ----------------------------------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      seat: int | None = None) -> None:
        peer = writer.get_extra_info("peername")
        refusal = self._refusal(seat)
        if refusal is not None:
            where = "" if seat is None else f" to seat {seat}"
            log.warning("connection from %s%s turned away: %s", peer, where, refusal)
            writer.write(wire.encode(wire.Disconnect()))
            writer.close()
            return
        client = _Client(self._new_id(seat), reader, writer, seat=seat)
        self._pending.append(client)
        log.info("client %d connected from %s", client.id, peer)
        self._send(client, wire.Id(client.id))
        client.id_timer = asyncio.get_running_loop().call_later(
            self.settings.id_timeout_ms / 1000, self._id_timeout, client)
        client.task = asyncio.current_task()
        await self._read(client, reader)

    def _refusal(self, seat: int | None) -> str | None:
        """Why a connection (through *seat*'s port) is turned away now, or None when it is let in: the
        server stops, the game is under way or full, or the seat has its client or idle body already."""
        if self.stopped:
            return "the server is stopping"
        if self._started:
            return "the game is under way"
        if not self.waiting_for:
            return "the game is full"
        holder = next((c for c in [*self._pending, *self._lobby, *self._absent]
                       if seat is not None and c.seat == seat), None)
        if holder is None:
            return None
        if holder.alive:
            return f"a second connection (client {holder.id} holds the seat)"
        return f"the seat is an idle body (client {holder.id})"

    def _new_id(self, seat: int | None) -> int:
        """A new wire id: seat k's first client gets k, so that ids follow the seats whoever connects first;
        any other client the next id after the seats'."""
        if seat is not None and seat not in self._seat_ids:
            wire_id = seat
        else:
            wire_id = self._next_id
            self._next_id += 1
        if seat is not None:
            self._seat_ids[seat] = wire_id
        return wire_id

    def _id_timeout(self, client: _Client) -> None:
        """Drop *client* for want of ``ID_OKAY``: its bot never joined (its seat's idle body says so)."""
        if client.alive and not client.okayed:
            self._drop(client, f"no ID_OKAY within {self.settings.id_timeout_ms} ms", joined=False)

    async def _read(self, client: _Client, reader: asyncio.StreamReader) -> None:
        try:
            while client.alive:
                data = await reader.read(4096)
                if not data:
                    self._drop(client, "closed the connection")
                    return
                for text in client.splitter.feed(data):
                    client.count += 1
                    if client.count > wire.MAX_MESSAGES_PER_ROUND:
                        if self.game is None:
                            where = "while waiting for players (between two PINGs)"
                        elif self.game.round == 0 and self._window is None:
                            where = "during the preparation"
                        else:
                            where = "in one round"
                        self._drop(client, f"more than {wire.MAX_MESSAGES_PER_ROUND} messages {where}")
                        return
                    self._handle(client, text)
                    if not client.alive:
                        return
        except wire.MessageTooLong as exc:
            self._drop(client, str(exc))
        except (ConnectionError, OSError) as exc:
            self._drop(client, f"connection error: {exc}")

    def _handle(self, client: _Client, text: str) -> None:
        try:
            message = wire.parse_client(text)
        except wire.ProtocolError as exc:
            self._ignore(client, f"a bad message: {exc}")
            return
        if not client.okayed:
            if isinstance(message, wire.IdOkay):
                self._join(client)
            elif isinstance(message, wire.IdNotOkay):
                self._drop(client, "answered ID_NOT_OKAY")
            else:
                self._ignore(client, f"{text!r} before ID_OKAY")
            return
        if isinstance(message, wire.Move):
            self._move(client, message, text)
        elif not isinstance(message, wire.Ping):
            self._ignore(client, repr(text))

    def _ignore(self, client: _Client, what: str) -> None:
        """Log an ignored message (*what*: the message or the reason, naming its text once); from the
        LOGGED_IGNORED-th on per client only count it (:meth:`_sum_counted`)."""
        client.ignored += 1
        client.diagnostics.ignored += 1
        if client.ignored < LOGGED_IGNORED:
            log.warning("client %d: ignored %s", client.id, what)
        elif client.ignored == LOGGED_IGNORED:
            log.warning("client %d: ignored %s (further ignored messages are only counted)", client.id, what)

    @staticmethod
    def _sum_counted(client: _Client) -> None:
        """The summary lines of what was only counted of *client*: ignored messages (:meth:`_ignore`) and
        rounds without a MOVE in time (:meth:`_no_move_in_time`); nothing when every one was logged."""
        if client.ignored > LOGGED_IGNORED:
            log.warning("client %d: %d messages ignored in all, %d of them not logged", client.id,
                        client.ignored, client.ignored - LOGGED_IGNORED)
        if client.unanswered > LOGGED_MISSING:
            log.info("client %d: %d rounds without a MOVE in time in all, %d of them not logged", client.id,
                     client.unanswered, client.unanswered - LOGGED_MISSING)

    def _no_move_in_time(self, number: int) -> None:
        """Log the players still connected that have not moved when round *number*'s deadline passed: each
        client's first :data:`LOGGED_MISSING` such rounds, the last of them saying that later ones are only
        counted (:meth:`_sum_counted` sums them up when the client leaves or the game ends)."""
        late = [c for index, c in enumerate(self._players) if c.alive and index not in self._moved]
        for client in late:
            client.unanswered += 1
        logged = [c.id for c in late if c.unanswered <= LOGGED_MISSING]
        if not logged:
            return
        last = [str(c.id) for c in late if c.unanswered == LOGGED_MISSING]
        counted = ""
        if last:
            who = f"client {last[0]}" if len(last) == 1 else f"clients {', '.join(last)}"
            counted = f" (further rounds without a MOVE from {who} are only counted)"
        log.info("round %d: no MOVE in time from %s%s", number, logged, counted)

    def _join(self, client: _Client) -> None:
        if client.id_timer is not None:
            client.id_timer.cancel()
        self._pending.remove(client)
        if not self.waiting_for:
            self._send(client, wire.Disconnect())
            self._drop(client, "the game is full", announce=False)
            return
        others = list(self._lobby)
        # In the lobby before the first write: a write that finds the connection gone drops it from there, as
        # a bot that left before the game began (it was counted as joined, and its seat played as its own).
        self._lobby.append(client)
        log.info("client %d joined (%d of %d)", client.id, len(self._lobby), self.settings.players)
        self._changed.set()
        for other in others:
            self._send(client, wire.Connected(other.id))
        if client.alive:  # dropped, the others never hear of it: no DISCONNECTED without its CONNECTED
            client.okayed = True
            for other in others:
                self._send(other, wire.Connected(client.id))

    @property
    def received_moves(self) -> list[tuple[int, str, str]]:
        """The valid MOVEs received so far in the current round window, in arrival order (player indices)."""
        return list(self._moves)

    def _move(self, client: _Client, message: wire.Move, text: str) -> None:
        if client.answered < len(client.starts):
            client.answered += 1
            if client.starts[client.answered - 1] != self._window:
                client.diagnostics.late += 1
        if self._window is None or client.player is None:
            self._ignore(client, f"{text!r} outside a round")
            return
        if client.player in self._moved:
            self._ignore(client, f"a second MOVE in round {self._window}: {text!r}")
            return
        self._moved.add(client.player)
        self._moves.append((client.player, message.direction, message.view))
        self._check_all_moved()

    def _check_all_moved(self) -> None:
        if self._window is not None and all(c.player in self._moved for c in self._players if c.alive):
            self._all_moved.set()

    def _send(self, client: _Client, *messages: wire.Message) -> None:
        self._write(client, wire.encode(*messages))

    def _write(self, client: _Client, data: bytes) -> None:
        if not client.alive or client.writer is None:
            return
        transport = client.writer.transport
        if transport.is_closing():
            self._drop(client, "connection lost")
            return
        client.writer.write(data)
        if transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
            self._drop(client, "does not read its messages")

    def _drop(self, client: _Client, reason: str | None, *, announce: bool = True,
              joined: bool = True) -> None:
        if not client.alive:
            return
        client.alive = False
        if client.id_timer is not None:
            client.id_timer.cancel()
        self._sum_counted(client)
        if reason:
            log.warning("client %d disconnected: %s", client.id, reason)
            if self._started and client.player is not None:
                client.diagnostics.left_round = self._window or self.playing.round
                client.diagnostics.left_reason = reason
        if client.writer is not None:
            client.writer.close()
        if client in self._pending:  # connected, dropped before its ID_OKAY (ID_NOT_OKAY, closed)
            self._pending.remove(client)
            if client.seat is not None and not self._started and reason and joined:
                self._left_early[client.seat] = reason
        if client in self._lobby and not self._started:
            self._lobby.remove(client)
            if client.seat is not None:
                self._left_early[client.seat] = reason or "closed"
            self._changed.set()
        if announce and client.okayed:
            for other in (self._players if self._started else self._lobby):
                self._send(other, wire.Disconnected(client.id))
        self._check_all_moved()

    # --- the game -------------------------------------------------------------------------------------------

    async def _wait_for_players(self) -> None:
        missing = None
        while self.waiting_for and not self.stopped:
            if missing != self.waiting_for:
                missing = self.waiting_for
                log.info("waiting for %d more player%s", missing, "" if missing == 1 else "s")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), self.settings.ping_ms / 1000)
            except TimeoutError:
                for client in [*self._lobby, *self._pending]:
                    self._send(client, wire.Ping())
                    client.count = 0

    def _begin(self) -> None:
        self._started = True
        for client in list(self._pending):
            self._send(client, wire.Disconnect())
            self._drop(client, "the game is full", announce=False)
        self._players = self._seated([*self._lobby, *self._absent])
        for index, client in enumerate(self._players):
            client.player = index
            client.count = 0  # the preparation has its own message limit; round 1 counts from its START
        self.wire_ids = [c.id for c in self._players]
        self.connected = [client.alive for client in self._players]
        self.game = Game(self.arena, len(self._players), random.Random(self.settings.seed),
                         quiet_rounds=self.settings.quiet_rounds)
        directory = run_dir()
        try:
            directory.mkdir(mode=0o755, parents=True, exist_ok=True)
            if directory.stat().st_uid == os.getuid():
                directory.chmod(0o755)
            fd, name = tempfile.mkstemp(prefix=f"{copy_name(self.arena.name)}-", suffix=".map", dir=directory)
            os.fchmod(fd, 0o644)  # §3: the path must be readable by the bots, whoever runs them
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(normalised_text(self.arena))
        except OSError as exc:
            raise ServerError(f"cannot write the map copy to {directory}: {exc.strerror or exc}") from None
        self.map_copy = Path(name).resolve()
        log.info("game starts: %d players, seed %d, map %s", len(self._players), self.settings.seed,
                 self.map_copy)
        for client in self._players:
            self._send(client, wire.Map(str(self.map_copy)))

    def _seated(self, clients: list[_Client]) -> list[_Client]:
        """*clients* in player order: each on its seat, the others on the seats left in wire-id order."""
        order: list[_Client | None] = [None] * len(clients)
        rest = sorted((c for c in clients if c.seat is None or c.seat >= len(clients)), key=lambda c: c.id)
        for client in clients:
            if client.seat is not None and client.seat < len(clients):
                order[client.seat] = client
        for index, slot in enumerate(order):
            if slot is None:
                order[index] = rest.pop(0)
        return [c for c in order if c is not None]

    async def _round(self) -> None:
        game = self.playing
        began = opened = time.perf_counter()
        cpu = time.thread_time()
        number = game.round + 1
        seen = visibility(self.arena, game.players)
        changes = self._last_changes
        n = len(self._players)
        payloads = round_payloads(game, seen, changes, self.wire_ids)
        self._last_changes = []
        built = time.thread_time()
        for index in send_order(number, n):
            client = self._players[index]
            if client.alive:
                client.count = 0
                client.starts.append(number)
                self._write(client, payloads[index])
        self._moves = []
        self._moved = set()
        self._all_moved.clear()
        self._window = number
        spent = time.perf_counter() - began
        sent = time.thread_time()
        cpu_spent = built - cpu
        self.send_cpu.append(sent - built)
        self._check_all_moved()
        try:
            await asyncio.wait_for(self._all_moved.wait(), self.settings.move_ms / 1000)
        except TimeoutError:
            self._no_move_in_time(number)
        self._window = None
        if self.stopped:
            return
        for client in self._players:
            diagnostics = client.diagnostics
            if client.player in self._moved:
                diagnostics.silent_since = None
            elif client.alive:
                diagnostics.missing += 1
                if diagnostics.silent_since is None:
                    diagnostics.silent_since = number
        moves = list(self._moves)
        began = time.perf_counter()
        cpu = time.thread_time()
        self.connected = [client.alive for client in self._players]
        result = game.play_round(moves)
        self._last_changes = list(result.changes)
        for pid, reason in result.reasons.items():
            self._players[pid].diagnostics.refused[reason] += 1
        done = time.perf_counter()
        self.round_ms.append((done - opened) * 1000)
        for observer in self.observers:
            observer.on_round(self, result, moves)
        self.round_times.append(spent + time.perf_counter() - began)
        self.round_cpu.append(cpu_spent + time.thread_time() - cpu)
        if self.settings.round_pause_ms:
            left = self.settings.round_pause_ms / 1000 - (time.perf_counter() - began)
            if left > 0:
                with contextlib.suppress(TimeoutError):   # a stop ends the pause at once
                    await asyncio.wait_for(self._stop.wait(), left)

    def _finish(self) -> list[TableRow]:
        game = self.playing
        last = [wire.TeamChange(c.team, self.wire_ids[c.id])
                for c in sorted(self._last_changes, key=lambda c: self.wire_ids[c.id])]
        for client in self._players:
            self._send(client, *last, wire.Disconnect())
        for client in self._players:
            if client.alive:
                self._sum_counted(client)
            client.alive = False
            if client.writer is not None:
                client.writer.close()
        rows = final_table(game, self.wire_ids)
        reds = sum(1 for p in game.players if p.team == RED)
        log.info("%s, %d red", look.ending(game.round, self.stopped), reds)
        for client in sorted(self._players, key=lambda c: c.id):
            log.info("client %d diagnostics: %s", client.id, client.diagnostics.summary())
        return rows

    def diagnostics(self) -> list[Diagnostics]:
        """Per player (index order) what its bot did wrong so far."""
        return [client.diagnostics for client in self._players]
