"""The board helpers motti's computer players share (spec/motti.md §2): the arithmetic of the march
(motti/march.py, the ``easy`` level) and of the playouts (motti/rollout.py, ``medium`` and ``hard``).

:func:`clone` copies a game with a generator of its own; :func:`changes_nothing`, :func:`undone_at_once` and
:func:`futile` tell a pass in disguise; :func:`brings_reset` a move that resets the board; :func:`cells_won`
counts the cells a move wins; :func:`ring_of` and :func:`capital_in_danger` look round a capital;
:func:`land_distance`, :func:`shift_any` and :func:`cells_of` are the board arithmetic; :func:`per_land` keeps
answers that depend on the land alone. Deterministic: nothing here draws from a generator of the caller's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

import numpy as np

from motti.rules import Action, Cell, Game, Move

T = TypeVar("T")


def clone(game: Game) -> Game:
    """An independent copy of *game* with a generator of its own (``Game.clone().reseed``); *game* is
    untouched."""
    return game.clone().reseed(0)


def changes_nothing(game: Game, move: Move) -> bool:
    """Whether *move* (``Game.apply`` form) is a pass in disguise (spec/motti.md §2.2, §2.5): every outcome
    leaves every cell's owner and occupation as they were, once the encirclement it triggers is resolved. A
    Guerilla whose cell is encircled straight back is one; ``("pass",)`` and an attack with no crosses are
    passes. An attack's outcomes are its crosses conquered one by one (``Game.attack(draw=i)``); *game* is
    untouched. Raises ``IllegalAction`` for a move that is not legal now."""
    verb = move[0]
    if verb == "pass" or (verb == "attack" and not move[1]):
        return True
    draws = range(len(move[1])) if verb == "attack" else (None,)
    board = game.board
    for draw in draws:
        trial = clone(game)
        if draw is None:
            trial.apply(move)
        else:
            trial.attack(list(move[1]), draw=draw)
        if not (np.array_equal(trial.board.owner, board.owner)
                and np.array_equal(trial.board.occupied, board.occupied)):
            return False
    return True


def undone_at_once(game: Game, move: Move) -> bool:
    """Whether the next player can undo *move* (a Guerilla, ``Game.apply`` form) with one Guerilla of its own:
    after the pair every cell's owner and occupation are as they were, so two players answering each other
    like that swap the same cells for ever and never reach a reset (spec/motti.md §2.5, §2.8). The replies
    tried are the Guerillas onto the cells the move changed and their 8 neighbours. Other moves are never
    undone at once (a Defend cannot be, an Attack's turn is six attacks). *game* is untouched; raises
    ``IllegalAction`` for an illegal move."""
    if move[0] != "guerilla":
        return False
    board = game.board
    trial = clone(game)
    trial.apply(move)
    if trial.is_terminal():
        return False
    changed = (trial.board.owner != board.owner) | (trial.board.occupied != board.occupied)
    legal = trial.legal_mask(Action.GUERILLA)
    for cell in cells_of((changed | shift_any(changed, diagonal=True)) & legal):
        answered = clone(trial)
        answered.guerilla(cell)
        if (np.array_equal(answered.board.owner, board.owner)
                and np.array_equal(answered.board.occupied, board.occupied)):
            return True
    return False


def futile(game: Game, move: Move) -> bool:
    """A pass in disguise (:func:`changes_nothing`) or a Guerilla the next player undoes at once
    (:func:`undone_at_once`): the computer players treat both as passes."""
    return changes_nothing(game, move) or undone_at_once(game, move)


def brings_reset(game: Game, move: Move) -> bool:
    """Whether *move* (``Game.apply`` form; a Guerilla or a Defend, whose outcome is sure) brings a global
    reset on (spec/motti.md §2.8). *game* is untouched."""
    trial = clone(game)
    trial.apply(move)
    return len(trial.resets) > len(game.resets)


def cells_won(game: Game, move: Move) -> int:
    """How many more cells the player in turn owns after *move* (``Game.apply`` form, an attack with its first
    cross conquered), its encirclements resolved; *game* is untouched."""
    me = game.current_player
    trial = clone(game)
    if move[0] == "attack":
        trial.attack(list(move[1]), draw=0)
    else:
        trial.apply(move)
    return int(np.count_nonzero(trial.board.owner == me)) - int(np.count_nonzero(game.board.owner == me))


#: The orthogonal neighbours of a cell, in the order right, left, down, up.
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: An enemy occupied cell this near to an open capital (Chebyshev distance, cells) endangers it: from two
#: cells away an enemy can take the cell between and then the capital in one turn (§2.2).
DANGER = 2


#: The last answers of :func:`per_land`: (what was asked, id of the land mask) -> (the land mask, the answer).
#: The land of a game never changes and its copies share it (``Game.clone``), so the mask itself tells the
#: game; keeping it here keeps its id from being reused.
_kept: dict[tuple[object, ...], tuple[np.ndarray, object]] = {}


def per_land(land: np.ndarray, asked: tuple[object, ...], work_out: Callable[[], T]) -> T:
    """The answer to *asked* (a key naming the question) on the land mask *land*: kept from an earlier call,
    else ``work_out()``, kept. The caller must not change the answer."""
    key = (*asked, id(land))
    found = _kept.get(key)
    if found is not None and found[0] is land:
        return cast(T, found[1])
    answer = work_out()
    if len(_kept) >= 128:
        _kept.clear()
    _kept[key] = (land, answer)
    return answer


def ring_of(game: Game, cell: Cell) -> tuple[Cell, ...]:
    """The land cells orthogonally next to *cell* ((x, y); of a capital: its ring), in :data:`ORTHOGONAL`
    order."""
    land = game.board.land

    def work_out() -> tuple[Cell, ...]:
        h, w = land.shape
        x, y = cell
        return tuple((x + dx, y + dy) for dx, dy in ORTHOGONAL
                     if 0 <= x + dx < w and 0 <= y + dy < h and land[y + dy, x + dx])

    return per_land(land, ("ring", cell), work_out)


def capital_in_danger(game: Game, me: int, danger: int = DANGER, ring: bool = True) -> bool:
    """Whether player *me*'s capital is open (unoccupied) and an enemy occupied cell lies within *danger*
    (default :data:`DANGER`) cells of it (Chebyshev distance), or, with *ring*, an enemy owns a cell
    orthogonally next to it (from there it can occupy that cell and take the capital in one turn, even right
    after a reset, §2.8)."""
    board = game.board
    capital = board.capitals.get(me)
    if capital is None:
        return False
    cx, cy = capital
    if board.occupied[cy, cx]:
        return False
    near = (slice(max(cy - danger, 0), cy + danger + 1), slice(max(cx - danger, 0), cx + danger + 1))
    enemy = board.land & (board.owner != me)
    if (enemy[near] & board.occupied[near]).any():
        return True
    return ring and any(enemy[y, x] for x, y in ring_of(game, capital))


def land_distance(land: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """Steps over land (4-neighbour) from *start* = (x, y): ``(H, W)`` float, inf where unreachable. The
    caller must not change the array.

    A breadth-first search over the land graph (scipy.sparse.csgraph). Land never changes during a game, so
    results are kept per land mask and start cell (:func:`per_land`). scipy is imported here, at the first
    search, so that the command line's ``--help`` never loads it.
    """

    def work_out() -> np.ndarray:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import shortest_path

        h, w = land.shape
        index = np.arange(h * w).reshape(h, w)
        right = land[:, :-1] & land[:, 1:]
        down = land[:-1, :] & land[1:, :]
        tails = np.concatenate([index[:, :-1][right], index[:-1, :][down]])
        heads = np.concatenate([index[:, 1:][right], index[1:, :][down]])
        graph = coo_matrix((np.ones(tails.size), (tails, heads)), shape=(h * w, h * w)).tocsr()
        x, y = start
        dist: np.ndarray = shortest_path(graph, directed=False, unweighted=True,
                                         indices=y * w + x).reshape(h, w)
        return dist

    return per_land(land, ("distance", start), work_out)


def shift_any(mask: np.ndarray, diagonal: bool) -> np.ndarray:
    """Cells with a True neighbour in *mask* (4 neighbours, or 8 with *diagonal*), ``(H, W)`` bool."""
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    if diagonal:
        out[1:, 1:] |= mask[:-1, :-1]
        out[1:, :-1] |= mask[:-1, 1:]
        out[:-1, 1:] |= mask[1:, :-1]
        out[:-1, :-1] |= mask[1:, 1:]
    return out


def cells_of(mask: np.ndarray) -> list[tuple[int, int]]:
    """The cells ``(x, y)`` where *mask* is True, row by row."""
    ys, xs = np.nonzero(mask)
    return list(zip(xs.tolist(), ys.tolist(), strict=True))
