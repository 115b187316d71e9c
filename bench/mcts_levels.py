"""The generic search (bench/_mcts.py, common/game.py only) against each game's strongest computer player.

Per game, ``--games`` (4) two-player games, the search's seat alternated (first seat in even games), seeds
1, 2, …; the search runs ``--simulations`` (1000) simulations a decision with its defaults (UCB1 c = 2,
playouts of 20 random actions valued by ``returns()``). The opponents play through the interface too:

- motti ``hard`` (``motti.thinking.decide``, a whole action, written as interface steps by
  ``MottiState.actions_of``), the search on motti's ``"ordered"`` encoding, default 20×15 map, turn cap
  ``--motti-turns`` (10 turns, 5 each: at 1000 simulations a search turn is 6 to 9 decisions of about a
  second of CPU each, so a game at the interface's default cap of 1000 turns would take hours);
- Star Lanes ``hard`` (``starlanes.ai.choose``, each action encoded by ``starlanes.game.encode``), under the
  1977 rules: their trading asks each company once, whereas 1995 trading goes on as long as a player trades,
  and a search that keeps choosing trades would never end its turn;
- arena ``smart`` (an :class:`arena.bots.Seat`: the bot's Brain handed the messages the server would send),
  on ``office``, one smart bot against the search.

A game is won by the player with the higher ``returns()`` (rank-based: the winner of motti, the richer in Star
Lanes, more points in arena), a tie is a draw. Printed per game: results, mean ``scores()`` of each side,
median CPU seconds per search decision, the game's CPU time; the games run in two processes (``--jobs``). One
bar per game: its figure is the search's results against the level (the game's yardstick); it passes when
every game was played to its end through the interface (the interface's proof).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _bars import bar
from _mcts import MCTS

from common.game import SIMULTANEOUS, State, load


def _motti_opponent(state: Any, rng: random.Random) -> None:
    from motti.thinking import decide

    for step in state.actions_of(decide(state.game, "hard", rng)):
        state.apply_action(step)


def _starlanes_opponent(state: Any, rng: random.Random) -> None:
    from starlanes.ai import choose
    from starlanes.game import encode

    for action in choose(state.game, "hard"):
        state.apply_action(encode(action))


OPTIONS: dict[str, dict[str, Any]] = {
    "motti": {"actions": "ordered"},
    "starlanes": {"rules": "1977"},
    "arena": {"map": "office", "players": 2},
}
LEVEL = {"motti": "hard", "starlanes": "hard", "arena": "smart"}


def play(name: str, seed: int, simulations: int, options: dict[str, Any]) -> dict[str, Any]:
    """One game, the search in seat ``(seed + 1) % 2`` (module docstring): its result (1 won, 0 drawn, −1
    lost), both sides' scores, the search's CPU seconds per decision and the game's CPU seconds."""
    began = time.process_time()
    state: State = load(name).new_initial_state(seed=seed, **options)
    me = (seed + 1) % 2
    search = MCTS(simulations, seed=seed)
    rng = random.Random(seed)
    seat = None
    if name == "arena":
        from arena.bots import Example, Seat

        seat = Seat(Example("smart", random.Random(seed)), 1 - me, state.game.arena.path)
    decisions: list[float] = []
    while not state.is_terminal():
        mover = state.current_player()
        if mover == SIMULTANEOUS:
            t = time.process_time()
            mine = search.decide(state, me)
            decisions.append(time.process_time() - t)
            joint = [0, 0]
            joint[me] = mine
            assert seat is not None
            joint[1 - me] = seat.action(state)
            state.apply_actions(joint)
        elif mover == me:
            t = time.process_time()
            state.apply_action(search.decide(state))
            decisions.append(time.process_time() - t)
        elif name == "motti":
            _motti_opponent(state, rng)
        else:
            _starlanes_opponent(state, rng)
    returns = state.returns()
    scores = state.scores()
    return {"name": name, "seed": seed, "seat": me, "result": (returns[me] > returns[1 - me]) -
            (returns[me] < returns[1 - me]), "mine": scores[me], "theirs": scores[1 - me],
            "decisions": decisions, "cpu": time.process_time() - began,
            "ended": state.is_terminal()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--motti-turns", type=int, default=10)
    parser.add_argument("--only", nargs="*", default=list(OPTIONS), choices=list(OPTIONS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    options = {name: dict(OPTIONS[name]) for name in args.only}
    if "motti" in options:
        options["motti"]["max_turns"] = args.motti_turns
    jobs = [(name, seed, args.simulations, options[name]) for name in args.only
            for seed in range(1, args.games + 1)]
    jobs.sort(key=lambda job: job[0] == "motti")   # the short games first: their figures come in early
    print(f"{args.simulations} simulations a decision, {args.games} games a game, {args.jobs} processes; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    began = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in args.only}
    ok = True
    with ProcessPoolExecutor(args.jobs) as pool:
        for done in as_completed([pool.submit(play, *job) for job in jobs]):
            r = done.result()
            rows = results[r["name"]]
            rows.append(r)
            print(f"{r['name']:>9} seed {r['seed']} search in seat {r['seat'] + 1}: "
                  f"{['lost', 'draw', 'won'][r['result'] + 1]}, scores {r['mine']:g} : {r['theirs']:g}, "
                  f"{len(r['decisions'])} decisions, "
                  f"median {statistics.median(r['decisions']):.2f} s CPU each, "
                  f"game {r['cpu']:.0f} s CPU, at {time.perf_counter() - began:.0f} s, "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)
            if len(rows) == args.games:
                ok &= _report(r["name"], rows)
    print(f"wall {time.perf_counter() - began:.0f} s, load average now {os.getloadavg()[0]:.1f}")
    return 0 if ok else 1


def _report(name: str, rows: list[dict[str, Any]]) -> bool:
    """The figures and the bar of one game's search games, once they are all played."""
    won = sum(r["result"] > 0 for r in rows)
    drawn = sum(r["result"] == 0 for r in rows)
    ended = sum(r["ended"] for r in rows)
    median = statistics.median(d for r in rows for d in r["decisions"])
    print(f"{name}: mean scores search {statistics.mean(r['mine'] for r in rows):g}, {LEVEL[name]} "
          f"{statistics.mean(r['theirs'] for r in rows):g}; median {median:.2f} s CPU a decision", flush=True)
    return bar(f"{name}: generic search vs {LEVEL[name]}, every game ended through common.game",
               f"won {won}, drew {drawn}, lost {len(rows) - won - drawn} of {len(rows)}; ended {ended}",
               ended == len(rows))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
