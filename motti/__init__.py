"""GNU motti: territory conquest by encirclement (rules in ``motti.rules``, spec/motti.md)."""

__version__ = "0.1.0"
