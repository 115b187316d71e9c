"""The rules of motti: board, actions, and the resolution pipeline (spec/motti.md §1–§2).

Everything here is pure and deterministic: the only randomness is ``rng.randrange(6)`` per attack, drawn from
the ``random.Random`` handed to :class:`Game` (§2.3). Boards are numpy arrays of shape ``(H, W)`` indexed
``[y, x]``; every cell in the public API is an ``(x, y)`` tuple, x = column, y = row from the top (§1).

After each single attack, each Defend and each Guerilla the resolution pipeline of §2.4 runs as a fixed
tuple of small stages over one :class:`_Resolution` record, built from the rule options by :func:`pipeline`
(capital capture §2.7, encirclement §2.5–§2.6, global reset §2.8, game end §2.10, a game that cannot end
§2.9); every stage returns the events it caused, in order.

Encirclement is connected-component labelling with 4-connectivity (``scipy.ndimage.label``). Only pockets that
touch a changed cell can be new (anything else was already resolved by the previous run), so the labelling
runs on windows around the changed cells first, then on a window that also holds the player's capital, and on
the whole board only when none decides. scipy is imported by the functions that label, at their first call:
the command line's ``--help`` and its checks never load it."""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

import numpy as np

import common.game


class Action(enum.Enum):
    """The three actions of a turn (§2.2)."""

    ATTACK = "attack"
    DEFEND = "defend"
    GUERILLA = "guerilla"


MAX_CROSSES: dict[Action, int] = {Action.ATTACK: 6, Action.DEFEND: 3, Action.GUERILLA: 1}
ATTACKS_PER_TURN = 6
CYCLE_ORDER = (Action.ATTACK, Action.DEFEND, Action.GUERILLA)

Cell = tuple[int, int]
#: A whole action in :meth:`Game.apply` form, e.g. ``("attack", ((3, 4),))``, ``("pass",)``.
Move = tuple[Any, ...]

# Margins (cells) around the changed cells for the local labelling windows, tried in this order.
_LOCAL_MARGINS = (24, 96)
# 4-connectivity for ndimage.label, made once (the label call would build it each time).
_CROSS = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)


class IllegalAction(common.game.IllegalAction):
    """An action or cross the rules do not allow now; the message says why, e.g. ``(3,4) is occupied``."""


@dataclass(eq=False)
class Board:
    """A motti board (§1).

    ``land`` (H, W) bool; ``owner`` (H, W) int8, 0 = none (sea), 1..9 = player; ``occupied`` (H, W) bool;
    ``capitals`` maps every player 1..``players`` to its capital ``(x, y)``, or ``None`` once eliminated;
    ``players`` counts eliminated players too. Boards compare by identity (numpy arrays have no single truth
    value); compare the arrays to compare contents.
    """

    land: np.ndarray
    owner: np.ndarray
    occupied: np.ndarray
    capitals: dict[int, Cell | None]
    players: int

    @property
    def width(self) -> int:
        return int(self.land.shape[1])

    @property
    def height(self) -> int:
        return int(self.land.shape[0])

    def copy(self) -> Board:
        return Board(
            self.land.copy(), self.owner.copy(), self.occupied.copy(), dict(self.capitals), self.players
        )

    def alive_players(self) -> list[int]:
        """Players that still have a capital, ascending."""
        return [p for p in range(1, self.players + 1) if self.capitals.get(p) is not None]

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height


# ---------------------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class AttackDrawn:
    """One attack's draw ``rng.randrange(6)``; ``cell`` is the conquered cross, ``None`` for a failed attack.
    """

    player: int
    draw: int
    cell: Cell | None


class Cells(Sequence[Cell]):
    """An event's cells: ``(x, y)`` tuples in row-major order, held as two numpy arrays ``ys``, ``xs`` (global
    coordinates, already in that order) and made into tuples only when first read (``len`` needs none), so
    that a player leaving a 1000x1000 board, whose events name some 100 000 cells twice, builds no Python
    object per cell unless a reader asks. Equal to (and hashed as) the tuple of the same cells."""

    __slots__ = ("_tuple", "xs", "ys")

    def __init__(self, ys: np.ndarray, xs: np.ndarray) -> None:
        self.ys, self.xs = ys, xs
        self._tuple: tuple[Cell, ...] | None = None

    def as_tuple(self) -> tuple[Cell, ...]:
        if self._tuple is None:
            self._tuple = tuple(zip(self.xs.tolist(), self.ys.tolist(), strict=True))
        return self._tuple

    def __len__(self) -> int:
        return len(self.ys)

    @overload
    def __getitem__(self, index: int) -> Cell: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Cell, ...]: ...

    def __getitem__(self, index: int | slice) -> Cell | tuple[Cell, ...]:
        return self.as_tuple()[index]

    def __iter__(self) -> Iterator[Cell]:
        return iter(self.as_tuple())

    def __contains__(self, cell: object) -> bool:
        return cell in self.as_tuple()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cells):
            return bool(np.array_equal(self.ys, other.ys) and np.array_equal(self.xs, other.xs))
        if isinstance(other, tuple | list):
            return self.as_tuple() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return repr(self.as_tuple())


@dataclass(frozen=True)
class CellsChanged:
    """Cells whose owner or occupied flag changed (front ends redraw these); ``cells`` a sequence of ``(x,
    y)`` in row-major order (:class:`Cells` from the rules, equal to the tuple of the same cells)."""

    cells: Sequence[Cell]


@dataclass(frozen=True)
class Encircled:
    """``victim``'s cells ``cells`` were handed to player ``to``, unoccupied (§2.5–§2.7); ``cells`` as in
    :class:`CellsChanged`."""

    cells: Sequence[Cell]
    to: int
    victim: int


@dataclass(frozen=True)
class CapitalCaptured:
    player: int
    by: int
    cell: Cell


@dataclass(frozen=True)
class Eliminated:
    """``cause`` is ``"capital"``, ``"closed"`` or ``"quit"``."""

    player: int
    cause: str


@dataclass(frozen=True)
class Reset:
    """Global reset (§2.8): all land became unoccupied."""


@dataclass(frozen=True)
class TurnPassed:
    to: int


@dataclass(frozen=True)
class GameOver:
    """The end of the game (§2.9, §2.10).

    ``result`` is ``"win"`` (one player left), ``"land"`` (the turn cap of §2.9 ended the game and ``winner``
    owns the most land) or ``"draw"`` (``winner`` is ``None``). ``reason`` says why a draw: ``"unreachable"``
    (no alive player can reach another, §2.9), ``"land"`` (several own the most land at the turn cap) or
    ``"left"`` (every player was defeated at once). ``turns`` is the number of turns played, the last one
    included; ``land`` the land cells of the alive players, most first (turn cap only).
    """

    winner: int | None
    result: str = "win"
    reason: str = ""
    turns: int = 0
    land: tuple[int, ...] = ()


Event = AttackDrawn | CellsChanged | Encircled | CapitalCaptured | Eliminated | Reset | TurnPassed | GameOver


# ---------------------------------------------------------------------------------------------- array helpers


def _dilate4(mask: np.ndarray) -> np.ndarray:
    """The mask plus its orthogonal neighbours (same shape, no wrap-around)."""
    out = mask.copy()
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _dilate8(mask: np.ndarray) -> np.ndarray:
    """The mask plus its orthogonal and diagonal neighbours."""
    rows = mask.copy()
    rows[1:] |= mask[:-1]
    rows[:-1] |= mask[1:]
    out = rows.copy()
    out[:, 1:] |= rows[:, :-1]
    out[:, :-1] |= rows[:, 1:]
    return out


def _cells(ys: np.ndarray, xs: np.ndarray) -> Cells:
    """The cells in row-major order (cells from ``np.nonzero`` are in that order already: not sorted
    again)."""
    if len(ys) > 1:
        key = ys.astype(np.int64) * (1 << 32) + xs
        if not (key[1:] > key[:-1]).all():
            order = np.argsort(key)
            ys, xs = ys[order], xs[order]
    return Cells(ys, xs)


def nearest_capital(ys: np.ndarray, xs: np.ndarray, capitals: Sequence[tuple[int, Cell]]) -> np.ndarray:
    """For each cell the player whose capital is nearest by Euclidean distance, ties to the lowest number.

    ``capitals`` is ``[(player, (x, y)), ...]``; returns an int8 array like ``ys``.
    """
    # One pass per capital, keeping the nearest so far (a strictly nearer later capital wins): memory stays
    # two arrays like ``ys`` however many cells there are.
    ordered = sorted(capitals)
    x64, y64 = xs.astype(np.int64), ys.astype(np.int64)
    heirs = np.full(ys.shape, ordered[0][0], dtype=np.int8)
    best = (x64 - ordered[0][1][0]) ** 2 + (y64 - ordered[0][1][1]) ** 2
    for player, (cx, cy) in ordered[1:]:
        d2 = (x64 - cx) ** 2 + (y64 - cy) ** 2
        nearer = d2 < best
        heirs[nearer] = player
        np.minimum(best, d2, out=best)
    return heirs


# ------------------------------------------------------------------------------------------------- legality


def legal_mask(board: Board, player: int, action: Action) -> np.ndarray:
    """(H, W) bool: the cells ``player`` may cross for ``action`` (§2.2 table)."""
    unoccupied = board.land & ~board.occupied
    own = board.owner == player
    if action is Action.DEFEND:
        mask: np.ndarray = unoccupied & own
        return mask
    own_occupied = own & board.occupied
    near = _dilate4(own_occupied) if action is Action.ATTACK else _dilate8(own_occupied)
    out: np.ndarray = unoccupied & (own | near)
    return out


_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_EIGHT = (*_ORTHOGONAL, (1, 1), (1, -1), (-1, 1), (-1, -1))


def why_illegal(
    board: Board, player: int, action: Action, x: int, y: int, views: _Views | None = None
) -> str | None:
    """``None`` if ``player`` may cross (x, y) for ``action``, else the reason in words (§2.2). ``views`` are
    the board's flat views (:func:`_views`) when the caller has them already (one action's crosses)."""
    w, h, land, owner, occupied = views if views is not None else _views(board)
    if not (0 <= x < w and 0 <= y < h):
        return f"({x},{y}) is outside the {w}x{h} board"
    i = y * w + x
    if not land[i]:
        return f"({x},{y}) is sea"
    if occupied[i]:
        return f"({x},{y}) is occupied"
    if owner[i] == player:
        return None
    if action is Action.DEFEND:
        return f"({x},{y}) is not your land (Defend takes only your own cells)"
    for dx, dy in _EIGHT if action is Action.GUERILLA else _ORTHOGONAL:
        nx, ny = x + dx, y + dy
        j = ny * w + nx
        if 0 <= nx < w and 0 <= ny < h and occupied[j] and owner[j] == player:
            return None
    kind = "orthogonally" if action is Action.ATTACK else "orthogonally or diagonally"
    return f"({x},{y}) is not {kind} next to an occupied cell of yours"


