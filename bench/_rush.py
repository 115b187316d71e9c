"""``rush``: a keen human's plain strategy for motti, the yardstick the computer levels are measured against
(bench/motti_levels.py; spec/motti.md §2.2).

At a fresh turn it defends its own unoccupied capital when an enemy occupied cell is within 2 cells of it
(Chebyshev distance): the capital, then up to two of its own unoccupied ring cells (orthogonally next to
the capital), those next to an enemy cell first. Also at a fresh turn it takes an enemy capital by Guerilla
when it can. Otherwise every attack crosses the legal enemy cells nearest the nearest enemy capital (steps
over land, 4-neighbour), and fills the six crosses up with its own unoccupied cells nearest that capital (at
the start nobody can reach an enemy cell, so it marches its occupied cells towards the enemy). Ties are
broken by its ``random.Random``; it passes only when no cell is legal.
"""

from __future__ import annotations

import random

import numpy as np

from motti.rules import MAX_CROSSES, Action, Cell, Game, Move, legal_mask

_FAR = np.iinfo(np.int32).max


def steps_to(land: np.ndarray, sources: list[Cell]) -> np.ndarray:
    """(H, W) int32: steps over land (4-neighbour) from the nearest of *sources* ((x, y) cells), ``_FAR``
    where no land path leads."""
    steps = np.full(land.shape, _FAR, dtype=np.int32)
    front = np.zeros(land.shape, dtype=bool)
    for x, y in sources:
        front[y, x] = True
    seen = front.copy()
    distance = 0
    while front.any():
        steps[front] = distance
        grown = front.copy()
        grown[1:, :] |= front[:-1, :]
        grown[:-1, :] |= front[1:, :]
        grown[:, 1:] |= front[:, :-1]
        grown[:, :-1] |= front[:, 1:]
        front = grown & land & ~seen
        seen |= front
        distance += 1
    return steps


def _enemy_capitals(game: Game, me: int) -> list[Cell]:
    return [c for p, c in game.board.capitals.items() if c is not None and p != me and p in game.alive]


def _defence(game: Game, me: int) -> Move | None:
    board = game.board
    capital = board.capitals.get(me)
    if capital is None:
        return None
    cx, cy = capital
    if board.occupied[cy, cx]:
        return None
    near = (slice(max(cy - 2, 0), cy + 3), slice(max(cx - 2, 0), cx + 3))
    if not (board.occupied[near] & board.land[near] & (board.owner[near] != me)).any():
        return None
    own = legal_mask(board, me, Action.DEFEND)
    ring = [(cx + dx, cy + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if board.inside(cx + dx, cy + dy) and own[cy + dy, cx + dx]]
    enemy = board.land & (board.owner != me) & (board.owner != 0)

    def exposed(cell: Cell) -> bool:
        x, y = cell
        return any(board.inside(x + dx, y + dy) and enemy[y + dy, x + dx]
                   for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))

    ring.sort(key=lambda cell: not exposed(cell))
    return ("defend", (capital, *ring[: MAX_CROSSES[Action.DEFEND] - 1]))


def choose_action(game: Game, rng: random.Random) -> Move:
    """The rush player's next action for the player in turn, in ``Game.apply`` form (see the module
    docstring)."""
    board = game.board
    me = game.current_player
    targets = _enemy_capitals(game, me)
    if not game.attacked:
        defence = _defence(game, me)
        if defence is not None:
            return defence
        guerilla = legal_mask(board, me, Action.GUERILLA)
        for x, y in targets:
            if guerilla[y, x]:
                return ("guerilla", (x, y))
    legal = legal_mask(board, me, Action.ATTACK)
    if not legal.any() or not targets:
        return ("pass",)
    steps = steps_to(board.land, targets)
    ys, xs = np.nonzero(legal)
    mine = board.owner[ys, xs] == me
    ties = np.array([rng.random() for _ in range(ys.size)])
    order = np.lexsort((ties, steps[ys, xs], mine))[: MAX_CROSSES[Action.ATTACK]]
    return ("attack", tuple((int(xs[i]), int(ys[i])) for i in order))
