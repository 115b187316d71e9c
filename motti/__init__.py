"""GNU motti: territory conquest by encirclement (rules in ``motti.rules``, spec/motti.md)."""

import os

# pygame greets on stdout when imported, which would tear a curses screen or a printed table.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
