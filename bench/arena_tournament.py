"""arena tournament throughput: CPU seconds per game and games per minute, `--jobs 1`, `--jobs 2` and a
2-worker Dask cluster on this machine, beside the machine's floor.

Each setting runs `arena tournament random flee hunt smart --games 16 --players 4 --maps office --prep-ms 100
--move-ms 2000 --seed 7` as a user runs it (results in a temporary folder), three times, the settings
alternated so that a change in the machine's load hits all alike; medians are printed. A preparation of 100 ms
(not the contest's 2000) leaves a game mostly playing rather than waiting, so the figures say how well a
tournament turns CPU into games.

- CPU seconds per game: everything the tournament costs (its own process, game processes, servers, bots,
  and for the cluster the scheduler and both workers), counted by a cgroup v2 of the bench's own
  (`arena.limits.Cgroup`: `cpu.stat`), so other work on the machine does not count. Where no cgroup can be
  made the figure is "unknown" and the CPU bar is not judged.
- Games per minute: games over the tournament's wall time, start to end (for the cluster: with its scheduler
  and workers already up, as a user runs tournaments on a standing cluster).
- The machine's floor, measured in the same run, alternated with the tournaments: how much faster two
  processes that only compute (a Python loop) run at once than one after the other (2.00 on two free cores;
  a busy host or two cores sharing one physical core put it lower). `--jobs 2` can gain no more than that.

Bars: `--jobs 2` plays at least 80 % of the games a minute that `--jobs 1` times the floor's speed-up allows;
the 2-worker cluster plays at least 80 % of `--jobs 2`'s games a minute and costs at most 1.3 times its CPU
seconds per game (Dask's own work and the files sent back).

Every game starts its four bots as new processes, so what a bot's start costs counts: the bench first
compiles the bytecode of the packages a bot imports, as an installed package has it (pip compiles at
install), since with PYTHONDONTWRITEBYTECODE set (or a source tree it cannot write) every bot would compile
those modules again.
"""

from __future__ import annotations

import compileall
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

from arena.limits import Cgroup

RUNS = 3
GAMES = 16
BIN = Path(sys.executable).parent
ARENA = str(BIN / "arena")
LOOP = "n = 0\nfor i in range(6_000_000):\n    n += i"
"""The floor's computing process: about 0.3 s of CPU."""
START_S = 120.0


def timed(argv_lists: list[list[str]], group: Cgroup | None = None) -> tuple[float, float | None]:
    """Wall seconds to run the commands *argv_lists* at once, and the CPU seconds *group* (which they are
    started in) used meanwhile (None without a group)."""
    before = group.cpu_seconds() if group else None
    began = time.perf_counter()
    processes = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  preexec_fn=group.enter if group else None) for argv in argv_lists]
    errors = [p.communicate()[1] for p in processes]
    wall = time.perf_counter() - began
    for process, argv, error in zip(processes, argv_lists, errors, strict=True):
        if process.returncode:
            raise SystemExit(f"{' '.join(argv)} failed with status {process.returncode}: {error.strip()}")
    return wall, None if group is None or before is None else group.cpu_seconds() - before


def tournament_argv(out: Path, jobs: int | None = None, cluster: str | None = None) -> list[str]:
    where = ["--cluster", cluster] if cluster else ["--jobs", str(jobs)]
    return [ARENA, "tournament", "random", "flee", "hunt", "smart", "--games", str(GAMES), "--players", "4",
            "--maps", "office", "--prep-ms", "100", "--move-ms", "2000", "--seed", "7", *where,
            "--out", str(out), "-q"]


