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


def _wall_grids(arena: Arena) -> np.ndarray:
    """The walls twice, flat: a ``Q×Q`` grid (Q = max(W, H) + 2, the map at (1, 1), free cells around) in
    row-major order, then the same grid transposed. Cached on the arena."""
    cached: np.ndarray | None = getattr(arena, "_vision_walls", None)
    if cached is None:
        side = max(arena.width, arena.height) + 2
        square = np.zeros((side, side), dtype=bool)
        square[1:arena.height + 1, 1:arena.width + 1] = arena.walls
        cached = np.concatenate([square.ravel(), square.T.ravel()])
        arena._vision_walls = cached  # type: ignore[attr-defined]
    return cached


def _segments_blocked(grids: np.ndarray, side: int, ex: np.ndarray, ey: np.ndarray, cx: np.ndarray,
                      cy: np.ndarray, own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """True where the open segment E→C (doubled coordinates) is blocked (§2.7 b).

    ``grids``: :func:`_wall_grids` with the players' cells set, ``side`` = Q; ``own``/``other``: flat indices
    (in the row-major grid) of the viewer's and the target's cells, which never block.

    Every segment is walked along its major axis (x-major ones in the row-major grid, y-major ones in the
    transposed grid, so that the walk always runs along a row), one column (two doubled units) at a time,
    from the end with the smaller major coordinate. With ``N(u) = big · minor(u)`` (an integer on integer
    points u), the open segment crosses, in the column [2i, 2i+2], the interiors of the rows from
    ⌊min N / 2big⌋ to ⌈max N / 2big⌉ − 1 — at most two, since |minor slope| ≤ 1 — and passes exactly through
    a grid point on the column's left edge when N(2i) is a multiple of 2big. The quotients are float64
    divisions: numerators and denominators are far below 2^26, so an exact multiple divides to an exact
    integer and any other quotient stays at least 1/2big away from an integer, far more than the rounding
    error; they are never negative, so truncation is the floor. The viewer's cell can only be crossed in
    the walk's first or last column, and so can the target's: only those are checked against ``own`` and
    ``other``. The two cells beside a crack point are never the viewer's or the target's (the segment passes
    through both of those).
    """
    a = cx - ex
    b = cy - ey
    xmajor = np.abs(a) >= np.abs(b)
    p0 = np.where(xmajor, ex, ey)
    q0 = np.where(xmajor, ey, ex)
    big = np.where(xmajor, a, b)
    small = np.where(xmajor, b, a)
    back = big < 0
    p0 = np.where(back, p0 + big, p0)
    q0 = np.where(back, q0 + small, q0)
    big = np.abs(big)
    small = np.where(back, -small, small)
    first = p0 // 2
    n = (p0 + big + 1) // 2 - first
    starts = np.cumsum(n) - n
    ends = starts + n - 1
    step = 2 * small
    total = int(ends[-1]) + 1
    # 32-bit per-column arithmetic when no intermediate value can overflow it (every map up to ~2000 cells
    # wide with 16 players): half the memory traffic of the longest arrays
    small_ints = 4 * side * (total + side) < 2**31
    itype = np.int32 if small_ints else np.int64
    seg = np.repeat(np.arange(len(a), dtype=itype), n)
    ar = np.arange(total, dtype=itype)
    step_s = step.astype(itype)[seg]
    nl = (q0 * big + small * (2 * first - p0) - step * starts).astype(itype)[seg] + step_s * ar
    nr = nl + step_s
    nl[starts] = q0 * big
    nr[ends] = (q0 + small) * big
    den_s = (2 * big)[seg]
    dl = nl / den_s
    dr = nr / den_s
    r_lo = np.minimum(dl, dr).astype(itype)
    # own and other in the walk's grid: the transposed one for y-major segments
    offset = np.where(xmajor, 0, side * side)
    own_w = np.where(xmajor, own, offset + (own % side) * side + own // side)
    other_w = np.where(xmajor, other, offset + (other % side) * side + other // side)
    lo = (offset + side + first + 1 - starts).astype(itype)[seg] + ar + r_lo * side
    hi = lo + (np.maximum(dl, dr) > r_lo + 1) * side
    bad = grids[lo] | grids[hi]
    for at in (starts, ends):
        lo_e, hi_e = lo[at], hi[at]
        bad[at] = ((grids[lo_e] & (lo_e != own_w) & (lo_e != other_w))
                   | (grids[hi_e] & (hi_e != own_w) & (hi_e != other_w)))
    exact = dl == np.floor(dl)
    exact[starts] = False
    on = np.nonzero(exact)[0]
    if len(on):
        corner = lo[on] + (dl[on].astype(np.int64) - r_lo[on]) * side
        down = small[seg[on]] > 0
        s1 = corner - np.where(down, side, side + 1)
        s2 = corner - np.where(down, 1, 0)
        bad[on] |= grids[s1] & grids[s2]
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
    ex = 2 * xs[vi] + 1
    ey = 2 * ys[vi] + 1
    cx = 2 * xs[ti] + _CORNER_X[: len(vi)]
    cy = 2 * ys[ti] + _CORNER_Y[: len(vi)]
    vx, vy = cx - ex, cy - ey
    fxv, fyv = fx[vi], fy[vi]
    dot = fxv * vx + fyv * vy
    cross = fxv * vy - fyv * vx
    bound = _bound_for(int(dot.max()))
    cone = np.nonzero((dot > 0) & (np.abs(cross) <= bound[np.maximum(dot, 0)]))[0]
    if len(cone) == 0:
        return result
    vi, ti = vi[cone], ti[cone]
    side = max(arena.width, arena.height) + 2
    flat = (ys + 1) * side + xs + 1
    grids = _wall_grids(arena).copy()
    grids[flat] = True
    grids[side * side + (xs + 1) * side + ys + 1] = True
    clear = ~_segments_blocked(grids, side, ex[cone], ey[cone], cx[cone], cy[cone], flat[vi], flat[ti])
    for a_, b_ in set(zip(vi[clear].tolist(), ti[clear].tolist(), strict=True)):
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
