"""motti's computer levels against each other (spec/motti.md §2; motti/ai.py, motti/hard.py).

2-player games on freshly generated default 20x15 maps (seeded), seats alternated (even games: the first
named player is player 1), a cap of 400 turns, under the default reset rule ``strict`` and, beside it, the
``empty`` figures. ``baseline`` is the computer player as it was before the levels
(bench/frozen/motti_baseline.py, outside the scripts ``make bench`` runs), ``random`` picks a random legal
action. Printed, never asserted; the bars of the levels:

* hard vs baseline, 40 games: >= 50 % won by capture, at most 1 loss, >= 25 % of the games over within 200
  turns;
* hard vs hard, 20 games: >= 80 % over by capture within 400 turns;
* each level beats the one below in >= 60 % of the games decided by capture, 10 games each; easy beats random
  in >= 90 %;
* time per action, median and worst, per level on 20x15 and on the shipped ``continent``; the worst of hard
  <= 1.5 s on 20x15 with the default budget.

Every match is also played under ``empty`` with a quarter of the games (``--empty-scale``), printed below its
``strict`` line; the bars are checked under ``strict``. The hard level plays the matches with a smaller search
budget than its default (``--hard-budget``, printed) so that the motti part of ``make bench`` stays within 20
minutes on a 2-core machine; the games run in ``--jobs`` processes, all queued at once. The time per action
(wall-clock, and beside it the CPU time of the process: on a loaded machine the wall-clock is the larger) is
taken first, alone, with hard's default budget.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "frozen"))

import motti_baseline

from motti import hard, levels
from motti.generate import generate
from motti.mapfile import find_map, load_map
from motti.rules import CapitalCaptured, Game

Chooser = Callable[[Game, random.Random], tuple]
TURN_CAP = 400
QUICK_TURNS = 200
#: hard's search budget in the matches (its default, hard.DEFAULT_BUDGET, is timed on its own).
MATCH_BUDGET = 8


def chooser(name: str, budget: int) -> Chooser:
    """The move function of a player kind: random, baseline, easy, medium or hard (with *budget*)."""
    if name == "random":
        return lambda game, rng: rng.choice(game.legal_actions())
    if name == "baseline":
        return motti_baseline.choose_action
    if name == "hard":
        return lambda game, rng: hard.choose_action(game, rng, budget)
    return lambda game, rng: levels.choose_action(game, rng, name)


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


#: The matches: (first, second, games under strict); the ``empty`` figures beside play ``--empty-scale`` of
#: those games. Longest first, so that the pool's two workers finish together.
MATCHES = (("hard", "hard", 20), ("hard", "baseline", 40), ("hard", "medium", 10), ("medium", "baseline", 10),
           ("medium", "easy", 10), ("easy", "random", 10))
LADDER = {("easy", "random"): 0.9, ("medium", "easy"): 0.6, ("hard", "medium"): 0.6,
          ("medium", "baseline"): 0.6}


def summary(first: str, second: str, rule: str, results: list[Result]) -> str:
    """One match as one line: wins, losses, captures, games over within 200 turns, seconds of play."""
    games = len(results)
    quick = sum(r.winner is not None and r.turns <= QUICK_TURNS for r in results)
    seconds = sum(sum(t) for r in results for t in r.times.values())
    decided = [r for r in results if r.capture]
    head = f"  {first:>6} vs {second:<8} [{rule:<6}] {games:3d} games: "
    tail = f"over within {QUICK_TURNS} turns {quick} ({100 * quick / games:.0f}%); {seconds:.0f} s of play"
    if first == second:
        over = len(decided)
        return head + f"{over} over by capture ({100 * over / games:.0f}%) within {TURN_CAP} turns; " + tail
    won = sum(r.winner == first for r in results)
    lost = sum(r.winner == second for r in results)
    by_capture = sum(r.winner == first and r.capture for r in results)
    share = f"{100 * _share(results, first):.0f}%" if decided else "-"
    return head + (f"won {won} ({by_capture} = {100 * by_capture / games:.0f}% by capture), lost {lost}, "
                   f"capped {games - won - lost}; {share} of the {len(decided)} decided by capture; " + tail)


@dataclass
class Timing:
    """Seconds per action of one level on one board: wall-clock (what a player waits) and CPU of this process
    (what the action costs without the other processes' load), median and worst."""

    wall: list[float]
    cpu: list[float]

    def __str__(self) -> str:
        return (f"{statistics.median(self.wall) * 1000:6.0f} / {max(self.wall) * 1000:6.0f} ms wall, "
                f"CPU {statistics.median(self.cpu) * 1000:.0f} / {max(self.cpu) * 1000:.0f} ms "
                f"({len(self.wall)} actions)")


def time_per_action(name: str, budget: int, board_name: str | None, turns: int, seed: int) -> Timing:
    """Time per action of *name* playing both seats for *turns* turns on a generated 20x15 map (*board_name*
    None) or a shipped map, under ``strict``."""
    if board_name is None:
        board = generate(20, 15, 2, random.Random(seed))
    else:
        board = load_map(find_map(board_name)).board
    game = Game(board, random.Random(seed), reset_rule="strict")
    move = chooser(name, budget)
    rng = random.Random(seed)
    timing = Timing([], [])
    played = 0
    while not game.is_terminal() and played < turns:
        player = game.current_player
        start, start_cpu = time.perf_counter(), time.process_time()
        action = move(game, rng)
        timing.wall.append(time.perf_counter() - start)
        timing.cpu.append(time.process_time() - start_cpu)
        game.apply(action)
        played += game.current_player != player
    return timing


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
            game.apply(levels.choose_action(game, rng, "easy"))
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
    parser.add_argument("--hard-budget", type=int, default=MATCH_BUDGET,
                        help=f"search simulations of hard in the matches (default {MATCH_BUDGET}; "
                             f"the level's own default is {hard.DEFAULT_BUDGET})")
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the matches' games")
    parser.add_argument("--levels", default="easy,medium,hard", help="levels of the time per action")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every number of games")
    parser.add_argument("--empty-scale", type=float, default=0.25,
                        help="games under empty, as a share of those under strict")
    parser.add_argument("--only", default="", help="comma-separated parts: time,attack,matches")
    args = parser.parse_args()
    parts = set(args.only.split(",")) if args.only else {"time", "attack", "matches"}
    began = time.perf_counter()
    bars: list[tuple[str, bool]] = []
    if "time" in parts:
        print(f"time per action, median / worst, each level playing both seats under strict (hard with its "
              f"default budget of {hard.DEFAULT_BUDGET} simulations):", flush=True)
        for name in args.levels.split(","):
            small = time_per_action(name, hard.DEFAULT_BUDGET, None, 40, args.seed)
            print(f"  {name:<6} 20x15, 40 turns:    {small}", flush=True)
            large = time_per_action(name, hard.DEFAULT_BUDGET, "continent", 4, args.seed)
            print(f"  {name:<6} continent, 4 turns: {large}", flush=True)
            if name == "hard":
                bars.append(("hard: worst action <= 1.5 s wall-clock on 20x15 with the default budget",
                             max(small.wall) <= 1.5))
    if "attack" in parts:
        strict, empty = simulated_attack("strict", args.seed), simulated_attack("empty", args.seed)
        print(f"one simulated attack on 20x15 (clone + attack): strict {strict}, empty {empty}", flush=True)
    if "matches" in parts:
        bars += matches(args.hard_budget, args.jobs, args.scale, args.empty_scale, args.seed)
    for text, met in bars:
        print(f"bar {'met' if met else 'MISSED'}: {text}")
    print(f"motti levels: {time.perf_counter() - began:.0f} s wall-clock")
    return 0 if all(met for _text, met in bars) else 1


def matches(budget: int, jobs: int, scale: float, empty_scale: float, seed: int) -> list[tuple[str, bool]]:
    """Play :data:`MATCHES` under strict and empty in *jobs* processes (every game queued at once); print
    each match's strict and empty lines together and return the bars."""
    print(f"matches: 2 players, generated 20x15 maps, seats alternated, cap {TURN_CAP} turns; hard plays "
          f"with a search budget of {budget} simulations (its default is {hard.DEFAULT_BUDGET}); "
          f"{jobs} processes",
          flush=True)
    plan = {(first, second, rule): max(2, round(games * scale * (1.0 if rule == "strict" else empty_scale)))
            for first, second, games in MATCHES for rule in ("strict", "empty")}
    futures: dict[tuple[str, str, str], list[Future[Result]]] = {}
    with ProcessPoolExecutor(jobs) as pool:
        for rule in ("strict", "empty"):
            for first, second, _games in MATCHES:
                futures[first, second, rule] = [pool.submit(play, seed + i, first, second, rule, budget)
                                                for i in range(plan[first, second, rule])]
        results = {key: [f.result() for f in done] for key, done in futures.items()}
    bars: list[tuple[str, bool]] = []
    for first, second, _games in MATCHES:
        for rule in ("strict", "empty"):
            print(summary(first, second, rule, results[first, second, rule]), flush=True)
        strict = results[first, second, "strict"]
        games = len(strict)
        if (first, second) == ("hard", "baseline"):
            won = sum(r.winner == first and r.capture for r in strict)
            quick = sum(r.winner is not None and r.turns <= QUICK_TURNS for r in strict)
            bars += [("hard vs baseline: >= 50 % won by capture", won >= 0.5 * games),
                     ("hard vs baseline: at most 1 loss", sum(r.winner == second for r in strict) <= 1),
                     (f"hard vs baseline: >= 25 % over within {QUICK_TURNS} turns", quick >= 0.25 * games)]
        elif first == second:
            bars.append((f"hard vs hard: >= 80 % over by capture within {TURN_CAP} turns",
                         sum(r.capture for r in strict) >= 0.8 * games))
        else:
            bar = LADDER[first, second]
            bars.append((f"{first} vs {second}: >= {bar:.0%} of the games decided by capture",
                         _share(strict, first) >= bar))
    return bars


if __name__ == "__main__":
    sys.exit(main())
