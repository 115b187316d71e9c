"""arena live web viewers: the game server's CPU time per round with 50 WebSocket viewers and with none.

``arena serve metropolis --players 16 --web PORT`` (its defaults otherwise) as its own process; 16 instant
bots in another process (one process answering every START at once with a random MOVE: those of
bench/arena_server.py); for the viewers' game, 50 WebSocket clients in a third process, connected before
the game starts, each reading every message to the end. The figure is the server process's own CPU time
(user + system, all its threads, not its children, from ``/proc/PID/stat``) from the replay's header (the
game begins) to its final line, over the rounds played; beside it the CPU time of the relay process that
serves the viewers, and the same game without ``--web`` at all. :data:`GAMES` seeded games of each kind,
alternated, medians.

Bar: with 50 viewers at most 10 % above the same game with none (both with ``--web``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar
from arena_server import _spawn_bots

GAMES = 3
VIEWERS = 50
PLAYERS = 16
BAR_RATIO = 1.10
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process *pid* so far (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(v) for v in path.read_text().split()] if path.exists() else []


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

    async def main() -> None:
        joined, count = asyncio.Event(), [0]
        tasks = [asyncio.ensure_future(one(joined, count)) for _ in range(n)]
        await joined.wait()
        ready.set()
        totals = await asyncio.gather(*tasks)
        done.put(sum(totals))

    asyncio.run(main())


def game(seed: int, folder: Path, *, web: bool, watchers: int) -> tuple[float, int, float, int]:
    """(server CPU seconds per round, rounds, relay CPU seconds per round, bytes the viewers got)."""
    port = free_port()
    replay = folder / f"game-{seed}-{web}-{watchers}.jsonl"
    args = [sys.executable, "-m", "arena", "serve", "metropolis", "--players", str(PLAYERS),
            "--port", str(port), "--prep-ms", "0", "--move-ms", "5000", "--seed", str(seed),
            "--replay", str(replay)]
    if web:
        web_port = free_port()
        args += ["--web", str(web_port)]
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    listening = threading.Event()

    def read_log() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            if "listening on" in line:
                listening.set()

    threading.Thread(target=read_log, daemon=True).start()
    context = multiprocessing.get_context("spawn")
    watching = None
    done = context.Queue()
    try:
        if not listening.wait(120):
            raise RuntimeError("the server did not listen")
        if watchers:
            ready = context.Event()
            watching = context.Process(target=viewers, args=(web_port, watchers, ready, done), daemon=True)
            watching.start()
            if not ready.wait(120):
                raise RuntimeError("the viewers did not all connect")
        bots = _spawn_bots(port, PLAYERS, seed)
        relay = 0
        began = ended = None
        relay_began = relay_ended = 0.0
        rounds = 0
        while ended is None:
            text = replay.read_bytes() if replay.exists() else b""
            if began is None and text.startswith(b'{"type":"header"'):
                began = cpu_s(server.pid)
                if web:
                    relay = children(server.pid)[0]
                    relay_began = cpu_s(relay)
            if b'"type":"final"' in text:
                ended = cpu_s(server.pid)
                relay_ended = cpu_s(relay) if relay else 0.0
                rounds = text.count(b'"type":"round"')
            if server.poll() is not None and ended is None:
                raise RuntimeError(f"the server ended ({server.returncode}) before the final line")
            time.sleep(0.02)
        server.wait(60)
        bots.join(10)
        got = done.get(timeout=60) if watchers else 0
        if watching is not None:
            watching.join(10)
    finally:
        if server.poll() is None:
            server.kill()
    assert began is not None
    return (ended - began) / rounds, rounds, (relay_ended - relay_began) / rounds, got


def main() -> int:
    kinds = {"no --web": (False, 0), "--web, no viewer": (True, 0),
             f"--web, {VIEWERS} viewers": (True, VIEWERS)}
    results: dict[str, list[tuple[float, int, float, int]]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, GAMES + 1):
            for kind, (web, watchers) in kinds.items():
                results[kind].append(game(seed, Path(tmp), web=web, watchers=watchers))
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"arena serve metropolis, {PLAYERS} instant bots, {GAMES} seeded games each (load average {load}):")
    medians = {}
    for kind, runs in results.items():
        medians[kind] = statistics.median(r[0] for r in runs) * 1000
        relay = statistics.median(r[2] for r in runs) * 1000
        line = (f"  {kind:<20} server CPU per round median {medians[kind]:.3f} ms over "
                f"{sum(r[1] for r in runs)} rounds")
        if kind != "no --web":
            line += f"; relay CPU per round {relay:.3f} ms"
        if runs[0][3]:
            line += f"; each viewer got {runs[0][3] // VIEWERS} bytes"
        print(line + " (games: " + ", ".join(f"{r[0] * 1000:.3f}" for r in runs) + " ms)")
    ratio = medians[f"--web, {VIEWERS} viewers"] / medians["--web, no viewer"]
    print(f"  {VIEWERS} viewers / none: {ratio:.3f}; none / no --web: "
          f"{medians['--web, no viewer'] / medians['no --web']:.3f}")
    ok = bar(f"server CPU per round with {VIEWERS} WebSocket viewers <= 110 % of none",
             f"{100 * ratio:.1f} % ({medians[f'--web, {VIEWERS} viewers']:.3f} vs "
             f"{medians['--web, no viewer']:.3f} ms, load {load})", ratio <= BAR_RATIO)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
