"""motti self-play speed on the default 20x15 map size: random and computer players against each other.

Each game is a freshly generated 2-player map (motti.generate defaults, seeded) played through the
OpenSpiel-style interface (``legal_actions``/``apply``) until a winner or an action cap (a drawn game).
Printed, never asserted: median seconds per game, games per second (1 / median), actions per second, and how
many games were decided.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from motti import ai
from motti.generate import generate
from motti.rules import Game

Chooser = Callable[[Game, random.Random], tuple]


def random_player(game: Game, rng: random.Random) -> tuple:
    return rng.choice(game.legal_actions())


def play(seed: int, players: dict[int, Chooser], cap: int) -> tuple[float, int, int | None]:
    """One seeded game: (seconds, actions, winner or None if the cap was reached)."""
    game = Game(generate(20, 15, 2, random.Random(seed)), random.Random(seed))
    rngs = {p: random.Random(seed * 31 + p) for p in players}
    actions = 0
    start = time.perf_counter()
    while not game.is_terminal() and actions < cap:
        player = game.current_player
        game.apply(players[player](game, rngs[player]))
        actions += 1
    return time.perf_counter() - start, actions, game.winner


def report(name: str, seeds: range, players: Callable[[int], dict[int, Chooser]], cap: int) -> list:
    results = [play(seed, players(seed), cap) for seed in seeds]
    seconds = [r[0] for r in results]
    median = statistics.median(seconds)
    rate = sum(r[1] for r in results) / sum(seconds)
    decided = sum(r[2] is not None for r in results)
    print(f"{name:<22} {len(results):3d} games  median {median * 1000:8.1f} ms/game  "
          f"{1 / median:7.2f} games/s  {rate:8.0f} actions/s  decided {decided}/{len(results)} (cap {cap})")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12,
                        help="games per pairing (half as many of computer vs computer)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    first = args.seed
    print("motti self-play on generated 20x15 maps, 2 players")
    report("random vs random", range(first, first + args.games),
           lambda seed: {1: random_player, 2: random_player}, cap=20000)
    report("computer vs computer", range(first, first + max(1, args.games // 2)),
           lambda seed: {1: ai.choose_action, 2: ai.choose_action}, cap=1000)
    print("  (a computer player keeps its capital occupied: two of them rarely decide a game before several"
          " global resets)")

    def seats(seed: int) -> dict[int, Chooser]:
        if seed % 2 == 0:
            return {1: ai.choose_action, 2: random_player}
        return {1: random_player, 2: ai.choose_action}

    results = report("computer vs random", range(first, first + args.games), seats, cap=5000)
    wins = sum(1 for seed, r in zip(range(first, first + args.games), results, strict=True)
               if r[2] is not None and seats(seed)[r[2]] is ai.choose_action)
    print(f"computer won {wins} of {args.games} games against the random player")


if __name__ == "__main__":
    main()
