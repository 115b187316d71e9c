"""The README's example of the one game interface runs and plays a game of each to its end; every Python
example of the guides runs and prints what its comments say it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
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


#: The guides' Python examples that run on their own (a bot needs a server: tests/arena plays the guide's).
GUIDE_EXAMPLES = [(guide.name, block) for guide in sorted((ROOT / "docs").glob("*.md"))
                  for block in re.findall(r"```python\n(.*?)```", guide.read_text(), re.S)
                  if "create_connection" not in block]


@pytest.mark.parametrize(("guide", "example"), GUIDE_EXAMPLES,
                         ids=[f"{guide}-{i}" for i, (guide, _) in enumerate(GUIDE_EXAMPLES)])
def test_the_guides_examples_print_what_they_say(guide: str, example: str, tmp_path: Path) -> None:
    # docs/motti.md's Session example said it printed "P2 defended 3 cells — P2 wins on land after 50
    # turns: 241–38"; it printed another game's end once medium had changed.
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True,
                          timeout=deadline(100), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for said in re.findall(r'^print\(.*#\s*"(.*)"$', example, re.M):
        assert said in done.stdout.splitlines(), (guide, said, done.stdout)
