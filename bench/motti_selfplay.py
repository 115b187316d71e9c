"""motti self-play on the default 20x15 map size: random players, and each level against itself and random.

Random self-play runs through the one game interface (bench/selfplay.py, ``common.game.load("motti")``).
The levels (motti/levels.py: ``easy``, ``medium``, ``hard``) think as in the windows
(``motti.thinking.decide``) on freshly generated 2-player 20x15 maps (motti.generate defaults, seeded), with
whole actions (``rules.Game.apply``) under the turn cap of the rules (``max_turns``). Printed, never asserted,
per level: how many of its ``--finish-games`` games against itself end by capture within ``--turns`` turns,
their turns and global resets; how many of its ``--random-games`` games against a random player (seats
alternated) it wins by capture; its CPU seconds per action (``time.process_time``, median and worst, and the
median of a turn's first action, where medium and hard play their candidates out) in those games and over
the first ``--classic-turns`` turns of a game on the shipped ``classic`` map. The levels' games run in
``--jobs`` processes, the longest kinds first. How strong the levels are against each other and a keen
human's strategy is bench/motti_levels.py's part.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selfplay import measure

from motti.generate import generate
from motti.levels import LEVELS
from motti.mapfile import find_map, load_map
from motti.rules import Game, Move, Reset
from motti.thinking import decide

#: Rough CPU cost of one game of each kind and level (hard against itself = 100): the pool gets the longest
#: first.
COST = {"self": 10.0, "classic": 4.0, "random": 1.0}
LEVEL_COST = {"easy": 0.01, "medium": 1.0, "hard": 10.0}


@dataclass(frozen=True)
class Job:
    """One game: ``kind`` is ``self`` (the level in both seats), ``random`` (the level against a random
    player, the level first in even seeds) or ``classic`` (the level in both seats on ``classic``)."""

    kind: str
    level: str
    seed: int
    turns: int


@dataclass(frozen=True)
class Outcome:
    """How *job*'s game ended: ``captured`` whether by capture, ``won`` whether the level won it (against a
    random player), the turns played, the global resets, and the level's CPU seconds per action (``think``)
    and per first action of a turn (``first``)."""

    job: Job
    captured: bool
    won: bool
    turns: int
    resets: int
    think: list[float]
    first: list[float]


def play(job: Job) -> Outcome:
    """Play *job*'s game to its end or the turn cap ``job.turns``."""
    if job.kind == "classic":
        board = load_map(find_map("classic")).board
    else:
        board = generate(20, 15, 2, random.Random(job.seed))
    game = Game(board, random.Random(job.seed), max_turns=job.turns)
    rngs = {p: random.Random(job.seed * 31 + p) for p in (1, 2)}
    computer = {1 if job.seed % 2 == 0 else 2} if job.kind == "random" else {1, 2}
    think: list[float] = []
    first: list[float] = []
    resets = 0
    while not game.is_terminal():
        player = game.current_player
        move: Move
        if player in computer:
            fresh = not game.attacked
            start = time.process_time()
            move = decide(game, job.level, rngs[player])
            think.append(time.process_time() - start)
            if fresh:
                first.append(think[-1])
        else:
            move = rngs[player].choice(game.legal_actions())
        resets += sum(isinstance(event, Reset) for event in game.apply(move))
    captured = game.result == "win"
    return Outcome(job, captured, captured and game.winner in computer, game.turns, resets, think, first)


def plan(args: argparse.Namespace) -> list[Job]:
    """Every level's games: against itself, against a random player, on ``classic``."""
    jobs: list[Job] = []
    for level in args.levels:
        jobs += [Job("self", level, args.seed + i, args.turns) for i in range(args.finish_games)]
        jobs += [Job("random", level, args.seed + i, args.turns) for i in range(args.random_games)]
        if args.classic_turns > 0:
            jobs.append(Job("classic", level, args.seed, args.classic_turns))
    return jobs


def per_action(games: list[Outcome]) -> str:
    """The level's CPU per action in *games*: every action's, then the median of a turn's first action's."""
    think = [t for o in games for t in o.think]
    first = [t for o in games for t in o.first]
    if not think:
        return "no action"
    return (f"median {statistics.median(think) * 1000:.1f} ms, worst {max(think) * 1000:.1f} ms over "
            f"{len(think)} actions; a turn's first: median {statistics.median(first) * 1000:.1f} ms")


def report(level: str, outcomes: list[Outcome], args: argparse.Namespace) -> None:
    """Print the figures of *level*'s games."""
    own = [o for o in outcomes if o.job.level == level]
    selves = [o for o in own if o.job.kind == "self"]
    against = [o for o in own if o.job.kind == "random"]
    classic = [o for o in own if o.job.kind == "classic"]
    print(f"{level}:")
    if selves:
        ended = sorted(o.turns for o in selves if o.captured)
        median = f"{statistics.median(ended):.0f}" if ended else "-"
        print(f"  against itself: {len(ended)}/{len(selves)} games won by capture within {args.turns} turns "
              f"(turns: median {median}, all {ended}); resets per game: median "
              f"{statistics.median(o.resets for o in selves):.0f}")
    if against:
        print(f"  against a random player: won {sum(o.won for o in against)}/{len(against)} by capture, "
              f"in {statistics.median(o.turns for o in against):.0f} turns at the median")
    if selves or against:
        print(f"  CPU per action on generated maps: {per_action(selves + against)}")
    if classic:
        print(f"  CPU per action on classic (first {args.classic_turns} turns): {per_action(classic)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="random self-play games through the interface")
    parser.add_argument("--seed", type=int, default=1, help="the first seed of every kind of game")
    parser.add_argument("--levels", default=",".join(LEVELS), help="the levels measured, comma-separated")
    parser.add_argument("--finish-games", type=int, default=2, help="each level's games against itself")
    parser.add_argument("--random-games", type=int, default=4,
                        help="each level's games against a random player")
    parser.add_argument("--turns", type=int, default=60, help="turn cap of those games")
    parser.add_argument("--classic-turns", type=int, default=30,
                        help="turns of each level's game on classic (0: none)")
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the levels' games")
    args = parser.parse_args()
    args.levels = [name for name in args.levels.split(",") if name]
    unknown = [name for name in args.levels if name not in LEVELS]
    if unknown:
        parser.error(f"unknown level {', '.join(unknown)}: the levels are {', '.join(LEVELS)}")
    if args.jobs < 1 or args.turns < 1:
        parser.error("--jobs and --turns must be positive")
    began = time.perf_counter()
    print("motti self-play on generated 20x15 maps, 2 players")
    measure("motti", args.games, args.seed, {"max_turns": 200})
    jobs = plan(args)
    with ProcessPoolExecutor(args.jobs) as pool:
        longest = sorted(jobs, key=lambda job: -COST[job.kind] * LEVEL_COST.get(job.level, 1.0))
        outcomes = list(pool.map(play, longest))
    for level in args.levels:
        report(level, outcomes, args)
    cpu = sum(t for o in outcomes for t in o.think)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{len(jobs)} level games in {args.jobs} processes: {time.perf_counter() - began:.0f} s wall-clock "
          f"in all, {cpu:.0f} s CPU thinking; load average {load}")


if __name__ == "__main__":
    main()
