"""arena start-up: `arena --version` and `arena --help`, beside a bare `python -c pass` in the same run.

Median wall time of RUNS runs of each, and the CPU time of the child (user + system), which a busy machine
does not inflate. Bar: median ≤ 0.2 s CPU for both commands (the wall time is printed beside it; on an idle
machine the two are close). Prints PASS or FAIL (exit status 1).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

RUNS = 15
BAR_S = 0.2
ARENA = str(Path(sys.executable).with_name("arena"))


def timed(argv: list[str]) -> tuple[float, float]:
    """(median wall seconds, median child CPU seconds) of running *argv* RUNS times."""
    walls, cpus = [], []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=dict(os.environ))
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    bare = timed([sys.executable, "-c", "pass"])
    print(f"python -c pass: {bare[0]:.3f} s wall, {bare[1]:.3f} s CPU (median of {RUNS})")
    ok = True
    for args in (["--version"], ["--help"]):
        wall, cpu = timed([ARENA, *args])
        print(f"arena {args[0]}: {wall:.3f} s wall, {cpu:.3f} s CPU (median of {RUNS}), bar {BAR_S} s CPU")
        ok &= bar(f"arena {args[0]} <= {BAR_S} s CPU", f"{cpu:.3f} s (python -c pass: {bare[1]:.3f} s)",
                  cpu <= BAR_S)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
