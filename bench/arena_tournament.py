"""arena tournaments use the cores: 24 games of 4 example bots on office, `--jobs 1` against `--jobs 2`.

Runs `arena tournament random flee hunt smart --games 24 --players 4 --maps office` with each setting in the
same run (short prep time, same seed, results in a temporary folder), three times each, alternated, and prints
the median wall times and their ratio, with the load average before the runs (other work on the machine spoils
it).
Bar: ratio (jobs 2 / jobs 1) ≤ 0.6 on a machine with at least 2 cores. Prints PASS or FAIL (exit status 1).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BAR = 0.6
RUNS = 3
ARENA = str(Path(sys.executable).with_name("arena"))


def wall(jobs: int, out: Path) -> float:
    """Seconds one tournament with *jobs* games at once takes, start to end."""
    argv = [ARENA, "tournament", "random", "flee", "hunt", "smart", "--games", "24", "--players", "4",
            "--maps", "office", "--jobs", str(jobs), "--seed", "7", "--prep-ms", "100", "--move-ms", "2000",
            "--out", str(out / f"jobs{jobs}"), "-q"]
    began = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def main() -> int:
    times: dict[int, list[float]] = {1: [], 2: []}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        for run in range(RUNS):  # alternated, so that a change in the machine's load hits both alike
            for jobs in (1, 2):
                times[jobs].append(wall(jobs, Path(folder) / f"run{run}"))
    one, two = statistics.median(times[1]), statistics.median(times[2])
    ratio = two / one
    print(f"24 games of 4 example bots on office, median of {RUNS} runs each: --jobs 1 {one:.1f} s, "
          f"--jobs 2 {two:.1f} s, ratio {ratio:.2f} (load average before: {load:.1f} on {os.cpu_count()} "
          f"cores)")
    ok = ratio <= BAR
    print(f"bar ratio <= {BAR}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
