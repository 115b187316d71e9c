"""arena vision: which opponents each player sees (spec/arena.md §2.7).

All geometry is exact integer arithmetic on doubled coordinates: the eye of a player on cell (x, y) is
(2x+1, 2y+1), the corners of cell (x, y) are (2x, 2y) … (2x+2, 2y+2), cell (x, y) covers the open square
(2x, 2x+2) × (2y, 2y+2).

A line from the eye E to a corner C of the target cell counts when
(a) the angle between the facing vector f and v = C − E is at most 89.5°: dot(f, v) > 0 and
    |cross(f, v)| ≤ dot(f, v) · tan 89.5°, decided exactly with a table of ⌊d · tan 89.5°⌋ (tan 89.5° is
    irrational, so equality never happens);
(b) the open segment E→C crosses the open interior of no blocker cell, and passes through no grid point whose
    two cells on opposite sides of the line are both blockers.
Blockers are walls and cells holding a player other than the viewer and the target. A target is visible if any
of its four corner lines counts. Team-mates are not the business of this module (they are always reported).

:func:`visibility` is vectorised with numpy (every segment of every viewer in one pass, walking the
segment's columns of its major axis, at most two cells per column); :func:`visible_plain` is a plain
reference that tests every cell and grid point in each segment's bounding box with
:class:`fractions.Fraction`.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import numpy as np

from arena.rules import DIRECTIONS, RED, VECTORS, Arena, Player

_FACING = {facing: k for k, facing in enumerate(DIRECTIONS)}
_FACING_XY = np.array([VECTORS[facing] for facing in DIRECTIONS], dtype=np.int64).T  # (2, 8): (fx, fy)


@lru_cache(maxsize=1)
def tan_cone() -> Decimal:
    """tan 89.5° = cot 0.5° to 60 significant digits (the 179° cone of §2.7)."""
    with localcontext() as ctx:
        ctx.prec = 70

        def atan_inv(n: int) -> Decimal:
            x = Decimal(1) / n
            total, term, k, sign = Decimal(0), x, 1, 1
            x2 = x * x
            while term > Decimal(10) ** -68:
                total += sign * term / k
                term *= x2
                k += 2
                sign = -sign
            return total

        pi = 16 * atan_inv(5) - 4 * atan_inv(239)
        angle = pi / 360
        sin = cos = Decimal(0)
        term, n = Decimal(1), 0
        while abs(term) > Decimal(10) ** -68 or n < 4:
            if n % 2 == 0:
                cos += term if n % 4 == 0 else -term
            else:
                sin += term if n % 4 == 1 else -term
            n += 1
            term = term * angle / n
        result = cos / sin
    with localcontext() as ctx:
        ctx.prec = 60
        return +result


@lru_cache(maxsize=8)
def _cross_bound(size: int) -> np.ndarray:
    """``table[d]`` = ⌊d · tan 89.5°⌋ for d = 0 … size-1 (int64): |cross| ≤ table[dot] is the cone test."""
    t = tan_cone()
    with localcontext() as ctx:
        ctx.prec = 80
        values = [int((d * t).to_integral_value(rounding=ROUND_FLOOR)) for d in range(size)]
    return np.array(values, dtype=np.int64)


def _bound_for(max_dot: int) -> np.ndarray:
    size = 64
    while size <= max_dot:
        size *= 2
    return _cross_bound(size)


def in_cone(facing: str, vx: int, vy: int) -> bool:
    """Whether the vector (vx, vy) lies within 89.5° of ``facing`` (exact)."""
    fx, fy = VECTORS[facing]
    dot = fx * vx + fy * vy
    cross = fx * vy - fy * vx
    return dot > 0 and abs(cross) <= int(_bound_for(dot)[dot])


class _Board:
    """What vision needs of one map, made once and kept with the arena (:meth:`Arena.derived`).

    ``side``: Q = max(W, H) + 2. ``grids``: the walls eight times, flat: one ``Q×Q`` grid per octant (the map
    at (1, 1), free cells around), laid out so that a segment of that octant is walked with both its
    coordinates growing. Grid ``v = 4·ymajor + 2·flip_x + flip_y`` starts at ``v·Q²`` and holds cell
    (major i, minor j) at ``v·Q² + i·Q + j``; the major axis is y for ``ymajor`` (else x), and a flipped axis
    counts from the far side; :func:`visibility` marks the players' cells for the length of one call.
    ``place``: shape (8, H·W), where map cell (x, y) lies in each octant's grid (column ``y·W + x``).
    ``bound``: the cone table of :func:`_bound_for`, long enough for every dot product on the map.
    """

    def __init__(self, arena: Arena) -> None:
        width, height = arena.width, arena.height
        self.side = side = max(width, height) + 2
        square = np.zeros((side, side), dtype=bool)  # [y, x]
        square[1:height + 1, 1:width + 1] = arena.walls
        grids: list[np.ndarray] = []
        places: list[np.ndarray] = []
        ys, xs = np.divmod(np.arange(width * height, dtype=np.int64), width)
        for by_major, x_axis in ((square.T, 0), (square, 1)):
            x_unit, y_unit = (side, 1) if x_axis == 0 else (1, side)
            for flip_x in (False, True):
                for flip_y in (False, True):
                    grid = np.flip(by_major, x_axis) if flip_x else by_major
                    grid = np.flip(grid, 1 - x_axis) if flip_y else grid
                    grids.append(grid.ravel())
                    column = side - 2 - xs if flip_x else xs + 1
                    row = side - 2 - ys if flip_y else ys + 1
                    places.append(len(places) * side * side + column * x_unit + row * y_unit)
        self.grids = np.concatenate(grids)
        self.place = np.array(places)
        self.bound = _bound_for(4 * side)  # |dot| ≤ |vx| + |vy| < 4·side


@lru_cache(maxsize=32)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int], list[int]]:
    """Every ordered pair (viewer, target) of n players, four times each (once per corner of the target's
    cell): (viewer indices, target indices, (2, 4·n·(n−1)) offsets eye → corner in doubled units, and the
    pairs' viewer and target indices once each as lists)."""
    viewer, target = np.nonzero(~np.eye(n, dtype=bool))
    offsets = np.tile(np.array([[-1, 1, -1, 1], [-1, -1, 1, 1]], dtype=np.int64), len(viewer))
    return np.repeat(viewer, 4), np.repeat(target, 4), offsets, viewer.tolist(), target.tolist()


class _Rays:
    """The cells that segments cross, per shape, relative to the eye: a table shared by every map of one
    ``side`` Q up to :data:`_TABLE_SIDE` (their octant grids have rows of Q cells).

    A segment walked in its octant (both coordinates growing from the eye, :class:`_Board`) is, in doubled
    units, ``(big, small)`` with both odd and ``3 ≤ big``, ``small ≤ big``; its shape's key is
    ``c · width + h`` with ``c = (big − 1) / 2`` the columns it crosses after the eye's and
    ``h = (small − 1) / 2`` the row of its last cell. The eye is always at its cell's centre, so the cells a
    shape crosses lie at fixed offsets ``i · Q + j`` (column i after the eye's, row j) from the eye's cell.
    On column i's left edge the (doubled) minor coordinate is ``N / big`` with ``N = big + (2i − 1) · small``:
    the segment crosses, in column i, the open interiors of the rows from ⌊N / 2big⌋ to ⌈N' / 2big⌉ − 1
    (N' on its right edge: one or two rows, since the slope is at most 1), and passes through the grid point
    on its left edge exactly when N is a multiple of 2big: then the two cells at that point off the line,
    which it only touches, block together. The last column holds one cell, row h, beside the corner.

    Each shape's entries, from ``start[key]``, ``count[key]`` of them: first its last cell, then the other
    cells it crosses, then its grid points as the pairs of cells off the line; an entry blocks when both of
    its cells ``a`` and ``b`` do (a crossed cell is both); offsets are below Q², 16 bits. ``last[key]`` is the
    last cell's offset.
    """

    def __init__(self, side: int) -> None:
        if side * side > np.iinfo(np.int16).max:
            raise ValueError(f"a ray table's offsets for side {side} do not fit in 16 bits")
        self.width = width = max(side - 3, 1) + 1  # c ≤ Q − 3: a map's cells are at most Q − 3 apart
        c, h = np.divmod(np.arange(width * width, dtype=np.int64), width)
        self.last = c * side + h
        keys = np.flatnonzero((c >= 1) & (h <= c))
        c, h = c.take(keys), h.take(keys)
        column_key = np.repeat(keys, c)  # every checked column of every shape
        i = np.arange(len(column_key)) - np.repeat(np.add.accumulate(c) - c, c) + 1
        big = 2 * (column_key // width) + 1
        small = 2 * (column_key % width) + 1
        n = big + (2 * i - 1) * small
        low = n // (2 * big)
        exact = n % (2 * big) == 0
        inner = i < (big >> 1)  # the last column holds only the last cell
        high = np.empty_like(low)
        high[:-1] = low[1:] - exact[1:]  # the next column's first row, one less at a grid point
        two = inner & (high > low)
        entry_key = np.concatenate([keys, column_key[inner], column_key[two], column_key[exact]])
        crossed = [c * side + h, (i * side + low)[inner], (i * side + high)[two]]
        order = np.argsort(entry_key, kind="stable")  # the last cell first in each shape's entries
        self.a = np.concatenate([*crossed, (i * side + low - 1)[exact]]).astype(np.int16).take(order)
        self.b = np.concatenate([*crossed, ((i - 1) * side + low)[exact]]).astype(np.int16).take(order)
        self.count = np.bincount(entry_key, minlength=width * width)
        self.start = np.add.accumulate(self.count) - self.count


_TABLE_SIDE = 64
"""Maps up to this side Q (every shipped map but metropolis) look their segments up in a ray table
(:class:`_Rays`: at most about 120 000 entries, 0.6 MB, made in about 10 ms once per process); bigger maps
walk their segments column by column, which costs less there than a table's memory."""


@lru_cache(maxsize=4)
def _rays(side: int) -> _Rays:
    return _Rays(side)


def _blocked_by_table(grids: np.ndarray, rays: _Rays, eye_cell: np.ndarray, target_cell: np.ndarray,
                      length: np.ndarray) -> np.ndarray:
    """True where the open segment from a viewer's eye to a corner of its target is blocked (§2.7 b), the
    segments looked up in the ray table (:class:`_Rays`); the arguments as for :func:`_blocked_by_columns`.

    All segments' entries one after the other; the last cell does not block when it is the target's (the
    corner farthest from the eye)."""
    key = (np.maximum(length[0], length[1]) >> 1) * rays.width + (np.minimum(length[0], length[1]) >> 1)
    count = rays.count.take(key)
    ends = np.add.accumulate(count)
    first = ends - count
    at = np.arange(int(ends[-1])) + np.repeat(rays.start.take(key) - first, count)
    eye = np.repeat(eye_cell, count)
    a = eye + rays.a.take(at)
    b = eye + rays.b.take(at)
    # the target's cell as a segment's last one: looked up where no cell is ever set instead (the last
    # cell of the grids, a corner of the free ring around the map)
    a[first[(target_cell - eye_cell) == rays.last.take(key)]] = len(grids) - 1
    return np.logical_or.reduceat(grids.take(a) & grids.take(b), first)


def _blocked_by_columns(grids: np.ndarray, side: int, eye_cell: np.ndarray, target_cell: np.ndarray,
                      length: np.ndarray) -> np.ndarray:
    """True where the open segment from a viewer's eye to a corner of its target is blocked (§2.7 b), the
    segments walked column by column (maps over :data:`_TABLE_SIDE`; smaller ones: :func:`_blocked_by_table`).

    Each segment runs in one octant (:class:`_Board` grids, with the players' cells set), where both its
    coordinates grow from the eye: ``eye_cell`` and ``target_cell`` are the flat indices of the viewer's and
    the target's cells in that octant's grid, ``length`` = (|Δx|, |Δy|) in doubled units, shape (2, S),
    at least 3 along the major axis (the segment leaves the eye's column).

    With ``big`` the major extent and ``small`` ≤ ``big`` the minor one, the segment is walked one column
    (two doubled units of the major axis) at a time. The eye's column holds only the viewer's cell and is
    skipped; the ``(big − 1) / 2`` columns after it are checked. On a column's left edge the (doubled)
    minor coordinate is ``N / big`` with N an integer: the segment
    crosses, in the column, the open interiors of the rows from ⌊N / 2big⌋ to ⌈N' / 2big⌉ − 1 (N' on its
    right edge: one or two rows, since the slope is at most 1), and passes through the grid point on its
    left edge exactly when N is a multiple of 2big: then the two cells at that point off the line, which it
    only touches, block together. Each column's first crossed cell comes from one float64 division,
    ⌊(2big · c + N) / 2big⌋ with c the grid index of the column's row 0: integers below 2^52,
    so a multiple divides to an exact integer and any other quotient stays at least 1/2big away from one,
    far more than its rounding error; truncation is the floor. The last column ends at the corner and holds
    one cell: when that is the target's (the corner farthest from the eye), it does not block.
    """
    columns = np.maximum(length[0], length[1]) >> 1
    small = np.minimum(length[0], length[1])
    ends = np.add.accumulate(columns)
    total = int(ends[-1])
    ends -= 1
    starts = ends + 1 - columns
    big = columns * 2.0 + 1  # odd: from the eye's centre to a corner
    den = 2 * big
    stride = side * den + 2.0 * small
    # 2big · c + N on every checked column's left edge, all segments one after the other, and one column
    # more after the last segment's (its value is never used: it makes `high` a view)
    base = (eye_cell + side) * den + big + small - starts * stride
    spare = columns.copy()
    spare[-1] += 1
    at_edge = ((np.repeat(base, spare) + np.repeat(stride, spare) * np.arange(total + 1.0))
               / np.repeat(den, spare))
    low = at_edge.astype(np.intp)
    exact = low == at_edge
    # a column's last crossed cell: in the next column's first row, one row less where the line meets the
    # next column at a grid point; the last column holds only the cell beside the corner
    high = low - exact
    high -= side
    high = high[1:]
    last = eye_cell + columns * side + (small - 1) // 2
    high[ends] = last
    low = low[:total]
    bad = grids.take(low) | grids.take(high)
    bad[ends[last == target_cell]] = False
    # grid points on the line: the cells off it are one row and one column back
    on = exact[:total].nonzero()[0]
    if len(on):
        cell = low.take(on)
        bad[on] |= grids.take(cell - 1) & grids.take(cell - side)
    return np.logical_or.reduceat(bad, starts)


def visibility(arena: Arena, players: list[Player], viewers: list[int] | None = None) -> dict[int, set[int]]:
    """For every player id, the set of opponent ids (other team) it sees (§2.7); vectorised.

    ``players``: the game's players (ids: any distinct non-negative ints). ``viewers``: restrict the work
    to these ids (None = all). Returns {viewer id: set of seen opponent ids} for every player.
    """
    result: dict[int, set[int]] = {p.id: set() for p in players}
    reds = [p.team == RED for p in players]
    if all(reds) or not any(reds):
        return result
    n = len(players)
    board = arena.derived(_Board)
    table = np.array([[p.x for p in players], [p.y for p in players], [_FACING[p.facing] for p in players],
                      reds], dtype=np.int64)
    cells = table[:2]
    vi, ti, offsets, pair_viewer, pair_target = _pairs(n)
    opposed = table[3].take(vi) != table[3].take(ti)
    if viewers is not None:
        wanted = set(viewers)
        opposed &= np.array([p.id in wanted for p in players]).take(vi)
    # every (viewer, target) pair four times, once per corner of the target's cell; doubled coordinates
    v = cells.take(ti, axis=1)
    v -= cells.take(vi, axis=1)
    v *= 2
    v += offsets  # eye -> corner
    f = _FACING_XY.take(table[2].take(vi), axis=1)
    dot = f[0] * v[0] + f[1] * v[1]
    cross = f[0] * v[1] - f[1] * v[0]
    # where dot ≤ 0 the index counts from the table's end: those corners fail `dot > 0` anyway
    counts = opposed & (dot > 0) & (np.abs(cross) <= board.bound.take(dot))
    length = np.abs(v)
    # both lengths odd: at most one doubled unit along both axes, the line stays in the viewer's cell
    walk = (counts & (length[0] + length[1] > 2)).nonzero()[0]
    if len(walk):
        grids = board.grids
        length = length.take(walk, axis=1)
        flip = v.take(walk, axis=1) < 0
        octant = (length[1] > length[0]) * (4 * n) + flip[0] * (2 * n) + flip[1] * n
        # (octant, player) -> the player's cell in that octant's grid
        marks = board.place.take(cells[1] * arena.width + cells[0], axis=1).ravel()
        grids[marks] = True
        try:
            eye, target = marks.take(octant + vi.take(walk)), marks.take(octant + ti.take(walk))
            if board.side <= _TABLE_SIDE:
                blocked = _blocked_by_table(grids, _rays(board.side), eye, target, length)
            else:
                blocked = _blocked_by_columns(grids, board.side, eye, target, length)
            counts[walk] = ~blocked
        finally:
            grids[marks] = False
    ids = [p.id for p in players]
    for k in set((counts.nonzero()[0] >> 2).tolist()):
        result[ids[pair_viewer[k]]].add(ids[pair_target[k]])
    return result


def visible(arena: Arena, players: list[Player], viewer: int) -> set[int]:
    """The ids of the opponents that player ``viewer`` sees (§2.7)."""
    return visibility(arena, players, [viewer])[viewer]


# ------------------------------------------------------------------ reference
def _blocker_plain(arena: Arena, occupied: dict[tuple[int, int], int], x: int, y: int,
                   skip: set[int]) -> bool:
    if not arena.exists(x, y):
        return False
    if arena.walls[y, x]:
        return True
    pid = occupied.get((x, y))
    return pid is not None and pid not in skip


def _line_counts_plain(arena: Arena, occupied: dict[tuple[int, int], int], skip: set[int],
                       ex: int, ey: int, cx: int, cy: int) -> bool:
    """Rule (b) for one segment in doubled coordinates, by brute force over its bounding box."""
    a, b = cx - ex, cy - ey
    for gy in range(min(ey, cy) // 2 - 1, max(ey, cy) // 2 + 2):
        for gx in range(min(ex, cx) // 2 - 1, max(ex, cx) // 2 + 2):
            if not _blocker_plain(arena, occupied, gx, gy, skip):
                continue
            lo, hi = Fraction(0), Fraction(1)
            for e, d, c0 in ((ex, a, 2 * gx), (ey, b, 2 * gy)):
                t1, t2 = Fraction(c0 - e, d), Fraction(c0 + 2 - e, d)
                lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
            if lo < hi:
                return False
    sx, sy = (1 if a > 0 else -1), (1 if b > 0 else -1)
    for gy in range(min(ey, cy) // 2, max(ey, cy) // 2 + 2):
        for gx in range(min(ex, cx) // 2, max(ex, cx) // 2 + 2):
            dx, dy = 2 * gx - ex, 2 * gy - ey
            if a * dy - b * dx != 0 or not 0 < a * dx + b * dy < a * a + b * b:
                continue
            sides = [(qx, qy) for qx, qy in ((sx, -sy), (-sx, sy))]
            cells = [(gx if qx > 0 else gx - 1, gy if qy > 0 else gy - 1) for qx, qy in sides]
            if all(_blocker_plain(arena, occupied, x, y, skip) for x, y in cells):
                return False
    return True


def visible_plain(arena: Arena, players: list[Player], viewer: int) -> set[int]:
    """Reference for :func:`visible`: the same rule, one corner line at a time, with exact fractions."""
    me = next(p for p in players if p.id == viewer)
    occupied = {(p.x, p.y): p.id for p in players}
    t = tan_cone()
    fx, fy = VECTORS[me.facing]
    ex, ey = 2 * me.x + 1, 2 * me.y + 1
    seen: set[int] = set()
    for other in players:
        if other.team == me.team:
            continue
        for cx, cy in ((2 * other.x + dx, 2 * other.y + dy) for dy in (0, 2) for dx in (0, 2)):
            vx, vy = cx - ex, cy - ey
            dot, cross = fx * vx + fy * vy, fx * vy - fy * vx
            if dot <= 0 or abs(cross) > dot * t:
                continue
            if _line_counts_plain(arena, occupied, {me.id, other.id}, ex, ey, cx, cy):
                seen.add(other.id)
                break
    return seen
