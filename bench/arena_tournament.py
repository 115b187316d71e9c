"""arena tournaments use the cores: 24 games of 4 example bots on office, `--jobs 1` against `--jobs 2`.

Runs `arena tournament random flee hunt smart --games 24 --players 4 --maps office` twice in the same run
(short prep time, same seed, results in a temporary folder) and prints both wall times and their ratio.
Bar: ratio (jobs 2 / jobs 1) ≤ 0.6 on a machine with at least 2 cores. Prints PASS or FAIL (exit status 1).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

BAR = 0.6
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
    with tempfile.TemporaryDirectory() as folder:
        one = wall(1, Path(folder))
        two = wall(2, Path(folder))
    ratio = two / one
    print(f"24 games of 4 example bots on office: --jobs 1 {one:.1f} s, --jobs 2 {two:.1f} s, "
          f"ratio {ratio:.2f}")
    ok = ratio <= BAR
    print(f"bar ratio <= {BAR}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
