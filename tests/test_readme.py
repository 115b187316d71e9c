"""The README's example of the one game interface runs and plays a game of each to its end; every Python
example of the guides runs and prints what its comments say it prints (docs/arena.md's bot on a server)."""

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


#: The guides' Python examples that run on their own (a bot needs a server: the next test gives it one).
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


def test_the_guides_bot_plays_a_whole_game_on_a_server(tmp_path: Path) -> None:
    bot = next(block for block in re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "arena.md").read_text(),
                                              re.S) if "create_connection" in block)
    arena = [sys.executable, "-m", "arena"]
    server = subprocess.Popen([*arena, "serve", "office", "--players", "2", "--port", "0", "--prep-ms", "50",
                               "--move-ms", "200", "--quiet-rounds", "3", "--replay",
                               str(tmp_path / "game.jsonl")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        assert server.stderr is not None
        listening = server.stderr.readline()   # blocks until the server says where it listens
        assert listening.startswith("arena: listening on 127.0.0.1:"), listening
        port = int(listening.rsplit(":", 1)[1])
        guide = subprocess.Popen([sys.executable, "-c", bot, str(port)], stderr=subprocess.PIPE, text=True,
                                 cwd=tmp_path)
        example = subprocess.run([*arena, "bot", "127.0.0.1", str(port)], capture_output=True, text=True,
                                 timeout=deadline(120))
        assert example.returncode == 0, example.stderr
        assert guide.wait(timeout=deadline(60)) == 0, guide.stderr.read() if guide.stderr else ""
        out, err = server.communicate(timeout=deadline(60))
        assert server.returncode == 0, err
        assert "game over after 6 rounds" in out.splitlines()
    finally:
        server.kill()
