"""arena vision speed: `visibility` for 16 players on the 204×204 shipped map metropolis (spec/arena.md §2.7).

Median time per round (wall, and CPU of this thread) over many seeded random positions, facings and team
splits, against the plain reference (`visible_plain` for every viewer); then the same on an open 200×200 board
(longest unblocked lines, the vectorised worst case; the plain reference is too slow there to run).
Bar: median ≤ 1 ms per round on metropolis (CPU time: on a busy machine the wall time also holds the time
spent waiting for a core). Prints PASS or FAIL (exit status 1).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _bars import bar

from arena.mapfile import find_map, load_arena
from arena.rules import BLUE, DIRECTIONS, RED, Arena, Player
from arena.vision import visibility, visible_plain

BAR_MS = 1.0
ROUNDS = 300
PLAIN_ROUNDS = 15
PLAYERS = 16


def boards(arena, count: int, seed: int):
    rng = random.Random(seed)
    free = arena.free_cells()
    for _ in range(count):
        reds = rng.randint(1, PLAYERS - 1)
        cells = rng.sample(free, PLAYERS)
        yield [Player(i, x, y, rng.choice(DIRECTIONS), RED if i < reds else BLUE)
               for i, (x, y) in enumerate(cells)]


def timed(arena, count: int, seed: int) -> tuple[list[float], list[float]]:
    """(wall seconds, thread CPU seconds) of `visibility` on *count* boards."""
    times, cpu = [], []
    for players in boards(arena, count, seed):
        t0, c0 = time.perf_counter(), time.thread_time()
        visibility(arena, players)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return times, cpu


def main() -> int:
    arena = load_arena(find_map("metropolis"))
    visibility(arena, next(boards(arena, 1, 0)))  # warm the tangent table
    fast, fast_cpu = timed(arena, ROUNDS, 1)
    plain = []
    for players in boards(arena, PLAIN_ROUNDS, 1):
        t0 = time.perf_counter()
        for p in players:
            visible_plain(arena, players, p.id)
        plain.append(time.perf_counter() - t0)
    fast_ms = statistics.median(fast) * 1000
    cpu_ms = statistics.median(fast_cpu) * 1000
    plain_ms = statistics.median(plain) * 1000
    worst_ms = max(fast) * 1000
    print(f"arena vision, {PLAYERS} players on {arena.name} {arena.width}x{arena.height}: "
          f"median {cpu_ms:.3f} ms CPU/round ({fast_ms:.3f} ms wall, max {worst_ms:.2f}) over {ROUNDS} "
          f"rounds; plain reference "
          f"{plain_ms:.1f} ms/round; speed-up x{plain_ms / fast_ms:.1f}")
    open_board = Arena(np.zeros((200, 200), dtype=bool), np.ones((200, 200), dtype=np.int16), "open")
    open_times, open_cpu = timed(open_board, ROUNDS, 2)
    open_ms = statistics.median(open_cpu) * 1000
    print(f"arena vision, {PLAYERS} players on an open 200x200 board: median {open_ms:.3f} ms CPU/round "
          f"({statistics.median(open_times) * 1000:.3f} ms wall, max {max(open_times) * 1000:.2f})")
    ok = bar(f"arena vision <= {BAR_MS:.0f} ms CPU per round on {arena.name}", f"{cpu_ms:.3f} ms",
             cpu_ms <= BAR_MS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
