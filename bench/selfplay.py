"""Self-play through the one game interface (common/game.py) for any game: ``python bench/selfplay.py GAME``.

Every game is played from ``new_initial_state(seed=s)`` with uniformly random legal actions (a generator
seeded per game; ``apply_actions`` with one random action per player in simultaneous steps) until it ends or
an action cap is reached. Printed, never asserted, as medians over the games: actions per second, and the cost
of ``clone()`` measured on states sampled along the playouts (microseconds, and in actions: how many random
actions take as long as one clone). Without GAME every installed game is measured.

Options of a game go as ``--option NAME=VALUE`` (ints and floats are converted); motti's default is
``max_turns=200`` so that random playouts end.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common.game import SIMULTANEOUS, State, game_names, load

DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {"motti": {"max_turns": 200}}
ACTION_CAP = 200_000
CLONE_SAMPLES = 20   # states per game whose clone is timed


def step(state: State, rng: random.Random) -> None:
    """One random action (one per player in a simultaneous step)."""
    if state.current_player() == SIMULTANEOUS:
        state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.num_players())])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def clone_seconds(state: State, repeat: int = 5) -> float:
    """The fastest of *repeat* clones of *state* (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        state.clone()
        best = min(best, time.perf_counter() - start)
    return best


def playout(name: str, seed: int, options: dict[str, Any]) -> tuple[int, float, list[float], bool]:
    """One seeded random game: (actions, seconds spent in actions, clone times, ended before the cap)."""
    state = load(name).new_initial_state(seed=seed, **options)
    rng = random.Random(seed)
    actions, spent, clones = 0, 0.0, []
    every = 25
    while not state.is_terminal() and actions < ACTION_CAP:
        if actions % every == 0 and len(clones) < CLONE_SAMPLES:
            clones.append(clone_seconds(state))
        start = time.perf_counter()
        step(state, rng)
        spent += time.perf_counter() - start
        actions += 1
    return actions, spent, clones, state.is_terminal()


def measure(name: str, games: int, first_seed: int, options: dict[str, Any]) -> None:
    rates, clone_us, ratios, ended, lengths = [], [], [], 0, []
    for seed in range(first_seed, first_seed + games):
        actions, spent, clones, over = playout(name, seed, options)
        rate = actions / spent if spent else float("inf")
        rates.append(rate)
        lengths.append(actions)
        ended += over
        if clones:
            median_clone = statistics.median(clones)
            clone_us.append(median_clone * 1e6)
            ratios.append(median_clone * rate)
    shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
    print(f"{name:<10} {games} games ({shown}): median {statistics.median(rates):9.0f} actions/s, "
          f"{statistics.median(lengths):7.0f} actions/game, ended {ended}/{games}; "
          f"clone {statistics.median(clone_us):8.1f} us = {statistics.median(ratios):5.2f} actions")


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", help="a game name (default: every installed game)")
    parser.add_argument("--games", type=int, default=10, help="seeded games per game (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="an option of new_initial_state, e.g. max_turns=400")
    args = parser.parse_args(argv)
    names = [args.game] if args.game else game_names()
    given = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option {item!r}: expected NAME=VALUE")
        given[key] = _value(value)
    for name in names:
        measure(name, args.games, args.seed, {**DEFAULT_OPTIONS.get(name, {}), **given})
    return 0


if __name__ == "__main__":
    sys.exit(main())
