"""Random motti maps: ``motti generate`` (spec/motti.md §4).

Capitals are placed at random at least ``distance_min`` apart; a cell is land when ``Σ 1/distance to each
capital − plasma + uniform[0, randomness] > threshold`` (a capital is always land), where the plasma cloud is
a diamond-square fractal rescaled to ``[plasma_min, plasma_max]``. On maps larger than GNU's 20x15 the terrain
scales with ``s = sqrt(W·H / 300)`` (§4.6): the capitals' term reaches further and the random term has a
coarser grain, so a 1000x1000 map has continents, coasts and lakes rather than speckle. Land belongs to the
nearest capital (Euclidean, ties to the lowest number); all land starts unoccupied. Islands stay, and when the
capitals lie on several land masses these are joined by straight lines of new land (§4.5), so every map is
drawn once and never fails where its capitals fit. All randomness comes from the ``random.Random`` passed in,
so a seed gives the same map. Everything is numpy over whole arrays: a 1000x1000 map takes a fraction of a
second."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage

from motti.mapfile import MAX_SIDE
from motti.rules import Board, nearest_capital

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

MAX_PLAYERS = 9
TRIES_PER_CAPITAL = 1000
RESTARTS = 100
#: §4.6: the capitals' term weighs ``max(1, s · (2/players) ** PLAYERS_EXPONENT)``: the sum over more capitals
#: than GNU's two would otherwise make a large map of many players all land.
PLAYERS_EXPONENT = 1.2


class GenerateError(ValueError):
    """Options that cannot give a map; the message says which and what to change."""


def place_capitals(
    width: int, height: int, players: int, distance_min: float, rng: random.Random
) -> list[tuple[int, int]]:
    """§4.1: uniform random cells, each at least ``distance_min`` (Euclidean) from those placed before; up to
    1000 tries per capital and 100 restarts. Raises :class:`GenerateError` if that fails."""
    diagonal = math.hypot(width - 1, height - 1)
    if distance_min <= diagonal and players <= width * height:
        for _ in range(RESTARTS):
            placed: list[tuple[int, int]] = []
            for _ in range(players):
                for _ in range(TRIES_PER_CAPITAL):
                    cell = (rng.randrange(width), rng.randrange(height))
                    if cell not in placed and all(math.dist(cell, other) >= distance_min for other in placed):
                        placed.append(cell)
                        break
                else:
                    break
            if len(placed) == players:
                return placed
    change = "enlarge the map with -w/-h"
    if players > width * height:
        raise GenerateError(f"cannot place {players} capitals on a {width}x{height} map: {change}")
    raise GenerateError(
        f"cannot place {players} capitals at least {distance_min:g} apart on a {width}x{height} map "
        f"(its longest distance is {diagonal:.2f}): lower -d/--distance-min or {change}"
    )


def plasma(width: int, height: int, granularity: float, low: float, high: float,
           rng: np.random.Generator, *, whole: bool = True) -> np.ndarray:
    """§4.2: diamond-square on a (2^k+1)² grid covering width x height, corners uniform in [0, 1],
    displacement uniform in ±amplitude starting at 1 and multiplied by ``2**-(1-granularity)`` per halving;
    rescaled linearly to [low, high] and cropped. Returns a (height, width) float64 array.

    With ``whole`` the whole grid is computed and its minimum and maximum are rescaled (GNU's maps, s = 1);
    without it (§4.6, s > 1) each halving computes only the grid points the map's cells depend on and the
    map's own minimum and maximum are rescaled, so a 1x2000 map does not compute a 2049x2049 grid. The same
    random numbers are drawn either way."""
    k = max(1, math.ceil(math.log2(max(width, height, 2) - 1)))
    n = 2**k + 1
    steps = [2**i for i in range(k, 0, -1)]
    # Rows and columns (from 0) each halving fills: the map's, plus what the finer halvings read.
    limits: dict[int, tuple[int, int]] = {}
    need_rows, need_cols = (n, n) if whole else (height, width)
    for step in reversed(steps):
        limits[step] = (min(n, need_rows), min(n, need_cols))
        need_rows, need_cols = need_rows + step, need_cols + step
    g = np.zeros((n, n))
    g[:: n - 1, :: n - 1] = rng.uniform(0.0, 1.0, (2, 2))
    amplitude = 1.0
    for step in steps:
        half = step // 2
        rows, cols = limits[step]
        count = (n - 1) // step
        # Diamond: the centres (the square step reads them up to half a step beyond its own limit).
        shift = rng.uniform(-amplitude, amplitude, (count, count))
        cr, cc = _points(half, min(n, rows + half), step), _points(half, min(n, cols + half), step)
        corner = [g[y : y + step * cr : step, x : x + step * cc : step]
                  for y, x in ((0, 0), (0, step), (step, 0), (step, step))]
        g[half : half + step * cr : step, half : half + step * cc : step] = (
            (corner[0] + corner[1] + corner[2] + corner[3]) / 4 + shift[:cr, :cc]
        )
        for r0, c0 in ((half, 0), (0, half)):
            shift = rng.uniform(-amplitude, amplitude, (_points(r0, n, step), _points(c0, n, step)))
            _square(g, r0, c0, step, _points(r0, rows, step), _points(c0, cols, step), shift)
        amplitude *= 2.0 ** -(1.0 - granularity)
    cloud = g if whole else g[:height, :width]
    lo, hi = cloud.min(), cloud.max()
    scaled = np.full_like(g, low) if hi == lo else low + (g - lo) * (high - low) / (hi - lo)
    return scaled[:height, :width]


def _points(first: int, stop: int, step: int) -> int:
    """How many of first, first + step, … lie below stop."""
    return max(0, -(-(stop - first) // step))


def _square(g: np.ndarray, r0: int, c0: int, step: int, rows: int, cols: int, shift: np.ndarray) -> None:
    """The square step of :func:`plasma` for the first ``rows`` x ``cols`` points ``g[r0::step, c0::step]``:
    the mean of the (up to four) grid points half a step away — above, below, left, right, summed in that
    order — plus ``shift``."""
    if not rows or not cols:
        return
    n, half = g.shape[0], step // 2
    total = np.zeros((rows, cols))
    count = np.zeros((rows, cols), dtype=np.int64)
    for dy, dx in ((-half, 0), (half, 0), (0, -half), (0, half)):
        # Points whose neighbour lies outside the grid (first or last row or column) have one fewer.
        i0 = 1 if r0 + dy < 0 else 0
        j0 = 1 if c0 + dx < 0 else 0
        i1 = rows - (1 if r0 + (rows - 1) * step + dy >= n else 0)
        j1 = cols - (1 if c0 + (cols - 1) * step + dx >= n else 0)
        if i1 <= i0 or j1 <= j0:
            continue
        y0, x0 = r0 + i0 * step + dy, c0 + j0 * step + dx
        total[i0:i1, j0:j1] += g[y0 : y0 + step * (i1 - i0) : step, x0 : x0 + step * (j1 - j0) : step]
        count[i0:i1, j0:j1] += 1
    g[r0 : r0 + step * rows : step, c0 : c0 + step * cols : step] = total / count + shift[:rows, :cols]


def generate(
    width: int = 20,
    height: int = 15,
    players: int = 2,
    rng: random.Random | None = None,
    *,
    distance_min: float = 8.0,
    granularity: float = 0.3,
    plasma_min: float = 0.0,
    plasma_max: float = 0.3,
    randomness: float = 0.2,
    threshold: float = 0.15,
) -> Board:
    """A random board (§4) of ``width`` x ``height`` cells (1..2000 each) for ``players`` (2..9) players.

    Every capital lies in one 8-connected land mass (joined by construction, §4.5, :func:`join_capitals`).

    Raises :class:`GenerateError` for options out of range (sizes, players, non-finite numbers, plasma-min
    above plasma-max) or capitals that cannot be placed (§4.1).
    """
    if width < 1 or height < 1:
        raise GenerateError(f"the map size must be at least 1x1, not {width}x{height}")
    if width > MAX_SIDE or height > MAX_SIDE:
        raise GenerateError(f"the map size must be at most {MAX_SIDE}x{MAX_SIDE}, not {width}x{height}")
    for option, value in (("--distance-min", distance_min), ("--granularity", granularity),
                          ("--plasma-min", plasma_min), ("--plasma-max", plasma_max),
                          ("--randomness", randomness), ("--threshold", threshold)):
        if not math.isfinite(value):
            raise GenerateError(f"{option} must be a finite number, not {value:g}")
    if not 2 <= players <= MAX_PLAYERS:
        raise GenerateError(f"players must be 2 to {MAX_PLAYERS}, not {players}")
    if distance_min < 0:
        raise GenerateError(f"--distance-min must not be negative, not {distance_min:g}")
    if not 0.0 <= granularity <= 1.0:
        raise GenerateError(f"--granularity must be between 0 and 1, not {granularity:g}")
    if plasma_min > plasma_max:
        raise GenerateError(f"--plasma-min ({plasma_min:g}) must not exceed --plasma-max ({plasma_max:g})")
    if randomness < 0:
        raise GenerateError(f"--randomness must not be negative, not {randomness:g}")
    rng = rng if rng is not None else random.Random()
    capitals = place_capitals(width, height, players, distance_min, rng)
    noise = np.random.default_rng(rng.getrandbits(64))
    s = scale(width, height)
    cloud = plasma(width, height, granularity, plasma_min, plasma_max, noise, whole=s == 1)
    potential = _capital_term(width, height, capitals, capital_weight(s, players))
    potential += _coarse_uniform(width, height, s, randomness, noise) - cloud
    land = potential > threshold
    del potential, cloud
    for cx, cy in capitals:
        land[cy, cx] = True
    join_capitals(land, capitals)
    owner = np.zeros((height, width), dtype=np.int8)
    ly, lx = np.nonzero(land)
    owner[ly, lx] = nearest_capital(ly, lx, list(enumerate(capitals, start=1)))
    occupied = np.zeros((height, width), dtype=bool)
    return Board(land, owner, occupied, dict(enumerate(capitals, start=1)), players)


def scale(width: int, height: int) -> float:
    """§4.6: ``s = max(1, sqrt(W·H / 300))``, the factor by which a map is larger than GNU's 20x15 one."""
    return max(1.0, math.sqrt(width * height / 300))


def capital_weight(s: float, players: int) -> float:
    """§4.6: what Σ 1/distance is multiplied by: ``max(1, s · (2/players) ** PLAYERS_EXPONENT)`` (1 on GNU's
    20x15 map and anything smaller; land reaches about 5 · weight from a lone capital)."""
    return max(1.0, s * math.pow(2 / players, PLAYERS_EXPONENT))


def _capital_term(width: int, height: int, capitals: Sequence[tuple[int, int]], weight: float) -> np.ndarray:
    """(H, W) float64: ``weight · Σ 1/distance`` to every capital (§4.3, §4.6); infinite at a capital."""
    xs = np.arange(width, dtype=np.float64)[None, :]
    ys = np.arange(height, dtype=np.float64)[:, None]
    total = np.zeros((height, width))
    distance = np.empty((height, width))
    with np.errstate(divide="ignore"):
        for cx, cy in capitals:
            # The squares of whole numbers are exact, so the square root is the distance correctly rounded,
            # as hypot gives it, at a third of hypot's cost.
            np.add((xs - cx) ** 2, (ys - cy) ** 2, out=distance)
            np.sqrt(distance, out=distance)
            np.divide(weight, distance, out=distance)
            total += distance
    return total


def _coarse_uniform(
    width: int, height: int, s: float, randomness: float, noise: np.random.Generator
) -> np.ndarray:
    """§4.6: the random term, uniform in [0, randomness] on a ⌈W/s⌉ x ⌈H/s⌉ grid and interpolated bilinearly
    at the map cells' centres, so its grain grows with the map; with s = 1 every cell has its own draw, as in
    GNU's formula. Returns (H, W) float64."""
    coarse = noise.uniform(0.0, randomness, (math.ceil(height / s), math.ceil(width / s)))

    def axis(cells: int, points: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        at = np.clip((np.arange(cells) + 0.5) / s - 0.5, 0, points - 1)
        low = np.floor(at).astype(np.intp)
        return low, np.minimum(low + 1, points - 1), at - low

    y0, y1, fy = axis(height, coarse.shape[0])
    x0, x1, fx = axis(width, coarse.shape[1])
    rows = coarse[y0] * (1 - fy)[:, None] + coarse[y1] * fy[:, None]
    out: np.ndarray = rows[:, x0] * (1 - fx) + rows[:, x1] * fx
    return out


def join_capitals(land: np.ndarray, capitals: Sequence[tuple[int, int]]) -> int:
    """§4.5: join the 8-connected land components holding capitals ``(x, y)`` in place, until one holds them
    all: each time the two whose nearest cells are closest (Euclidean; ties to the pair whose cells come
    first in row-major order) are joined by turning the straight 8-connected line between those cells into
    land (:func:`line_cells`). Returns the number of lines drawn (at most ``len(capitals) - 1``)."""
    drawn = 0
    eight = np.ones((3, 3), dtype=bool)
    while True:
        labels, _count = ndimage.label(land, structure=eight)
        ids = sorted({int(labels[y, x]) for x, y in capitals})
        if len(ids) <= 1:
            return drawn
        # scipy.spatial (a quarter of a second to import) only for maps whose capitals need joining.
        from scipy.spatial import cKDTree

        coast = land & ~ndimage.binary_erosion(land, structure=eight, border_value=1)
        cy, cx = np.nonzero(coast)
        of = labels[cy, cx]
        cells = {i: np.stack([cy[of == i], cx[of == i]], axis=1) for i in ids}
        trees = {i: cKDTree(cells[i]) for i in ids}
        best: tuple[int, tuple[int, int], tuple[int, int]] | None = None
        for n, i in enumerate(ids):
            for j in ids[n + 1:]:
                pair = _nearest_pair(cells[i], trees[j], cells[j])
                if best is None or pair < best:
                    best = pair
        assert best is not None
        _d2, (ay, ax), (by, bx) = best
        ys, xs = line_cells(ax, ay, bx, by)
        land[ys, xs] = True
        drawn += 1


def _nearest_pair(
    cells: np.ndarray, tree: cKDTree, others: np.ndarray
) -> tuple[int, tuple[int, int], tuple[int, int]]:
    """The closest pair between the (n, 2) ``(y, x)`` cells and ``others`` (held in ``tree``): ``(squared
    distance, first cell, second cell)``, the cells ordered row-major and ties to the lowest pair."""
    _distance, index = tree.query(cells, k=1)
    d2 = ((cells - others[index]) ** 2).sum(axis=1)
    least = int(d2.min())
    pairs = []
    for k in np.flatnonzero(d2 == least).tolist():
        a = (int(cells[k, 0]), int(cells[k, 1]))
        for m in tree.query_ball_point(cells[k], math.sqrt(least) + 1e-6):
            b = (int(others[m, 0]), int(others[m, 1]))
            if (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 == least:
                pairs.append((min(a, b), max(a, b)))
    first, second = min(pairs)
    return least, first, second


def line_cells(x0: int, y0: int, x1: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
    """The straight 8-connected line from (x0, y0) to (x1, y1), both ends included (Bresenham: one cell per
    step along the longer axis, the other coordinate rounded half away from the first cell).
    Returns (ys, xs) int arrays."""
    dx, dy = x1 - x0, y1 - y0
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return np.array([y0]), np.array([x0])
    t = np.arange(steps + 1, dtype=np.int64)
    xs = x0 + np.sign(dx) * ((2 * t * abs(dx) + steps) // (2 * steps))
    ys = y0 + np.sign(dy) * ((2 * t * abs(dy) + steps) // (2 * steps))
    return ys, xs


def capitals_connected(land: np.ndarray, capitals: Sequence[tuple[int, int]]) -> bool:
    """True when every capital ``(x, y)`` lies in one 8-connected component of *land* (a (H, W) bool array),
    §4.5."""
    labels, _count = ndimage.label(land, structure=np.ones((3, 3), dtype=bool))
    return len({int(labels[y, x]) for x, y in capitals}) <= 1
