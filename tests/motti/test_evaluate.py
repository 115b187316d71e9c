"""The board helpers the computer players share (motti/evaluate.py): a copy of a game that leaves it alone,
steps over land."""

from __future__ import annotations

import random

import numpy as np

from motti import evaluate
from motti.generate import generate
from motti.rules import Action, Game


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
