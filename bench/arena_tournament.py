"""arena tournaments use the cores: 24 games of 4 example bots on office, `--jobs 1` against `--jobs 2`.

Runs `arena tournament random flee hunt smart --games 24 --players 4 --maps office` with each setting in the
same run (short prep time, same seed, results in a temporary folder), three times each, alternated, and prints
the median wall times and their ratio, with the load average before the runs (other work on the machine spoils
it).

Every game starts its four bots as new processes, so what a bot's start costs counts: the bench first
compiles the bytecode of the packages a bot imports, as an installed package has it (pip compiles at
install), since with PYTHONDONTWRITEBYTECODE set (or a source tree it cannot write) every bot would compile
those modules again, about 0.02 s of CPU per bot.
Bar: ratio (jobs 2 / jobs 1) ≤ 0.6 on a machine with at least 2 cores. Prints PASS or FAIL (exit status 1).
"""

from __future__ import annotations

import compileall
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


def compile_bytecode() -> bool:
    """Write the bytecode of the packages the example bots import (arena, common); False if it failed."""
    import arena
    import common

    return all(compileall.compile_dir(Path(package.__file__).parent, quiet=1, maxlevels=0)
               for package in (arena, common))


def main() -> int:
    compiled = compile_bytecode()
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
          f"cores{'' if compiled else '; bytecode not written: bots compiled their modules at start'})")
    ok = ratio <= BAR
    print(f"bar ratio <= {BAR}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
