"""Random motti maps: ``motti generate`` (spec/motti.md §4).

Capitals are placed at random at least ``distance_min`` apart; a cell is land when ``Σ 1/distance to each
capital − plasma + uniform[0, randomness] > threshold`` (a capital is always land), where the plasma cloud is
a diamond-square fractal rescaled to ``[plasma_min, plasma_max]``. Land belongs to the nearest capital
(Euclidean, ties to the lowest number); all land starts unoccupied. Islands stay, but a map whose capitals are
not all in one 8-connected land mass is drawn again, up to 100 times (§4.5). All randomness comes from the
``random.Random`` passed in, so a seed gives the same map."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np
from scipy import ndimage

from motti.mapfile import MAX_SIDE
from motti.rules import Board, nearest_capital

MAX_PLAYERS = 9
TRIES_PER_CAPITAL = 1000
RESTARTS = 100
#: Maps drawn before giving up when the capitals are never all in one land mass (§4.5).
DRAWS = 100


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
    raise GenerateError(
        f"cannot place {players} capitals at least {distance_min:g} apart on a {width}x{height} map "
        f"(its longest distance is {diagonal:.2f}): lower -d/--distance-min or enlarge the map with -w/-h"
    )


def plasma(width: int, height: int, granularity: float, low: float, high: float,
           rng: np.random.Generator) -> np.ndarray:
    """§4.2: diamond-square on a (2^k+1)² grid covering width x height, corners uniform in [0, 1],
    displacement uniform in ±amplitude starting at 1 and multiplied by ``2**-(1-granularity)`` per halving;
    rescaled linearly to [low, high] and cropped. Returns a (height, width) float64 array."""
    k = max(1, math.ceil(math.log2(max(width, height, 2) - 1)))
    n = 2**k + 1
    g = np.zeros((n, n))
    g[:: n - 1, :: n - 1] = rng.uniform(0.0, 1.0, (2, 2))
    step, amplitude = n - 1, 1.0
    while step > 1:
        half = step // 2
        corners = g[0:-1:step, 0:-1:step] + g[0:-1:step, step::step] + g[step::step, 0:-1:step]
        corners += g[step::step, step::step]
        g[half::step, half::step] = corners / 4 + rng.uniform(-amplitude, amplitude, corners.shape)
        padded = np.full((n + 2 * half, n + 2 * half), np.nan)
        padded[half:-half, half:-half] = g
        for r0, c0 in ((half, 0), (0, half)):
            rows, cols = np.meshgrid(np.arange(r0, n, step), np.arange(c0, n, step), indexing="ij")
            around = np.stack(
                [
                    padded[rows, cols + half],
                    padded[rows + 2 * half, cols + half],
                    padded[rows + half, cols],
                    padded[rows + half, cols + 2 * half],
                ]
            )
            mean = np.nanmean(around, axis=0)
            g[rows, cols] = mean + rng.uniform(-amplitude, amplitude, mean.shape)
        amplitude *= 2.0 ** -(1.0 - granularity)
        step = half
    lo, hi = g.min(), g.max()
    scaled = np.full_like(g, low) if hi == lo else low + (g - lo) * (high - low) / (hi - lo)
    return scaled[:height, :width]


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

    A map whose capitals are not all in one 8-connected land mass is drawn again with the next random numbers
    (§4.5), up to :data:`DRAWS` times.

    Raises :class:`GenerateError` for options out of range (sizes, players, non-finite numbers, plasma-min
    above plasma-max), capitals that cannot be placed, or no connected map in :data:`DRAWS` draws.
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
    for _ in range(DRAWS):
        capitals = place_capitals(width, height, players, distance_min, rng)
        noise = np.random.default_rng(rng.getrandbits(64))
        cloud = plasma(width, height, granularity, plasma_min, plasma_max, noise)
        ys, xs = np.mgrid[0:height, 0:width]
        potential = np.zeros((height, width))
        with np.errstate(divide="ignore"):
            for cx, cy in capitals:
                potential += 1.0 / np.hypot(xs - cx, ys - cy)
        potential += noise.uniform(0.0, randomness, (height, width)) - cloud
        land = potential > threshold
        for cx, cy in capitals:
            land[cy, cx] = True
        if capitals_connected(land, capitals):
            break
    else:
        raise GenerateError(
            f"none of {DRAWS} maps drawn had every capital in one 8-connected land mass: lower "
            "-t/--threshold or -d/--distance-min, or enlarge the map with -w/-h"
        )
    owner = np.zeros((height, width), dtype=np.int8)
    ly, lx = np.nonzero(land)
    owner[ly, lx] = nearest_capital(ly, lx, list(enumerate(capitals, start=1)))
    occupied = np.zeros((height, width), dtype=bool)
    return Board(land, owner, occupied, dict(enumerate(capitals, start=1)), players)


def capitals_connected(land: np.ndarray, capitals: Sequence[tuple[int, int]]) -> bool:
    """True when every capital ``(x, y)`` lies in one 8-connected component of *land* (a (H, W) bool array),
    §4.5."""
    labels, _count = ndimage.label(land, structure=np.ones((3, 3), dtype=bool))
    return len({int(labels[y, x]) for x, y in capitals}) <= 1