# ------------------------------------------------------------------------------------------------- division


def _divide(
    board: Board,
    region: tuple[slice, slice],
    area: np.ndarray,
    heirs: Iterable[int],
    mover: int,
    tie_rule: str,
) -> np.ndarray:
    """Multi-source BFS of §2.6 inside ``area`` (a 4-connected bool mask over ``board[region]``: a pocket or a
    component), one distance layer at a time over the layer's cells only (flat indices), so a large area
    costs its cells, not its layers times the region.

    Distance 0 are the area cells orthogonally next to an occupied cell of an heir; distance d takes the
    labels of its distance d-1 neighbours; ties go to the mover (``tie_rule="mover"``) and then to the lowest
    number. Returns an int8 array over the region: the heir of every area cell (0 outside the area and for
    area cells no heir reaches). A lone heir with a cell of distance 0 reaches the whole connected area."""
    owner = board.owner[region]
    occupied = board.occupied[region] & board.land[region]
    order = sorted(set(heirs))
    if len(order) == 1:
        reached = bool((area & _dilate4(occupied & (owner == order[0]))).any())
        alone: np.ndarray = np.where(area, order[0] if reached else 0, 0).astype(np.int8)
        return alone
    if tie_rule == "mover" and mover in order:
        order.remove(mover)
        order.insert(0, mover)
    height, width = area.shape
    none = len(order)
    rank = np.full(area.size, none, dtype=np.int64)       # the heir's place in ``order``; none: not reached
    inside = area.ravel()
    for i, h in enumerate(order):
        start = (area & _dilate4(occupied & (owner == h))).ravel() & (rank == none)
        rank[start] = i
    frontier = np.flatnonzero(rank < none)
    while frontier.size:
        ys, xs = np.divmod(frontier, width)
        found, ranks = [], []
        for ok, step in ((xs > 0, -1), (xs < width - 1, 1), (ys > 0, -width), (ys < height - 1, width)):
            source = frontier[ok]
            target = source + step
            free = inside[target] & (rank[target] == none)
            found.append(target[free])
            ranks.append(rank[source[free]])
        # Each newly reached cell takes the best-placed heir among the neighbours that reached it.
        key = np.unique(np.concatenate(found) * 16 + np.concatenate(ranks))
        cells = key >> 4
        first = np.ones(cells.size, dtype=bool)
        first[1:] = cells[1:] != cells[:-1]
        frontier = cells[first]
        rank[frontier] = key[first] & 15
    labels = np.array([*order, 0], dtype=np.int8)
    label: np.ndarray = labels[rank].reshape(area.shape)
    return label


def _heirs_around(
    board: Board, region: tuple[slice, slice], area: np.ndarray, exclude: Iterable[int]
) -> set[int]:
    """Owners of occupied cells orthogonally next to ``area``, minus ``exclude``."""
    ring = _dilate4(area) & ~area & board.occupied[region] & board.land[region]
    found = {int(p) for p in np.unique(board.owner[region][ring])}
    return found - set(exclude) - {0}


def _grow(sl: tuple[slice, slice], shape: tuple[int, int], by: int = 1) -> tuple[slice, slice]:
    ys, xs = sl
    return (
        slice(max(ys.start - by, 0), min(ys.stop + by, shape[0])),
        slice(max(xs.start - by, 0), min(xs.stop + by, shape[1])),
    )


@dataclass
class _Handover:
    """Cells of ``victim`` inside ``region`` (mask ``cells``) going to the players in ``heir`` (int8 over
    region)."""

    victim: int
    region: tuple[slice, slice]
    cells: np.ndarray
    heir: np.ndarray


def _apply_handovers(board: Board, handovers: list[_Handover]) -> tuple[list[Event], list[np.ndarray]]:
    """Apply the handovers (cells become unoccupied cells of their heir); return events and changed (ys, xs).
    """
    events: list[Event] = []
    changed: list[np.ndarray] = []
    for h in handovers:
        y0, x0 = h.region[0].start, h.region[1].start
        board.owner[h.region][h.cells] = h.heir[h.cells]
        board.occupied[h.region][h.cells] = False
        ys, xs = np.nonzero(h.cells)
        ys, xs = ys + y0, xs + x0
        changed.append(np.stack([ys, xs]))
        heirs = h.heir[h.cells]
        for to in np.flatnonzero(np.bincount(heirs.astype(np.intp), minlength=1)).tolist():
            pick = heirs == to
            events.append(Encircled(_cells(ys[pick], xs[pick]), to, h.victim))
    return events, changed


def _divide_player(
    board: Board,
    victim: int,
    mover: int,
    tie_rule: str,
    fallback: Callable[[np.ndarray, np.ndarray], np.ndarray],
    exclude: Iterable[int] = (),
) -> list[_Handover]:
    """§2.7: make every cell of ``victim`` unoccupied and divide each 4-connected component of them as in
    §2.6.

    Heirs of a component are the owners of occupied cells next to it (minus ``victim`` and ``exclude``); a
    component without any gets ``fallback(ys, xs)`` (global coordinates) as its per-cell heirs."""
    from scipy import ndimage
    mine = board.land & (board.owner == victim)
    if not mine.any():
        return []
    board.occupied[mine] = False
    labels, _ = ndimage.label(mine)
    out = []
    for i, sl in enumerate(ndimage.find_objects(labels), start=1):
        region = _grow(sl, mine.shape)
        area = labels[region] == i
        heirs = _heirs_around(board, region, area, {victim, *exclude})
        if heirs:
            heir = _divide(board, region, area, heirs, mover, tie_rule)
        else:
            ys, xs = np.nonzero(area)
            heir = np.zeros(area.shape, dtype=np.int8)
            heir[ys, xs] = fallback(ys + region[0].start, xs + region[1].start)
        out.append(_Handover(victim, region, area, heir))
    return out


# ----------------------------------------------------------------------------------------------- encirclement


def _passable(board: Board, player: int, window: tuple[slice, slice]) -> np.ndarray:
    """§2.5: land owned by ``player`` plus other players' unoccupied land, over ``window``."""
    passable: np.ndarray = board.land[window] & ((board.owner[window] == player) | ~board.occupied[window])
    return passable


def reach(board: Board, player: int) -> np.ndarray:
    """(H, W) bool: Reach(``player``) of §2.5, the cells 4-connected to its capital over :func:`_passable`
    cells. A cell in it that ``player`` occupies is never encircled, and no move of ``player``'s shrinks it.
    All False for a player without a capital."""
    from scipy import ndimage

    capital = board.capitals.get(player)
    if capital is None:
        return np.zeros(board.land.shape, dtype=bool)
    labels, _ = ndimage.label(_passable(board, player, (slice(None), slice(None))), structure=_CROSS)
    held: np.ndarray = labels == labels[capital[1], capital[0]]
    return held


def _open_border_ids(labels: np.ndarray, window: tuple[slice, slice], shape: tuple[int, int]) -> set[int]:
    """Component ids on the window's edges that are not board edges (components that may continue outside)."""
    ids: set[int] = set()
    ys, xs = window
    if ys.start > 0:
        ids.update(np.unique(labels[0]).tolist())
    if ys.stop < shape[0]:
        ids.update(np.unique(labels[-1]).tolist())
    if xs.start > 0:
        ids.update(np.unique(labels[:, 0]).tolist())
    if xs.stop < shape[1]:
        ids.update(np.unique(labels[:, -1]).tolist())
    ids.discard(0)
    return ids


def _bbox_window(ys: np.ndarray, xs: np.ndarray, shape: tuple[int, int], margin: int) -> tuple[slice, slice]:
    return _box_window((int(ys.min()), int(xs.min()), int(ys.max()), int(xs.max())), shape, margin)


def _box_window(box: tuple[int, int, int, int], shape: tuple[int, int], margin: int) -> tuple[slice, slice]:
    """The cells ``box`` ``(top, left, bottom, right)`` (inclusive) grown by ``margin``, cut to the board."""
    top, left, bottom, right = box
    return (slice(max(top - margin, 0), min(bottom + 1 + margin, shape[0])),
            slice(max(left - margin, 0), min(right + 1 + margin, shape[1])))


def _handover(
    board: Board, player: int, region: tuple[slice, slice], area: np.ndarray, mover: int, tie_rule: str
) -> _Handover:
    """The handover of one encircled pocket of ``player`` (``area``, a bool mask over ``board[region]``, whose
    ring of neighbours lies inside the region): ``player``'s cells in it, divided among the encirclers
    (§2.5–§2.6)."""
    heirs = _heirs_around(board, region, area, {player})
    heir = _divide(board, region, area, heirs, mover, tie_rule)
    return _Handover(player, region, area & (board.owner[region] == player), heir)


# Pockets of up to this many cells are divided by :func:`_searched_handover`, larger ones by :func:`_handover`
# (its numpy steps cost some 200 µs with several heirs, the search some 2 µs a cell)...
_SEARCH_CELLS = 128
# ... and with two players alive, when a pocket has one heir at most (some 40 µs over arrays), this many.
# :func:`_cells_window` also works cell by cell up to this many, rather than with numpy.
_FEW_CELLS = 16


def _search_limit(board: Board) -> int:
    """The most cells of a pocket that :func:`_searched_handover` divides (:data:`_SEARCH_CELLS`,
    :data:`_FEW_CELLS`)."""
    return _SEARCH_CELLS if len(board.alive_players()) > 2 else _FEW_CELLS


def _pocket_handover(
    board: Board, views: _Views, player: int, cells: list[Cell], mover: int, tie_rule: str
) -> _Handover:
    """:func:`_handover` of the pocket made of ``cells`` ((x, y) list, as :func:`_cut_parts` finds them: at
    most a few hundred): by :func:`_searched_handover` up to :func:`_search_limit` cells (``views``,
    :func:`_views`), else over arrays."""
    if len(cells) <= _search_limit(board):
        return _searched_handover(board, views, player, cells, mover, tie_rule)
    region, area = _cells_window(cells, board.land.shape)
    return _handover(board, player, region, area, mover, tie_rule)


def _cells_window(cells: list[Cell], shape: tuple[int, int]) -> tuple[tuple[slice, slice], np.ndarray]:
    """The region of *cells* ((x, y) list): their bounding box grown by 1 within *shape*
    (:func:`_box_window`; without numpy for a few cells), and the bool mask of the cells over it."""
    if len(cells) <= _FEW_CELLS:
        rows, columns = [y for _, y in cells], [x for x, _ in cells]
        region = _box_window((min(rows), min(columns), max(rows), max(columns)), shape, 1)
        area = np.zeros((region[0].stop - region[0].start, region[1].stop - region[1].start), dtype=bool)
        for x, y in cells:
            area[y - region[0].start, x - region[1].start] = True
        return region, area
    xs, ys = np.array(cells).T
    region = _bbox_window(ys, xs, shape, 1)
    area = np.zeros((region[0].stop - region[0].start, region[1].stop - region[1].start), dtype=bool)
    area[ys - region[0].start, xs - region[1].start] = True
    return region, area


