"""Example bots against each other: do `hunt` bots score more than `random` bots? (spec/arena.md §4)

50 seeded games on the shipped office map over loopback TCP, the server and all bots in one process with short
timings; each game has 3 `hunt` and 3 `random` bots (which ids get which strategy alternates between games).
Prints the mean points per strategy, the share of games each strategy won, and PASS when hunt scores more.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

from arena.bots import run_bot
from arena.mapfile import find_map, load_arena
from arena.server import ArenaServer, Settings

GAMES = 50
PER_STRATEGY = 3


async def one_game(arena, seed: int) -> dict[str, list[Fraction]]:
    settings = Settings(players=2 * PER_STRATEGY, port=0, move_ms=2000, prep_ms=0, seed=seed)
    server = ArenaServer(arena, settings)
    await server.start()
    order = ["hunt", "random"] if seed % 2 else ["random", "hunt"]
    strategies = [order[k % 2] for k in range(2 * PER_STRATEGY)]
    rng = random.Random(seed)
    bots = []
    for strategy in strategies:
        bot = run_bot("127.0.0.1", server.port, strategy, random.Random(rng.random()), timeout_s=30)
        bots.append(asyncio.create_task(bot))
        await asyncio.sleep(0.002)
    table = await server.run()
    brains = await asyncio.gather(*bots)
    strategy_of = {brain.id: brain.strategy for brain in brains}
    points: dict[str, list[Fraction]] = {"hunt": [], "random": []}
    for row in table:
        points[strategy_of[row.id]].append(row.points)
    return points


def main() -> int:
    arena = load_arena(find_map("office"))
    totals: dict[str, list[float]] = {"hunt": [], "random": []}
    wins = {"hunt": 0, "random": 0, "tie": 0}
    for seed in range(1, GAMES + 1):
        points = asyncio.run(one_game(arena, seed))
        for strategy, values in points.items():
            totals[strategy].extend(float(v) for v in values)
        hunt, rnd = sum(points["hunt"]), sum(points["random"])
        wins["hunt" if hunt > rnd else "random" if rnd > hunt else "tie"] += 1
    hunt_mean, random_mean = statistics.mean(totals["hunt"]), statistics.mean(totals["random"])
    print(f"{GAMES} games on office, {PER_STRATEGY} hunt + {PER_STRATEGY} random bots each")
    print(f"mean points per bot: hunt {hunt_mean:.2f}, random {random_mean:.2f} "
          f"(ratio {hunt_mean / random_mean if random_mean else float('inf'):.2f})")
    print(f"median points per bot: hunt {statistics.median(totals['hunt']):.2f}, "
          f"random {statistics.median(totals['random']):.2f}")
    print(f"games won by team total: hunt {wins['hunt']}, random {wins['random']}, tied {wins['tie']}")
    ok = bar("hunt bots score more points than random bots (mean per bot)",
             f"hunt {hunt_mean:.2f}, random {random_mean:.2f}", hunt_mean > random_mean)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
