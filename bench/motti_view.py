"""Benchmark: drawing a motti window (motti/view.py) for a 1000x1000 board at every zoom (spec/motti.md §6).

A 1024x768 window renders a 1000x1000 board with 4 players (quarters, a sea cross, a quarter of the cells
occupied, seeded) as it opens (c = 6 on player 1's capital, only the 171x117 cells shown are drawn), zoomed
in (c = 24), and after Home (c = 0.696, each pixel the cell under its centre). Baseline, measured in the same
run: the 20x15 classic board in its default 640x552 window (c = 32), what every small game draws per action.

Before zoom and pan, a 1000x1000 board was drawn whole at c = 4 (a 4000x4000 px picture cut to the window),
and a window stretched to 5000x5000 px made every action draw 25 million pixels; now a frame is never larger
than its screen (common/x11.py) and a window draws only the cells it shows.

Bar: each large-board frame within 3x the classic frame's median time."""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _bars import bar

from common.data import shipped_dir
from motti import view
from motti.compose import Composer
from motti.mapfile import load_map
from motti.rules import Board, Game

RUNS = 15
BAR_RATIO = 3.0
SIZE = 1000


def big_game() -> Composer:
    ys, xs = np.mgrid[0:SIZE, 0:SIZE]
    sea = (np.abs(xs - SIZE // 2) < 3) | (np.abs(ys - SIZE // 2) < 3)
    land = ~sea
    owner = np.where(land, 1 + (xs >= SIZE // 2) + 2 * (ys >= SIZE // 2), 0).astype(np.int8)
    occupied = land & (np.random.default_rng(1).random((SIZE, SIZE)) < 0.25) & (xs % 2 == 0)
    capitals = {1: (100, 100), 2: (900, 120), 3: (130, 880), 4: (870, 900)}
    for x, y in capitals.values():
        occupied[y, x] = False
    return Composer(Game(Board(land, owner, occupied, capitals, 4), random.Random(1)))


def median_ms(game: Composer, size: tuple[int, int], geometry: view.Geometry | None) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        view.render(game, size, (1,), geometry=geometry)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    classic = Composer(Game(load_map(shipped_dir("motti") / "classic.map").board, random.Random(1)))
    baseline = median_ms(classic, view.default_size(20, 15), None)
    game = big_game()
    size = (1024, 768)
    opening = view.Viewport(focus=(100, 100))
    zoomed = view.Viewport(focus=(100, 100))
    zoomed.zoom(size, SIZE, SIZE, 2, (512, 396))
    whole = view.Viewport()
    whole.home()
    print(f"classic 20x15 at 640x552 (c = 32), baseline: {baseline:.1f} ms per frame")
    worst = 0.0
    for name, viewport in (("opening", opening), ("zoomed in", zoomed), ("Home", whole)):
        geometry = viewport.geometry(size, SIZE, SIZE)
        ms = median_ms(game, size, geometry)
        worst = max(worst, ms / baseline)
        cells = geometry.view_cells()
        print(f"1000x1000 {name} at 1024x768 (c = {geometry.c:g}, cells {cells}): {ms:.1f} ms per frame, "
              f"{ms / baseline:.2f}x the baseline")
    ok = bar(f"motti 1000x1000 board: every frame within {BAR_RATIO:g}x the classic frame's time",
             f"worst {worst:.2f}x (classic {baseline:.1f} ms)", worst <= BAR_RATIO)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
