"""The bench of motti's levels (bench/motti_levels.py) and its yardstick, the rush player (bench/_rush.py),
on real positions (grid notation of spec/motti.md §9) and seeded games."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import _rush
import motti_levels
from motti_maps import board

from motti.rules import Game


def position(grid: str, caps: dict[int, tuple[int, int]], **kwargs: int) -> Game:
    return Game(board(grid, caps), random.Random(0), **kwargs)


# ------------------------------------------------------------------------------------------------ rush


def test_rush_defends_its_capital_against_an_enemy_wall_two_cells_away() -> None:
    # Player 1's free capital (2,1); player 2's occupied (4,1) is 2 cells away: the capital, then the ring
    # cell next to an enemy cell (3,1), then the first other ring cell.
    game = position("aaaabbb/aaaaBbb/aaaabbb", {1: (2, 1), 2: (6, 1)})
    assert _rush.choose_action(game, random.Random(1)) == ("defend", ((2, 1), (3, 1), (1, 1)))


def test_rush_does_not_defend_against_a_wall_three_cells_away() -> None:
    game = position("aaaabbb/aaaabBb/aaaabbb", {1: (2, 1), 2: (6, 1)})
    assert _rush.choose_action(game, random.Random(1))[0] == "attack"


def test_rush_takes_a_diagonal_capital_by_guerilla() -> None:
    # Player 2's free capital (3,1) is diagonal to player 1's occupied (2,0).
    game = position("aaAbbb/aaabbb/aaabbb", {1: (0, 0), 2: (3, 1)})
    assert _rush.choose_action(game, random.Random(1)) == ("guerilla", (3, 1))


def test_rush_after_an_attack_crosses_the_enemy_cell_then_its_own_nearest_the_capital() -> None:
    # Guerilla is impossible once the turn has attacked: the one enemy cell in reach (3,0) comes first, then
    # player 1's free cells by their steps to the capital (3,1): (2,1) at 1, (1,1) and (2,2) at 2, then two
    # of the three at 3.
    game = position("aaAbbb/aaabbb/aaabbb", {1: (0, 0), 2: (3, 1)}, attacks=5)
    verb, cells = _rush.choose_action(game, random.Random(1))
    assert verb == "attack" and cells[:2] == ((3, 0), (2, 1))
    assert set(cells[2:4]) == {(1, 1), (2, 2)} and set(cells[4:]) < {(1, 0), (0, 1), (1, 2)}


def test_rush_crosses_the_six_enemy_cells_nearest_the_enemy_capital() -> None:
    # Player 1's wall in column 2 touches nine cells of player 2 in column 3; the capital (5,0) is 2 + y
    # steps from (3, y).
    game = position("aaAbbb/" * 8 + "aaAbbb", {1: (0, 4), 2: (5, 0)})
    assert _rush.choose_action(game, random.Random(1)) == ("attack", tuple((3, y) for y in range(6)))


def test_rush_passes_when_no_cell_is_legal() -> None:
    # Every cell of player 1 is occupied: only the enemy cells next to them are legal, nearest first.
    game = position("AAbb/AAbb", {1: (0, 0), 2: (3, 1)}, attacks=5)
    assert _rush.choose_action(game, random.Random(1)) == ("attack", ((2, 1), (2, 0)))
    full = position("AABB/AABB", {1: (0, 0), 2: (3, 1)}, attacks=5)
    assert _rush.choose_action(full, random.Random(1)) == ("pass",)


# ------------------------------------------------------------------------------------ the bench's tallies


def test_classify_tells_passes_disguised_passes_and_attacks_on_own_cells() -> None:
    # Player 1's Guerilla on (3,1) is walled in by player 2's occupied cells and handed straight back.
    game = position("aaABbb/aaBbBb/aabBbb", {1: (0, 0), 2: (5, 2)})
    assert motti_levels.classify(game, ("pass",)) == ["pass"]
    assert motti_levels.classify(game, ("guerilla", (3, 1))) == ["disguised", "disguised guerilla",
                                                                        "guerilla"]
    assert motti_levels.classify(game, ("attack", ())) == ["disguised", "disguised attack"]
    assert motti_levels.classify(game, ("defend", ((0, 0),))) == ["defend"]
    # Player 2's occupied cells wall player 1's (2,0) in: no enemy cell is crossable, so an attack on its own
    # cells is no fault there; once (3,0) is free, it is.
    assert motti_levels.classify(game, ("attack", ((1, 0),))) == ["attack"]
    game = position("aaAbbb/aaBbBb/aabBbb", {1: (0, 0), 2: (5, 2)})
    assert motti_levels.classify(game, ("attack", ((1, 0), (1, 1)))) == ["attack", "own-only"]
    assert motti_levels.classify(game, ("attack", ((1, 0), (3, 0)))) == ["attack"]


def replay(job: motti_levels.Job) -> tuple[Game, Counter[str], Counter[tuple[str, str]]]:
    """*job* played again straight through ``Game.apply`` (the interface composes an attack's crosses in
    ascending cell order, so the replay does too): the game, each kind's moves and the moves by verb."""
    state = motti_levels.new_state(job)
    game = state.game
    rngs = {p: random.Random(job.seed * 31 + p) for p in range(1, len(job.seats) + 1)}
    moves: Counter[str] = Counter()
    verbs: Counter[tuple[str, str]] = Counter()
    width = game.board.width
    while not game.is_terminal() and game.turns < job.cap:
        kind = job.seats[game.current_player - 1]
        move = motti_levels.MOVERS[kind](game, rngs[game.current_player])
        moves[kind] += 1
        verbs[kind, move[0] if move[0] != "attack" or move[1] else "empty"] += 1
        if move[0] in ("attack", "defend"):
            move = (move[0], tuple(sorted(move[1], key=lambda c: c[1] * width + c[0])))
        game.apply(move)
    return game, moves, verbs


@pytest.mark.parametrize("cap", [5, motti_levels.TURN_CAP])
def test_a_bench_game_is_played_to_its_end_or_cap_and_counted(cap: int) -> None:
    job = motti_levels.Job("easy vs rush", ("rush", "easy"), 1001, cap=cap)
    outcome = motti_levels.play(job)
    game, moves, verbs = replay(job)
    assert outcome.turns == game.turns == (cap if cap == 5 else game.end.turns)
    assert outcome.capture is (game.end is not None and game.end.result == "win") is (cap != 5)
    assert outcome.winner == (None if game.winner is None else job.seats[game.winner - 1])
    assert outcome.first_capture == (outcome.turns if outcome.capture else None)
    assert outcome.size == (20, 15)
    for kind, tally in outcome.tallies.items():
        assert len(tally.think) == moves[kind] and all(t >= 0 for t in tally.think)
        for verb in ("pass", "attack", "defend", "guerilla"):
            assert tally.moves[verb] == verbs[kind, verb]
        assert tally.moves["disguised"] >= verbs[kind, "empty"]
