"""The board helpers the computer players share (motti/evaluate.py): a copy of a game that leaves it alone,
steps over land."""

from __future__ import annotations

import random

import numpy as np

from motti import evaluate, levels
from motti.generate import generate
from motti.rules import Action, Game, reach


def test_clone_leaves_the_game_alone() -> None:
    game = Game(generate(20, 15, 2, random.Random(8)), random.Random(8))
    state = random.Random(8)
    state.setstate(game.rng.getstate())
    before = (game.board.owner.copy(), game.board.occupied.copy())
    copy = evaluate.clone(game)
    cell = next(zip(*np.nonzero(game.legal_mask(Action.ATTACK)), strict=True))
    copy.attack([(int(cell[1]), int(cell[0]))], draw=0)
    assert copy.board.occupied[cell] and not game.board.occupied[cell]
    assert np.array_equal(game.board.owner, before[0]) and np.array_equal(game.board.occupied, before[1])
    assert game.rng.getstate() == state.getstate() and game.attacks_left == 6


def test_land_distance_walks_around_the_sea() -> None:
    land = np.array([[1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]], dtype=bool)
    inf = np.inf
    assert np.array_equal(evaluate.land_distance(land, (0, 0)),
                          np.array([[0, 1, inf, 5], [1, 2, 3, 4], [inf, inf, inf, 5]]))


def test_a_guerilla_into_its_reach_is_never_a_pass_in_disguise() -> None:
    # march.foothold takes such a cell without trying it: check the claim against the trial on played games.
    checked = 0
    for seed in range(6):
        game = Game(generate(12, 9, 2, random.Random(seed)), random.Random(seed))
        rng = random.Random(seed)
        while not game.is_terminal() and game.turns < 60:
            me = game.current_player
            if not game.attacked:
                held = reach(game.board, me)
                guerillas = evaluate.cells_of(game.legal_mask(Action.GUERILLA) & (game.board.owner != me))
                for x, y in guerillas:
                    if held[y, x]:
                        checked += 1
                        assert not evaluate.changes_nothing(game, ("guerilla", (x, y))), (seed, game.turns)
            game.apply(levels.choose_action(game, rng, "easy"))
    assert checked > 100
