"""GNU motti: territory conquest by encirclement (rules in ``motti.rules``, spec/motti.md)."""