class LocalCluster:
    """`dask scheduler` and two `dask worker --nthreads 1` on 127.0.0.1, all in *group*."""

    def __init__(self, folder: Path, group: Cgroup | None) -> None:
        enter = group.enter if group else None
        scheduler_file = folder / "scheduler.json"
        self.processes = [subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(scheduler_file)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=enter)]
        end = time.monotonic() + START_S
        while not (scheduler_file.exists() and scheduler_file.stat().st_size):
            if time.monotonic() > end:
                raise SystemExit("the Dask scheduler did not start")
            time.sleep(0.1)
        self.address = json.loads(scheduler_file.read_text())["address"]
        for name in ("a", "b"):
            self.processes.append(subprocess.Popen(
                [str(BIN / "dask"), "worker", self.address, "--name", name, "--nthreads", "1", "--host",
                 "127.0.0.1", "--no-dashboard", "--local-directory", str(folder / name)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                preexec_fn=enter))
        import distributed

        with distributed.Client(self.address, timeout=START_S) as client:
            client.wait_for_workers(2, timeout=START_S)

    def close(self) -> None:
        for process in self.processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def compile_bytecode() -> bool:
    """Write the bytecode of the packages the example bots import (arena, common); False if it failed."""
    import arena
    import common

    return all(compileall.compile_dir(Path(package.__file__).parent, quiet=1, maxlevels=0)
               for package in (arena, common))


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if len(known) == len(values) else None


def main() -> int:
    compiled = compile_bytecode()
    load = Path("/proc/loadavg").read_text(encoding="ascii").split()[:3]
    settings = ("--jobs 1", "--jobs 2", "2 Dask workers")
    walls: dict[str, list[float]] = {s: [] for s in settings}
    cpus: dict[str, list[float | None]] = {s: [] for s in settings}
    floor: list[float] = []
    groups = {s: Cgroup.make("arena-bench") for s in settings}
    loop = [sys.executable, "-c", LOOP]
    with tempfile.TemporaryDirectory() as folder:
        cluster = LocalCluster(Path(folder), groups["2 Dask workers"])
        try:
            for run in range(RUNS):
                for setting in settings:
                    out = Path(folder) / f"run{run}-{setting.replace(' ', '')}"
                    argv = (tournament_argv(out, cluster=cluster.address) if "Dask" in setting
                            else tournament_argv(out, jobs=int(setting.split()[-1])))
                    wall, cpu = timed([argv], groups[setting])
                    walls[setting].append(wall)
                    cpus[setting].append(None if cpu is None else cpu / GAMES)
                one_by_one = timed([loop])[0] + timed([loop])[0]
                floor.append(one_by_one / timed([loop, loop])[0])
        finally:
            cluster.close()
            for group in groups.values():
                if group:
                    group.remove()
    speed_up = statistics.median(floor)
    per_minute = {s: GAMES * 60 / statistics.median(walls[s]) for s in settings}
    cpu = {s: median(cpus[s]) for s in settings}
    print(f"{GAMES} games of 4 example bots on office, 100 ms preparation, median of {RUNS} runs each "
          f"(load average before: {' '.join(load)} on {os.cpu_count()} cores"
          f"{'' if compiled else '; bytecode not written: bots compiled their modules at start'}):")
    for s in settings:
        used = "unknown (no cgroup v2 of our own)" if cpu[s] is None else f"{cpu[s]:.2f}"
        print(f"  {s:<15} {per_minute[s]:6.1f} games a minute, CPU seconds per game {used}")
    print(f"  the machine's floor in the same run: two computing processes at once go {speed_up:.2f} times "
          f"as fast as one after the other (median of {RUNS})")
    allowed = per_minute["--jobs 1"] * speed_up
    ok = bar("--jobs 2 games a minute >= 80 % of --jobs 1's times the floor's speed-up",
             f"{per_minute['--jobs 2']:.1f} against {allowed:.1f} allowed "
             f"({per_minute['--jobs 2'] / allowed:.0%})", per_minute["--jobs 2"] >= 0.8 * allowed)
    ok &= bar("2 Dask workers games a minute >= 80 % of --jobs 2's",
              f"{per_minute['2 Dask workers']:.1f} against {per_minute['--jobs 2']:.1f} "
              f"({per_minute['2 Dask workers'] / per_minute['--jobs 2']:.0%})",
              per_minute["2 Dask workers"] >= 0.8 * per_minute["--jobs 2"])
    dask_cpu, jobs_cpu = cpu["2 Dask workers"], cpu["--jobs 2"]
    if dask_cpu is not None and jobs_cpu is not None:
        ok &= bar("2 Dask workers CPU seconds per game <= 1.3 x --jobs 2's",
                  f"{dask_cpu:.2f} against {jobs_cpu:.2f} ({dask_cpu / jobs_cpu:.2f} x)",
                  dask_cpu <= 1.3 * jobs_cpu)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
