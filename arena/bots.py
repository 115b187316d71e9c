"""The project's example bots (spec/arena.md §4): they speak only the wire protocol of §3.

A bot is split into a sans-I/O :class:`Brain` (messages in, replies out; it reads the map file named by
``MAP``) and two thin TCP drivers around it: :func:`play`, a blocking socket (the ``arena bot`` command: one
process, one game, no event loop to import), and :func:`run_bot`, an asyncio coroutine for bots that share
an event loop with the server (``arena play``). Strategies:

- ``random``: a random legal-looking move and a random facing.
- ``flee``: while BLUE, keeps moving off toxic cells and away from the reds it has seen (last-seen positions
  are remembered), facing the nearest known red or its way ahead; while RED it plays like ``hunt``.
- ``hunt``: while RED, walks the shortest path (movement rules of §2.4) to the nearest blue seen or remembered
  and faces it; with none known it explores towards the cells it has seen least recently. While BLUE it flees.
- ``smart``: the strong example (:mod:`arena.smart`): remembers what it has seen, plans paths with BFS, weighs
  toxicity and the stay multiplier, predicts whom it can catch and whom it must flee.

What a bot knows comes from the protocol only: the map file, its own ``SET``/``TOXIC``/``LIFE``,
``SEE_PLAYER`` (team-mates always, opponents when visible) and ``TEAMCHANGE``.
"""

from __future__ import annotations

import contextlib
import os
import random

from arena import STRATEGIES
from arena import protocol as wire
from arena.maptext import read_file, split_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from arena.game import ArenaState
    from arena.smart import Planner

VECTORS: dict[str, tuple[int, int]] = {
    "NORTH": (0, -1), "NORTH_EAST": (1, -1), "EAST": (1, 0), "SOUTH_EAST": (1, 1),
    "SOUTH": (0, 1), "SOUTH_WEST": (-1, 1), "WEST": (-1, 0), "NORTH_WEST": (-1, -1),
}
MEMORY_ROUNDS = 12
"""How long a bot trusts a last-seen opponent position (rounds)."""
SEARCH_LIMIT = 60
"""Moves a path search looks ahead (keeps a round's thinking short on 200×200 maps)."""

Walls = tuple[tuple[bool, ...], ...]
"""A map's wall grid, ``walls[y][x]`` True for a wall; every row as wide as the widest (plain tuples, not
numpy: a bot starts in every game of a tournament and numpy's import would double its start-up time)."""


class BotError(Exception):
    """Why a bot could not play: ``str()`` is one line (cannot connect, cannot read the map)."""


def read_map(path: str) -> Walls:
    """The H rows of W cells of a ``.map`` file (``#`` wall, else free), with the rows the server uses
    (:func:`arena.maptext.split_rows`: trailing rows of spaces are free rows, spec/arena.md §2.2).

    Raises OSError when the file cannot be read or is no map file (:func:`arena.maptext.read_file`)."""
    rows = split_rows(read_file(path).decode("ascii", errors="replace"))
    width = max((len(r) for r in rows), default=0)
    return tuple(tuple(c == "#" for c in r.ljust(width)) for r in rows)


def facing_towards(dx: int, dy: int) -> str:
    """The facing whose vector is closest in angle to (dx, dy); NORTH for (0, 0)."""
    if dx == 0 and dy == 0:
        return "NORTH"
    best = max(VECTORS, key=lambda d: (VECTORS[d][0] * dx + VECTORS[d][1] * dy)
               / (VECTORS[d][0] ** 2 + VECTORS[d][1] ** 2) ** 0.5)
    return best


class Seen:
    """Where a player was last seen (``SEE_PLAYER``) and in which round."""

    __slots__ = ("round", "x", "y")

    def __init__(self, x: int, y: int, round: int) -> None:
        self.x, self.y, self.round = x, y, round

    def __repr__(self) -> str:
        return f"Seen(x={self.x}, y={self.y}, round={self.round})"


