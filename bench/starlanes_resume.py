"""Resuming a long Star Lanes game: ``starlanes --resume FILE`` in a real terminal (a pty of 80x25), from the
start of the process to the move prompt on the screen, for a save of 200,000 history rows (a game of that many
finished turns) and, as the baseline in the same run, for a save of one row.

The figure is the CPU time of the starlanes process (user + system, read from ``/proc/PID/stat`` once the
prompt shows): reading the save, checking it, the first save at the prompt and the first screen. The wall time
is printed beside it with the load average (on a busy machine it includes time spent waiting for a core).
Median of RUNS runs each.

Bar: the 200,000-row resume takes under 1 s of CPU.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _bars import bar

from starlanes.rules import RULES_1995, Game
from starlanes.save import save_game

HERE = Path(__file__).resolve().parent
ROWS = 200_000
RUNS = 5
BAR_S = 1.0
PROMPT = "enter your move"


def make_save(path: Path, rows: int) -> None:
    """A 1995 game of four people at its move prompt, with *rows* rows of net worths in its history."""
    game = Game.new(["Ann", "Bob", "Cid", "Dee"], random.Random(1), RULES_1995)
    start = game.history[0]
    game.history = [[worth + turn % 97 for worth in start] for turn in range(rows)]
    game.moves = rows - 1
    save_game(path, game, ["human"] * 4)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process *pid* so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resume(path: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``starlanes --resume path`` until the move prompt shows."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm",
           "HOME": os.environ.get("HOME", "/")}
    began = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "starlanes", "--resume", str(path)], cwd=str(HERE.parent),
                          env=env, dimensions=(25, 80), timeout=120)
    try:
        child.expect(PROMPT)
        wall = time.perf_counter() - began
        cpu = cpu_seconds(child.pid)
    finally:
        child.terminate(force=True)
    return cpu, wall


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        figures = {}
        for rows in (1, ROWS):
            path = Path(tmp, f"game-{rows}.json")
            make_save(path, rows)
            size = path.stat().st_size
            runs = [resume(path) for _ in range(RUNS)]
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            figures[rows] = cpu
            print(f"{rows:>7} history rows ({size / 1e6:.1f} MB): median CPU {cpu:.2f} s, wall {wall:.2f} s "
                  f"(load average {os.getloadavg()[0]:.1f})")
    long, short = figures[ROWS], figures[1]
    print(f"the long save costs {long - short:.2f} s of CPU more than a one-row save ({long / short:.1f}x)")
    ok = bar(f"starlanes --resume of {ROWS:,} history rows to the move prompt < {BAR_S:.0f} s CPU",
             f"{long:.2f} s (one row: {short:.2f} s)", long < BAR_S)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
