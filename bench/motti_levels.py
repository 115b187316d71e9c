"""motti's computer levels at the defaults the players get (spec/motti.md §2; issue 28; motti/levels.py).

Every game starts as the program's would: a map generated from its seed (20x15, or a shipped map), the default
rules (reset ``strict``, no turn cap of the rules), and the levels think through ``motti.thinking.decide``,
medium and hard with their default budgets (``rollout.MEDIUM``,
``rollout.HARD``, printed). The bench stops a game at
``--cap`` turns (400, one player's turn each) and counts it as capped. Seats are alternated: in even games the
first named player is player 1. ``rush`` is bench/_rush.py (a keen human's plain strategy), ``mcts`` the
generic search of bench/_mcts.py at 1000 simulations playing motti through ``common.game``
(``actions="ordered"``), as bench/mcts_levels.py does. The parts, and the bars (bench/_bars.py; exit status 1
when one is missed):

* pairings of 2 players on generated 20x15 maps, 10 games each (``--full``: 20; hard vs mcts
  ``--mcts-games``, at least 4): hard, medium and easy each against rush, hard vs medium, medium vs easy, hard
  vs mcts; the first named wins >= 90 %, 70 %, 50 %, 70 %, 70 %, 95 % of the games decided by capture;
* hard vs hard: >= 90 % of the games over by capture within the cap, on generated 20x15 maps (10 games), on
  ``classic`` and on ``corridor`` (2 each; ``--full``: 20 each), one bar per map;
* 3- and 4-player games of hard on generated 20x15 maps (4 each; ``--full``: 20): a first capture within half
  the cap (200 turns) in >= 80 %, the game over within the cap in >= 60 %, bars per player count;
* think time from the games themselves: CPU seconds per decision (``time.process_time`` in the worker) per
  level on 20x15 maps (generated and ``classic``), median and worst, and the median of a turn's first move
  (the one the playouts weigh); hard's worst < 1.0 s. Beside it each
  level plays every seat of ``continent`` for ``--continent-turns`` turns (figures only);
* over every game, per level: hard's attacks that cross only its own cells while an enemy cell is crossable
  (<= 5 % of hard's attacks), the disguised passes (``motti.evaluate.changes_nothing`` true for a move other
  than ``("pass",)``; none for every level) and the plain passes.

All the games run in ``--jobs`` (2) processes, one game each, every game queued at once, the longest kinds
first; the wall time and the load average are printed at the end. ``--pairings hard-baseline,easy-random``
adds pairings of the old bench (``baseline``: bench/frozen/motti_baseline.py; ``random``: a random legal
action), ``--reset-rule empty`` plays every game under the other reset rule; neither has a bar.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "frozen"))

import _rush
from _bars import bar
from _mcts import MCTS

from motti import rollout
from motti.evaluate import changes_nothing
from motti.game import GAME, MottiState
from motti.levels import LEVELS
from motti.rules import RESET_RULES, Action, Game, Move, legal_mask
from motti.thinking import decide

TURN_CAP = 400
MCTS_SIMULATIONS = 1000
#: The pairings with a bar: (first, second) -> the least share of the games decided by capture the first wins.
PAIRINGS: dict[tuple[str, str], float] = {
    ("hard", "rush"): 0.9, ("medium", "rush"): 0.7, ("easy", "rush"): 0.5,
    ("hard", "medium"): 0.7, ("medium", "easy"): 0.7, ("hard", "mcts"): 0.95,
}
HARD_MAPS = (None, "classic", "corridor")
OVER_BY_CAPTURE = 0.9
FIRST_CAPTURE = 0.8
OVER = 0.6
ATTACKS_OWN_ONLY = 0.05
HARD_WORST_CPU = 1.0
#: Rough CPU cost of one game of each kind of job, hard against rush = 1 (about 50 s in bench/README.md's
#: first run): the pool gets the longest first.
COST = {"mcts": 8.0, "corridor": 7.0, "multi": 2.5, "hard-hard": 1.0, "hard": 1.0, "continent": 0.2,
        "other": 0.05}


def _baseline(game: Game, rng: random.Random) -> Move:
    import motti_baseline

    move: Move = motti_baseline.choose_action(game, rng)
    return move


def _random(game: Game, rng: random.Random) -> Move:
    move: Move = rng.choice(game.legal_actions())
    return move


def _level(name: str) -> Callable[[Game, random.Random], Move]:
    return lambda game, rng: decide(game, name, rng)


#: The players that choose whole actions (``Game.apply`` form); ``mcts`` chooses the interface's steps.
MOVERS: dict[str, Callable[[Game, random.Random], Move]] = {
    **{name: _level(name) for name in LEVELS}, "rush": _rush.choose_action, "baseline": _baseline,
    "random": _random,
}
KINDS = (*MOVERS, "mcts")


@dataclass(frozen=True)
class Job:
    """One game: ``group`` the figures it counts in, ``seats`` the player kind of each player 1..N, ``board``
    a shipped map's name (None: a generated 20x15 map for ``len(seats)`` players)."""

    group: str
    seats: tuple[str, ...]
    seed: int
    board: str | None = None
    cap: int = TURN_CAP
    reset_rule: str = RESET_RULES[0]
    cost: float = 1.0


