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
from arena.brain import VECTORS, BotError, Brain, facing_towards, read_map

TYPE_CHECKING = False
if TYPE_CHECKING:
    from arena.game import ArenaState
    from arena.limits import Guard
    from arena.smart import Planner

SEARCH_LIMIT = 60
"""Moves a path search looks ahead (keeps a round's thinking short on 200×200 maps)."""

__all__ = ["VECTORS", "BotError", "Brain", "Example", "facing_towards", "forked_bot", "play", "play_example",
           "read_map", "run_bot"]


class Example(Brain):
    """An example bot: a :class:`Brain` whose ``choose()`` plays *strategy*, one of :data:`STRATEGIES`
    (ValueError otherwise)."""

    def __init__(self, strategy: str = "hunt", rng: random.Random | None = None) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r} (expected one of {', '.join(STRATEGIES)})")
        super().__init__(rng)
        self.strategy = strategy
        self.planner: Planner | None = None
        """The ``smart`` strategy's planner (:mod:`arena.smart`), made on its first decision."""
        self.played = 0
        """The last round known to have been played to its end: the one before the latest ``START``, or that
        ``START``'s own once a ``TEAMCHANGE`` follows it (a server sends a round's changes once it has played
        it; a round under way when the server stops is dropped)."""

    def handle(self, message: wire.Message) -> list[wire.Message]:
        match message:
            case wire.Start(r):
                self.played = r - 1
            case wire.TeamChange():
                self.played = self.round
        return super().handle(message)

    @property
    def over(self) -> bool:
        """Whether every player the bot knows of (team-mates are all listed in round 1) is RED: a game that
        ends is over only then, so a ``DISCONNECT`` with a blue player left stopped it."""
        return self.my_team == "RED" and all(self.team.get(n) == "RED" for n in {*self.seen, *self.team})

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

    brain = brain or Example(strategy, rng or random.Random())
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

    brain = brain or Example(strategy, rng or random.Random())
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


def play_example(host: str, port: int, strategy: str, seed: int | None) -> str:
    """Play one game as the example bot *strategy* with ``random.Random(seed)`` over a blocking socket
    (:func:`play`; ``arena bot``) and return the line that says how it ended. Raises
    :class:`common.cli.UsageError` (one line) when the server cannot be reached or speaks no arena
    protocol."""
    from common.cli import UsageError

    brain = Example(strategy, random.Random(seed))
    try:
        play(host, port, brain=brain)
    except BotError as exc:
        raise UsageError(str(exc)) from None
    except wire.ProtocolError as exc:
        raise UsageError(f"{host}:{port} does not speak the arena protocol: {exc}") from None
    if not brain.done:
        return (f"bot {brain.id} ({strategy}): the server closed the connection in round {brain.round}, "
                f"without DISCONNECT")
    if brain.over:
        return f"bot {brain.id} ({strategy}): game over after round {brain.round}"
    if not brain.played:
        return f"bot {brain.id} ({strategy}): game stopped before round 1"
    return f"bot {brain.id} ({strategy}): game stopped after round {brain.played}"


def forked_bot(host: str, port: int, strategy: str, seed: int, folder: str, *,
               guard: Guard | None = None) -> None:
    """The body of an example bot's process forked for a tournament (:mod:`arena.tournament`): in a session
    of its own, working in *folder* with its stdout and stderr in ``stdout.txt`` and ``stderr.txt`` there,
    within *guard*'s limits (:meth:`arena.limits.Guard.apply`), it plays as ``arena bot --strategy STRATEGY
    --seed SEED HOST PORT`` does (:func:`play_example`) and exits with the command's status."""
    import signal
    import sys

    from arena import FORK_SERVER_SPARED
    from common.cli import run_main

    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORK_SERVER_SPARED)  # blocked in the fork server
    os.setsid()
    os.chdir(folder)
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    if guard is not None:
        guard.apply()

    def body() -> int:
        print(play_example(host, port, strategy, seed))
        return 0

    sys.exit(run_main("arena", body))
