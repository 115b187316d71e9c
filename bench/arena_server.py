"""arena server throughput: a 16-bot game on a 60×40 map over loopback with instant bots.

Prints the rounds per second of whole games (bots answer START at once, from a separate process) and the
server's own time per round (vision + messages + rules, `ArenaServer.round_times`), medians over several
seeded games. Bars: ≥ 150 rounds/s and ≤ 5 ms server time per round.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import statistics
import sys
import time

import numpy as np

from arena import protocol as wire
from arena.rules import DIRECTIONS, Arena
from arena.server import ArenaServer, Settings

PLAYERS = 16
GAMES = 5
BAR_ROUNDS_PER_S = 150
BAR_SERVER_MS = 5.0


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
    """n clients in one process answering every START at once with a random MOVE."""
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


def one_game(seed: int) -> tuple[int, float, list[float]]:
    """(rounds, wall seconds from round 1 to the end, server seconds per round) of one game."""
    arena = office_60x40()
    server = ArenaServer(arena, Settings(players=PLAYERS, port=0, move_ms=2000, prep_ms=0, seed=seed))
    marks: dict[str, float] = {}

    class Clock:
        def on_start(self, _server) -> None:
            marks["start"] = time.perf_counter()

        def on_round(self, _server, _result, _moves) -> None:
            pass

        def on_end(self, _server, _table) -> None:
            marks["end"] = time.perf_counter()

    server.observers.append(Clock())

    async def go() -> None:
        await server.start()
        context = multiprocessing.get_context("spawn")
        bots = context.Process(target=instant_bots, args=(server.port, PLAYERS, seed), daemon=True)
        bots.start()
        await server.run()
        bots.join(10)

    asyncio.run(go())
    return server.game.round, marks["end"] - marks["start"], server.round_times


def main() -> int:
    rates, server_ms, rounds_total = [], [], 0
    for seed in range(1, GAMES + 1):
        rounds, seconds, times = one_game(seed)
        rounds_total += rounds
        rates.append(rounds / seconds)
        server_ms.extend(t * 1000 for t in times)
        print(f"game {seed}: {rounds} rounds in {seconds:.2f} s = {rounds / seconds:.0f} rounds/s, "
              f"server median {statistics.median(t * 1000 for t in times):.2f} ms/round")
    rate = statistics.median(rates)
    median_ms = statistics.median(server_ms)
    p90_ms = statistics.quantiles(server_ms, n=10)[-1]
    print(f"{GAMES} games, {rounds_total} rounds, {PLAYERS} bots, 60x40 map, loopback TCP")
    print(f"rounds per second (median of games): {rate:.0f}   bar >= {BAR_ROUNDS_PER_S}")
    print(f"server time per round: median {median_ms:.2f} ms, p90 {p90_ms:.2f} ms   "
          f"bar <= {BAR_SERVER_MS} ms")
    ok = rate >= BAR_ROUNDS_PER_S and median_ms <= BAR_SERVER_MS
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