@dataclass
class Tally:
    """One player kind's moves in one game: CPU seconds per decision (``think``, a step of the interface's
    for mcts; ``first``, those of a turn's first move, which the levels' playouts weigh), whole actions by
    what they were (``moves``: ``pass``, ``disguised`` pass and ``disguised VERB``, ``attack``, ``own-only``
    attack while an enemy cell was crossable, ``defend``, ``guerilla``)."""

    think: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    moves: Counter[str] = field(default_factory=Counter)


@dataclass
class Outcome:
    """How one game went: ``winner`` the kind that won (None: capped or a draw), ``capture`` whether it ended
    with one player left, ``turns`` played, ``first_capture`` the turn count when the first player left (None:
    nobody did), per kind its :class:`Tally`, the game's CPU seconds in the worker and its board's size."""

    job: Job
    winner: str | None
    capture: bool
    turns: int
    first_capture: int | None
    tallies: dict[str, Tally]
    cpu: float
    size: tuple[int, int]


def classify(game: Game, move: Move) -> list[str]:
    """What *move* of the player in turn is (the keys of :attr:`Tally.moves`), judged on *game* before it is
    played: a ``pass``, a ``disguised`` pass (``changes_nothing``; and ``disguised VERB``), an ``attack``
    (with crosses) and, when its crosses are all the player's own cells while an enemy cell was crossable,
    ``own-only``."""
    verb = move[0]
    if verb == "pass":
        return ["pass"]
    kinds = ["disguised", f"disguised {verb}"] if changes_nothing(game, move) else []
    if verb != "attack":
        return [*kinds, verb]
    if not move[1]:
        return kinds
    board, me = game.board, game.current_player
    own_only = all(board.owner[y, x] == me for x, y in move[1])
    crossable = legal_mask(board, me, Action.ATTACK) & (board.owner != me) & (board.owner != 0)
    return [*kinds, "attack", *(["own-only"] if own_only and crossable.any() else [])]


def new_state(job: Job) -> MottiState:
    """The game of *job* through the interface, as the program starts it: the map generated from the seed (or
    the shipped map, the seed's generator playing), the rules' defaults but ``reset_rule``, no turn cap."""
    where = {"map": job.board} if job.board else {"players": len(job.seats)}
    return GAME.new_initial_state(seed=job.seed, actions="ordered", max_turns=None,
                                  reset_rule=job.reset_rule, **where)


