"""Star Lanes rules engine speed: complete 4-player games with random moves and random trades, headless.

Bar: the median complete game takes at most 20 ms. Prints the median, games per second and PASS/FAIL.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from starlanes.rules import MOVE, EndTurn, Game, Trade

GAMES = 200
BAR_SECONDS = 0.020


def play(seed: int) -> int:
    """One complete game with random moves and up to 3 random trades per turn; returns the number of turns."""
    choices = random.Random(seed)
    game = Game.new(["Ann", "Bob", "Cid", "Dee"], random.Random(seed))
    turns = 0
    while not game.is_terminal():
        if game.phase == MOVE:
            game.apply(choices.choice(game.legal_actions()))
            turns += 1
            continue
        for _ in range(choices.randrange(4)):
            company = choices.choice(game.active_companies())
            low, high = game.trade_limits(company)
            game.apply(Trade(company, choices.randint(low, high)))
        game.apply(EndTurn())
    return turns


def main() -> int:
    times = []
    turns = []
    for seed in range(GAMES):
        start = time.perf_counter()
        turns.append(play(seed))
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    verdict = "PASS" if median <= BAR_SECONDS else "FAIL"
    print(f"starlanes rules: {GAMES} games, median {median * 1000:.2f} ms/game "
          f"({statistics.median(turns):.0f} turns), {GAMES / sum(times):.0f} games/s; "
          f"bar {BAR_SECONDS * 1000:.0f} ms: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
