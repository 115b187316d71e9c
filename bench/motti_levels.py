"""motti's computer levels against each other (spec/motti.md §2; motti/ai.py, motti/hard.py).

2-player games on freshly generated default 20x15 maps (seeded), seats alternated (even games: the first
named player is player 1), a cap of 400 turns, under the default reset rule ``strict`` and, beside it, the
``empty`` figures. ``baseline`` is the computer player as it was before the levels
(bench/frozen/motti_baseline.py, outside the scripts ``make bench`` runs), ``random`` picks a random legal
action. Printed, never asserted; the bars of the levels:

* hard vs baseline, 40 games (10 more under ``empty``): >= 50 % won by capture, at most 1 loss, >= 25 % of
  the games over within 200 turns;
* hard vs hard, 20 games: >= 80 % over by capture within 400 turns;
* each level beats the one below in >= 60 % of the games decided by capture, 10 games each; easy beats random
  in >= 90 %;
* time per action, median and worst, per level on 20x15 and on the shipped ``continent``; the worst of hard
  <= 1.5 s on 20x15 with the default budget.

The hard level may play with a smaller search budget here (``--hard-budget``, printed) so that the motti part
of ``make bench`` stays within 20 minutes on a 2-core machine; games run in ``--jobs`` processes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "frozen"))

import motti_baseline

from motti import ai, hard
from motti.generate import generate
from motti.mapfile import find_map, load_map
from motti.rules import CapitalCaptured, Game

Chooser = Callable[[Game, random.Random], tuple]
TURN_CAP = 400
QUICK_TURNS = 200


def chooser(name: str, budget: int) -> Chooser:
    """The move function of a player kind: random, baseline, easy, medium or hard (with *budget*)."""
    if name == "random":
        return lambda game, rng: rng.choice(game.legal_actions())
    if name == "baseline":
        return motti_baseline.choose_action
    if name == "hard":
        return lambda game, rng: hard.choose_action(game, rng, budget)
    return lambda game, rng: ai.choose_action(game, rng, name)


@dataclass
class Result:
    """One game: the kind that won (None: the cap), whether by capture, turns played, seconds per action."""

    winner: str | None
    capture: bool
    turns: int
    times: dict[str, list[float]]


def play(seed: int, first: str, second: str, rule: str, budget: int, turns: int = TURN_CAP) -> Result:
    """One seeded game on a generated 20x15 map; *first* is player 1 on even seeds, player 2 on odd ones."""
    kinds = {1: first, 2: second} if seed % 2 == 0 else {1: second, 2: first}
    movers = {p: chooser(kind, budget) for p, kind in kinds.items()}
    game = Game(generate(20, 15, 2, random.Random(seed)), random.Random(seed), reset_rule=rule)
    rngs = {p: random.Random(seed * 31 + p) for p in kinds}
    times: dict[str, list[float]] = {first: [], second: []}
    played = 0
    capture = False
    while not game.is_terminal() and played < turns:
        player = game.current_player
        start = time.perf_counter()
        action = movers[player](game, rngs[player])
        times[kinds[player]].append(time.perf_counter() - start)
        events = game.apply(action)
        capture |= any(isinstance(event, CapitalCaptured) for event in events)
        played += game.current_player != player or game.is_terminal()
    winner = kinds[game.winner] if game.winner is not None else None
    return Result(winner, capture and winner is not None, played, times)


def _play(job: tuple[int, str, str, str, int]) -> Result:
    return play(*job)


def match(pool: ProcessPoolExecutor, first: str, second: str, games: int, rule: str, budget: int,
          seed: int) -> list[Result]:
    """*games* seeded games of *first* against *second*, printed as one line."""
    start = time.perf_counter()
    jobs = [(seed + i, first, second, rule, budget) for i in range(games)]
    results = list(pool.map(_play, jobs))
    won = sum(r.winner == first for r in results)
    lost = sum(r.winner == second for r in results)
    by_capture = sum(r.winner == first and r.capture for r in results)
    decided = [r for r in results if r.capture]
    quick = sum(r.winner is not None and r.turns <= QUICK_TURNS for r in results)
    share = f"{100 * sum(r.winner == first for r in decided) / len(decided):.0f}%" if decided else "-"
    if first == second:
        print(f"  {first:>8} vs {second:<8} [{rule:<6}] {games:3d} games: {len(decided)} over by capture "
              f"within {TURN_CAP} turns, {quick} within {QUICK_TURNS}; {time.perf_counter() - start:.0f} s",
              flush=True)
        return results
    print(f"  {first:>8} vs {second:<8} [{rule:<6}] {games:3d} games: won {won} ({by_capture} by capture), "
          f"lost {lost}, capped {games - won - lost}; of the {len(decided)} decided by capture {share} won; "
          f"over within {QUICK_TURNS} turns {quick} ({100 * quick / games:.0f}%); "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    return results


def time_per_action(name: str, budget: int, board_name: str | None, turns: int,
                    seed: int) -> tuple[str, float]:
    """Time per action of *name* playing both seats for *turns* turns: ('median / worst' wall-clock and CPU
    seconds of this process, what an action costs without the other processes' load; the worst CPU seconds).
    """
    if board_name is None:
        board = generate(20, 15, 2, random.Random(seed))
    else:
        board = load_map(find_map(board_name)).board
    game = Game(board, random.Random(seed), reset_rule="strict")
    move = chooser(name, budget)
    rng = random.Random(seed)
    times: list[float] = []
    cpu: list[float] = []
    played = 0
    while not game.is_terminal() and played < turns:
        player = game.current_player
        start, start_cpu = time.perf_counter(), time.process_time()
        action = move(game, rng)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        game.apply(action)
        played += game.current_player != player
    return (f"{statistics.median(times) * 1000:7.1f} / {max(times) * 1000:7.1f} ms "
            f"(CPU: {statistics.median(cpu) * 1000:.1f} / {max(cpu) * 1000:.1f} ms; {len(times)} actions)",
            max(cpu))


def simulated_attack(rule: str, seed: int, positions: int = 20, repeats: int = 20) -> str:
    """Median microseconds of one simulated attack as the search plays it (a clone of the game, then one
    attack with six crosses) on mid-game 20x15 positions under *rule*."""
    times: list[float] = []
    for i in range(positions):
        game = Game(generate(20, 15, 2, random.Random(seed + i)), random.Random(seed + i), reset_rule=rule)
        rng = random.Random(seed + i)
        for _ in range(60):
            if game.is_terminal():
                break
            game.apply(ai.choose_action(game, rng, "easy"))
        if game.is_terminal():
            continue
        move = hard.fast_action(game, rng)
        if move[0] != "attack":
            continue
        for draw in range(repeats):
            start = time.perf_counter()
            trial = hard.clone(game, random.Random(draw))
            trial.apply(move)
            times.append(time.perf_counter() - start)
    return f"{statistics.median(times) * 1e6:.0f} µs (median of {len(times)})"


def _share(results: list[Result], winner: str) -> float:
    """The share of the games decided by capture that *winner* won (0 when none was)."""
    decided = [r for r in results if r.capture]
    return sum(r.winner == winner for r in decided) / len(decided) if decided else 0.0


def main() -> int:
    """Run the chosen parts; exit status 1 when a bar of the module docstring was missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--hard-budget", type=int, default=8,
                        help=f"search simulations of hard in the matches (default {hard.DEFAULT_BUDGET})")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--levels", default="easy,medium,hard", help="levels of the time per action")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every number of games")
    parser.add_argument("--only", default="",
                        help="comma-separated parts: ladder,baseline,self,empty,time,attack")
    args = parser.parse_args()
    every = {"ladder", "baseline", "self", "empty", "time", "attack"}
    parts = set(args.only.split(",")) if args.only else every

    def n(games: int) -> int:
        return max(2, round(games * args.scale))

    budget = args.hard_budget
    print(f"motti levels: 2 players, generated 20x15 maps, seats alternated, cap {TURN_CAP} turns; "
          f"hard plays with a search budget of {budget} simulations (default {hard.DEFAULT_BUDGET})")
    bars: list[tuple[str, bool]] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        if "baseline" in parts:
            results = match(pool, "hard", "baseline", n(40), "strict", budget, args.seed)
            won = sum(r.winner == "hard" and r.capture for r in results) / len(results)
            quick = sum(r.winner is not None and r.turns <= QUICK_TURNS for r in results) / len(results)
            lost = sum(r.winner == "baseline" for r in results)
            bars += [("hard vs baseline: >= 50 % won by capture", won >= 0.5),
                     ("hard vs baseline: at most 1 loss", lost <= 1),
                     (f"hard vs baseline: >= 25 % over within {QUICK_TURNS} turns", quick >= 0.25)]
        if "self" in parts:
            results = match(pool, "hard", "hard", n(20), "strict", budget, args.seed)
            over = sum(r.capture for r in results) / len(results)
            bars.append((f"hard vs hard: >= 80 % over by capture within {TURN_CAP} turns", over >= 0.8))
        if "ladder" in parts:
            ladder = (("easy", "random", 0.9), ("medium", "easy", 0.6), ("hard", "medium", 0.6),
                      ("medium", "baseline", 0.6))
            for upper, lower, bar in ladder:
                results = match(pool, upper, lower, n(10), "strict", budget, args.seed)
                bars.append((f"{upper} vs {lower}: >= {bar:.0%} of the games decided by capture",
                             _share(results, upper) >= bar))
        if "empty" in parts:
            match(pool, "hard", "baseline", n(10), "empty", budget, args.seed)
    if "attack" in parts:
        strict, empty = simulated_attack("strict", args.seed), simulated_attack("empty", args.seed)
        print(f"one simulated attack on 20x15 (clone + attack): strict {strict}, empty {empty}")
    if "time" in parts:
        print("time per action (median / worst), both seats played by the level:")
        for name in args.levels.split(","):
            small, worst_cpu = time_per_action(name, hard.DEFAULT_BUDGET, None, 40, args.seed)
            large, _worst = time_per_action(name, hard.DEFAULT_BUDGET, "continent", 4, args.seed)
            if name == "hard":
                bars.append(("hard: worst action <= 1.5 s of CPU on 20x15 with the default budget",
                             worst_cpu <= 1.5))
            print(f"  {name:<6} 20x15 (40 turns): {small}; continent (4 turns): {large}", flush=True)
        print(f"  (hard with its default budget of {hard.DEFAULT_BUDGET} simulations)")
    for text, met in bars:
        print(f"bar {'met' if met else 'MISSED'}: {text}")
    return 0 if all(met for _text, met in bars) else 1


if __name__ == "__main__":
    sys.exit(main())