def play(job: Job) -> Outcome:
    """Play *job* to its end or its cap; every whole action goes through ``MottiState.actions_of``, the
    search's steps straight to the state."""
    began = time.process_time()
    state = new_state(job)
    game = state.game
    rngs = {p: random.Random(job.seed * 31 + p) for p in range(1, len(job.seats) + 1)}
    searches = {p: MCTS(MCTS_SIMULATIONS, seed=job.seed * 31 + p)
                for p, kind in enumerate(job.seats, 1) if kind == "mcts"}
    tallies = {kind: Tally() for kind in job.seats}
    first_capture = None
    players = len(game.alive)
    while not game.is_terminal() and game.turns < job.cap:
        player = game.current_player
        kind = job.seats[player - 1]
        tally = tallies[kind]
        if kind == "mcts":
            start = time.process_time()
            step = searches[player].decide(state)
            tally.think.append(time.process_time() - start)
            state.apply_action(step)
        else:
            fresh = not game.attacked
            start = time.process_time()
            move = MOVERS[kind](game, rngs[player])
            tally.think.append(time.process_time() - start)
            if fresh:
                tally.first.append(tally.think[-1])
            tally.moves.update(classify(game, move))
            for step in state.actions_of(move):
                state.apply_action(step)
        if first_capture is None and len(game.alive) < players:
            first_capture = game.turns
    end = game.end
    winner = None if end is None or end.winner is None else job.seats[end.winner - 1]
    return Outcome(job, winner, end is not None and end.result == "win", game.turns, first_capture, tallies,
                   time.process_time() - began, (game.board.width, game.board.height))


def _count(full: bool, scale: float, default: int) -> int:
    """Games of one pairing, map or player count: *default*, 20 with ``--full``, times ``--scale``."""
    return max(1, round((20 if full else default) * scale))


def plan(args: argparse.Namespace) -> list[Job]:
    """Every game of the chosen parts, in the order their figures are printed."""
    jobs: list[Job] = []
    rule = args.reset_rule

    def pairing(first: str, second: str, games: int) -> None:
        cost = COST["mcts"] if "mcts" in (first, second) else COST["hard" if "hard" in (first, second)
                                                                    else "other"]
        for i in range(games):
            seats = (first, second) if i % 2 == 0 else (second, first)
            jobs.append(Job(f"{first} vs {second}", seats, args.seed + i, None, args.cap, rule, cost))

    if "pairings" in args.parts:
        for first, second in PAIRINGS:
            games = max(4, args.mcts_games) if second == "mcts" else 10
            pairing(first, second, _count(args.full, args.scale, games))
        for extra in filter(None, args.pairings.split(",")):
            first, second = extra.split("-")
            pairing(first, second, _count(args.full, args.scale, 10))
    if "hard" in args.parts:
        for board in HARD_MAPS:
            games = _count(args.full, args.scale, 10 if board is None else 2)
            jobs += [Job(f"hard vs hard on {board or 'generated'}", ("hard", "hard"), args.seed + i, board,
                         args.cap, rule, COST["corridor" if board == "corridor" else "hard-hard"])
                     for i in range(games)]
    if "multi" in args.parts:
        for players in (3, 4):
            jobs += [Job(f"hard x{players}", ("hard",) * players, args.seed + i, None, args.cap, rule,
                         COST["multi"] * players / 3) for i in range(_count(args.full, args.scale, 4))]
    if "continent" in args.parts:
        jobs += [Job("continent", (name,) * 8, args.seed, "continent", args.continent_turns, rule,
                     COST["continent"]) for name in LEVELS]
    return jobs


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f} %)" if whole else f"{part} of 0"


def _median(values: Iterable[int]) -> str:
    listed = list(values)
    return f"{statistics.median(listed):.0f}" if listed else "-"


def report_pairing(first: str, second: str, games: list[Outcome]) -> tuple[str, str, bool] | None:
    """Print one pairing's line and return its bar (None for a pairing without one)."""
    won = [g for g in games if g.winner == first]
    lost = [g for g in games if g.winner == second]
    decided = [g for g in games if g.capture]
    won_by_capture = sum(g.capture for g in won)
    capped = sum(g.job.cap <= g.turns and not g.capture for g in games)
    print(f"  {first:>6} vs {second:<6} {len(games):2d} games: won {len(won)} ({won_by_capture} by capture), "
          f"lost {len(lost)} ({sum(g.capture for g in lost)} by capture), {len(decided)} decided by capture, "
          f"capped {capped}; turns median {_median(g.turns for g in games)} "
          f"(of the captures {_median(g.turns for g in decided)})", flush=True)
    least = PAIRINGS.get((first, second))
    if least is None:
        return None
    return (f"motti {first} vs {second}: wins >= {least:.0%} of the games decided by capture",
            f"{_share(won_by_capture, len(decided))}; {len(games)} games, {capped} capped",
            bool(decided) and won_by_capture >= least * len(decided))


