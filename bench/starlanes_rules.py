"""Star Lanes rules engine speed through the one game interface: random 4-player games under each rule set.

The playouts are bench/selfplay.py's (uniformly random legal actions from ``common.game.load("starlanes")``):
under the 1995 rules a random player trades a great deal (every amount is one action), so a game takes tens of
thousands of actions; a 1977 game ends after 48 moves. Printed, never asserted: actions per second, actions
per game and the cost of a clone, per rule set.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selfplay import measure

GAMES = 10


def main() -> int:
    for rules in ("1995", "1977"):
        measure("starlanes", GAMES, 1, {"players": 4, "rules": rules})
    return 0


if __name__ == "__main__":
    sys.exit(main())
