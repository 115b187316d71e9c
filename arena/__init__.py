"""arena: the Right2Live bot game server of freiesMagazin's 2010 contest (spec/arena.md)."""

STRATEGIES = ("random", "flee", "hunt")
"""The example bots' strategies (:mod:`arena.bots`); here so that the command line lists them without
importing the bots."""
