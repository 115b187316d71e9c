"""arena tournaments use the cores: 24 games of 4 example bots on office, `--jobs 1` against `--jobs 2`.

Runs `arena tournament random flee hunt smart --games 24 --players 4 --maps office` with each setting in the
same run (short preparation, same seed, results in a temporary folder), three times each, alternated, and
prints the median wall times, their ratio and how many cores the machine kept busy during each (from
/proc/stat, so other work on the machine counts too; the load average before the runs says how much there
was).

Beside it, measured in the same run, alternated with the tournaments: the machine's own floor, the ratio for
two processes that only compute (a Python loop) run at once against one after the other. It is what two
games at once could reach at best if each game kept one core busy and nothing else; a virtual machine whose
two cores share one physical core, or a busy host, puts it well above 0.5. A game in fact keeps more than
one core busy by itself (the server and four bot processes take turns on both cores), so two games at once
gain less than two independent processes do: the bench shows it with one more tournament, `--jobs 1` with a
preparation of 1 ms, whose busy cores are what one game keeps busy while it plays.

Every game starts its four bots as new processes, so what a bot's start costs counts: the bench first
compiles the bytecode of the packages a bot imports, as an installed package has it (pip compiles at
install), since with PYTHONDONTWRITEBYTECODE set (or a source tree it cannot write) every bot would compile
those modules again, about 0.02 s of CPU per bot.
Bar: ratio (jobs 2 / jobs 1) <= 0.6 on a machine with at least 2 cores. Prints PASS or FAIL (exit status 1).
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
LOOP = "n = 0\nfor i in range(6_000_000):\n    n += i"
"""The floor's computing process: about 0.3 s of CPU."""


def busy_seconds() -> float | None:
    """CPU seconds the machine has spent busy since boot, all cores (None without /proc/stat)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(v) for v in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def timed(argv_lists: list[list[str]]) -> tuple[float, float | None]:
    """Wall seconds to run the commands *argv_lists* at once, and the cores the machine kept busy then."""
    busy, began = busy_seconds(), time.perf_counter()
    processes = [subprocess.Popen(argv, stdout=subprocess.DEVNULL) for argv in argv_lists]
    codes = [p.wait() for p in processes]
    wall, after = time.perf_counter() - began, busy_seconds()
    if any(codes):
        raise SystemExit(f"{argv_lists[0][:3]} failed with status {max(codes)}")
    return wall, None if busy is None or after is None else (after - busy) / wall


def tournament(jobs: int, out: Path, prep_ms: int = 100) -> tuple[float, float | None]:
    """Wall seconds one tournament with *jobs* games at once takes, start to end, and the cores busy."""
    return timed([[ARENA, "tournament", "random", "flee", "hunt", "smart", "--games", "24", "--players", "4",
                   "--maps", "office", "--jobs", str(jobs), "--seed", "7", "--prep-ms", str(prep_ms),
                   "--move-ms", "2000", "--out", str(out / f"jobs{jobs}-prep{prep_ms}"), "-q"]])


def compile_bytecode() -> bool:
    """Write the bytecode of the packages the example bots import (arena, common); False if it failed."""
    import arena
    import common

    return all(compileall.compile_dir(Path(package.__file__).parent, quiet=1, maxlevels=0)
               for package in (arena, common))


def cores(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{statistics.median(known):.2f} cores busy" if known else "cores busy unknown"


def main() -> int:
    compiled = compile_bytecode()
    times: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float | None]] = {1: [], 2: []}
    floor: list[float] = []
    load = os.getloadavg()[0]
    loop = [sys.executable, "-c", LOOP]
    with tempfile.TemporaryDirectory() as folder:
        for run in range(RUNS):  # alternated, so that a change in the machine's load hits all alike
            for jobs in (1, 2):
                wall, used = tournament(jobs, Path(folder) / f"run{run}")
                times[jobs].append(wall)
                busy[jobs].append(used)
            one_by_one = timed([loop])[0] + timed([loop])[0]
            floor.append(timed([loop, loop])[0] / one_by_one)
        playing = tournament(1, Path(folder), prep_ms=1)[1]
    one, two = statistics.median(times[1]), statistics.median(times[2])
    ratio = two / one
    print(f"24 games of 4 example bots on office, median of {RUNS} runs each: --jobs 1 {one:.1f} s "
          f"({cores(busy[1])}), --jobs 2 {two:.1f} s ({cores(busy[2])}), ratio {ratio:.2f} "
          f"(load average before: {load:.1f} on {os.cpu_count()} cores"
          f"{'' if compiled else '; bytecode not written: bots compiled their modules at start'})")
    print(f"the machine's floor in the same run: two computing processes at once take "
          f"{statistics.median(floor):.2f} of the time of one after the other (median of {RUNS})")
    print(f"one game at a time with no preparation pause (--jobs 1, --prep-ms 1): {cores([playing])}, what a "
          f"game keeps busy while it plays")
    ok = ratio <= BAR
    print(f"bar ratio <= {BAR}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
