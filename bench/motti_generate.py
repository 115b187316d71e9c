"""Benchmark: generating motti maps of any size in-process (motti/generate.py, spec/motti.md §4.5–§4.6).

For each size the CPU time (``time.process_time``) of ``motti.generate.generate()`` with the command line's
defaults is measured over several seeds; the median is printed beside the median of one 8-connected
``scipy.ndimage.label`` over a grid of the same size, measured in the same run (the least any check of a map
of that size costs). The 20x15 default is the baseline a player meets today.

Before §4.5's joins and §4.6's size-aware terrain, a 1000x1000 map of 8 players ran two to four minutes and
then failed (100 draws, none connected), and 1x2000 never finished.

Bars: 1000x1000 with 9 players under 1 s; 2000x2000 (9 players) under 4 s; 1x2000 (9 players) under 0.1 s."""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

from motti.generate import generate

#: (width, height, players, seeds, bar in seconds or None)
CASES = ((20, 15, 2, 9, None), (1000, 1000, 9, 7, 1.0), (2000, 2000, 9, 5, 4.0), (1, 2000, 9, 9, 0.1))


def cpu(call: Callable[..., object], *args: object) -> float:
    """CPU seconds of ``call(*args)``."""
    start = time.process_time()
    call(*args)
    return time.process_time() - start


def main() -> int:
    ok = True
    eight = np.ones((3, 3), dtype=bool)
    print(f"load average {os.getloadavg()[0]:.2f} (CPU times are per process)")
    print(f"{'map':>16} {'generate median':>16} {'min':>8} {'max':>8} {'label median':>13} {'ratio':>7}")
    for width, height, players, seeds, limit in CASES:
        times = [cpu(generate, width, height, players, random.Random(seed)) for seed in range(seeds)]
        grid = generate(width, height, players, random.Random(0)).land
        labels = [cpu(ndimage.label, grid, eight) for _ in range(seeds)]
        median, label = statistics.median(times), statistics.median(labels)
        name = f"{width}x{height}/{players}p"
        print(f"{name:>16} {median:15.3f}s {min(times):7.3f}s {max(times):7.3f}s {label:12.4f}s "
              f"{median / max(label, 1e-6):6.0f}x")
        if limit is not None:
            ok &= bar(f"motti generate {name} CPU median < {limit:g} s", f"{median:.3f} s "
                      f"(one ndimage.label: {label:.4f} s)", median < limit)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
