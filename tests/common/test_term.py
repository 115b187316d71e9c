"""common/term.py: whether ``$TERM`` can host a curses screen."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from deadline import deadline

from common.term import clip, text_width


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


@pytest.mark.parametrize(("text", "columns"), [
    ("abc", 3), ("東京", 4), ("café", 4), ("cafe\u0301", 4),
    ("สวัสดี", 4),  # two of the six are Thai marks (vowel and tone) with no column of their own
    ("\u2764\ufe0fbot", 4),  # a variation selector takes none
    ("a\u200db", 2),  # nor a zero-width joiner
])
def test_text_width_counts_the_columns_a_terminal_gives(text, columns):
    # Thai marks and variation selectors, whose combining class is 0, were counted a column each
    assert text_width(text) == columns
    assert clip(text + "x", columns) == text