def report(outcomes: list[Outcome], cap: int) -> list[tuple[str, str, bool]]:
    """Print every figure of *outcomes* and return the bars (what, figure, met)."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[outcome.job.group].append(outcome)
    bars: list[tuple[str, str, bool]] = []
    pairings = [g for g in groups if " vs " in g and not g.startswith("hard vs hard")]
    if pairings:
        print(f"pairings: 2 players, generated 20x15 maps, seats alternated, cap {cap} turns:")
        for name in pairings:
            first, second = name.split(" vs ")
            got = report_pairing(first, second, groups[name])
            if got is not None:
                bars.append(got)
    hard_hard = [g for g in groups if g.startswith("hard vs hard")]
    if hard_hard:
        print(f"hard vs hard, cap {cap} turns:")
    for name in hard_hard:
        games = groups[name]
        over = sum(g.capture for g in games)
        print(f"  {name[len('hard vs hard on '):]:>9}: {len(games)} games, {over} over by capture, turns "
              f"median {_median(g.turns for g in games)} "
              f"(of the captures {_median(g.turns for g in games if g.capture)})", flush=True)
        bars.append((f"motti {name}: >= {OVER_BY_CAPTURE:.0%} over by capture within {cap} turns",
                     _share(over, len(games)), over >= OVER_BY_CAPTURE * len(games)))
    multi = [g for g in groups if g.startswith("hard x")]
    if multi:
        print(f"hard against itself with more players, generated 20x15 maps, cap {cap} turns:")
    for name in multi:
        games = groups[name]
        first = sum(g.first_capture is not None and g.first_capture <= cap // 2 for g in games)
        over = sum(g.capture for g in games)
        players = len(games[0].job.seats)
        print(f"  {players} players: {len(games)} games, first capture within {cap // 2} turns in {first}, "
              f"over in {over}; first capture at turn median "
              f"{_median(g.first_capture for g in games if g.first_capture is not None)}, "
              f"turns median {_median(g.turns for g in games)}", flush=True)
        bars += [(f"motti {players} players of hard: a first capture within {cap // 2} turns in "
                  f">= {FIRST_CAPTURE:.0%}", _share(first, len(games)), first >= FIRST_CAPTURE * len(games)),
                 (f"motti {players} players of hard: over within {cap} turns in >= {OVER:.0%}",
                  _share(over, len(games)), over >= OVER * len(games))]
    bars += report_thinking(outcomes)
    return bars


def _seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"median {statistics.median(values):.3f} s, worst {max(values):.3f} s ({len(values)} decisions)"


def report_thinking(outcomes: list[Outcome]) -> list[tuple[str, str, bool]]:
    """Print the CPU seconds per decision by kind and board, and the moves' tallies; return their bars."""
    boards: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    firsts: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    moves: dict[str, Counter[str]] = defaultdict(Counter)
    decisions: Counter[str] = Counter()
    for outcome in outcomes:
        size = "x".join(map(str, outcome.size))
        where = outcome.job.board if outcome.job.board in ("corridor", "continent") else size
        for kind, tally in outcome.tallies.items():
            boards[where][kind] += tally.think
            firsts[where][kind] += tally.first
            moves[kind] += tally.moves
            decisions[kind] += len(tally.think)
    print("CPU seconds per decision in the games (mcts: one step of the interface):")
    for where, kinds in boards.items():
        for kind in sorted(kinds, key=KINDS.index):
            first = firsts[where][kind]
            print(f"  {where:>9} {kind:<8} {_seconds(kinds[kind])}"
                  + (f"; a turn's first move: median {statistics.median(first):.3f} s" if first else ""))
    bars: list[tuple[str, str, bool]] = []
    small = boards.get("20x15", {}).get("hard", [])
    if small:
        worst = max(small)
        bars.append((f"motti hard: worst decision on 20x15 < {HARD_WORST_CPU:.1f} s CPU",
                     f"{worst:.2f} s (median {statistics.median(small):.3f} s)", worst < HARD_WORST_CPU))
    print("moves over every game (disguised: changes nothing, yet not a pass; own-only: an attack on the "
          "player's own cells only while an enemy cell was crossable):")
    for kind in sorted(moves, key=KINDS.index):
        m = moves[kind]
        disguised = ", ".join(f"{verb} {m[f'disguised {verb}']}" for verb in ("attack", "defend", "guerilla")
                              if m[f"disguised {verb}"])
        print(f"  {kind:<8} plain passes {m['pass']}, disguised passes {m['disguised']}"
              f"{f' ({disguised})' if disguised else ''}, attacks "
              f"{m['attack']} (own-only {_share(m['own-only'], m['attack'])}), defend {m['defend']}, "
              f"guerilla {m['guerilla']}")
        if kind in LEVELS:
            bars.append((f"motti {kind}: no disguised pass", f"{m['disguised']} in {decisions[kind]} moves",
                         m["disguised"] == 0))
    if "hard" in moves:
        m = moves["hard"]
        bars.append((f"motti hard: attacks on its own cells only while an enemy cell is crossable "
                     f"<= {ATTACKS_OWN_ONLY:.0%}", _share(m["own-only"], m["attack"]),
                     m["own-only"] <= ATTACKS_OWN_ONLY * m["attack"]))
    return bars


