"""Star Lanes computer levels: seeded 2-player games between levels, seats alternated, under each rule set.

For each pair (stronger, weaker): hard–medium, medium–easy, easy–random, the stronger level's share of
the games it wins outright (net worth strictly higher at the end; a tie counts for neither), over GAMES
seeded games per rule set; the stronger level sits first in even-numbered games and second in odd ones (the
first mover is then drawn by the rules). ``random`` picks a random candidate and makes up to three random
legal trades (1995) or a random legal amount for each company asked (1977).

Bars: hard–medium and medium–easy at least 60 %, easy–random at least 80 %; a computer's decision (one call
of ``starlanes.ai.choose``) under 50 ms at the worst, in CPU time of the thread (wall-clock times are printed
too; on a loaded machine they include time spent waiting for a core). Prints the figures and PASS/FAIL;
exit status 1 on a FAIL.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _bars import bar

from starlanes import ai
from starlanes.rules import MOVE, RULE_SETS, Action, EndTurn, Game, RuleSet, Trade

GAMES = 200
PAIRS = (("hard", "medium", 0.60), ("medium", "easy", 0.60), ("easy", "random", 0.80))
DECISION_BAR_S = 0.050

Player = Callable[[Game, random.Random], list[Action]]


def random_player(game: Game, rng: random.Random) -> list[Action]:
    """A random candidate; up to three random legal trades then the end (1995), or a random legal amount for
    the company asked (1977)."""
    if game.phase == MOVE:
        return [rng.choice(game.legal_actions())]
    if not game.can_end_trading():
        company = game.tradable()[0]
        return [Trade(company, rng.randint(*game.trade_limits(company)))]
    actions: list[Action] = []
    trial = game.clone()
    for _ in range(rng.randrange(4)):
        company = rng.choice(trial.tradable())
        trade = Trade(company, rng.randint(*trial.trade_limits(company)))
        trial.apply(trade)
        actions.append(trade)
    return [*actions, EndTurn()]


def computer(level: str, times: list[tuple[float, float]]) -> Player:
    """Level ``level`` of :mod:`starlanes.ai`, recording (CPU seconds, wall seconds) per decision."""
    def choose(game: Game, rng: random.Random) -> list[Action]:
        cpu, wall = time.thread_time(), time.perf_counter()
        actions = ai.choose(game, level)
        times.append((time.thread_time() - cpu, time.perf_counter() - wall))
        return actions
    return choose


def play(seed: int, rules: RuleSet, seats: list[Player]) -> list[int]:
    """One seeded game to its end; returns the final net worths by seat."""
    game = Game.new(["First", "Second"], random.Random(seed), rules)
    rngs = [random.Random(seed * 7 + seat) for seat in range(2)]
    while not game.is_terminal():
        seat = game.current
        for action in seats[seat](game, rngs[seat]):
            game.apply(action)
            if game.is_terminal() or game.current != seat:
                break
    return game.net_worths()


def match(strong: str, weak: str, rules: RuleSet, times: list[tuple[float, float]]) -> float:
    """The share of GAMES seeded games that ``strong`` wins outright against ``weak``."""
    players = {name: random_player if name == "random" else computer(name, times) for name in (strong, weak)}
    wins = 0
    for seed in range(GAMES):
        seats = [players[strong], players[weak]] if seed % 2 == 0 else [players[weak], players[strong]]
        worths = play(seed, rules, seats)
        mine, theirs = (worths[0], worths[1]) if seed % 2 == 0 else (worths[1], worths[0])
        wins += mine > theirs
    return wins / GAMES


def main() -> int:
    failed = False
    times: list[tuple[float, float]] = []
    for name, rules in RULE_SETS.items():
        for strong, weak, least in PAIRS:
            share = match(strong, weak, rules, times)
            print(f"starlanes {name} rules: {strong} beats {weak} in {share:.1%} of {GAMES} games "
                  f"(bar {least:.0%})")
            failed |= not bar(f"starlanes {name}: {strong} beats {weak} in >= {least:.0%} of the games",
                              f"{share:.1%} of {GAMES}", share >= least)
    cpu = [c for c, _ in times]
    wall = [w for _, w in times]
    print(f"starlanes computer decisions: {len(times)}; "
          f"CPU median {statistics.median(cpu) * 1000:.2f} ms, "
          f"worst {max(cpu) * 1000:.2f} ms (bar {DECISION_BAR_S * 1000:.0f} ms); "
          f"wall-clock median {statistics.median(wall) * 1000:.2f} ms, worst {max(wall) * 1000:.2f} ms")
    failed |= not bar(f"starlanes computer decision < {DECISION_BAR_S * 1000:.0f} ms CPU at the worst",
                      f"{max(cpu) * 1000:.2f} ms", max(cpu) < DECISION_BAR_S)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
