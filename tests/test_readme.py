"""The README's example of the one game interface runs and plays a game of each to its end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from deadline import deadline

ROOT = Path(__file__).resolve().parent.parent


def test_the_interface_example_plays_each_game_to_its_end() -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    example = next(block for block in blocks if "from common.game import" in block)
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True,
                          timeout=deadline(100), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    names = [line.split(" ", 1)[0] for line in done.stdout.splitlines()]
    assert names == ["motti", "starlanes", "arena"]
    for line in done.stdout.splitlines():
        values = [float(v) for v in line.split(" ", 1)[1].strip("[]").split(",")]
        assert max(values) > min(values) or len(set(values)) == 1
