"""common/term.py: whether ``$TERM`` can host a curses screen."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from deadline import deadline


@pytest.mark.parametrize(("term", "said"), [
    ("nosuchterm", "cannot use the terminal: TERM='nosuchterm' is not a terminal type this system knows (set "
                   "TERM, e.g. TERM=xterm)"),
    ("dumb", "cannot use the terminal (TERM='dumb'): it cannot move the cursor (set TERM, e.g. TERM=xterm)"),
    ("", "cannot use the terminal (TERM=''): it cannot move the cursor (set TERM, e.g. TERM=xterm)"),
    ("xterm", "None"),
])
def test_an_unknown_terminal_type_is_told_apart_from_one_that_cannot_move_the_cursor(term, said):
    # curses.setupterm looks a terminal up once per process: each TERM gets a process of its own.
    code = "from common.term import cursor_addressing_refused\nprint(cursor_addressing_refused())"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TERM": term}, capture_output=True,
                          text=True, timeout=deadline(10))
    assert (done.returncode, done.stdout, done.stderr) == (0, said + "\n", "")