def main(argv: list[str]) -> int:
    """Run the chosen parts; exit status 1 when a bar was missed, 2 for bad arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1000, help="the first game's seed (default 1000)")
    parser.add_argument("--full", action="store_true", help="20 games a pairing, map and player count")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every number of games (>= 1 each)")
    parser.add_argument("--cap", type=int, default=TURN_CAP, help=f"turn cap of a game (default {TURN_CAP})")
    parser.add_argument("--mcts-games", type=int, default=4, help="hard vs mcts games (default 4, the least)")
    parser.add_argument("--continent-turns", type=int, default=8,
                        help="turns each level plays on continent for its think time (default 8)")
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the games (default 2)")
    parser.add_argument("--parts", default="pairings,hard,multi,continent",
                        help="comma-separated: pairings, hard (hard vs hard), multi, continent")
    parser.add_argument("--pairings", default="", help="more pairings FIRST-SECOND, comma-separated, of "
                        f"{', '.join(KINDS)}")
    parser.add_argument("--reset-rule", default=RESET_RULES[0], choices=RESET_RULES)
    args = parser.parse_args(argv)
    args.parts = set(args.parts.split(","))
    unknown = args.parts - {"pairings", "hard", "multi", "continent"}
    bad = [p for p in filter(None, args.pairings.split(","))
           if len(p.split("-")) != 2 or not set(p.split("-")) <= set(KINDS)]
    if unknown or bad or args.scale <= 0 or args.cap < 2 or args.jobs < 1:
        parser.error(f"bad --parts {', '.join(sorted(unknown))}" if unknown else f"bad --pairings "
                     f"{', '.join(bad)}" if bad else "--scale, --cap and --jobs must be positive")
    jobs = plan(args)
    print(f"{len(jobs)} games in {args.jobs} processes; medium plays out {rollout.MEDIUM}, hard "
          f"{rollout.HARD} (their defaults), mcts {MCTS_SIMULATIONS} simulations; reset rule "
          f"{args.reset_rule}; load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    began = time.perf_counter()
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        longest = sorted(jobs, key=lambda job: -job.cost)
        for done in as_completed([pool.submit(play, job) for job in longest]):
            outcome = done.result()
            outcomes.append(outcome)
            job = outcome.job
            print(f"  [{len(outcomes)}/{len(jobs)} at {time.perf_counter() - began:.0f} s] {job.group} seed "
                  f"{job.seed} ({' '.join(job.seats)}): {outcome.winner or 'nobody'} "
                  f"{'won by capture' if outcome.capture else 'after'} {outcome.turns} turns, "
                  f"{outcome.cpu:.0f} s CPU", flush=True)
    wall = time.perf_counter() - began
    outcomes.sort(key=lambda o: jobs.index(o.job))
    bars = report(outcomes, args.cap)
    cpu = sum(o.cpu for o in outcomes)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"motti levels: {wall:.0f} s wall-clock, {cpu:.0f} s CPU in the games ({cpu / args.jobs:.0f} s "
          f"for each of {args.jobs} idle cores); load average {load}", flush=True)
    return 0 if all([bar(*b) for b in bars]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
