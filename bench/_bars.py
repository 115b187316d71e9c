"""The bars of ``make bench``: each bench reports its bars here; ``bench/_run.py`` prints them all at the end.

``bar(name, figure, passed)`` prints ``bar PASS: NAME: FIGURE`` (or ``FAIL``) and, when ``make bench`` runs
the script (``BENCH_BARS`` names a file), appends the bar to that file as one JSON line, so the summary table
of the whole run can list every bar with its figure. A bench script run alone just prints.
"""

from __future__ import annotations

import json
import os


def bar(name: str, figure: str, passed: bool) -> bool:
    """Report one bar: *name* says what must hold ("hard vs rush: >= 90 % by capture"), *figure* what was
    measured ("18 of 20, 90 %"); returns *passed* so a script can fold its exit status."""
    print(f"bar {'PASS' if passed else 'FAIL'}: {name}: {figure}", flush=True)
    path = os.environ.get("BENCH_BARS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"name": name, "figure": figure, "passed": passed}) + "\n")
    return passed
