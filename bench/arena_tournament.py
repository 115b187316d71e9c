"""arena tournaments use the cores: 24 games of 4 example bots on office, `--jobs 1` against `--jobs 2`.

The bar's figure is the tournament as a user runs it: `arena tournament random flee hunt smart --games 24
--players 4 --maps office --jobs J` with the tournament's own timings (a preparation of 2000 ms, the time a
2010 bot needs to read its map, and a 1000 ms move deadline), same seed, results in a temporary folder, one
run of each setting. It prints both wall times, their ratio and how many cores the machine kept busy during
each (from /proc/stat, so other work on the machine counts too; the load average before the runs says how
much there was).

Beside it, for what the games' own work costs, the same tournaments with a preparation of 100 ms, three
times each, alternated: a game then spends most of its time playing rather than waiting, and two games at
once gain less, since a game on its own already keeps more than one core busy (its server and four bot
processes take turns on both cores). The bench shows it with one more tournament, `--jobs 1` with a
preparation of 1 ms, whose busy cores are what one game keeps busy while it plays, and with the machine's
own floor, measured in the same run, alternated with those tournaments: the ratio for two processes that
only compute (a Python loop) run at once against one after the other; a virtual machine whose two cores share
one physical core, or a busy host, puts it well above 0.5.

Every game starts its four bots as new processes, so what a bot's start costs counts: the bench first
compiles the bytecode of the packages a bot imports, as an installed package has it (pip compiles at
install), since with PYTHONDONTWRITEBYTECODE set (or a source tree it cannot write) every bot would compile
those modules again, about 0.02 s of CPU per bot.
Bar: ratio (jobs 2 / jobs 1) <= 0.6 at the tournament's own timings, on a machine with at least 2 cores.
Prints PASS or FAIL (exit status 1).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

BAR = 0.6
RUNS = 3
"""Runs of each setting with the 100 ms preparation (the tournament's own timings: one run each)."""
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


def tournament(jobs: int, out: Path, prep_ms: int | None = None) -> tuple[float, float | None]:
    """Wall seconds one tournament with *jobs* games at once takes, start to end, and the cores busy; with
    the tournament's own timings, or a preparation of *prep_ms* and a move deadline of 2000 ms."""
    timings = [] if prep_ms is None else ["--prep-ms", str(prep_ms), "--move-ms", "2000"]
    return timed([[ARENA, "tournament", "random", "flee", "hunt", "smart", "--games", "24", "--players", "4",
                   "--maps", "office", "--jobs", str(jobs), "--seed", "7", *timings,
                   "--out", str(out / f"jobs{jobs}-prep{prep_ms or 'default'}"), "-q"]])


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
    load = os.getloadavg()[0]
    times: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float | None]] = {1: [], 2: []}
    floor: list[float] = []
    loop = [sys.executable, "-c", LOOP]
    with tempfile.TemporaryDirectory() as folder:
        own = {jobs: tournament(jobs, Path(folder) / "own") for jobs in (1, 2)}
        for run in range(RUNS):  # alternated, so that a change in the machine's load hits all alike
            for jobs in (1, 2):
                wall, used = tournament(jobs, Path(folder) / f"run{run}", prep_ms=100)
                times[jobs].append(wall)
                busy[jobs].append(used)
            one_by_one = timed([loop])[0] + timed([loop])[0]
            floor.append(timed([loop, loop])[0] / one_by_one)
        playing = tournament(1, Path(folder), prep_ms=1)[1]
    ratio = own[2][0] / own[1][0]
    print(f"24 games of 4 example bots on office at the tournament's own timings (2000 ms preparation): "
          f"--jobs 1 {own[1][0]:.1f} s ({cores([own[1][1]])}), --jobs 2 {own[2][0]:.1f} s "
          f"({cores([own[2][1]])}), ratio {ratio:.2f} (load average before: {load:.1f} on {os.cpu_count()} "
          f"cores{'' if compiled else '; bytecode not written: bots compiled their modules at start'})")
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"the same with a 100 ms preparation, median of {RUNS} runs each: --jobs 1 {one:.1f} s "
          f"({cores(busy[1])}), --jobs 2 {two:.1f} s ({cores(busy[2])}), ratio {two / one:.2f}")
    print(f"the machine's floor in the same run: two computing processes at once take "
          f"{statistics.median(floor):.2f} of the time of one after the other (median of {RUNS})")
    print(f"one game at a time with no preparation pause (--jobs 1, --prep-ms 1): {cores([playing])}, what a "
          f"game keeps busy while it plays")
    ok = bar(f"tournament --jobs 2 / --jobs 1 wall time <= {BAR} at its own timings",
             f"{ratio:.2f} (load average before {load:.1f})", ratio <= BAR)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
