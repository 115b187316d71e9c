"""Small motti maps (spec/motti.md §3.2 format) that several test files play on."""

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
