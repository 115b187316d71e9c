"""The `smart` example bot against `hunt`: 2 + 2 bots, 10 seeded games on each shipped map (spec/arena.md §4).

Every game runs the real server and four bots over loopback TCP in one process (short prep time, a generous
move time so that a slow round on a busy machine never costs a bot its move). Seats alternate between games
(smart on ids 0 and 2, then on 1 and 3) and the seeds differ. A game counts for `smart` when the two smart
bots together score more points than the two hunt bots (exact fractions, §2.8).
Bar: smart wins ≥ 70 % of the games. Prints per-map results and PASS or FAIL (exit status 1).
"""

from __future__ import annotations

import asyncio
import random
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

from arena.bots import run_bot
from arena.mapfile import find_map, load_arena
from arena.server import ArenaServer, Settings

MAPS = ("office", "field", "maze", "corridors", "metropolis")
GAMES_PER_MAP = 10
BAR = 0.70


async def one_game(arena, seed: int) -> dict[str, Fraction]:
    """Team totals {"smart": points, "hunt": points} of one game."""
    server = ArenaServer(arena, Settings(players=4, port=0, move_ms=5000, prep_ms=0, seed=seed))
    await server.start()
    seats = ["smart", "hunt"] * 2 if seed % 2 else ["hunt", "smart"] * 2
    rng = random.Random(seed)
    bots = []
    for strategy in seats:
        bot = run_bot("127.0.0.1", server.port, strategy, random.Random(rng.random()), timeout_s=60)
        bots.append(asyncio.create_task(bot))
        while server.waiting_for > 4 - len(bots):  # ids follow the seats: connect one at a time
            await asyncio.sleep(0.001)
    table = await server.run()
    brains = await asyncio.gather(*bots)
    strategy_of = {brain.id: brain.strategy for brain in brains}
    totals = {"smart": Fraction(0), "hunt": Fraction(0)}
    for row in table:
        totals[strategy_of[row.id]] += row.points
    return totals


def main() -> int:
    wins = games = 0
    smart_points = hunt_points = Fraction(0)
    for index, name in enumerate(MAPS):
        arena = load_arena(find_map(name))
        won = 0
        for k in range(GAMES_PER_MAP):
            totals = asyncio.run(one_game(arena, 1000 * index + k + 1))
            won += totals["smart"] > totals["hunt"]
            smart_points += totals["smart"]
            hunt_points += totals["hunt"]
        wins += won
        games += GAMES_PER_MAP
        print(f"{name:>10}: smart team ahead in {won} of {GAMES_PER_MAP} games")
    share = wins / games
    print(f"{games} games of 2 smart + 2 hunt bots: smart team ahead in {wins} ({100 * share:.0f} %); "
          f"mean team points smart {float(smart_points) / games:.1f}, hunt {float(hunt_points) / games:.1f}")
    ok = bar(f"smart team ahead of hunt in >= {100 * BAR:.0f} % of the games",
             f"{wins} of {games}, {100 * share:.0f} %", share >= BAR)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
