"""motti self-play on the default 20x15 map size: random and computer players against each other.

Random self-play runs through the one game interface (bench/selfplay.py, ``common.game.load("motti")``).
The computer's games are freshly generated 2-player maps (motti.generate defaults, seeded) played with whole
actions (``rules.Game.apply``) under the turn cap of the rules (``max_turns``). Printed, never asserted: for
computer against computer how many of the seeded games end by capture within the cap (400 turns = 200
rounds), their turns, the global resets, and the computer's time per move (median and worst) on generated maps
and on the shipped ``classic`` map; for computer against random players the median seconds per game and the
computer's wins.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selfplay import measure

from motti import ai
from motti.generate import generate
from motti.mapfile import find_map, load_map
from motti.rules import Game, Reset

Chooser = Callable[[Game, random.Random], tuple]


def random_player(game: Game, rng: random.Random) -> tuple:
    return rng.choice(game.legal_actions())


def play(seed: int, players: dict[int, Chooser], turns: int) -> tuple[float, int, int | None]:
    """One seeded game capped at *turns* turns: (seconds, actions, winner by capture or None)."""
    game = Game(generate(20, 15, 2, random.Random(seed)), random.Random(seed), max_turns=turns)
    rngs = {p: random.Random(seed * 31 + p) for p in players}
    actions = 0
    start = time.perf_counter()
    while not game.is_terminal():
        player = game.current_player
        game.apply(players[player](game, rngs[player]))
        actions += 1
    return time.perf_counter() - start, actions, game.winner if game.result == "win" else None


def report(name: str, seeds: range, players: Callable[[int], dict[int, Chooser]], cap: int) -> list:
    """Play the seeded games capped at *cap* turns and print the medians."""
    results = [play(seed, players(seed), cap) for seed in seeds]
    seconds = [r[0] for r in results]
    median = statistics.median(seconds)
    rate = sum(r[1] for r in results) / sum(seconds)
    decided = sum(r[2] is not None for r in results)
    print(f"{name:<22} {len(results):3d} games  median {median * 1000:8.1f} ms/game  "
          f"{1 / median:7.2f} games/s  {rate:8.0f} actions/s  won by capture {decided}/{len(results)} "
          f"(cap {cap} turns)")
    return results


def computer_game(game: Game, seed: int) -> tuple[int, int, list[float]]:
    """Computer against computer until the end (a capture, or the game's turn cap): (turns played, resets,
    seconds per move)."""
    rngs = {p: random.Random(seed * 31 + p) for p in range(1, game.board.players + 1)}
    resets = 0
    times: list[float] = []
    while not game.is_terminal():
        player = game.current_player
        start = time.perf_counter()
        action = ai.choose_action(game, rngs[player])
        times.append(time.perf_counter() - start)
        resets += sum(isinstance(event, Reset) for event in game.apply(action))
    return game.turns, resets, times


def finishing(seeds: range, turns: int, size: tuple[int, int] = (20, 15), distance_min: float = 8.0) -> None:
    """How many seeded computer-vs-computer games on generated maps of *size* end within *turns* turns."""
    ended: list[int] = []
    resets: list[int] = []
    times: list[float] = []
    for seed in seeds:
        board = generate(size[0], size[1], 2, random.Random(seed), distance_min=distance_min)
        game = Game(board, random.Random(seed), max_turns=turns)
        played, reset_count, move_seconds = computer_game(game, seed)
        resets.append(reset_count)
        times += move_seconds
        if game.result == "win":
            ended.append(played)
    share = 100 * len(ended) / len(seeds)
    median_turns = f"{statistics.median(ended):.0f}" if ended else "-"
    print(f"computer vs computer on {size[0]}x{size[1]} maps (capitals >= {distance_min:g} apart): "
          f"{len(ended)}/{len(seeds)} games ({share:.0f}%) won by capture within {turns} turns")
    print(f"  turns of those: median {median_turns}, all {sorted(ended)}; "
          f"resets per game: median {statistics.median(resets):.0f}")
    print(f"  time per move on these maps: median {statistics.median(times) * 1000:.1f} ms, "
          f"worst {max(times) * 1000:.1f} ms over {len(times)} moves")


def move_times(name: str, turns: int = 60) -> None:
    """The computer's time per move on a shipped map, over the first *turns* turns of a seeded game."""
    board = load_map(find_map(name)).board
    _played, _resets, times = computer_game(Game(board, random.Random(1), max_turns=turns), 1)
    print(f"  time per move on {name}: median {statistics.median(times) * 1000:.1f} ms, "
          f"worst {max(times) * 1000:.1f} ms over {len(times)} moves")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12,
                        help="games per pairing (half as many of computer vs computer)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--finish-games", type=int, default=10,
                        help="seeded computer-vs-computer games for the finishing figures")
    parser.add_argument("--turns", type=int, default=400, help="turn cap of those games")
    args = parser.parse_args()
    first = args.seed
    print("motti self-play on generated 20x15 maps, 2 players")
    measure("motti", args.games, first, {"max_turns": 200})
    finishing(range(first, first + args.finish_games), args.turns)
    finishing(range(first, first + args.finish_games), 1000, (12, 9), 6.0)
    move_times("classic")

    def seats(seed: int) -> dict[int, Chooser]:
        if seed % 2 == 0:
            return {1: ai.choose_action, 2: random_player}
        return {1: random_player, 2: ai.choose_action}

    results = report("computer vs random", range(first, first + args.games), seats, cap=args.turns)
    wins = sum(1 for seed, r in zip(range(first, first + args.games), results, strict=True)
               if r[2] is not None and seats(seed)[r[2]] is ai.choose_action)
    print(f"computer won {wins} of {args.games} games against the random player")


if __name__ == "__main__":
    main()
