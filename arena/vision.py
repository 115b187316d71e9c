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
    """The walls eight times, flat, one ``Q×Q`` grid per octant (Q = max(W, H) + 2: the map at (1, 1) with
    free cells around), so that every segment is walked with its major coordinate and its minor coordinate
    both increasing. Grid ``v = 4·ymajor + 2·flip_major + flip_minor`` starts at ``v·Q²`` and holds cell
    (major i, minor j) at ``i·Q + j``, where the major axis is y for ``ymajor`` (else x) and a flipped
    axis counts from the far side (i → Q−1−i). Cached on the arena; :func:`visibility` marks the players'
    cells for the length of one call."""
    cached: np.ndarray | None = getattr(arena, "_vision_octants", None)
    if cached is None:
        side = max(arena.width, arena.height) + 2
        square = np.zeros((side, side), dtype=bool)
        square[1:arena.height + 1, 1:arena.width + 1] = arena.walls
        grids = []
        for by_major in (square.T, square):  # [major, minor]: x-major, then y-major
            for major in (by_major, by_major[::-1]):
                grids += [major.ravel(), major[:, ::-1].ravel()]
        cached = np.concatenate(grids)
        arena._vision_octants = cached  # type: ignore[attr-defined]
    return cached


@lru_cache(maxsize=8)
def _octant_layout(side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base, per_x, per_y), shape (8, 1) each: map cell (x, y) is at ``base + per_x·x + per_y·y`` in the
    eight :func:`_octant_grids` of a ``side × side`` square (x-major grids hold it at major x + 1, minor
    y + 1, a flipped axis counting from the far side)."""
    base, per_x, per_y = [], [], []
    for ymajor in (False, True):
        for flip_major in (False, True):
            for flip_minor in (False, True):
                # (offset, step) of the major and the minor index per unit of x and of y
                major = (side - 2, -1) if flip_major else (1, 1)
                minor = (side - 2, -1) if flip_minor else (1, 1)
                x_axis, y_axis = (minor, major) if ymajor else (major, minor)
                variant = 4 * ymajor + 2 * flip_major + flip_minor
                base.append(variant * side * side + major[0] * side + minor[0])
                per_x.append(x_axis[1] * (1 if ymajor else side))
                per_y.append(y_axis[1] * (side if ymajor else 1))
    return tuple(np.array(v, dtype=np.int64)[:, None] for v in (base, per_x, per_y))  # type: ignore[return-value]


def _segments_blocked(grids: np.ndarray, side: int, ex: np.ndarray, ey: np.ndarray, a: np.ndarray,
                      b: np.ndarray, far: np.ndarray) -> np.ndarray:
    """True where the open segment from the eye E = (ex, ey) to the corner C = E + (a, b) is blocked (§2.7 b).

    Doubled coordinates counted from the map's top-left corner; every segment reaches at least one column
    beyond the eye's (max(|a|, |b|) ≥ 3). ``grids``: :func:`_octant_grids` with the players' cells set.
    ``far``: C is the target cell's corner farthest from the eye along both axes, so that the segment ends
    inside the target's cell.

    Each segment is mirrored into the octant where both coordinates grow from E, the major one (the longer
    extent, ``big``) at least as fast as the minor one (``small``), and walked one column (two doubled units
    of the major axis) at a time. The eye's column holds only the viewer's cell and is skipped; the
    ``(big − 1) / 2`` columns after it are checked. On a column's left edge u the minor coordinate is
    ``N / big`` with N an integer: the segment crosses, in the column [u, u+2], the open interiors of the
    rows from ⌊N(u) / 2big⌋ to ⌈N(u+2) / 2big⌉ − 1 (one or two rows, since the slope is at most 1), and it
    passes through the grid point on the left edge exactly when N(u) is a multiple of 2big: then the cells
    below-right and above-left of that point, which the line only touches, block together. The walk
    computes the grid index of the column's first row directly, as ⌊(2big · (column's index) + N) / 2big⌋:
    a float64 division of integers below 2^52, so a multiple divides to an exact integer and any other
    quotient stays at least 1/2big away from one (far more than its rounding error); truncation is the floor.
    The last column ends at C and holds one cell, the target's exactly when ``far``: it does not block then.
    """
    ymajor = np.abs(b) > np.abs(a)
    big = np.where(ymajor, b, a)
    small = np.where(ymajor, a, b)
    flip_major = big < 0
    flip_minor = small < 0
    big = np.abs(big)
    small = np.abs(small)
    eye_major = np.where(ymajor, ey, ex) + 2  # + 2: the grids' border
    eye_minor = np.where(ymajor, ex, ey) + 2
    eye_major = np.where(flip_major, 2 * side - eye_major, eye_major)
    eye_minor = np.where(flip_minor, 2 * side - eye_minor, eye_minor)
    columns = big >> 1
    ends = np.cumsum(columns) - 1
    starts = ends + 1 - columns
    # grid index of each segment's first checked column, row 0; the index grows by `side` per column
    first = (4 * ymajor + 2 * flip_major + flip_minor) * side * side + (eye_major + 1) // 2 * side
    den = 2 * big
    minor_step = 2 * small
    # (den · index of the column's row 0 + N) at the left edge of every checked column, all segments in a row
    base = first * den + eye_minor * big + small - starts * (side * den + minor_step)
    numerator = (np.repeat(base.astype(np.float64), columns)
                 + np.repeat((side * den + minor_step).astype(np.float64), columns)
                 * np.arange(int(ends[-1]) + 1, dtype=np.float64))
    at_edge = numerator / np.repeat(den.astype(np.float64), columns)
    low = at_edge.astype(np.intp)
    exact = low == at_edge
    high = np.empty_like(low)
    high[:-1] = low[1:] - side - exact[1:]
    high[ends] = first + (columns - 1) * side + (eye_minor + small) // 2 - 1
    bad = grids[low] | grids[high]
    bad[ends[far]] = False
    on = np.nonzero(exact)[0]
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
    table = np.array([(p.x, p.y, *VECTORS[p.facing], p.team == "RED") for p in players], dtype=np.int64)
    xs, ys, fx, fy, red = table.T
    pairs = red[:, None] != red[None, :]
    if viewers is not None:
        pairs &= np.isin(np.array(ids), np.array(list(viewers), dtype=np.int64))[:, None]
    vi, ti = np.nonzero(pairs)
    if len(vi) == 0:
        return result
    vi = np.repeat(vi, 4)
    ti = np.repeat(ti, 4)
    corner_x = _CORNER_X[: len(vi)]
    corner_y = _CORNER_Y[: len(vi)]
    ex = 2 * xs[vi] + 1
    ey = 2 * ys[vi] + 1
    cx = 2 * xs[ti] + corner_x
    cy = 2 * ys[ti] + corner_y
    vx, vy = cx - ex, cy - ey
    fxv, fyv = fx[vi], fy[vi]
    dot = fxv * vx + fyv * vy
    cross = fxv * vy - fyv * vx
    bound = _bound_for(int(dot.max()))
    cone = (dot > 0) & (np.abs(cross) <= bound[np.maximum(dot, 0)])
    # a corner one doubled unit from the eye's column or row edge: the line stays in the viewer's cell
    near = (np.abs(vx) == 1) & (np.abs(vy) == 1)
    counts = cone & near
    walk = np.nonzero(cone & ~near)[0]
    if len(walk):
        side = max(arena.width, arena.height) + 2
        grids = _octant_grids(arena)
        base, per_x, per_y = _octant_layout(side)
        marks = (base + per_x * xs + per_y * ys).ravel()
        far = (corner_x[walk] == 2) == (vx[walk] > 0)
        far &= (corner_y[walk] == 2) == (vy[walk] > 0)
        grids[marks] = True
        try:
            counts[walk] = ~_segments_blocked(grids, side, ex[walk], ey[walk], vx[walk], vy[walk], far)
        finally:
            grids[marks] = False
    for a_, b_ in set(zip(vi[counts].tolist(), ti[counts].tolist(), strict=True)):
        result[ids[a_]].add(ids[b_])
    return result


_CORNER_X = np.tile(np.array([0, 2, 0, 2], dtype=np.int64), 16 * 16)
_CORNER_Y = np.tile(np.array([0, 0, 2, 2], dtype=np.int64), 16 * 16)


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