class Neighbours(dict[tuple[int, int], tuple[tuple[int, int], ...]]):
    """``neighbours[cell]``: the cells one step from *cell* (:meth:`Brain.steps`), worked out the first time
    a search asks (a plain dictionary look-up after that: path searches ask thousands of times a round)."""

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        self.brain = brain

    def __missing__(self, cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        found = tuple(nxt for _, nxt in self.brain.steps(cell))
        if self.brain.walls is not None:
            self[cell] = found
        return found


class Brain:
    """Sans-I/O bot: ``handle(message)`` returns the messages to send back (§3); raises BotError when the
    ``MAP`` file cannot be read.

    ``strategy`` is one of :data:`STRATEGIES` (ValueError otherwise); ``rng`` drives every random choice
    (seeded for benchmarks). A plain class, no dataclass: ``arena bot`` starts with every game of a
    tournament, and the dataclass machinery's import was a good part of its start-up.
    """

    def __init__(self, strategy: str = "hunt", rng: random.Random | None = None) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r} (expected one of {', '.join(STRATEGIES)})")
        self.strategy = strategy
        self.rng = rng if rng is not None else random.Random()
        self.id: int | None = None
        """The wire id (``ID``), None before it arrives."""
        self.walls: Walls | None = None
        """The map (``MAP``), None before it is read."""
        self.x, self.y, self.facing = 0, 0, "NORTH"
        """Own cell and facing (``SET``)."""
        self.energy = 10000
        """Own energy in hundredths (``LIFE``)."""
        self.toxic = 1
        """Toxicity of the own cell in hundredths (``TOXIC``)."""
        self.round = 0
        """The round being decided (``START``)."""
        self.team: dict[int, str] = {}
        """Team by wire id, from ``TEAMCHANGE`` (a player not in it is BLUE)."""
        self.seen: dict[int, Seen] = {}
        """Last sighting by wire id (``SEE_PLAYER``)."""
        self.toxicity: dict[tuple[int, int], int] = {}
        """Toxicity of every cell stood on."""
        self.visited: dict[tuple[int, int], int] = {}
        """Last round each cell was stood on."""
        self.stay = 0
        """Rounds on the current cell."""
        self.done = False
        """True once ``DISCONNECT`` has arrived."""
        self.planner: Planner | None = None
        """The ``smart`` strategy's planner (:mod:`arena.smart`), made on its first decision."""
        self._steps: dict[tuple[int, int], list[tuple[str, tuple[int, int]]]] = {}
        self.neighbours = Neighbours(self)
        """The cells one step away from a cell, ``neighbours[cell]`` (:meth:`steps` without directions), for
        the path searches."""

    # --- protocol -------------------------------------------------------------------------------------------

    def handle(self, message: wire.Message) -> list[wire.Message]:
        match message:
            case wire.Id(n):
                self.id = n
                return [wire.IdOkay()]
            case wire.Map(path):
                try:
                    self.walls = read_map(path)
                except OSError as exc:
                    raise BotError(f"cannot read the map {path}: {exc.strerror or exc}") from None
            case wire.Set(x, y, view):
                self.stay = self.stay + 1 if (x, y) == (self.x, self.y) else 1
                self.x, self.y, self.facing = x, y, view
                self.visited[(x, y)] = self.round + 1
            case wire.SeePlayer(x, y, _view, n):
                self.seen[n] = Seen(x, y, self.round + 1)
            case wire.Toxic(x, y, value):
                self.toxic = value
                self.toxicity[(x, y)] = value
            case wire.Life(value, n):
                if n == self.id:
                    self.energy = value
            case wire.TeamChange(team, n):
                self.team[n] = team
            case wire.Start(r):
                self.round = r
                direction, view = self.choose()
                if direction not in wire.MOVES or view not in wire.DIRECTIONS:
                    raise ValueError(f"choose() returned ({direction!r}, {view!r}): expected a direction or "
                                     f"NONE, then a facing, among {' '.join(wire.DIRECTIONS)}")
                return [wire.Move(direction, view)]
            case wire.Disconnect():
                self.done = True
        return []

    # --- decisions ------------------------------------------------------------------------------------------

    @property
    def my_team(self) -> str:
        """``"BLUE"`` or ``"RED"``: the bot's own team (``TEAMCHANGE``)."""
        return "BLUE" if self.id is None else self.team.get(self.id, "BLUE")

    def is_free(self, x: int, y: int) -> bool:
        """Whether (x, y) is a cell of the map and no wall (False before the map is known)."""
        walls = self.walls
        return walls is not None and 0 <= y < len(walls) and 0 <= x < len(walls[y]) and not walls[y][x]

    def _step_ok(self, x: int, y: int, direction: str) -> bool:
        dx, dy = VECTORS[direction]
        if not self.is_free(x + dx, y + dy):
            return False
        return not (dx and dy) or (self.is_free(x + dx, y) and self.is_free(x, y + dy))

    def steps(self, cell: tuple[int, int]) -> list[tuple[str, tuple[int, int]]]:
        """(direction, target) of every step the walls allow from *cell* (§2.4), worked out once per cell
        (path searches ask for the same cells round after round); none before the map is known."""
        found = self._steps.get(cell)
        if found is None:
            x, y = cell
            found = [(d, (x + dx, y + dy)) for d, (dx, dy) in VECTORS.items() if self._step_ok(x, y, d)]
            if self.walls is not None:
                self._steps[cell] = found
        return found

    def _occupied(self) -> set[tuple[int, int]]:
        return {(s.x, s.y) for s in self.seen.values() if s.round == self.round}

    def legal(self) -> list[str]:
        """Directions that look legal from what the bot knows (walls, corners, players seen this round)."""
        if self.walls is None:
            return []
        occupied = self._occupied()
        return [d for d in VECTORS if self._step_ok(self.x, self.y, d)
                and (self.x + VECTORS[d][0], self.y + VECTORS[d][1]) not in occupied]

    def known(self, team: str) -> list[tuple[int, Seen]]:
        """Opponents/team-mates of *team* seen within :data:`MEMORY_ROUNDS`, nearest first."""
        out = [(n, s) for n, s in self.seen.items()
               if n != self.id and self.team.get(n, "BLUE") == team and self.round - s.round <= MEMORY_ROUNDS]
        out.sort(key=lambda item: max(abs(item[1].x - self.x), abs(item[1].y - self.y)))
        return out

    def distances(self, sources: list[tuple[int, int]], limit: int | None = None, *,
                  around_self: bool = True) -> dict[tuple[int, int], int]:
        """Moves from any of *sources* to the cells around (movement rules of §2.4, players ignored), in the
        order a breadth-first search reaches them.

        The search stops beyond *limit* moves and, with *around_self*, once the bot's own cell and its
        neighbours are labelled."""
        dist = {s: 0 for s in sources if self.is_free(*s)}
        here = (self.x, self.y) if around_self else None
        neighbours = self.neighbours
        layer, d = list(dist), 0
        while layer:  # one distance at a time: the cells of *layer* are d moves away
            d += 1
            if (limit is not None and d > limit) or (here in dist and d > dist[here] + 2):
                break
            reached = []
            for cell in layer:
                for nxt in neighbours[cell]:
                    if nxt not in dist:
                        dist[nxt] = d
                        reached.append(nxt)
            layer = reached
        return dist

    def choose(self) -> tuple[str, str]:
        """The (direction or NONE, facing) to send for the current round."""
        if self.walls is None:
            return "NONE", self.facing
        if self.strategy == "smart":
            if self.planner is None:
                from arena.smart import Planner  # only the smart bot needs it

                self.planner = Planner(self)
            return self.planner.choose()
        if self.strategy == "random":
            options = self.legal()
            return (self.rng.choice(options) if options else "NONE"), self.rng.choice(list(VECTORS))
        if self.my_team == "RED":
            return self._hunt()
        return self._flee()

    def _cell_cost(self, cell: tuple[int, int]) -> int:
        staying = cell == (self.x, self.y)
        toxic = self.toxicity.get(cell, 1)
        return toxic * (self.stay + 1) if staying else toxic

    def _flee(self) -> tuple[str, str]:
        reds = self.known("RED")
        danger = self.distances([(s.x, s.y) for _, s in reds], limit=12) if reds else {}
        options = ["NONE", *self.legal()]
        best, best_score = "NONE", None
        for direction in options:
            dx, dy = VECTORS.get(direction, (0, 0))
            cell = (self.x + dx, self.y + dy)
            score: float = -3 * self._cell_cost(cell)
            if reds:
                score += 40 * min(danger.get(cell, 99), 12)
            else:
                score -= self.visited.get(cell, 0) > self.round - 4
            score += self.rng.random()
            if best_score is None or score > best_score:
                best, best_score = direction, score
        if reds:
            near = reds[0][1]
            view = facing_towards(near.x - self.x, near.y - self.y)
        elif best != "NONE":
            view = best
        else:
            view = list(VECTORS)[(list(VECTORS).index(self.facing) + 2) % 8]
        return best, view

    def _hunt(self) -> tuple[str, str]:
        blues = self.known("BLUE")
        options = self.legal()
        targets = [(s.x, s.y) for _, s in blues] if blues else self.frontier()
        dist = self.distances(targets, limit=SEARCH_LIMIT) if targets else {}
        if targets and (self.x, self.y) not in dist:
            # too far for the search: aim at the reachable cell nearest (as the crow flies) to a target
            reach = self.distances([(self.x, self.y)], limit=SEARCH_LIMIT // 2, around_self=False)
            if reach:
                def crow(c: tuple[int, int]) -> tuple[int, int]:
                    return min(max(abs(tx - c[0]), abs(ty - c[1])) for tx, ty in targets), reach[c]

                goal = min(reach, key=crow)
                dist = self.distances([goal], limit=SEARCH_LIMIT)
        best, best_score = "NONE", float(dist.get((self.x, self.y), 10 ** 6) * 10)
        for direction in options:
            dx, dy = VECTORS[direction]
            cell = (self.x + dx, self.y + dy)
            score = dist.get(cell, 10 ** 6) * 10 + self.toxicity.get(cell, 1) // 4 + self.rng.random()
            if score < best_score:
                best, best_score = direction, score
        if blues:
            near = blues[0][1]
            step = VECTORS.get(best, (0, 0))
            tx, ty = near.x - self.x - step[0], near.y - self.y - step[1]
            view = facing_towards(tx, ty) if (tx, ty) != (0, 0) else self.facing
        elif best != "NONE":
            view = best
        else:
            view = self.rng.choice(list(VECTORS))
        return best, view

    def frontier(self) -> list[tuple[int, int]]:
        """A few free cells not visited recently, to explore towards when no blue is known."""
        if self.walls is None:
            return []
        height, width = len(self.walls), len(self.walls[0]) if self.walls else 0
        picks = []
        for _ in range(12):
            x, y = self.rng.randrange(width), self.rng.randrange(height)
            if self.is_free(x, y) and self.visited.get((x, y), -99) < self.round - 20:
                picks.append((x, y))
        return picks[:3]


class Seat:
    """A :class:`Brain` playing one player of an :class:`arena.game.ArenaState` without a server: each
    round it is handed the very messages the server would send that player
    (:func:`arena.server.round_messages` with the server's visibility, the previous round's team changes and
    wire ids 1..N), and its ``MOVE`` is turned into the interface's action (:func:`arena.game.action`).
    ``ID`` and ``MAP`` (the arena's map file) are handed over at once. How a search or a benchmark plays
    against the example bots in-process.

    Raises BotError when the arena has no map file (one built in memory)."""

    def __init__(self, brain: Brain, player: int, map_path: str | None) -> None:
        if not map_path:
            raise BotError("the arena has no map file for the bot to read")
        self.brain = brain
        self.player = player
        brain.handle(wire.Id(player + 1))
        brain.handle(wire.Map(map_path))
        self._teams: list[str] | None = None

    def action(self, state: ArenaState) -> int:
        """The brain's action for the round ``state`` is about to play."""
        from arena.game import action
        from arena.rules import TeamChange
        from arena.server import round_messages
        from arena.vision import visibility

        game = state.game
        teams = [p.team for p in game.players]
        before = self._teams or teams
        changes = [TeamChange(k, team, "") for k, (was, team) in enumerate(zip(before, teams, strict=True))
                   if was != team]
        self._teams = teams
        seen = visibility(game.arena, game.players, [self.player])
        replies: list[wire.Message] = []
        for message in round_messages(game, self.player, seen, changes, range(1, len(teams) + 1)):
            replies += self.brain.handle(message)
        move = replies[-1]
        if not isinstance(move, wire.Move):
            raise BotError(f"the bot answered {move!r} to START")
        return action(move.direction, move.view)


def _cannot_connect(host: str, port: int, exc: OSError | UnicodeError) -> BotError:
    """The one-line error for a failed connect (asyncio's ``strerror`` says "Connect call failed"; a
    ``gaierror``'s errno is negative and its ``strerror`` names the lookup's failure; a host name that is
    no name at all, a part of it longer than 63 characters, fails to encode)."""
    if isinstance(exc, UnicodeError):
        return BotError(f"cannot connect to {host}:{port}: not a valid host name")
    errno = exc.errno or 0
    reason = os.strerror(errno) if errno > 0 else exc.strerror or str(exc)
    return BotError(f"cannot connect to {host}:{port}: {reason}")


def _turned_away(host: str, port: int) -> BotError:
    """The one-line error for a server that ends the connection before its ``ID`` (spec/arena.md §3: a client
    of a game that is full or under way gets ``DISCONNECT`` and is closed)."""
    return BotError(f"{host}:{port} closed the connection before sending ID "
                    f"(a game that is full, under way or stopping turns bots away)")


def _answer(brain: Brain, splitter: wire.Splitter, data: bytes) -> bytes:
    """What *brain* sends back for the bytes *data* read from the server (b"" when nothing): the protocol
    logic both drivers share. Raises BotError and wire.ProtocolError as :meth:`Brain.handle` and
    :func:`wire.parse_server` do."""
    replies: list[wire.Message] = []
    for text in splitter.feed(data):
        replies += brain.handle(wire.parse_server(text))
    return wire.encode(*replies) if replies else b""


ID_WAIT_S = 10.0
"""How long ``arena bot`` waits for the server's ``ID`` after connecting: an arena server sends it at once
(spec/arena.md §3), so silence means the port is something else."""


def play(host: str = "127.0.0.1", port: int = 15000, strategy: str = "hunt",
         rng: random.Random | None = None, *, timeout_s: float | None = None,
         id_wait_s: float | None = ID_WAIT_S, brain: Brain | None = None) -> Brain:
    """Connect, play one game with a :class:`Brain` over a blocking socket, return it when the server sends
    DISCONNECT or closes the connection (a reset after connecting ends the game too: the server is gone;
    ``brain.done`` tells whether DISCONNECT came).

    The driver of ``arena bot``: a process that plays one game needs no event loop (asyncio's import alone
    costs a bot's process more than its whole game). *timeout_s* bounds each wait for the server (TimeoutError
    beyond it; None waits for ever). Raises BotError when the server cannot be reached, sends no ``ID`` within
    *id_wait_s* seconds of connecting (None: waits for ever), sends ``DISCONNECT`` or closes the connection
    before its ``ID`` (a game that is full, under way or stopping turns bots away) or the map cannot be read,
    wire.ProtocolError on a server message it cannot read.

    *brain* plays instead of ``Brain(strategy, rng)``: a bot of your own, a subclass of :class:`Brain` whose
    ``choose()`` decides, keeps this driver.
    """
    import socket

    brain = brain or Brain(strategy, rng or random.Random())
    try:
        conn = socket.create_connection((host, port))
    except (OSError, UnicodeError) as exc:
        raise _cannot_connect(host, port, exc) from None
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio does: a MOVE goes at once
        waits = [t for t in (id_wait_s, timeout_s) if t is not None]
        conn.settimeout(min(waits) if waits else None)
        splitter = wire.Splitter(limit=1 << 16)
        while not brain.done:
            before_id = brain.id is None
            try:
                data = conn.recv(65536)
            except ConnectionError:
                data = b""
            except TimeoutError:
                if before_id and id_wait_s is not None and id_wait_s == min(waits):
                    raise BotError(f"{host}:{port} sent no ID within {id_wait_s:g} s of connecting: "
                                   f"is it an arena server?") from None
                raise
            if not data:
                if before_id:
                    raise _turned_away(host, port)
                break
            answer = _answer(brain, splitter, data)
            if brain.done and brain.id is None:  # DISCONNECT before ID: how a server turns a client away
                raise _turned_away(host, port)
            if before_id and brain.id is not None:
                conn.settimeout(timeout_s)
            if answer:
                try:
                    conn.sendall(answer)
                except ConnectionError:
                    break
    return brain


async def run_bot(host: str = "127.0.0.1", port: int = 15000, strategy: str = "hunt",
                  rng: random.Random | None = None, *, timeout_s: float | None = None,
                  brain: Brain | None = None) -> Brain:
    """:func:`play` on an asyncio event loop, for bots that share a process with the server (``arena play``,
    tests, benchmarks): the same :class:`Brain` (or *brain*) and wire handling, the same results and
    errors."""
    import asyncio

    brain = brain or Brain(strategy, rng or random.Random())
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except (OSError, UnicodeError) as exc:
        raise _cannot_connect(host, port, exc) from None
    splitter = wire.Splitter(limit=1 << 16)
    try:
        while not brain.done:
            try:
                data = await asyncio.wait_for(reader.read(65536), timeout_s)
            except ConnectionError:
                break
            if not data:
                break
            answer = _answer(brain, splitter, data)
            if answer:
                writer.write(answer)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
    return brain
