"""``make bench``: run every ``bench/*.py`` not starting with ``_`` in turn, then print one summary table.

Each script prints its own figures and reports its bars through ``bench/_bars.py``; the table at the end lists
every bar with its figure and PASS or FAIL, each script's wall time, and the total. Exit status 1 when a bar
failed or a script exited non-zero. ``python bench/_run.py motti_levels arena_cli`` runs only those scripts;
arguments after ``--`` go to each script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    names, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    scripts = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("_"))
    if names:
        unknown = set(names) - {p.stem for p in scripts}
        if unknown:
            print(f"bench: no such bench: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        scripts = [p for p in scripts if p.stem in names]
    began = time.perf_counter()
    rows: list[tuple[str, dict[str, object]]] = []
    times: list[tuple[str, float, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for script in scripts:
            bars = Path(tmp, script.stem + ".jsonl")
            print(f"== bench/{script.name}", flush=True)
            t0 = time.perf_counter()
            status = subprocess.run([sys.executable, str(script), *extra],
                                    env=dict(os.environ, BENCH_BARS=str(bars))).returncode
            times.append((script.stem, time.perf_counter() - t0, status))
            if bars.exists():
                rows += [(script.stem, json.loads(line)) for line in bars.read_text().splitlines()]
    failed = [r for r in rows if not r[1]["passed"]] or [t for t in times if t[2] != 0]
    print("\n== summary")
    width = max((len(str(r[1]["name"])) for r in rows), default=10)
    for script, row in rows:
        verdict = "PASS" if row["passed"] else "FAIL"
        print(f"{verdict}  {row['name']!s:<{width}}  {row['figure']}  [{script}]")
    for script, seconds, status in times:
        print(f"      {script}: {seconds:.0f} s{'' if status == 0 else f', exit status {status}'}")
    print(f"{sum(bool(r[1]['passed']) for r in rows)} of {len(rows)} bars passed; "
          f"total {time.perf_counter() - began:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
