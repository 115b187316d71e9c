"""A command in a real terminal: a detached tmux session on a server of its own, keys sent with ``send-keys``
and the screen read with ``capture-pane`` (the Star Lanes terminal tests)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from deadline import deadline

COMMAND_S = deadline(7)
"""How long one tmux command may take."""
SCREEN_S = deadline(20)
"""How long a program may take to show what is waited for."""


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'"


class Pane:
    """*command* in a detached tmux session of *cols* x *rows* started in *cwd*, kept on screen after it exits
    (``remain-on-exit``); its exit status is written to :attr:`rc` (``cwd/rc``)."""

    def __init__(self, command: list[str], cwd: Path, rows: int = 24, cols: int = 80) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed (Debian package tmux)")
        self.socket = f"pane-{uuid.uuid4().hex[:12]}"
        config = cwd / "tmux.conf"
        config.write_text("set -g remain-on-exit on\nset -g status off\n"
                          "set -g default-terminal tmux-256color\n")
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "LINES", "COLUMNS")}
        shell = " ".join(_quote(part) for part in command) + "; echo $? > rc"
        subprocess.run(["tmux", "-L", self.socket, "-f", str(config), "new-session", "-d", "-x", str(cols),
                        "-y", str(rows), "-c", str(cwd), "sh", "-c", shell], check=True, env=env,
                       timeout=COMMAND_S)
        self.rc = cwd / "rc"

    def text(self, joined: bool = False) -> str:
        """The screen, row by row (*joined*: the lines the terminal wrapped joined again, as printed)."""
        command = ["tmux", "-L", self.socket, "capture-pane", "-p", *(["-J"] if joined else [])]
        return subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_S, check=True).stdout

    def lines(self) -> list[str]:
        return self.text().split("\n")

    def send(self, *keys: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "send-keys", *keys], check=True, timeout=COMMAND_S)

    def wait_for(self, pattern: str, within: float = SCREEN_S) -> str:
        """The screen once it matches the regular expression *pattern*; AssertionError with the screen when it
        does not within *within* seconds."""
        end = time.monotonic() + within
        while True:
            text = self.text()
            if re.search(pattern, text):
                return text
            if time.monotonic() > end:
                raise AssertionError(f"{pattern!r} never appeared; screen:\n{text}")
            time.sleep(0.03)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=COMMAND_S)