def _searched_handover(
    board: Board, views: _Views, player: int, cells: list[Cell], mover: int, tie_rule: str
) -> _Handover:
    """:func:`_handover` of the small pocket made of ``cells`` ((x, y) list, 4-connected), divided as
    :func:`_divide` does but by a breadth-first search over the cells themselves (``views``, :func:`_views`):
    on a pocket of a few cells the numpy steps of :func:`_divide` and :func:`_heirs_around` cost some 200 µs,
    most of a simulated attack that closes one."""
    w, h, land, owner, occupied = views
    members = {y * w + x for x, y in cells}
    last_row = (h - 1) * w
    # Each member's orthogonal neighbours among the members, and the heirs next to it: the owners of the
    # occupied land cells next to it outside the pocket, anyone but the victim (distance 0, §2.6).
    inner: dict[int, list[int]] = {}
    sources: dict[int, set[int]] = {}
    for i in members:
        x = i % w
        here = []
        for j, ok in ((i - w, i >= w), (i + w, i < last_row), (i - 1, x > 0), (i + 1, x < w - 1)):
            if not ok:
                continue
            if j in members:
                here.append(j)
            elif occupied[j] and land[j]:
                q = owner[j]
                if q != player and q:
                    sources.setdefault(i, set()).add(q)
        inner[i] = here
    order = sorted(set().union(*sources.values()))
    if tie_rule == "mover" and mover in order:
        order.remove(mover)
        order.insert(0, mover)
    place = {q: r for r, q in enumerate(order)}
    # A lone heir reaches every cell of the pocket, which is 4-connected (its heir array is made below).
    rank = {} if len(order) == 1 else {i: min(place[q] for q in near) for i, near in sources.items()}
    layer = list(rank)
    none = len(order)
    while layer:
        reached: dict[int, int] = {}
        for i in layer:
            r = rank[i]
            for j in inner[i]:
                if j not in rank and r < reached.get(j, none):
                    reached[j] = r
        rank.update(reached)
        layer = list(reached)
    region, area = _cells_window(cells, (h, w))
    top, left = region[0].start, region[1].start
    if len(order) == 1:
        heir = area.astype(np.int8) * np.int8(order[0])
    else:
        heir = np.zeros(area.shape, dtype=np.int8)
        for i, r in rank.items():
            heir[i // w - top, i % w - left] = order[r]
    return _Handover(player, region, area & (board.owner[region] == player), heir)


def _pockets_of(
    board: Board, player: int, seeds: np.ndarray | None, mover: int, tie_rule: str
) -> list[_Handover]:
    """Encircled pockets of ``player`` (§2.5) that contain a seed cell (``seeds`` (2, n) ys/xs; None =
    anywhere), each with its division (§2.6), computed on the board as it is (the caller applies them
    together)."""
    from scipy import ndimage
    shape = board.land.shape
    capital = board.capitals[player]
    assert capital is not None
    cx, cy = capital
    whole = (slice(0, shape[0]), slice(0, shape[1]))
    if seeds is None:
        windows = [whole]
    else:
        sy, sx = seeds
        box = (int(sy.min()), int(sx.min()), int(sy.max()), int(sx.max()))
        windows = [_box_window(box, shape, margin) for margin in _LOCAL_MARGINS]
        with_capital = (min(box[0], cy), min(box[1], cx), max(box[2], cy), max(box[3], cx))
        windows += [_box_window(with_capital, shape, _LOCAL_MARGINS[0]), whole]
        # A window holding a quarter of the board or more is labelled as the whole board at once (a player
        # leaving a large board changes cells all over it: each window would label nearly all of it again).
        large = next(i for i, w in enumerate(windows) if _cells_in(w) * 4 >= shape[0] * shape[1])
        windows = [*windows[:large], whole]
    out: list[_Handover] = []
    previous = None
    for window in windows:
        if window == previous:
            continue
        previous = window
        y0, x0 = window[0].start, window[1].start
        passable = _passable(board, player, window)
        labels, n = ndimage.label(passable, structure=_CROSS)
        if n == 0:
            return out
        if seeds is None:
            wanted = set(range(1, n + 1))
        else:
            inside = (sy >= y0) & (sy < window[0].stop) & (sx >= x0) & (sx < window[1].stop)
            wanted = _label_ids(labels[sy[inside] - y0, sx[inside] - x0], n)
        if window[0].start <= cy < window[0].stop and window[1].start <= cx < window[1].stop:
            wanted.discard(int(labels[cy - y0, cx - x0]))
        open_ids = _open_border_ids(labels, window, shape)
        undecided = wanted & open_ids
        wanted -= open_ids
        if wanted:
            own = board.owner[window] == player
            with_own = _label_ids(labels[own & passable], n)
            enemy = board.occupied[window] & board.land[window] & ~own
            touched = _label_ids(labels[_dilate4(enemy) & passable], n)
            pockets = sorted(wanted & with_own & touched)
            if pockets:
                objects = ndimage.find_objects(labels)
                for i in pockets:
                    local = _grow(objects[i - 1], labels.shape)
                    region = (
                        slice(local[0].start + y0, local[0].stop + y0),
                        slice(local[1].start + x0, local[1].stop + x0),
                    )
                    area = labels[local] == i
                    ys, xs = np.nonzero(area)
                    if len(ys) <= _search_limit(board):    # a small pocket: a search over its cells
                        cells = list(zip((xs + region[1].start).tolist(), (ys + region[0].start).tolist(),
                                         strict=True))
                        out.append(_searched_handover(board, _views(board), player, cells, mover, tie_rule))
                    else:
                        out.append(_handover(board, player, region, area, mover, tie_rule))
        if not undecided:
            return out
        keep = np.isin(labels[sy[inside] - y0, sx[inside] - x0], list(undecided))
        sy, sx = sy[inside][keep], sx[inside][keep]
    return out


def _cells_in(window: tuple[slice, slice]) -> int:
    return int((window[0].stop - window[0].start) * (window[1].stop - window[1].start))


def _label_ids(found: np.ndarray, count: int) -> set[int]:
    """The component ids (1..``count``) among the labels ``found``: a mark per id, linear in the cells where
    ``np.unique`` sorts them (a player leaving a 1000x1000 board hands over some 100 000 cells)."""
    seen = np.zeros(count + 1, dtype=bool)
    seen[found] = True
    seen[0] = False
    return set(np.flatnonzero(seen).tolist())


def _flat(array: np.ndarray) -> memoryview:
    """A flat view of a C-contiguous (H, W) bool, int8 or uint16 array, indexed ``y * W + x``: reading and
    writing single cells through it is several times faster than numpy indexing, and writes reach ``array``.
    """
    view = array.data.cast("B")
    return view.cast("H") if array.dtype == np.uint16 else view


class _Views(NamedTuple):
    """Flat views (:func:`_flat`) of a board's arrays, for the cell-by-cell searches; ``width`` W, ``height``
    H."""

    width: int
    height: int
    land: memoryview
    owner: memoryview
    occupied: memoryview


def _views(board: Board) -> _Views:
    h, w = board.land.shape
    return _Views(w, h, _flat(board.land), _flat(board.owner), _flat(board.occupied))


# The 8 cells around a cell in cyclic order, each one orthogonally next to the one before: N, NE, E, SE, S,
# SW, W, NW. The orthogonal neighbours are the even positions.
_RING = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def _local_pockets(
    board: Board, views: _Views, cell: Cell, previous_owner: int, masses: np.ndarray
) -> tuple[dict[int, list[list[Cell]]], list[int]]:
    """The new pockets (§2.5) after ``cell``, unoccupied land before this action, became occupied by its owner
    O (an Attack, a Guerilla or a Defend), found from the cells around it: ``(found, unsure)``. ``found`` maps
    players to their new pockets (each a list of all its cells), ``unsure`` lists the players for whom only
    the full search (:func:`_pockets_of`) can tell; every other player provably has none.

    Assumes the board held no encircled pocket before the action (what every resolution leaves behind). The
    argument, per alive player P:

    * P = O: the cell was passable for O and still is, and O's occupied cells never encircle O. Only the count
      of O's cells in its component C can grow, from 0 when the cell was not O's; that cannot happen when an
      orthogonal neighbour is O's (it lies in C too), or when the cell was O's already (``previous_owner``).
    * P != O: the cell was passable for P (unoccupied) and is not any more; only its component C changes, into
      the parts of C minus the cell, all of which the cell now encircles. When P's passable orthogonal
      neighbours of the cell are connected through passable cells of the ring of 8 around it, there is one
      part, with the capital iff C had it and with no more cells of P. C was no pocket before: it held the
      capital, or no cell of P, or had no encircler. The last is ruled out when an orthogonal neighbour is
      occupied by a player other than P (an encircler of C), or when P's capital lies in the cell's
      4-connected land mass (``masses``, labels of ``ndimage.label(land)``): a component without encirclers
      is bounded by sea and the map edge only, so it is a whole land mass, and then it holds the capital.
      When the ring splits the neighbours into several groups, :func:`_cut_parts` searches the parts.
    """
    x, y = cell
    w, h, land, owner, occupied = views
    i = y * w + x
    mover = owner[i]
    # Each ring cell as one number: -1 for sea or off the map, else 2 * owner + occupied.
    if 0 < x < w - 1 and 0 < y < h - 1:
        codes = [2 * owner[j] + occupied[j] if land[j] else -1
                 for j in (i - w, i - w + 1, i + 1, i + w + 1, i + w, i + w - 1, i - 1, i - w - 1)]
    else:
        codes = []
        for dx, dy in _RING:
            nx, ny = x + dx, y + dy
            j = ny * w + nx
            codes.append(2 * owner[j] + occupied[j] if 0 <= nx < w and 0 <= ny < h and land[j] else -1)
    orthogonal = codes[0::2]
    found: dict[int, list[list[Cell]]] = {}
    unsure = []
    if previous_owner != mover and all(c >> 1 != mover for c in orthogonal):
        unsure.append(mover)
    for player, capital in board.capitals.items():
        if player == mover or capital is None:
            continue
        passable = [c >= 0 and (c >> 1 == player or not c & 1) for c in codes]
        if not (passable[0] or passable[2] or passable[4] or passable[6]):
            continue
        if not any(c > 0 and c & 1 and c >> 1 != player for c in orthogonal) and (
            masses[capital[1], capital[0]] != masses[y, x]
        ):
            unsure.append(player)
            continue
        groups = _ring_runs(x, y, passable)
        if len(groups) > 1:
            pockets = _cut_parts(views, player, capital, cell, groups)
            if pockets is None:
                unsure.append(player)
            elif pockets:
                found[player] = pockets
    return found, unsure


def _ring_runs(x: int, y: int, passable: list[bool]) -> list[list[Cell]]:
    """The orthogonal neighbours of (x, y) grouped by the runs of passable ring cells (``passable`` over
    :data:`_RING`, cyclic) that join them; runs without an orthogonal neighbour are left out."""
    groups: list[list[Cell]] = []
    run: list[Cell] = []
    start = passable.index(False) if False in passable else 0
    for i in range(1, 9):
        k = (start + i) % 8
        if passable[k]:
            if k % 2 == 0:
                run.append((x + _RING[k][0], y + _RING[k][1]))
        elif run:
            groups.append(run)
            run = []
    if run:
        groups.append(run)
    return groups


# Cells a search of _cut_parts may visit before it gives up (then the full labelling decides).
_CUT_BUDGET = 256


def _cut_parts(
    views: _Views, player: int, capital: Cell, cell: Cell, groups: list[list[Cell]]
) -> list[list[Cell]] | None:
    """For :func:`_local_pockets`: the new pockets of ``player`` (each a list of its cells, in row-major order
    of their first cell) now that ``cell`` is no longer passable for it and its passable neighbours lie in
    several ``groups`` around it, or None when unsure.

    Breadth-first searches over the player's passable cells (§2.5) start from all groups at once, one layer
    each in turn; two searches that meet merge. A search that runs out of cells has found a whole part of the
    old component, which ``cell`` encircles: a pocket when it holds a cell of the player but not its capital.
    Once at most one search is left and no finished part held the capital, that last part is no pocket: it
    holds the capital, or no cell of the player, like the component the cell was cut from. None after
    :data:`_CUT_BUDGET` cells: the work grows with the smaller parts, not with the board."""
    w, h, land, owner, occupied = views
    last_row = (h - 1) * w
    parent = list(range(len(groups)))
    seen: dict[int, int] = {cell[1] * w + cell[0]: -1}
    frontiers: list[list[int]] = []
    members: list[list[int]] = []
    for g, group in enumerate(groups):
        flat = [y * w + x for x, y in group]
        frontiers.append(flat)
        members.append(list(flat))
        for i in flat:
            seen[i] = g
    active = list(range(len(groups)))
    finished: list[list[int]] = []
    home = capital[1] * w + capital[0]
    capital_cut_off = False
    visited = 0
    seen_by = seen.get
    while active and (len(active) > 1 or capital_cut_off):
        for g in list(active):
            if parent[g] != g:
                continue
            layer: list[int] = []
            for i in frontiers[g]:
                x = i % w
                for j in (i - w if i >= w else -1, i + w if i < last_row else -1,
                          i - 1 if x > 0 else -1, i + 1 if x < w - 1 else -1):
                    if j < 0:
                        continue
                    other = seen_by(j)
                    if other is None:
                        if land[j] and (owner[j] == player or not occupied[j]):
                            seen[j] = g
                            layer.append(j)
                    elif other >= 0 and other != g:   # a cell this search reached itself needs no look-up
                        other = _root(other, parent)
                        if other != g:
                            parent[other] = g
                            layer += frontiers[other]
                            frontiers[other] = []
                            members[g] += members[other]
                            active.remove(other)
            visited += len(layer)
            members[g] += layer
            frontiers[g] = layer
            if not layer:
                active.remove(g)
                if home in seen and _root(seen[home], parent) == g:
                    capital_cut_off = True
                else:
                    finished.append(members[g])
            if visited > _CUT_BUDGET:
                return None
    pockets = [sorted(part) for part in finished if any(owner[i] == player for i in part)]
    return [[(i % w, i // w) for i in part] for part in sorted(pockets)]


def _root(g: int, parent: list[int]) -> int:
    """The search that search ``g`` merged into (union-find without compression: a handful of groups)."""
    while parent[g] != g:
        g = parent[g]
    return g


def _neighbourhood(changed: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The changed cells (2, n) plus their orthogonal neighbours, clipped to the board."""
    ys, xs = changed
    all_y = np.concatenate([ys, ys + 1, ys - 1, ys, ys])
    all_x = np.concatenate([xs, xs, xs, xs + 1, xs - 1])
    ok = (all_y >= 0) & (all_y < shape[0]) & (all_x >= 0) & (all_x < shape[1])
    return np.stack([all_y[ok], all_x[ok]])


# ---------------------------------------------------------------------------------------- the pipeline (§2.4)


@dataclass(slots=True)
class _Resolution:
    """What the stages of one pipeline run share.

    ``changed`` holds (2, n) arrays of (ys, xs): every cell this run changed (stages append theirs).
    ``occupied`` lists ``((x, y), previous owner)`` for the cells the action itself just occupied, as long
    as those are the only changes (an Attack, Defend or Guerilla before anything else happened); ``None``
    once any other change was made (the shortcuts of :func:`_local_pockets` and :class:`_TakeableCount`
    then do not apply). ``takeable`` is the count of §2.8 (:func:`count_takeable`) after the previous run
    and, once the reset stage ran, after this one; ``tracker`` keeps that count up to date cell by cell
    (``None``: count the whole board). ``capitals_meet``: all capitals of the game's start lie on one
    8-connected land mass, so any two alive players can meet (§2.9);
    ``land_masses`` labels the 4-connected land masses (empty: unknown, no shortcut). ``heirs``, after a
    defeat (§2.7) of a resolved board, maps each player who received cells to those cells ((2, n) ys, xs):
    only pockets holding such a cell can be new (:meth:`Game.defeat`), so only they are looked for first.
    ``alive_now`` holds :meth:`alive` once worked out, until a capital falls."""

    board: Board
    mover: int
    tie_rule: str
    changed: list[np.ndarray]
    components: np.ndarray
    whole_board: bool = False
    takeable: int = 0
    over: GameOver | None = None
    eliminated: list[int] = field(default_factory=list)
    occupied: list[tuple[Cell, int]] | None = None
    tracker: _TakeableCount | None = None
    capitals_meet: bool = False
    land_masses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int32))
    flat: _Views | None = None
    heirs: dict[int, np.ndarray] | None = None
    alive_now: list[int] | None = None

    def alive(self) -> list[int]:
        """The alive players (:meth:`Board.alive_players`), worked out once per run until a capital falls
        (:func:`_captured`, the only stage that takes capitals away)."""
        if self.alive_now is None:
            self.alive_now = self.board.alive_players()
        return self.alive_now

    def views(self) -> _Views:
        """Flat views of the board's arrays (:class:`_Views`), made once per run."""
        if self.flat is None:
            self.flat = _views(self.board)
        return self.flat


Stage = Callable[[_Resolution], list[Event]]


def _changed_events(changed: list[np.ndarray]) -> list[Event]:
    if not changed:
        return []
    ys, xs = np.concatenate(changed, axis=1)
    if len(ys) > 4096:
        # Many cells (a player leaving a large board): mark them on a board-sized array rather than sort.
        height, width = int(ys.max()) + 1, int(xs.max()) + 1
        seen = np.zeros(height * width, dtype=bool)
        seen[ys.astype(np.int64) * width + xs] = True
        flat = np.flatnonzero(seen)
        return [CellsChanged(_cells(flat // width, flat % width))]
    flat = np.unique(ys * (1 << 32) + xs)
    return [CellsChanged(_cells(flat >> 32, flat & 0xFFFFFFFF))]


def _captured(res: _Resolution) -> list[tuple[int, int, Cell]]:
    """§2.7: (player, capturer, capital) for every alive player whose capital cell someone else now owns;
    those players lose their capital here (eliminated)."""
    board = res.board
    out: list[tuple[int, int, Cell]] = []
    if res.occupied is not None and all(cell not in board.capitals.values() for cell, _ in res.occupied):
        return out     # the action only occupied cells, none a capital: every capital keeps its owner
    for player in board.alive_players():
        x, y = board.capitals[player]  # type: ignore[misc]
        by = int(board.owner[y, x])
        if by != player:
            board.capitals[player] = None
            res.eliminated.append(player)
            out.append((player, by, (x, y)))
            res.alive_now = None
    return out


def stage_capital_capture_v3(res: _Resolution) -> list[Event]:
    """§2.7, the 3.x rule: a captured capital's player is eliminated; its cells become unoccupied and each
    4-connected component of them is divided among the occupied neighbours as if encircled (§2.6), a component
    without any going to the capturer."""
    board = res.board
    events: list[Event] = []
    for player, by, cell in _captured(res):
        events.append(CapitalCaptured(player, by, cell))
        def to_capturer(ys: np.ndarray, xs: np.ndarray, by: int = by) -> np.ndarray:
            return np.full(ys.shape, by, np.int8)

        handovers = _divide_player(board, player, res.mover, res.tie_rule, to_capturer)
        more, changed = _apply_handovers(board, handovers)
        res.changed += changed
        res.occupied = None
        events += more + _changed_events(changed) + [Eliminated(player, "capital")]
    return events


def stage_capital_capture_v2(res: _Resolution) -> list[Event]:
    """§2.7, the 2.x rule: a captured capital's player is eliminated; all its cells become unoccupied cells of
    the capturer."""
    board = res.board
    events: list[Event] = []
    for player, by, cell in _captured(res):
        events.append(CapitalCaptured(player, by, cell))
        mine = board.land & (board.owner == player)
        ys, xs = np.nonzero(mine)
        board.owner[mine] = by
        board.occupied[mine] = False
        changed = [np.stack([ys, xs])]
        res.changed += changed
        res.occupied = None
        events.append(Encircled(_cells(ys, xs), by, player))
        events += [*_changed_events(changed), Eliminated(player, "capital")]
    return events


def stage_encirclement(res: _Resolution) -> list[Event]:
    """§2.5–§2.6 for all alive players on one snapshot, applied together; repeated until nothing changes.

    Only pockets holding a changed cell or a neighbour of one can be new. When the action only occupied one
    cell, :func:`_local_pockets` finds them from the cells around it, and names the few players (usually
    none) for whom only the labelling (:func:`_pockets_of`) can tell.

    After a round whose pockets all belong to one victim P nothing new can be encircled, so the repetition
    stops: every pocket of the snapshot was handed over, and the handover makes cells unoccupied only, so for
    P nothing changes but its cell count, while for any other player R components only merge and encirclers
    only disappear. A component R could newly have encircled holds a handed-over pocket K. If R owns an
    occupied cell next to K, that cell's old component (no pocket: R was no victim) held R's capital, so the
    merged one does, or it was a whole land mass, which nothing new encircles. If R owns none, K is walled
    by other players' occupied cells and is itself R's component; R's cells in K were walled in before as
    well, by occupied cells, so they were R's capital's."""
    board = res.board
    events: list[Event] = []
    found: dict[int, list[list[Cell]]] = {}
    players = res.alive()
    if not res.whole_board and res.occupied is not None and len(res.occupied) == 1 and res.land_masses.size:
        cell, previous = res.occupied[0]
        found, players = _local_pockets(board, res.views(), cell, previous, res.land_masses)
        if not found and not players:
            return events
    changed = list(res.changed)
    whole = res.whole_board
    while whole or changed:
        handovers: list[_Handover] = []
        if res.heirs is not None and not whole:
            # After a defeat only a pocket holding a cell an heir received can be new (Game.defeat).
            for player, cells in sorted(res.heirs.items(), key=lambda item: item[0]):
                if board.capitals.get(player) is not None:
                    handovers += _pockets_of(board, player, cells, res.mover, res.tie_rule)
            res.heirs = None
        else:
            seeds = None
            if not whole and set(players) - set(found):
                seeds = _neighbourhood(np.concatenate(changed, axis=1), board.land.shape)
            for player in sorted({*players, *found}):
                if player in found:
                    handovers += [_pocket_handover(board, res.views(), player, cells, res.mover, res.tie_rule)
                                  for cells in found[player]]
                else:
                    handovers += _pockets_of(board, player, seeds, res.mover, res.tie_rule)
        if not handovers:
            break
        more, changed = _apply_handovers(board, handovers)
        res.changed += changed
        res.occupied = None
        events += more + _changed_events(changed)
        if len({h.victim for h in handovers}) == 1:
            break
        found, players = {}, res.alive()
        whole = False
    return events


def _takeable_bits(land: np.ndarray, owner: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """§2.8 per cell, over arrays of any (h, w) window: uint16, bit q set on an unoccupied land cell when
    player q, not its owner, has an occupied cell among its 8 neighbours inside the window (players 1..9:
    bits 1..9)."""
    owner_bit = np.left_shift(np.uint16(1), owner.astype(np.uint16))
    near = _dilate8(np.where(occupied & land, owner_bit, np.uint16(0)))
    free = land & ~occupied
    bits: np.ndarray = np.bitwise_and(near, ~owner_bit, where=free, out=np.zeros_like(near))
    return bits


def count_takeable(board: Board) -> int:
    """§2.8: how many alive players can reach, by the guerilla rule, an unoccupied cell owned by someone else.

    Vectorised over the players: each occupied cell carries its owner's bit, spread to the 8 neighbours; an
    unoccupied cell keeps the bits of the other players next to it."""
    bits = _takeable_bits(board.land, board.owner, board.occupied)
    return int(np.bitwise_or.reduce(bits, axis=None)).bit_count()


def takeable_by_player(board: Board) -> dict[int, int]:
    """§2.8 per alive player q (ascending): how many unoccupied land cells owned by another player q can
    reach by the guerilla rule (an occupied cell of q among their 8 neighbours). Under ``strict`` these are
    what stands between the game and the next global reset: it comes when all of them are 0 (after at least
    one was above 0)."""
    bits = _takeable_bits(board.land, board.owner, board.occupied)
    return {q: int(np.count_nonzero(bits & np.uint16(1 << q))) for q in board.alive_players()}


def free_land(board: Board) -> int:
    """§2.8 ``empty``: the unoccupied land cells left (the reset comes when this reaches 0)."""
    return int(np.count_nonzero(board.land & ~board.occupied))


def capital_threats(board: Board) -> dict[int, list[tuple[Cell, int]]]:
    """§2.2, §2.7: for each alive player P (ascending) the cells from which P's capital can be taken,
    ``[((x, y), Q), ...]`` in row-major order: the land cells among the capital's 8 neighbours owned by
    another alive player Q. While the capital is unoccupied, Q takes it from such a cell once the cell is
    occupied by Q: by Guerilla from any of the 8, by Attack from the 4 orthogonal ones. An occupied
    capital is safe from every one of them until the next global reset (§2.8)."""
    out: dict[int, list[tuple[Cell, int]]] = {}
    for player in board.alive_players():
        capital = board.capitals[player]
        assert capital is not None
        cx, cy = capital
        cells = []
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                x, y = cx + dx, cy + dy
                if (dx or dy) and board.inside(x, y) and board.land[y, x]:
                    owner = int(board.owner[y, x])
                    if owner != player and board.capitals.get(owner) is not None:
                        cells.append(((x, y), owner))
        out[player] = cells
    return out


@dataclass(frozen=True)
class ResetOutlook:
    """What stands between the game and the next global reset (§2.8) under ``rule``: under ``strict``
    ``takeable`` (:func:`takeable_by_player`) and ``armed`` (whether the count of §2.8 has been above 0
    since the last reset, so that all reaching 0 brings the reset); under ``empty`` ``free``
    (:func:`free_land`)."""

    rule: str
    takeable: dict[int, int] = field(default_factory=dict)
    armed: bool = False
    free: int = 0

    def to_json(self) -> dict[str, Any]:
        """The status file's ``reset``: ``{"rule": "strict", "takeable": {"1": n, ...}}`` or ``{"rule":
        "empty", "free": n}``."""
        if self.rule == "strict":
            return {"rule": "strict", "takeable": {str(p): n for p, n in self.takeable.items()}}
        return {"rule": "empty", "free": self.free}


class _TakeableCount:
    """The count of §2.8 (:func:`count_takeable`) kept up to date around the changed cells instead of over the
    whole board.

    ``bits`` (H, W) uint16 holds :func:`_takeable_bits` of the board; ``cells[q]`` counts the cells carrying
    player q's bit, so the count is the number of players with ``cells[q] > 0``. A change of some cells can
    only alter the bits of those cells and their 8 neighbours: :meth:`occupy` handles cells that just became
    occupied (each only adds its owner's bit around it), :meth:`refresh` recomputes a window around any other
    changes, :meth:`clear` follows a global reset."""

    def __init__(self, board: Board) -> None:
        self.bits = _takeable_bits(board.land, board.owner, board.occupied)
        self.cells = [int(np.count_nonzero(self.bits & (1 << q))) for q in range(16)]

    def copy(self) -> _TakeableCount:
        new = object.__new__(_TakeableCount)
        new.bits = self.bits.copy()
        new.cells = list(self.cells)
        return new

    def count(self) -> int:
        return sum(1 for n in self.cells if n)

    def occupy(self, views: _Views, cells: Iterable[Cell]) -> None:
        """``cells`` were unoccupied land before and are now occupied by their owners: each loses its own bits
        and adds its owner's bit to its unoccupied neighbours owned by someone else (exact, in any order)."""
        w, h, land, owner, occupied = views
        bits, counts = _flat(self.bits), self.cells
        for x, y in cells:
            old = bits[y * w + x]
            if old:
                bits[y * w + x] = 0
                for q in range(16):
                    if old >> q & 1:
                        counts[q] -= 1
            player = owner[y * w + x]
            bit = 1 << player
            for dx, dy in _RING:
                nx, ny = x + dx, y + dy
                i = ny * w + nx
                if (0 <= nx < w and 0 <= ny < h and land[i] and not occupied[i] and owner[i] != player
                        and not bits[i] & bit):
                    bits[i] |= bit
                    counts[player] += 1

    def refresh(self, board: Board, ys: np.ndarray, xs: np.ndarray) -> None:
        """Recompute the bits around the changed cells ``ys``, ``xs`` (global coordinates): on their bounding
        box grown by 1, from the board grown by 1 more."""
        shape = board.land.shape
        inner = _bbox_window(ys, xs, shape, 1)
        outer = _grow(inner, shape)
        crop = (slice(inner[0].start - outer[0].start, inner[0].stop - outer[0].start),
                slice(inner[1].start - outer[1].start, inner[1].stop - outer[1].start))
        new = _takeable_bits(board.land[outer], board.owner[outer], board.occupied[outer])[crop]
        old = self.bits[inner]
        differ = old != new
        if not differ.any():
            return
        gone, came = old[differ], new[differ]
        touched = int(np.bitwise_or.reduce(gone | came))
        for q in range(16):
            if touched >> q & 1:
                bit = 1 << q
                self.cells[q] += int(np.count_nonzero(came & bit)) - int(np.count_nonzero(gone & bit))
        self.bits[inner] = new

    def clear(self) -> None:
        """After a global reset nothing is occupied, so nothing is takeable."""
        self.bits[:] = 0
        self.cells = [0] * 16

    def update(self, res: _Resolution) -> None:
        """Bring the bits up to date with the changes of one pipeline run."""
        if res.occupied is not None:
            self.occupy(res.views(), [cell for cell, _ in res.occupied])
        elif res.changed:
            ys, xs = np.concatenate(res.changed, axis=1)
            self.refresh(res.board, ys, xs)


def _reset(board: Board) -> list[Event]:
    """§2.8: all land becomes unoccupied; owners and capitals are kept."""
    ys, xs = np.nonzero(board.occupied & board.land)
    board.occupied[:] = False
    return [Reset(), CellsChanged(_cells(ys, xs))]


def stage_reset_strict(res: _Resolution) -> list[Event]:
    """§2.8, the default: reset when the count of :func:`count_takeable` drops from above 0 to 0
    (edge-triggered), only while at least two players are alive (§2.4). With a ``tracker`` the count is kept
    up to date around the changed cells (:class:`_TakeableCount`) instead of counted over the whole board."""
    tracker = res.tracker
    if tracker is not None:
        tracker.update(res)
    if len(res.alive()) < 2:
        return []
    before = res.takeable
    res.takeable = count_takeable(res.board) if tracker is None else tracker.count()
    if before == 0 or res.takeable > 0:
        return []
    events = _reset(res.board)
    if tracker is None:
        res.takeable = count_takeable(res.board)
    else:
        tracker.clear()
        res.takeable = 0
    return events


def stage_reset_empty(res: _Resolution) -> list[Event]:
    """§2.8, option ``empty``: reset when no unoccupied land cell is left, while at least two players are
    alive."""
    board = res.board
    if len(res.alive()) < 2 or (board.land & ~board.occupied).any():
        return []
    return _reset(board)


def stage_game_end(res: _Resolution) -> list[Event]:
    """§2.10: at most one alive player left ends the game."""
    alive = res.alive()
    if len(alive) > 1:
        return []
    res.over = GameOver(alive[0]) if alive else GameOver(None, "draw", "left")
    return [res.over]


def land_components(land: np.ndarray) -> np.ndarray:
    """The 8-connected components of ``land`` ((H, W) bool): (H, W) int labels, 0 on sea (§2.9)."""
    from scipy import ndimage
    labels: np.ndarray = ndimage.label(land, structure=np.ones((3, 3), dtype=bool))[0]
    return labels


def can_meet(board: Board, components: np.ndarray) -> bool:
    """§2.9: whether two alive players own land in one 8-connected land component (``components`` from
    :func:`land_components`), so that an Attack or a Guerilla may one day touch another player."""
    alive = board.alive_players()
    if len(alive) < 2:
        return False
    masses = [int(components[c[1], c[0]]) for p in alive if (c := board.capitals[p]) is not None]
    if len(set(masses)) < len(masses):
        return True     # two capitals, so two players, on one land mass
    owner = np.where(board.land, board.owner, 0)
    present = np.zeros((int(components.max()) + 1, board.players + 1), dtype=bool)
    present[components, owner] = True
    return bool((present[1:, alive].sum(axis=1) >= 2).any())


def stage_unreachable(res: _Resolution) -> list[Event]:
    """§2.9: when no alive player can ever reach another's land the game ends at once as a draw."""
    if res.over is not None:
        return []
    if res.capitals_meet and len(res.alive()) > 1:
        return []
    if can_meet(res.board, res.components):
        return []
    res.over = GameOver(None, "draw", "unreachable")
    return [res.over]


def takeable_cells(board: Board) -> np.ndarray:
    """``(H, W)`` bool: the unoccupied cells some player can take by the Guerilla rule (next to one of its
    occupied cells, eight neighbours) that another player owns: what holds the ``strict`` reset back
    (§2.8)."""
    held: np.ndarray = _takeable_bits(board.land, board.owner, board.occupied) != 0
    return held


def free_cells(board: Board) -> np.ndarray:
    """``(H, W)`` bool: the unoccupied land cells: what holds the ``empty`` reset back (§2.8)."""
    free: np.ndarray = board.land & ~board.occupied
    return free


# --------------------------------------------------------------------------------------------- rule options
#
# The rule options are declared once, here: each :class:`RuleOption` of :data:`RULE_OPTIONS` names its
# field (``Rules``, ``Game``, the game interface's option), its word (``--reset-rule`` on the command line,
# ``reset-rule`` in a save), its help and its variants; the command line, the save lines, the status file,
# the game interface and the computer players all read them from here. A new variant of an option is one more
# entry in its tuple of variants (RESET_VARIANTS ...) with what the rest of the program asks of it.


@dataclass(frozen=True)
class Variant:
    """One value of a rule option: ``name`` (the word on the command line and in a save) and one line of
    ``help``."""

    name: str
    help: str


@dataclass(frozen=True)
class CapitalVariant(Variant):
    """A capital rule (§2.7): ``stage`` is its capital-capture stage of the pipeline (§2.4)."""

    stage: Stage


@dataclass(frozen=True)
class ResetVariant(Variant):
    """A global reset rule (§2.8): ``stage`` is its reset stage of the pipeline (§2.4); ``counts_takeable``
    whether it keeps the count of §2.8 (edge-triggered; a save's ``takeable`` line); ``holding(board)`` the
    ``(H, W)`` bool cells whose taking may bring the reset (the guarded march's reset timing,
    motti/march.py)."""

    stage: Stage
    counts_takeable: bool
    holding: Callable[[Board], np.ndarray]


@dataclass(frozen=True)
class TieVariant(Variant):
    """A tie rule of the division among several encirclers (§2.6): ``mover_first`` gives a tie to the player
    in turn before the lowest number."""

    mover_first: bool


CAPITAL_VARIANTS: tuple[CapitalVariant, ...] = (
    CapitalVariant("v3", "v3 divides the loser's land as if encircled", stage_capital_capture_v3),
    CapitalVariant("v2", "v2 gives all of it to the invader", stage_capital_capture_v2),
)
RESET_VARIANTS: tuple[ResetVariant, ...] = (
    ResetVariant("strict", "strict: when nobody can take a free cell of another player", stage_reset_strict,
                 True, takeable_cells),
    ResetVariant("empty", "empty: when no land is free", stage_reset_empty, False, free_cells),
)
TIE_VARIANTS: tuple[TieVariant, ...] = (
    TieVariant("mover", "mover: to the player in turn, then the lowest number", True),
    TieVariant("lowest", "lowest: to the lowest number", False),
)


@dataclass(frozen=True)
class RuleOption:
    """One rule option (spec §3.2): ``field`` its name in :class:`Rules`, :class:`Game` and the game
    interface (``reset_rule``); ``word`` its command-line option ``--WORD`` and save line ``WORD VALUE``
    (``reset-rule``); ``help`` what it decides; ``section`` the spec's section; ``variants`` its values, the
    first the default (none: a whole number of at least ``lowest``, default none)."""

    field: str
    word: str
    help: str
    section: str
    variants: tuple[Variant, ...] = ()
    lowest: int = 1

    @property
    def choices(self) -> tuple[str, ...]:
        """The names of the variants (empty for a number)."""
        return tuple(variant.name for variant in self.variants)

    @property
    def default(self) -> str | None:
        """The first variant's name (None for a number: none)."""
        return self.variants[0].name if self.variants else None

    def check(self, value: object) -> None:
        """Raise ``ValueError`` (``reset_rule must be one of strict, empty, not 'loose'``) for a value this
        option does not take."""
        if self.variants:
            if value not in self.choices:
                raise ValueError(f"{self.field} must be one of {', '.join(self.choices)}, not {value!r}")
        elif value is not None and (not isinstance(value, int) or value < self.lowest):
            raise ValueError(f"{self.field} must be at least {self.lowest}, not {value}")

    def usage(self) -> str:
        """The command line's help: what it decides and, per variant, one line; the default."""
        if not self.variants:
            return self.help
        lines = "; ".join(variant.help for variant in self.variants)
        return f"{self.help}: {lines} (default {self.default}; spec {self.section})"


RULE_OPTIONS: tuple[RuleOption, ...] = (
    RuleOption("reset_rule", "reset-rule", "when the global reset frees all land", "§2.8", RESET_VARIANTS),
    RuleOption("capital_rule", "capital-rule", "losing the capital", "§2.7", CAPITAL_VARIANTS),
    RuleOption("tie_rule", "tie-rule", "who takes a pocket cell at equal distance from several encirclers",
               "§2.6", TIE_VARIANTS),
    RuleOption("max_turns", "max-turns", "end after N turns (one player's turn each): the player owning the "
               "most land wins", "§2.9"),
)
#: The options by field name.
OPTIONS: dict[str, RuleOption] = {option.field: option for option in RULE_OPTIONS}
CAPITAL_RULES = OPTIONS["capital_rule"].choices
RESET_RULES = OPTIONS["reset_rule"].choices
TIE_RULES = OPTIONS["tie_rule"].choices


@dataclass(frozen=True)
class Rules:
    """The rule options of one game (§2.6–§2.9, declared in :data:`RULE_OPTIONS`): ``reset_rule``,
    ``capital_rule``, ``tie_rule`` (variant names) and ``max_turns`` (the turn cap, None for none). Frozen;
    raises ``ValueError`` naming the option for a value it does not take."""

    reset_rule: str = RESET_RULES[0]
    capital_rule: str = CAPITAL_RULES[0]
    tie_rule: str = TIE_RULES[0]
    max_turns: int | None = None

    def __post_init__(self) -> None:
        for option in RULE_OPTIONS:
            option.check(getattr(self, option.field))

    @property
    def reset(self) -> ResetVariant:
        """The reset rule's variant (§2.8)."""
        return next(v for v in RESET_VARIANTS if v.name == self.reset_rule)

    @property
    def capital(self) -> CapitalVariant:
        """The capital rule's variant (§2.7)."""
        return next(v for v in CAPITAL_VARIANTS if v.name == self.capital_rule)

    @property
    def tie(self) -> TieVariant:
        """The tie rule's variant (§2.6)."""
        return next(v for v in TIE_VARIANTS if v.name == self.tie_rule)

    def pipeline(self) -> tuple[Stage, ...]:
        """The resolution pipeline of §2.4 for these options: capital capture, encirclement, global reset,
        game end, and the check for a game that cannot end (§2.9)."""
        return (self.capital.stage, stage_encirclement, self.reset.stage, stage_game_end, stage_unreachable)

    def options(self) -> dict[str, str | int | None]:
        """``{field: value}`` of every option (the status file's ``rules``, the game interface's options)."""
        return {option.field: getattr(self, option.field) for option in RULE_OPTIONS}

    def save_lines(self) -> list[str]:
        """The save lines of §3.2, one per option that has a value: ``reset-rule strict``, ...,
        ``max-turns 300``."""
        return [f"{option.word} {value}" for option in RULE_OPTIONS
                if (value := getattr(self, option.field)) is not None]


def pipeline(capital_rule: str = CAPITAL_RULES[0], reset_rule: str = RESET_RULES[0]) -> tuple[Stage, ...]:
    """The resolution pipeline of §2.4 for the rule options (§2.7 ``capital_rule``, §2.8 ``reset_rule``):
    :meth:`Rules.pipeline`. Raises ``ValueError`` for an unknown option."""
    return Rules(capital_rule=capital_rule, reset_rule=reset_rule).pipeline()


PIPELINE = pipeline()
"""The pipeline of the default rules."""


def turns_fault(turns: int, max_turns: int | None) -> str | None:
    """Why no game has played *turns* turns under the turn cap *max_turns* (None: none), or None: the cap
    ends the game there (§2.9)."""
    if max_turns is not None and turns > max_turns:
        return f"turns cannot be past max-turns {max_turns}, found {turns}"
    return None


def takeable_unkept(reset: ResetVariant) -> str | None:
    """Why the reset rule *reset* (``Rules.reset``) keeps no count of §2.8 (``takeable is kept only under
    reset-rule strict, not under reset-rule empty``), or None when it keeps one."""
    if reset.counts_takeable:
        return None
    keeping = " or ".join(variant.name for variant in RESET_VARIANTS if variant.counts_takeable)
    return f"takeable is kept only under reset-rule {keeping}, not under reset-rule {reset.name}"


def takeable_fault(takeable: int, alive: int, reset: ResetVariant) -> str | None:
    """Why the count of §2.8 cannot be *takeable* with *alive* players alive under the reset rule *reset*
    (``Rules.reset``), or None: it counts the players who can take a cell, 0 to *alive*, under a rule that
    keeps it, and is 0 under one that keeps none (:func:`takeable_unkept`)."""
    unkept = takeable_unkept(reset)
    if takeable and unkept is not None:
        return unkept
    if not 0 <= takeable <= alive:
        return f"takeable counts the players who can take a cell (0 to {alive} here), found {takeable}"
    return None


class SettingError(ValueError):
    """A setting of :class:`Game` that no game reaches; ``setting`` names it (``turns``, ``takeable``)."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


def find_encircled(board: Board, mover: int, tie_rule: str = "mover") -> list[tuple[int, tuple[Cell, ...]]]:
    """Pockets (§2.5) anywhere on ``board`` that would be encircled now: ``[(victim, cells), ...]``."""
    out = []
    for player in board.alive_players():
        for h in _pockets_of(board, player, None, mover, tie_rule):
            ys, xs = np.nonzero(h.cells)
            out.append((player, _cells(ys + h.region[0].start, xs + h.region[1].start).as_tuple()))
    return out


# ------------------------------------------------------------------------------------------------------- game


def too_many_crosses(action: Action) -> str:
    """The refusal of one cross too many: ``Defend takes at most 3 crosses``, ``Guerilla takes at most 1
    cross``."""
    limit = MAX_CROSSES[action]
    return f"{action.value.capitalize()} takes at most {limit} cross{'' if limit == 1 else 'es'}"


class Game:
    """One game of motti (§2): the board, whose turn it is, the attacks left, the rule options, and whole
    actions (one attack with its crosses, a Defend, a Guerilla, a pass). Composing an action cross by cross is
    not a rule: motti/compose.py does it for the front ends and the game interface.

    ``capital_rule`` ``"v3"`` (default) or ``"v2"`` (§2.7); ``reset_rule`` ``"strict"`` (default) or
    ``"empty"`` (§2.8); ``tie_rule`` ``"mover"`` or ``"lowest"`` (§2.6); ``max_turns`` the turn cap of §2.9
    (``None``: none); or all four as one :class:`Rules` (``rules``, which then replaces them; kept as
    :attr:`rules`). ``turn`` is the player in turn (default: the lowest alive), ``attacks`` the attacks left
    in this turn (below 6 means this turn has attacked already), ``turns`` the turns played so far (at most
    ``max_turns``), ``takeable`` the count of §2.8 after the last action under a reset rule that keeps it
    (default: computed from the board; 0 under a rule that keeps none), ``resets`` the turns (1-based, the
    turn under way counted) in which a global reset happened so far (:attr:`resets` grows with every reset).
    A game that is already decided (one player left, the turn cap reached, nobody can reach anybody) is over
    at once; :attr:`end` says how.
    Every state change returns its events in order. Raises ``ValueError`` for bad settings
    (:class:`SettingError` for ``turns`` or ``takeable`` no game reaches: :func:`turns_fault`,
    :func:`takeable_fault`), :class:`IllegalAction` for moves the rules refuse (the state is then
    unchanged)."""

    def __init__(
        self,
        board: Board,
        rng: random.Random,
        *,
        capital_rule: str = CAPITAL_RULES[0],
        reset_rule: str = RESET_RULES[0],
        tie_rule: str = TIE_RULES[0],
        max_turns: int | None = None,
        turn: int | None = None,
        attacks: int = ATTACKS_PER_TURN,
        turns: int = 0,
        takeable: int | None = None,
        resets: Sequence[int] = (),
        rules: Rules | None = None,
    ) -> None:
        from scipy import ndimage

        if rules is None:
            rules = Rules(reset_rule=reset_rule, capital_rule=capital_rule, tie_rule=tie_rule,
                          max_turns=max_turns)
        capital_rule, reset_rule, tie_rule, max_turns = (rules.capital_rule, rules.reset_rule, rules.tie_rule,
                                                         rules.max_turns)
        stages = rules.pipeline()
        if board.players < 2:
            raise ValueError("motti needs at least 2 players")
        if not 1 <= attacks <= ATTACKS_PER_TURN:
            raise ValueError(f"attacks left must be 1..{ATTACKS_PER_TURN}, not {attacks}")
        if turns < 0:
            raise SettingError("turns", f"turns played cannot be negative, not {turns}")
        fault = turns_fault(turns, max_turns)
        if fault is not None:
            raise SettingError("turns", fault)
        alive = board.alive_players()
        if not alive:
            raise ValueError("no player has a capital")
        if takeable is not None:
            # With one player left the game is over at once and may keep the count of its last run with two
            # alive (the reset stage counts only then, §2.4): up to the map's players.
            fault = takeable_fault(takeable, len(alive) if len(alive) > 1 else board.players, rules.reset)
            if fault is not None:
                raise SettingError("takeable", fault)
        if turn is None:
            turn = alive[0]
        if turn not in alive:
            raise ValueError(f"player {turn} cannot be in turn: not an alive player")
        for name in ("land", "owner", "occupied"):
            setattr(board, name, np.ascontiguousarray(getattr(board, name)))   # for the flat views
        self.board = board
        self._rng = rng
        self._rng_shared = False
        self.rules = rules
        self.current_player = turn
        self.attacks_left = attacks
        self.turns = turns
        self._tracker = _TakeableCount(board) if rules.reset.counts_takeable else None
        if takeable is not None:
            self.takeable = takeable
        else:
            self.takeable = 0 if self._tracker is None else self._tracker.count()
        self.resets: list[int] = [int(t) for t in resets]
        self.end: GameOver | None = None
        self._stages = stages
        self._components = land_components(board.land)
        masses = {int(self._components[c[1], c[0]]) for c in board.capitals.values() if c is not None}
        self._capitals_meet = len(masses) == 1
        self._land_masses: np.ndarray = ndimage.label(board.land)[0]
        # A loaded state may hold a pocket that is already encircled; then the first run checks the whole
        # board. Without an occupied cell nothing is encircled (§2.5: no encircler), as on every new map.
        encirclers = bool((board.land & board.occupied).any())
        self._whole_board = encirclers and bool(find_encircled(board, turn, tie_rule))
        if len(alive) == 1:
            self.end = GameOver(alive[0], turns=turns)
        elif max_turns is not None and turns >= max_turns:
            self.end = self._land_end()
        elif not can_meet(board, self._components):
            self.end = GameOver(None, "draw", "unreachable", turns)

    # ----------------------------------------------------------------------------------------- queries

    @property
    def capital_rule(self) -> str:
        return self.rules.capital_rule

    @property
    def reset_rule(self) -> str:
        return self.rules.reset_rule

    @property
    def tie_rule(self) -> str:
        return self.rules.tie_rule

    @property
    def max_turns(self) -> int | None:
        return self.rules.max_turns

    @property
    def alive(self) -> list[int]:
        return self.board.alive_players()

    @property
    def winner(self) -> int | None:
        """The winner once the game is over (``None`` while it runs and after a draw)."""
        return None if self.end is None else self.end.winner

    @property
    def result(self) -> str | None:
        """``None`` while the game runs, then ``"win"``, ``"land"`` or ``"draw"`` (:class:`GameOver`)."""
        return None if self.end is None else self.end.result

    @property
    def attacked(self) -> bool:
        """Whether this turn has attacked already (then Defend and Guerilla are impossible, §2.2)."""
        return self.attacks_left < ATTACKS_PER_TURN

    def is_terminal(self) -> bool:
        return self.end is not None

    def returns(self) -> list[float]:
        """Per player 1..N (index 0 = player 1): +1 winner, -1 others when won; all 0 after a draw and while
        running."""
        winner = self.winner
        if winner is None:
            return [0.0] * self.board.players
        return [1.0 if p == winner else -1.0 for p in range(1, self.board.players + 1)]

    def land_counts(self) -> dict[int, int]:
        """Land cells owned by each alive player (§2.9 turn cap)."""
        owned = np.bincount(self.board.owner[self.board.land], minlength=self.board.players + 1)
        return {p: int(owned[p]) for p in self.alive}

    def holding(self) -> np.ndarray:
        """``(H, W)`` bool: the cells that hold the next global reset back under this game's reset rule
        (``rules.reset.holding``, §2.8), read off the count kept cell by cell when the rule keeps one."""
        if self._tracker is not None:
            held: np.ndarray = self._tracker.bits != 0
            return held
        return self.rules.reset.holding(self.board)

    def reset_outlook(self) -> ResetOutlook | None:
        """What stands between the game and the next global reset (§2.8, :class:`ResetOutlook`); None once
        the game is over."""
        if self.end is not None:
            return None
        if self.rules.reset.counts_takeable:
            # The tracker keeps takeable_by_player's counts up to date cell by cell (every window's
            # information line asks for them after every action).
            tracker = self._tracker
            takeable = (takeable_by_player(self.board) if tracker is None
                        else {q: tracker.cells[q] for q in self.board.alive_players()})
            return ResetOutlook(self.reset_rule, takeable, armed=self.takeable > 0)
        return ResetOutlook(self.reset_rule, free=free_land(self.board))

    def legal_mask(self, action: Action) -> np.ndarray:
        """(H, W) bool: cells the player in turn may cross for ``action``; all False once the game is over."""
        if self.end is not None:
            return np.zeros(self.board.land.shape, dtype=bool)
        return legal_mask(self.board, self.current_player, action)

    def is_legal_cross(self, x: int, y: int, action: Action) -> bool:
        return self.end is None and why_illegal(self.board, self.current_player, action, x, y) is None

    def possible_actions(self) -> set[Action]:
        """Actions performable now: Attack always (0 crosses is a failed attack); Defend and Guerilla only
        before the first attack of the turn and only with some legal cell. Empty once the game is over."""
        if self.end is not None:
            return set()
        out = {Action.ATTACK}
        if not self.attacked:
            for action in (Action.DEFEND, Action.GUERILLA):
                if legal_mask(self.board, self.current_player, action).any():
                    out.add(action)
        return out

    def why_impossible(self, action: Action) -> str | None:
        """Why *action* cannot be performed now (one line), or None when it is possible (§2.2, §6)."""
        if self.end is not None:
            return "the game is over"
        if action in self.possible_actions():
            return None
        if self.attacked:
            return f"{action.value.capitalize()} is impossible after an attack this turn"
        return f"{action.value.capitalize()} is impossible: player {self.current_player} has no cell for it"

    # ------------------------------------------------------------------------------------------ copies

    @property
    def rng(self) -> random.Random:
        """The game's random generator (§2.3). After :meth:`clone` the copy and the original hold one
        generator until either of them uses it: the first use gives that game a ``random.Random`` of its own
        with the same state, so the two draw the same numbers independently."""
        if self._rng_shared:
            own = random.Random.__new__(random.Random)
            own.setstate(self._rng.getstate())
            self._rng = own
            self._rng_shared = False
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng = rng
        self._rng_shared = False

    def clone(self) -> Game:
        """An independent copy: the arrays copied (land shared, it never changes), the random generator's
        state copied into a new ``random.Random`` when either game first uses it (:attr:`rng`). Cheap: no
        ``deepcopy``; a search that gives the copy a generator of its own copies no generator state at
        all."""
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        b = self.board
        new.board = Board(b.land, b.owner.copy(), b.occupied.copy(), dict(b.capitals), b.players)
        if self._tracker is not None:
            new._tracker = self._tracker.copy()
        new.resets = list(self.resets)
        self._rng_shared = new._rng_shared = True
        return new

    def reseed(self, seed: int) -> Game:
        """Replace the random generator by ``random.Random(seed)`` (searches reseed their clones); returns
        self."""
        self.rng = random.Random(seed)
        return self

    # ------------------------------------------------------------------------------------------ actions

    def _running(self) -> None:
        if self.end is not None:
            raise IllegalAction("the game is over")

    def _validate(self, action: Action, cells: Iterable[Cell], views: _Views) -> list[Cell]:
        checked = [(int(x), int(y)) for x, y in cells]
        if len(checked) > MAX_CROSSES[action]:
            raise IllegalAction(too_many_crosses(action))
        if len(set(checked)) != len(checked):
            raise IllegalAction("a cell is crossed twice")
        for x, y in checked:
            why = why_illegal(self.board, self.current_player, action, x, y, views)
            if why is not None:
                raise IllegalAction(why)
        return checked

    def attack(self, cells: Sequence[Cell] = (), draw: int | None = None) -> list[Event]:
        """One attack (§2.2 steps 1–6) with the crosses ``cells`` (0..6, in placement order).

        Draws ``rng.randrange(6)`` unless ``draw`` (0..5) gives the outcome (a search enumerating the six
        outcomes): the draw-th cross is conquered if there is one, else the attack fails."""
        self._running()
        views = _views(self.board)
        crosses = self._validate(Action.ATTACK, cells, views)
        if draw is not None and not 0 <= draw < 6:
            raise IllegalAction(f"an attack's draw is 0..5, not {draw}")
        player = self.current_player
        if draw is None:
            draw = self.rng.randrange(6)
        cell = crosses[draw] if draw < len(crosses) else None
        self.attacks_left -= 1
        events: list[Event] = [AttackDrawn(player, draw, cell)]
        changed = []
        occupied: list[tuple[Cell, int]] = []
        if cell is not None:
            x, y = cell
            occupied.append((cell, int(self.board.owner[y, x])))
            self.board.owner[y, x] = player
            self.board.occupied[y, x] = True
            changed.append(np.array([[y], [x]]))
            events.append(CellsChanged((cell,)))
        events += self._resolve(changed, occupied=occupied, views=views)
        if self.end is None and self.attacks_left == 0:
            events += self._end_turn()
        return events

    def defend(self, cells: Sequence[Cell]) -> list[Event]:
        """Occupy 1..3 own unoccupied cells; the turn ends (§2.2)."""
        self._running()
        if self.attacked:
            raise IllegalAction("Defend is impossible after an attack this turn")
        checked = self._validate(Action.DEFEND, cells, _views(self.board))
        if not checked:
            raise IllegalAction("Defend needs 1 to 3 crosses")
        occupied = [((x, y), int(self.board.owner[y, x])) for x, y in checked]
        for x, y in checked:
            self.board.occupied[y, x] = True
        return self._finish_turn_action(checked, occupied)

    def guerilla(self, cell: Cell) -> list[Event]:
        """Occupy and own one cell reachable by the guerilla rule; the turn ends (§2.2)."""
        self._running()
        if self.attacked:
            raise IllegalAction("Guerilla is impossible after an attack this turn")
        ((x, y),) = self._validate(Action.GUERILLA, [cell], _views(self.board))
        occupied = [((x, y), int(self.board.owner[y, x]))]
        self.board.owner[y, x] = self.current_player
        self.board.occupied[y, x] = True
        return self._finish_turn_action([(x, y)], occupied)

    def _finish_turn_action(self, cells: list[Cell], occupied: list[tuple[Cell, int]]) -> list[Event]:
        changed = [np.array([[y for _, y in cells], [x for x, _ in cells]])]
        events: list[Event] = [CellsChanged(tuple(sorted(cells, key=lambda c: (c[1], c[0]))))]
        events += self._resolve(changed, occupied=occupied)
        if self.end is None:
            events += self._end_turn()
        return events

    def pass_turn(self) -> list[Event]:
        """End the turn at once, drawing nothing (§2.2 passing, §3.3 ``pass``)."""
        self._running()
        return self._end_turn()

    def defeat(self, players: Iterable[int], cause: str = "closed") -> list[Event]:
        """Defeat ``players`` (window closed or quit, §2.7): each one's cells become unoccupied and are
        divided among the occupied neighbours (§2.6), or cell by cell to the nearest alive capital; the turn
        order then skips them. Players already out are ignored.

        When nobody is left alive there is no heir (§2.7 hands the land to *alive* players only): every cell
        keeps its owner and occupation, the players are eliminated and the game ends in a draw
        (``GameOver(None, "draw", "left")``).
        """
        if self.end is not None:
            return []
        board = self.board
        beaten = sorted({p for p in players if board.capitals.get(p) is not None})
        if not beaten:
            return []
        for p in beaten:
            board.capitals[p] = None
        alive = [(p, c) for p, c in board.capitals.items() if c is not None]
        if not alive:
            self.turns += 1
            self.end = GameOver(None, "draw", "left", self.turns)
            return [*(Eliminated(p, cause) for p in beaten), self.end]

        def nearest(ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
            return nearest_capital(ys, xs, alive)

        events: list[Event] = []
        changed: list[np.ndarray] = []
        received: dict[int, list[np.ndarray]] = {}
        for p in beaten:
            board.occupied[board.owner == p] = False
        for p in beaten:
            handovers = _divide_player(board, p, self.current_player, self.tie_rule, nearest, exclude=beaten)
            for h in handovers:
                ys, xs = np.nonzero(h.cells)
                to = h.heir[ys, xs]
                for heir in np.flatnonzero(np.bincount(to.astype(np.intp), minlength=1)).tolist():
                    pick = to == heir
                    received.setdefault(heir, []).append(
                        np.stack([ys[pick] + h.region[0].start, xs[pick] + h.region[1].start]))
            more, ch = _apply_handovers(board, handovers)
            events += more + _changed_events(ch)
            changed += ch
            events.append(Eliminated(p, cause))
        # The mover's turn is over only when the mover is among those leaving; another player leaving
        # plays no turn, even when that ends the game.
        movers_turn_ends = self.current_player in beaten
        # On a resolved board, a pocket that is new now holds a cell an heir received: the leavers' cells only
        # became unoccupied, so anyone else's passable land only grew through cells that were occupied by a
        # leaver, and a component of theirs that grew that way touched the leaver's occupied cells before,
        # so it was a pocket then already.
        heirs = {p: np.concatenate(cells, axis=1) for p, cells in received.items()}
        events += self._resolve(changed, turn_played=movers_turn_ends, heirs=heirs)
        if self.end is None and movers_turn_ends:
            events += self._end_turn()
        return events

    def _resolve(
        self,
        changed: list[np.ndarray],
        turn_played: bool = True,
        occupied: list[tuple[Cell, int]] | None = None,
        heirs: dict[int, np.ndarray] | None = None,
        views: _Views | None = None,
    ) -> list[Event]:
        """Run the pipeline (§2.4) after the cells ``changed`` ((2, n) arrays of ys, xs) changed;
        ``occupied`` lists ``((x, y), previous owner)`` when the only change was occupying those cells,
        ``heirs`` the cells each heir received in a defeat, ``views`` the board's flat views when the action
        made them already (:class:`_Resolution`)."""
        res = _Resolution(
            self.board,
            self.current_player,
            self.tie_rule,
            list(changed),
            self._components,
            whole_board=self._whole_board,
            takeable=self.takeable,
            occupied=occupied,
            tracker=self._tracker,
            capitals_meet=self._capitals_meet,
            land_masses=self._land_masses,
            heirs=heirs,
            flat=views,
        )
        events: list[Event] = []
        for stage in self._stages:
            events += stage(res)
        self._whole_board = False
        self.takeable = res.takeable
        if any(isinstance(event, Reset) for event in events):
            self.resets.append(self.turns + 1)
        if res.over is not None:
            # The turn that ended the game counts as played.
            if turn_played:
                self.turns += 1
            self.end = GameOver(res.over.winner, res.over.result, res.over.reason, self.turns)
            events[events.index(res.over)] = self.end
        return events

    def _land_end(self) -> GameOver:
        """§2.9 turn cap: the player owning the most land wins, a draw when several own the most."""
        land = sorted(self.land_counts().items(), key=lambda pc: (-pc[1], pc[0]))
        counts = tuple(c for _, c in land)
        if len(counts) > 1 and counts[0] == counts[1]:
            return GameOver(None, "draw", "land", self.turns, counts)
        return GameOver(land[0][0], "land", "", self.turns, counts)

    def _end_turn(self) -> list[Event]:
        self.turns += 1
        self.attacks_left = ATTACKS_PER_TURN
        if self.max_turns is not None and self.turns >= self.max_turns:
            self.end = self._land_end()
            return [self.end]
        alive = self.board.alive_players()
        later = [p for p in alive if p > self.current_player]
        self.current_player = later[0] if later else alive[0]
        return [TurnPassed(self.current_player)]

    # ------------------------------------------------------------------------------------- whole actions

    def legal_actions(self) -> list[tuple[object, ...]]:
        """Whole actions for :meth:`apply`: ``("pass",)``, ``("attack", ((x, y),))`` per Attack cell, and
        before the first attack ``("defend", ((x, y),))`` and ``("guerilla", (x, y))`` per legal cell.
        :meth:`apply` also takes ``("attack", cells)`` with 0..6 cells and ``("defend", cells)`` with 1..3
        cells."""
        if self.end is not None:
            return []
        out: list[tuple[object, ...]] = [("pass",)]
        player = self.current_player
        ys, xs = np.nonzero(legal_mask(self.board, player, Action.ATTACK))
        out += [("attack", ((x, y),)) for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
        if not self.attacked:
            ys, xs = np.nonzero(legal_mask(self.board, player, Action.DEFEND))
            out += [("defend", ((x, y),)) for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
            ys, xs = np.nonzero(legal_mask(self.board, player, Action.GUERILLA))
            out += [("guerilla", (x, y)) for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
        return out

    def apply(self, action: tuple[Any, ...]) -> list[Event]:
        """Apply one whole action of :meth:`legal_actions` form. Raises IllegalAction."""
        if not isinstance(action, tuple) or not action:
            raise IllegalAction(f"unknown action {action!r}")
        verb = action[0]
        try:
            if verb == "pass" and len(action) == 1:
                return self.pass_turn()
            if verb == "attack" and len(action) == 2:
                return self.attack(list(action[1]))
            if verb == "defend" and len(action) == 2:
                return self.defend(list(action[1]))
            if verb == "guerilla" and len(action) == 2:
                return self.guerilla(tuple(action[1]))
        except (TypeError, ValueError) as error:
            if isinstance(error, IllegalAction):
                raise
            raise IllegalAction(f"malformed action {action!r}") from None
        raise IllegalAction(f"unknown action {action!r}")
