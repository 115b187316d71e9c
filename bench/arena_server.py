"""arena server speed: server time per round, and whole games against the floor of a bare asyncio server.

Games on a 60×40 map over loopback with instant bots (one separate process answers every START at once with a
random MOVE). For 16 and for 4 bots, in the same run:

- the server's own time per round (vision, state messages, rules and the replay line, a real `ReplayWriter`
  writing to a temporary file), median over every round of several seeded games: as CPU time of the server
  thread (`ArenaServer.round_cpu`), beside the CPU time of handing the messages to the sockets
  (`send_cpu`: the kernel's loopback TCP work, which the bare server below pays as well) and the wall time
  of both (`round_times`, which on a busy machine also holds the time the server waited for a core);
- rounds per second of whole games, and of a bare asyncio server that only sends `START r|` to every bot and
  waits for every `MOVE` (the floor of a Python server on this machine); arena's share of that floor.

Bar: median server CPU time per round ≤ 0.5 ms with 16 bots.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _bars import bar

from arena import protocol as wire
from arena.replay import ReplayWriter
from arena.rules import DIRECTIONS, Arena
from arena.server import ArenaServer, Settings

GAMES = 5
BARE_ROUNDS = 400
BAR_SERVER_MS = 0.5


def office_60x40(seed: int = 1) -> Arena:
    """A walled 60×40 map of 10×8 rooms with doors, toxicity 0.01..0.20 in some rooms (deterministic)."""
    rng = random.Random(seed)
    walls = np.zeros((40, 60), dtype=bool)
    walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
    for x in range(10, 60, 10):
        walls[:, x] = True
        for y0 in range(0, 40, 8):
            walls[y0 + 3:y0 + 5, x] = False
    for y in range(8, 40, 8):
        walls[y, :] = True
        for x0 in range(0, 60, 10):
            walls[y, x0 + 4:x0 + 6] = False
    walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
    toxicity = np.ones((40, 60), dtype=np.int16)
    for _ in range(8):
        x0, y0 = rng.randrange(0, 60, 10), rng.randrange(0, 40, 8)
        toxicity[y0:y0 + 8, x0:x0 + 10] = rng.choice((2, 4, 10, 20))
    return Arena(walls=walls, toxicity=toxicity, name="bench60x40")


def instant_bots(port: int, n: int, seed: int) -> None:
    """n clients in one process answering ID with ID_OKAY and every START at once with a random MOVE."""
    async def bot(k: int) -> None:
        rng = random.Random(seed * 100 + k)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        splitter = wire.Splitter(limit=1 << 16)
        while True:
            data = await reader.read(65536)
            if not data:
                break
            out = []
            for text in splitter.feed(data):
                if text.startswith("ID "):
                    out.append(b"ID_OKAY|")
                elif text.startswith("START "):
                    out.append(f"MOVE {rng.choice(DIRECTIONS)} {rng.choice(DIRECTIONS)}|".encode())
            if out:
                writer.write(b"".join(out))
        writer.close()

    async def all_bots() -> None:
        await asyncio.gather(*(bot(k) for k in range(n)))

    asyncio.run(all_bots())


def _spawn_bots(port: int, n: int, seed: int) -> multiprocessing.Process:
    process = multiprocessing.get_context("spawn").Process(target=instant_bots, args=(port, n, seed),
                                                           daemon=True)
    process.start()
    return process


def arena_game(players: int, seed: int,
               folder: Path) -> tuple[int, float, list[float], list[float], list[float]]:
    """(rounds, wall seconds from round 1 to the end, and per round: server CPU seconds, socket hand-over CPU
    seconds, server wall seconds) of one game."""
    arena = office_60x40()
    writer = ReplayWriter(folder / f"bench-{players}-{seed}.jsonl", last=False)
    server = ArenaServer(arena, Settings(players=players, port=0, move_ms=2000, prep_ms=0, seed=seed),
                         [writer])
    marks: dict[str, float] = {}

    class Clock:
        def on_start(self, _server: ArenaServer) -> None:
            marks["start"] = time.perf_counter()

        def on_round(self, _server: ArenaServer, _result: object, _moves: object) -> None:
            pass

        def on_end(self, _server: ArenaServer, _table: object) -> None:
            marks["end"] = time.perf_counter()

    server.observers.append(Clock())

    async def go() -> None:
        await server.start()
        bots = _spawn_bots(server.port, players, seed)
        await server.run()
        bots.join(10)

    asyncio.run(go())
    return (server.game.round, marks["end"] - marks["start"], server.round_cpu, server.send_cpu,
            server.round_times)


def bare_game(players: int, seed: int, rounds: int = BARE_ROUNDS) -> float:
    """Rounds per second of a bare asyncio server: START to every bot, then wait for every MOVE."""
    async def go() -> float:
        joined: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        everyone = asyncio.Event()

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            joined.append((reader, writer))
            if len(joined) == players:
                everyone.set()

        server = await asyncio.start_server(accept, "127.0.0.1", 0)
        bots = _spawn_bots(server.sockets[0].getsockname()[1], players, seed)
        await everyone.wait()

        async def one_move(reader: asyncio.StreamReader) -> None:
            await reader.readuntil(b"|")

        began = time.perf_counter()
        for number in range(1, rounds + 1):
            for _, writer in joined:
                writer.write(f"START {number}|".encode())
            await asyncio.gather(*(one_move(reader) for reader, _ in joined))
        seconds = time.perf_counter() - began
        for _, writer in joined:
            writer.close()
        server.close()
        bots.join(10)
        return rounds / seconds

    return asyncio.run(go())


def measure(players: int, folder: Path) -> tuple[float, float, float, float, float, int]:
    """(median server CPU, socket CPU and wall ms per round, median arena rounds/s, median bare rounds/s,
    rounds) for *players* bots."""
    server_ms: list[float] = []
    send_ms: list[float] = []
    wall_ms: list[float] = []
    rates: list[float] = []
    bare: list[float] = []
    rounds_total = 0
    for seed in range(1, GAMES + 1):
        bare.append(bare_game(players, seed))
        rounds, seconds, cpu, send, wall = arena_game(players, seed, folder)
        rounds_total += rounds
        rates.append(rounds / seconds)
        server_ms.extend(t * 1000 for t in cpu)
        send_ms.extend(t * 1000 for t in send)
        wall_ms.extend(t * 1000 for t in wall)
    return (statistics.median(server_ms), statistics.median(send_ms), statistics.median(wall_ms),
            statistics.median(rates), statistics.median(bare), rounds_total)


def main() -> int:
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for players in (16, 4):
            results[players] = measure(players, Path(folder))
    print(f"arena server on a 60x40 map, loopback TCP, instant bots, {GAMES} seeded games each, "
          f"replay written")
    for players, (ms, send, wall, rate, bare, rounds) in results.items():
        print(f"{players:>2} bots: server time per round median {ms:.3f} ms CPU (+ {send:.3f} ms CPU handing "
              f"the messages to the sockets; {wall:.3f} ms wall for both) over {rounds} rounds; "
              f"{rate:.0f} rounds/s vs bare asyncio server {bare:.0f} rounds/s = "
              f"{100 * rate / bare:.0f} % of the floor")
    ok = bar(f"arena server CPU time per round <= {BAR_SERVER_MS} ms with 16 bots",
             f"{results[16][0]:.3f} ms", results[16][0] <= BAR_SERVER_MS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
