"""arena: the Right2Live bot game server of freiesMagazin's 2010 contest (spec/arena.md)."""

import os
import signal

# pygame greets on stdout when imported, which would tear a curses screen or a printed table.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

STRATEGIES = ("random", "flee", "hunt", "smart")
"""The example bots' strategies (:mod:`arena.bots`); here so that the command line lists them without
importing the bots."""

STOP_SIGNALS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}
"""Signals that end a game or a tournament early, and the reason each gives (``serve``: every bot gets
DISCONNECT, the table so far is printed and written, the map copy removed; ``tournament``: the games under way
are cut short, the standings so far printed; a closed terminal sends SIGHUP to a tournament and its game
processes alike). The exit status is 128 + the signal's number."""

FORK_SERVER_SPARED = {signal.SIGTERM, signal.SIGHUP}
"""Signals a tournament's fork server of example bots never gets (blocked as it starts,
:mod:`arena.tournament`); the bots it forks unblock them (:func:`arena.bots.forked_bot`)."""
