"""Star Lanes: interstellar stock trading after the 1995 C game (rules: spec/starlanes.md)."""

import os

# pygame greets on stdout when imported, which would tear a curses screen or a printed table.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
