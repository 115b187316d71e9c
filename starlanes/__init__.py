"""Star Lanes: interstellar stock trading after the 1995 C game (rules: spec/starlanes.md)."""
