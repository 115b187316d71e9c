"""arena: the Right2Live bot game server of freiesMagazin's 2010 contest (spec/arena.md)."""
