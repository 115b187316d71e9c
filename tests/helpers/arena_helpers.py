"""Shared helpers of the arena network tests: a server in a thread, raw-socket clients, a small map."""

from __future__ import annotations

import asyncio
import random
import socket
import threading
from collections import deque

import numpy as np
from deadline import deadline, wait_until

from arena.protocol import Splitter
from arena.rules import Arena
from arena.server import ArenaServer, Settings, spectator_state

DEADLINE_S = deadline(10)


def small_arena() -> Arena:
    """A 12×8 room with an inner wall; a 0.10 hot spot top left."""
    walls = np.zeros((8, 12), dtype=bool)
    walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
    walls[4, 3:8] = True
    toxicity = np.ones((8, 12), dtype=np.int16)
    toxicity[1:3, 1:4] = 10
    return Arena(walls=walls, toxicity=toxicity, name="room")


async def until(predicate, what: str) -> None:
    """Wait on the event loop until *predicate* holds; fail naming *what* after a generous deadline."""
    end = asyncio.get_running_loop().time() + deadline(10)
    while not predicate():
        assert asyncio.get_running_loop().time() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)


async def seat_server(players: int) -> ArenaServer:
    """A started server for *players* with a port per seat, whose bots have a minute to answer ID; its game
    is not run."""
    server = ArenaServer(small_arena(), Settings(players=players, port=0, move_ms=3000, prep_ms=20, seed=5,
                                                 quiet_rounds=2, id_timeout_ms=60000, seat_ports=True))
    await server.start()
    return server


def wait_for(predicate, what: str, seconds: float = 10) -> None:
    """Poll *predicate* until true; fail the test naming *what* after ``deadline(seconds)``."""
    wait_until(predicate, what, seconds, poll_s=0.005)


class ServerThread:
    """An ArenaServer on 127.0.0.1, an ephemeral port and its own event loop thread; records every state."""

    def __init__(self, arena: Arena | None = None, **settings) -> None:
        defaults = {"players": 3, "port": 0, "move_ms": 3000, "prep_ms": 50, "quiet_rounds": 3, "seed": 7,
                    "id_timeout_ms": 10000, "ping_ms": 2000}
        defaults.update(settings)
        self.arena = arena or small_arena()
        self.settings = Settings(**defaults)
        self.server: ArenaServer | None = None
        self.states: list[dict] = []
        self.rounds: list[tuple[int, list, list]] = []
        self.table = None
        self.error: BaseException | None = None
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._thread.start()
        if not self._ready.wait(DEADLINE_S):
            raise AssertionError("server did not start")
        if self.error:
            raise self.error

    def _main(self) -> None:
        async def go() -> None:
            self.server = ArenaServer(self.arena, self.settings, [self])
            await self.server.start()
            self.port = self.server.port
            self._ready.set()
            self.table = await self.server.run()

        try:
            asyncio.run(go())
        except BaseException as exc:  # reported by join()
            self.error = exc
            self._ready.set()

    # observer interface
    def on_start(self, server) -> None:
        self.states.append(spectator_state(server.game.snapshot(), server.connected))

    def on_round(self, server, result, moves) -> None:
        self.states.append(spectator_state(server.game.snapshot(), server.connected))
        self.rounds.append((result.round, list(moves), list(result.changes)))

    def on_end(self, server, table) -> None:
        pass

    def received(self) -> int:
        return len(self.server.received_moves) if self.server else 0

    def join(self, timeout: float = DEADLINE_S) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the game did not finish in time"
        if self.error:
            raise self.error


class RawClient:
    """A blocking-socket client; reads in chunks of random size when given an rng (messages split by TCP)."""

    def __init__(self, port: int, rng: random.Random | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
        self.rng = rng
        self.splitter = Splitter(limit=1 << 16)
        self.queue: deque[str] = deque()
        self.received: list[str] = []

    def recv(self) -> str | None:
        """The next message (without '|'), or None when the server closed the connection."""
        while not self.queue:
            try:
                data = self.sock.recv(self.rng.randint(1, 40) if self.rng else 65536)
            except ConnectionResetError:
                return None
            if not data:
                return None
            self.queue.extend(self.splitter.feed(data))
        message = self.queue.popleft()
        self.received.append(message)
        return message

    def until(self, prefix: str) -> list[str]:
        """Messages up to and including the first starting with *prefix*."""
        out = []
        while True:
            message = self.recv()
            if message is None:
                raise AssertionError(f"connection closed while waiting for {prefix!r}; got {out}")
            out.append(message)
            if message.startswith(prefix):
                return out

    def send(self, data: bytes) -> None:
        """Send *data*; with an rng, in random pieces (a message split across TCP segments)."""
        if not self.rng:
            self.sock.sendall(data)
            return
        pos = 0
        while pos < len(data):
            step = self.rng.randint(1, 8)
            self.sock.sendall(data[pos:pos + step])
            pos += step

    def eof(self) -> bool:
        """True when the server has closed the connection (after reading whatever is left)."""
        while True:
            message = self.recv()
            if message is None:
                return True

    def close(self) -> None:
        self.sock.close()


def join(port: int, rng: random.Random | None = None) -> tuple[RawClient, int]:
    """Connect, read ``ID n``, answer ``ID_OKAY``; return the client and n."""
    client = RawClient(port, rng)
    first = client.recv()
    assert first is not None and first.startswith("ID "), first
    client.send(b"ID_OKAY|")
    return client, int(first.split()[1])


def play_out(client: RawClient, move: bytes = b"MOVE NONE NORTH|") -> list[str]:
    """Answer every START with *move* until the server closes; return everything received."""
    while True:
        message = client.recv()
        if message is None:
            return client.received
        if message.startswith("START "):
            client.send(move)


def in_threads(*jobs) -> list[threading.Thread]:
    threads = [threading.Thread(target=job, daemon=True) for job in jobs]
    for thread in threads:
        thread.start()
    return threads
