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

from arena.rules import VECTORS, Arena, Player

_WALL = -1
_FREE = -2


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


def _octant_grids(arena: Arena) -> np.ndarray:
    """The walls eight times, flat: one ``Q×Q`` grid per octant (Q = max(W, H) + 2: the map at (1, 1), free
    cells around), laid out so that a segment of that octant is walked with both its coordinates growing.
    Grid ``v = 4·ymajor + 2·flip_x + flip_y`` starts at ``v·Q²`` and holds cell (major i, minor j) at
    ``v·Q² + i·Q + j``; the major axis is y for ``ymajor`` (else x), and a flipped axis counts from the far
    side. :func:`_octant_layout` places map cells in it. Cached on the arena; :func:`visibility` marks the
    players' cells for the length of one call."""
    cached: np.ndarray | None = getattr(arena, "_vision_octants", None)
    if cached is None:
        side = max(arena.width, arena.height) + 2
        square = np.zeros((side, side), dtype=bool)  # [y, x]
        square[1:arena.height + 1, 1:arena.width + 1] = arena.walls
        grids = []
        for by_major, x_axis in ((square.T, 0), (square, 1)):
            for flip_x in (False, True):
                for flip_y in (False, True):
                    grid = np.flip(by_major, x_axis) if flip_x else by_major
                    grid = np.flip(grid, 1 - x_axis) if flip_y else grid
                    grids.append(grid.ravel())
        cached = np.concatenate(grids)
        arena._vision_octants = cached  # type: ignore[attr-defined]
    return cached


@lru_cache(maxsize=8)
def _octant_layout(side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base, per_x, per_y), each of shape (8, 1): map cell (x, y) lies at ``base + per_x·x + per_y·y`` in the
    eight :func:`_octant_grids` of a ``side × side`` square."""
    rows = []
    for ymajor in (False, True):
        x_unit, y_unit = (1, side) if ymajor else (side, 1)
        for flip_x in (False, True):
            for flip_y in (False, True):
                x0, dx = (side - 2, -1) if flip_x else (1, 1)
                y0, dy = (side - 2, -1) if flip_y else (1, 1)
                variant = 4 * ymajor + 2 * flip_x + flip_y
                rows.append((variant * side * side + x0 * x_unit + y0 * y_unit, dx * x_unit, dy * y_unit))
    base, per_x, per_y = np.array(rows, dtype=np.int64).T[:, :, None]
    return base, per_x, per_y


def _segments_blocked(grids: np.ndarray, side: int, eye_cell: np.ndarray, target_cell: np.ndarray,
                      length: np.ndarray) -> np.ndarray:
    """True where the open segment from a viewer's eye to a corner of its target is blocked (§2.7 b).

    Each segment runs in one octant (:func:`_octant_grids`, with the players' cells set), where both its
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
    big = np.maximum(length[0], length[1])
    small = np.minimum(length[0], length[1])
    columns = big >> 1
    ends = np.cumsum(columns) - 1
    starts = ends + 1 - columns
    den = 2 * big
    stride = side * den + 2 * small
    # 2big · c + N on every checked column's left edge, all segments one after the other
    base = (eye_cell + side) * den + big + small - starts * stride
    numerator = (np.repeat(base.astype(np.float64), columns)
                 + np.repeat(stride.astype(np.float64), columns)
                 * np.arange(int(ends[-1]) + 1, dtype=np.float64))
    at_edge = numerator / np.repeat(den.astype(np.float64), columns)
    low = at_edge.astype(np.intp)
    exact = low == at_edge
    # a column's last crossed cell: in the next column's first row, one row less where the line meets the
    # next column at a grid point; the last column holds only the cell beside the corner
    last = eye_cell + columns * side + (small - 1) // 2
    high = np.empty_like(low)
    high[:-1] = low[1:] - side - exact[1:]
    high[ends] = last
    bad = grids[low] | grids[high]
    bad[ends[last == target_cell]] = False
    on = np.nonzero(exact)[0]  # grid points on the line: the cells off it are one row and one column back
    if len(on):
        cell = low[on]
        bad[on] |= grids[cell - 1] & grids[cell - side]
    return np.logical_or.reduceat(bad, starts)


def visibility(arena: Arena, players: list[Player], viewers: list[int] | None = None) -> dict[int, set[int]]:
    """For every player id, the set of opponent ids (other team) it sees (§2.7); vectorised.

    ``players``: the game's players (ids: any distinct non-negative ints). ``viewers``: restrict the work
    to these ids (None = all). Returns {viewer id: set of seen opponent ids} for every player.
    """
    result: dict[int, set[int]] = {p.id: set() for p in players}
    if len(players) < 2:
        return result
    ids = [p.id for p in players]
    table = np.array([(p.x, p.y, *VECTORS[p.facing], p.team == "RED") for p in players], dtype=np.int64).T
    cells, facings, red = table[:2], table[2:4], table[4]
    pairs = red[:, None] != red[None, :]
    if viewers is not None:
        pairs &= np.isin(np.array(ids), np.array(list(viewers), dtype=np.int64))[:, None]
    vi, ti = np.nonzero(pairs)
    if len(vi) == 0:
        return result
    # every (viewer, target) pair four times, once per corner of the target's cell; doubled coordinates
    vi = np.repeat(vi, 4)
    ti = np.repeat(ti, 4)
    v = 2 * (cells.take(ti, axis=1) - cells.take(vi, axis=1)) + _CORNERS[:, : len(vi)] - 1  # eye -> corner
    f = facings.take(vi, axis=1)
    dot = f[0] * v[0] + f[1] * v[1]
    cross = f[0] * v[1] - f[1] * v[0]
    side = max(arena.width, arena.height) + 2
    bound = _bound_for(4 * side)  # |dot| ≤ |vx| + |vy| < 4·side
    # where dot ≤ 0 the index counts from the table's end: those corners fail `dot > 0` anyway
    cone = (dot > 0) & (np.abs(cross) <= bound[dot])
    length = np.abs(v)
    # both lengths odd: at most one doubled unit along both axes, the line stays in the viewer's cell
    walked = cone & (length[0] + length[1] > 2)
    counts = cone ^ walked
    walk = np.nonzero(walked)[0]
    if len(walk):
        grids = _octant_grids(arena)
        base, per_x, per_y = _octant_layout(side)
        marks = (base + per_x * cells[0] + per_y * cells[1]).ravel()  # (octant, player) -> flat index
        length = length[:, walk]
        flip = v[:, walk] < 0
        octant = (4 * (length[1] > length[0]) + 2 * flip[0] + flip[1]) * len(players)
        grids[marks] = True
        try:
            counts[walk] = ~_segments_blocked(grids, side, marks[octant + vi[walk]], marks[octant + ti[walk]],
                                              length)
        finally:
            grids[marks] = False
    for a_, b_ in set(zip(vi[counts].tolist(), ti[counts].tolist(), strict=True)):
        result[ids[a_]].add(ids[b_])
    return result


_CORNERS = np.tile(np.array([[0, 2, 0, 2], [0, 0, 2, 2]], dtype=np.int64), 16 * 16)


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
