"""arena: the Right2Live bot game server of freiesMagazin's 2010 contest (spec/arena.md)."""

import os

# pygame greets on stdout when imported, which would tear a curses screen or a printed table.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

STRATEGIES = ("random", "flee", "hunt", "smart")
"""The example bots' strategies (:mod:`arena.bots`); here so that the command line lists them without
importing the bots."""
