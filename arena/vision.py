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


def _code_grid(arena: Arena, players: list[Player]) -> np.ndarray:
    """``(H+2, W+2)`` int32 padded with free cells: -1 wall, player id on a player's cell, -2 free."""
    code = np.full((arena.height + 2, arena.width + 2), _FREE, dtype=np.int32)
    code[1:-1, 1:-1][arena.walls] = _WALL
    for p in players:
        code[p.y + 1, p.x + 1] = p.id
    return code


def _blocks(codes: np.ndarray, viewer: np.ndarray, target: np.ndarray) -> np.ndarray:
    return (codes == _WALL) | ((codes >= 0) & (codes != viewer) & (codes != target))


def _blocked_major(code: np.ndarray, px, py, qx, qy, viewer, target) -> np.ndarray:
    """For segments with |qx - px| ≥ |qy - py| > 0 (doubled coordinates, ``code`` padded and indexed
    [y+1, x+1]): True where the open segment is blocked (§2.7 b)."""
    swap = qx < px
    px, qx = np.where(swap, qx, px), np.where(swap, px, qx)
    py, qy = np.where(swap, qy, py), np.where(swap, py, qy)
    a = qx - px
    b = qy - py
    i0 = px // 2
    n = (qx + 1) // 2 - i0
    seg = np.repeat(np.arange(len(px)), n)
    starts = np.cumsum(n) - n
    j = np.arange(int(n.sum())) - np.repeat(starts, n)
    i = i0[seg] + j
    pxs, pys, as_, bs = px[seg], py[seg], a[seg], b[seg]
    two_a = 2 * as_
    xa = np.maximum(pxs, 2 * i)
    xb = np.minimum(qx[seg], 2 * i + 2)
    na = pys * as_ + bs * (xa - pxs)
    nb = pys * as_ + bs * (xb - pxs)
    lo = np.minimum(na, nb)
    hi = np.maximum(na, nb)
    r_lo = lo // two_a
    r_hi = -((-hi) // two_a) - 1
    v, t = viewer[seg], target[seg]
    bad = _blocks(code[r_lo + 1, i + 1], v, t) | _blocks(code[r_hi + 1, i + 1], v, t)
    # grid points on the vertical line x = 2i (the strip's left edge, strictly inside the segment)
    nk = pys * as_ + bs * (2 * i - pxs)
    on = (j >= 1) & (nk % two_a == 0)
    if on.any():
        m = nk // two_a
        down = bs > 0
        s1x = np.where(down, i, i - 1)
        s1y = m - 1
        s2x = np.where(down, i - 1, i)
        s2y = m
        crack = _blocks(code[s1y + 1, s1x + 1], v, t) & _blocks(code[s2y + 1, s2x + 1], v, t)
        bad |= on & crack
    return np.bincount(seg, weights=bad, minlength=len(px)) > 0


def _segments_blocked(code: np.ndarray, ex, ey, cx, cy, viewer, target) -> np.ndarray:
    a = np.abs(cx - ex)
    b = np.abs(cy - ey)
    xmajor = a >= b
    out = np.zeros(len(ex), dtype=bool)
    if xmajor.any():
        s = xmajor
        out[s] = _blocked_major(code, ex[s], ey[s], cx[s], cy[s], viewer[s], target[s])
    if (~xmajor).any():
        s = ~xmajor
        out[s] = _blocked_major(code.T, ey[s], ex[s], cy[s], cx[s], viewer[s], target[s])
    return out


def visibility(arena: Arena, players: list[Player], viewers: list[int] | None = None) -> dict[int, set[int]]:
    """For every player id, the set of opponent ids (other team) it sees (§2.7); vectorised.

    ``players``: the game's players (ids: any distinct non-negative ints). ``viewers``: restrict the work
    to these ids (None = all). Returns {viewer id: set of seen opponent ids} for every player.
    """
    result: dict[int, set[int]] = {p.id: set() for p in players}
    if len(players) < 2:
        return result
    n = len(players)
    ids = np.array([p.id for p in players], dtype=np.int64)
    xs = np.array([p.x for p in players], dtype=np.int64)
    ys = np.array([p.y for p in players], dtype=np.int64)
    fx = np.array([VECTORS[p.facing][0] for p in players], dtype=np.int64)
    fy = np.array([VECTORS[p.facing][1] for p in players], dtype=np.int64)
    red = np.array([p.team == "RED" for p in players])
    pairs = red[:, None] != red[None, :]
    if viewers is not None:
        pairs &= np.isin(ids, np.array(list(viewers), dtype=np.int64))[:, None]
    vi, ti = np.nonzero(pairs)
    if len(vi) == 0:
        return result
    vi = np.repeat(vi, 4)
    ti = np.repeat(ti, 4)
    corner = np.tile(np.arange(4), len(vi) // 4)
    ex = 2 * xs[vi] + 1
    ey = 2 * ys[vi] + 1
    cx = 2 * xs[ti] + 2 * (corner & 1)
    cy = 2 * ys[ti] + 2 * (corner >> 1)
    vx, vy = cx - ex, cy - ey
    dot = fx[vi] * vx + fy[vi] * vy
    cross = fx[vi] * vy - fy[vi] * vx
    bound = _bound_for(int(dot.max(initial=0)))
    cone = (dot > 0) & (np.abs(cross) <= bound[np.maximum(dot, 0)])
    vi, ti, ex, ey, cx, cy = vi[cone], ti[cone], ex[cone], ey[cone], cx[cone], cy[cone]
    if len(vi):
        code = _code_grid(arena, players)
        clear = ~_segments_blocked(code, ex, ey, cx, cy, ids[vi], ids[ti])
        seen = np.zeros((n, n), dtype=bool)
        seen[vi[clear], ti[clear]] = True
        for a_, b_ in zip(*np.nonzero(seen), strict=True):
            result[int(ids[a_])].add(int(ids[b_]))
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
