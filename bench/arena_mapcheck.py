"""arena map check: the connectivity test every `serve`, `play` and `tournament` start runs on its maps
(spec/arena.md §2.2, `arena.mapfile.validate`), on the largest shipped map and on big maps of the shapes that
cost most, against scipy's 4-connectivity labelling in the same run (what the check used before; importing
scipy, which is not counted here, took 0.2 s of every start).

Maps: metropolis (204×204); a 4000×4000 open map (about the largest a map file may be, 16 MB); a corridor
folding from row to row, 2001×2001; corridors two cells wide running diagonally, 2000×2000 (runs of two
cells along both axes). Prints the median CPU time of each (5 runs) and the ratio to scipy's.
Bar: at most 20× scipy's labelling on every map (on maps of short runs such as the diagonal corridors the
check does most of its work in several numpy passes over the runs, about 13× scipy's compiled labelling), and
the 4000×4000 map checked in at most 1 s.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _bars import bar
from scipy import ndimage

from arena.mapfile import load_arena, validate
from arena.rules import Arena
from common.data import shipped_dir

RUNS = 5
RATIO_BAR = 20.0
BIG_BAR_S = 1.0


def cpu_median(work: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        began = time.process_time()
        work()
        times.append(time.process_time() - began)
    return statistics.median(times)


def maps() -> dict[str, np.ndarray]:
    open_map = np.zeros((4000, 4000), dtype=bool)
    snake = np.zeros((2001, 2001), dtype=bool)
    snake[1::4, :-1] = True
    snake[3::4, 1:] = True
    y, x = np.indices((2000, 2000))
    diagonals = (x - y) % 3 == 2
    diagonals[0, :] = diagonals[:, 0] = False
    return {"metropolis 204x204": load_arena(shipped_dir("arena") / "metropolis.map").walls,
            "open 4000x4000": open_map, "snake 2001x2001": snake, "diagonals 2000x2000": diagonals}


def main() -> int:
    ok = True
    worst = 0.0
    for name, walls in maps().items():
        arena = Arena(walls=walls, toxicity=np.ones(walls.shape, dtype=np.int16), name=name)
        ours = cpu_median(lambda arena=arena: validate(arena, 2))
        scipy = cpu_median(lambda walls=walls: ndimage.label(~walls))
        ratio = ours / scipy
        worst = max(worst, ratio)
        if walls.size >= 16_000_000:
            ok &= bar(f"map check of {name} <= {BIG_BAR_S:g} s CPU", f"{ours:.2f} s", ours <= BIG_BAR_S)
        print(f"{name}: check {ours * 1000:.1f} ms CPU, scipy's labelling {scipy * 1000:.1f} ms, "
              f"ratio {ratio:.2f}")
    ok &= bar(f"map check <= {RATIO_BAR:g}x scipy's labelling on every map", f"worst {worst:.2f}x",
              worst <= RATIO_BAR)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
