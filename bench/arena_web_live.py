"""arena live web viewers: the game server's CPU time per round with 50 WebSocket viewers and with none.

The game server as ``arena serve metropolis --players 16 --web PORT`` builds it (an ``ArenaServer`` whose
``ReplayWriter`` hands every line to a ``WebRelay``, which starts the relay process serving the viewers), in
this process; 16 instant bots in another process (one process answering every START at once with a random
MOVE: those of bench/arena_server.py); for the viewers' game, 50 WebSocket clients in a third process,
connected before the game starts, each reading every message to the end. The figure is the server's CPU
time per round: the CPU time of the thread running its event loop (all the server's work: the bots' MOVEs
read, vision, the state messages, the rules, the replay line and its hand-over to the relay) from the game's
start to its end, over the rounds played, for :data:`GAMES` seeded games of each kind, alternated; beside it
the median round's (``ArenaServer.round_cpu`` + ``send_cpu``), the relay process's CPU time per round
(``/proc/PID/stat``, from when it serves) and the same games without ``--web``.

Bar: with 50 viewers at most 10 % above the same game with none (both with ``--web``).
"""

from __future__ import annotations

import asyncio
import http.client
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar
from arena_server import _spawn_bots

GAMES = 5
VIEWERS = 50
PLAYERS = 16
BAR_RATIO = 1.10
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process *pid* so far (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def viewers(port: int, n: int, ready, done) -> None:
    """*n* WebSocket viewers reading every message until the server closes; sets *ready* once all are in."""
    from websockets.asyncio.client import connect

    async def one(joined: asyncio.Event, count: list[int]) -> int:
        got = 0
        async with connect(f"ws://127.0.0.1:{port}/ws", proxy=None, max_size=None, compression=None,
                           open_timeout=60) as ws:
            count[0] += 1
            if count[0] == n:
                joined.set()
            try:
                async for message in ws:
                    got += len(message)
            except Exception:  # the relay going away ends the viewer either way
                pass
        return got

    async def watch() -> None:
        joined, count = asyncio.Event(), [0]
        tasks = [asyncio.ensure_future(one(joined, count)) for _ in range(n)]
        await joined.wait()
        ready.set()
        done.put(sum(await asyncio.gather(*tasks)))

    asyncio.run(watch())


class Clock:
    """Server observer noting this thread's CPU time at the game's start and end."""

    def __init__(self) -> None:
        self.start = self.end = 0.0

    def on_start(self, _server: object) -> None:
        self.start = time.thread_time()

    def on_round(self, _server: object, _result: object, _moves: object) -> None:
        pass

    def on_end(self, _server: object, _table: object) -> None:
        self.end = time.thread_time()


def serving(port: int) -> None:
    """Wait until the relay answers on *port*."""
    for _ in range(1200):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/replay.jsonl")
            connection.getresponse().read()
            connection.close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the relay does not answer")


def game(seed: int, folder: Path, *, web: bool, watchers: int) -> tuple[float, list[float], float, int]:
    """(server CPU seconds per round from start to end, each round's server CPU seconds, relay CPU seconds per
    round, bytes the viewers got) of one game."""
    from arena import web as arena_web
    from arena.mapfile import find_map, load_arena
    from arena.replay import ReplayWriter
    from arena.server import ArenaServer, Settings

    arena = load_arena(find_map("metropolis"))
    writer = ReplayWriter(folder / f"game-{seed}-{web}-{watchers}.jsonl", last=False)
    relay = None
    web_port = 0
    if web:
        sock = arena_web.listen("127.0.0.1", 0)
        web_port = sock.getsockname()[1]
        relay = arena_web.WebRelay(sock, arena.name, quiet=True)
        writer.tee = relay.push
    settings = Settings(players=PLAYERS, port=0, move_ms=5000, prep_ms=0, seed=seed)
    clock = Clock()
    server = ArenaServer(arena, settings, [writer, clock])
    context = multiprocessing.get_context("spawn")
    done = context.Queue()
    watching = None
    relay_cpu = 0.0
    try:
        if web:
            serving(web_port)
        if watchers:
            ready = context.Event()
            watching = context.Process(target=viewers, args=(web_port, watchers, ready, done), daemon=True)
            watching.start()
            if not ready.wait(120):
                raise RuntimeError("the viewers did not all connect")

        async def go() -> None:
            await server.start()
            bots = _spawn_bots(server.port, PLAYERS, seed)
            await server.run()
            bots.join(10)

        relay_began = cpu_s(relay.process.pid) if relay else 0.0
        asyncio.run(go())
        if relay:
            relay_cpu = cpu_s(relay.process.pid) - relay_began
    finally:
        writer.close()
        if relay:
            relay.close()
    got = done.get(timeout=60) if watchers else 0
    if watching is not None:
        watching.join(10)
    rounds = [cpu + send for cpu, send in zip(server.round_cpu, server.send_cpu, strict=True)]
    return (clock.end - clock.start) / len(rounds), rounds, relay_cpu / len(rounds), got


def main() -> int:
    kinds = {"no --web": (False, 0), "--web, no viewer": (True, 0),
             f"--web, {VIEWERS} viewers": (True, VIEWERS)}
    results: dict[str, list[tuple[float, list[float], float, int]]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, GAMES + 1):
            for kind, (web, watchers) in kinds.items():
                results[kind].append(game(seed, Path(tmp), web=web, watchers=watchers))
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"arena serve metropolis, {PLAYERS} instant bots, {GAMES} seeded games each (load average {load}):")
    medians = {}
    for kind, runs in results.items():
        rounds = [t for r in runs for t in r[1]]
        medians[kind] = sum(r[0] * len(r[1]) for r in runs) / len(rounds) * 1000
        games = ", ".join(f"{r[0] * 1000:.3f}" for r in runs)
        line = (f"  {kind:<20} server CPU per round {medians[kind]:.3f} ms over {len(rounds)} rounds (games "
                f"{games}; median round {statistics.median(rounds) * 1000:.3f} ms)")
        if kind != "no --web":
            line += f"; relay process CPU per round {statistics.median(r[2] for r in runs) * 1000:.3f} ms"
        if runs[0][3]:
            line += f"; each viewer got {runs[0][3] // VIEWERS} bytes"
        print(line)
    with_viewers, none = medians[f"--web, {VIEWERS} viewers"], medians["--web, no viewer"]
    print(f"  {VIEWERS} viewers / none: {with_viewers / none:.3f}; none / no --web: "
          f"{none / medians['no --web']:.3f}")
    ok = bar(f"server CPU per round with {VIEWERS} WebSocket viewers <= 110 % of none",
             f"{100 * with_viewers / none:.1f} % ({with_viewers:.3f} vs {none:.3f} ms, load {load})",
             with_viewers <= BAR_RATIO * none)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
