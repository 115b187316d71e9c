"""Small motti maps (spec/motti.md §3.2 format) that several test files play on, and games built from the
grid notation of spec §9 with scripted attack draws."""

from __future__ import annotations

import random

from motti.compose import Composer
from motti.mapfile import dump_map, parse_map
from motti.rules import Board, Game

#: Two players face to face, 10x6; player 1's capital at (1,1), player 2's at (8,4).
TWO = """\
motti-map 1
size 10 6
players 2
capital 1 1 1
capital 2 8 4
grid
aaaaabbbbb
aaaaabbbbb
aaaaabbbbb
aaaaabbbbb
aaaaabbbbb
..aaabbb..
"""

#: Three players in a row, 9x3; capitals at (1,1), (4,1) and (7,1).
THREE = """\
motti-map 1
size 9 3
players 3
capital 1 1 1
capital 2 4 1
capital 3 7 1
grid
aaabbbccc
aaabbbccc
aaabbbccc
"""

#: Spec §9 T13: player 1's wall next to player 2's free capital (3,1), 6x3.
T13 = """\
motti-map 1
size 6 3
players 2
capital 1 0 0
capital 2 3 1
grid
aaAbbb
aaAbbb
aaAbbb
"""

#: An endgame: player 2's capital (5,1) is occupied, safe until the next reset; player 1's occupied cell
#: (4,0) touches it (a threat); player 1's capital (1,1) is free, open. 10x4.
ENDGAME = """\
motti-map 1
size 10 4
players 2
capital 1 1 1
capital 2 5 1
grid
aaaAAbbbbb
aaaABBbbbb
aaaABbbbbb
aaaAABbbbb
"""


class Scripted(random.Random):
    """A Random whose randrange(6) returns the scripted draws in order (and fails the test on any other use).
    """

    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def randrange(self, *args, **kwargs):  # type: ignore[override]
        assert args == (6,) and not kwargs, f"unexpected randrange{args}"
        assert self.draws, "no scripted draw left"
        return self.draws.pop(0)


def board(grid: str, caps: dict[int, tuple[int, int]]) -> Board:
    """A board in the map grid notation of §3.2: rows separated by '/' or newlines."""
    rows = grid.replace("/", "\n").split()
    lines = ["motti-map 1", f"size {len(rows[0])} {len(rows)}", f"players {max(caps)}"]
    lines += [f"capital {k} {x} {y}" for k, (x, y) in sorted(caps.items())]
    return parse_map("\n".join([*lines, "grid", *rows]) + "\n", "<test>").board


def grid(b: Board) -> str:
    return "/".join(dump_map(b).split("grid\n", 1)[1].split())


def game(grid_text: str, caps: dict[int, tuple[int, int]], draws=(), **kwargs) -> Composer:
    """A game on *grid_text* with the scripted attack *draws*, composed as the front ends compose it."""
    return Composer(Game(board(grid_text, caps), Scripted(list(draws)), **kwargs))
