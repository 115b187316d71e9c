"""The ``easy`` computer player of motti: a beginner's plain strategy (spec/motti.md §2).

What it does, turn by turn:

* it takes an enemy capital by Guerilla whenever it can (an unoccupied capital next to, or diagonal to, one
  of its occupied cells);
* it defends its own capital when it is open (unoccupied) and in danger: an enemy occupied cell within two
  cells of it, or an enemy owning a cell next to it. It occupies the capital and up to two of the cells next
  to it, those touching the enemy first;
* otherwise it attacks the nearest enemy capital: an unoccupied enemy capital it can cross comes first, then
  the cells next to an unoccupied enemy capital (its own to occupy, the enemy's to take), then the enemy
  cells nearest that capital, and it fills the six crosses with its own cells nearest it, so that its
  occupied cells march towards the enemy. While an enemy cell can be crossed, every attack crosses one.

The mistakes a beginner makes: it looks at no move ahead and never plans when the global reset comes (§2.8),
so it fills the board without caring who gets the first turn after it; it does not look for the Guerilla
that would encircle a pocket; it spreads its crosses over the front instead of closing one pocket at a time.
It never plays a pass in disguise (a move that the encirclement undoes at once, §2.5): it leaves such a cross
out. It thinks a few milliseconds, and is deterministic given its ``random.Random`` (ties only).
"""

from __future__ import annotations

import itertools
import random

import numpy as np

from motti.evaluate import cells_of, changes_nothing, land_distance, shift_any
from motti.rules import MAX_CROSSES, Action, Cell, Game, Move

DANGER = 2          # an enemy occupied cell this near (Chebyshev) to the own open capital calls for Defend
_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _enemy_capitals(game: Game, me: int) -> list[Cell]:
    capitals = sorted(game.board.capitals.items())
    return [c for p, c in capitals if c is not None and p != me and p in game.alive]


def _ring(game: Game, cell: Cell) -> list[Cell]:
    """The land cells orthogonally next to *cell*."""
    board = game.board
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in _ORTHOGONAL
            if board.inside(x + dx, y + dy) and board.land[y + dy, x + dx]]


def capital_in_danger(game: Game, me: int) -> bool:
    """Whether player *me*'s capital is open (unoccupied) and an enemy occupied cell lies within
    :data:`DANGER` cells of it (Chebyshev distance), or an enemy owns a cell next to it (§2.2: from there it
    can occupy that cell and take the capital in one turn)."""
    board = game.board
    capital = board.capitals.get(me)
    if capital is None:
        return False
    cx, cy = capital
    if board.occupied[cy, cx]:
        return False
    near = (slice(max(cy - DANGER, 0), cy + DANGER + 1), slice(max(cx - DANGER, 0), cx + DANGER + 1))
    enemy = board.land & (board.owner != me)
    if (enemy[near] & board.occupied[near]).any():
        return True
    return any(enemy[y, x] for x, y in _ring(game, capital))


def defence(game: Game, me: int) -> Move:
    """Defend the own capital and up to two own unoccupied cells next to it, those touching an enemy cell
    first (``("defend", cells)``)."""
    board = game.board
    capital = board.capitals[me]
    assert capital is not None
    enemy = board.land & (board.owner != me)
    touching = shift_any(enemy, diagonal=False)
    ring = [(x, y) for x, y in _ring(game, capital) if board.owner[y, x] == me and not board.occupied[y, x]]
    ring.sort(key=lambda c: not touching[c[1], c[0]])
    return ("defend", (capital, *ring[: MAX_CROSSES[Action.DEFEND] - 1]))


def attack(game: Game, me: int, rng: random.Random) -> Move:
    """The next attack's crosses (``("attack", cells)``, see the module docstring); ``("pass",)`` when no cell
    can be crossed or no enemy is left to go for."""
    board = game.board
    targets = _enemy_capitals(game, me)
    legal = game.legal_mask(Action.ATTACK)
    if not legal.any() or not targets:
        return ("pass",)
    steps = np.minimum.reduce([land_distance(board.land, t) for t in targets])
    open_rings = {c for t in targets if not board.occupied[t[1], t[0]] for c in _ring(game, t)}
    capitals = set(targets)

    def rank(cell: Cell) -> tuple[int, float]:
        x, y = cell
        if cell in capitals:
            group = 0
        elif cell in open_rings:
            group = 1
        elif board.owner[y, x] != me:
            group = 2
        else:
            group = 3
        return group, float(steps[y, x])

    cells = cells_of(legal)
    rng.shuffle(cells)
    cells.sort(key=rank)
    changing = (c for c in cells if not changes_nothing(game, ("attack", (c,))))
    crosses = list(itertools.islice(changing, MAX_CROSSES[Action.ATTACK]))
    if not crosses:
        return ("pass",)
    if all(board.owner[y, x] == me for x, y in crosses):
        # Cells next to enemy capitals filled every cross: the nearest enemy cell still takes the last one.
        foreign = next((c for c in changing if board.owner[c[1], c[0]] != me), None)
        if foreign is not None:
            crosses[-1] = foreign
    return ("attack", tuple(crosses))


def choose_action(game: Game, rng: random.Random) -> Move:
    """The ``easy`` player's next action for the player in turn, in ``Game.apply`` form (spec §2.2):
    ``("guerilla", (x, y))``, ``("defend", cells)`` with 1..3 cells, ``("attack", cells)`` with 1..6 cells
    (ONE attack), or ``("pass",)`` when nothing it may cross changes the board. Raises ``IllegalAction`` if
    the game is over (through :func:`motti.levels.choose_action`)."""
    me = game.current_player
    if not game.attacked:
        guerilla = game.legal_mask(Action.GUERILLA)
        for x, y in _enemy_capitals(game, me):
            if guerilla[y, x]:
                return ("guerilla", (x, y))
        if capital_in_danger(game, me):
            return defence(game, me)
    return attack(game, me, rng)
