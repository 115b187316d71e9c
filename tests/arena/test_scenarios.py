"""The worked scenarios S1–S15 of spec/arena.md §5, with their exact numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.mapfile import arena_from_text
from arena.rules import (
    BLUE,
    CAUGHT,
    ENERGY,
    FORCED,
    RED,
    Game,
    TeamChange,
    format_hundredths,
    format_points,
)
from arena.vision import visible, visible_plain

OPEN_12 = "\n".join(["." * 12] * 12)


def game_on(map_text: str, positions, toxic: str | None = None, quiet_rounds: int = 30) -> Game:
    return Game.with_positions(arena_from_text(map_text, toxic), positions, quiet_rounds=quiet_rounds)


# ------------------------------------------------------------------------- S1
S1_MAP = "#...\n...#\n.#..\n"


@pytest.mark.parametrize(
    ("direction", "legal"),
    [("WEST", True), ("NORTH_WEST", True), ("NORTH", True), ("SOUTH", True), ("NONE", True),
     ("EAST", False), ("NORTH_EAST", False), ("SOUTH_EAST", False), ("SOUTH_WEST", False)],
)
def test_s1_seed_example_legal_moves(direction, legal):
    game = game_on(S1_MAP, [(2, 1)])
    assert game.legal_move(0, direction) is legal


@pytest.mark.parametrize(
    ("direction", "target"),
    [("WEST", (1, 1)), ("NORTH_WEST", (1, 0)), ("NORTH", (2, 0)), ("SOUTH", (2, 2)),
     ("EAST", (2, 1)), ("NORTH_EAST", (2, 1)), ("SOUTH_EAST", (2, 1)), ("SOUTH_WEST", (2, 1))],
)
def test_s1_seed_example_applied(direction, target):
    game = game_on(S1_MAP, [(2, 1)])
    result = game.play_round([(0, direction, "EAST")])
    p = game.players[0]
    assert (p.x, p.y) == target
    assert p.facing == "EAST"
    assert result.refused == ([] if target != (2, 1) else [0])


# ------------------------------------------------------------------------- S2
def test_s2_off_map_refused_and_stay_grows():
    game = game_on("....\n....\n....", [(0, 0)])
    for direction in ("NORTH_WEST", "NORTH", "NORTH_EAST", "WEST", "SOUTH_WEST"):
        assert not game.legal_move(0, direction)
    for k, direction in enumerate(("NORTH_WEST", "NORTH", "NORTH_EAST", "WEST", "SOUTH_WEST"), start=1):
        result = game.play_round([(0, direction, "NORTH")])
        assert result.refused == [0]
        assert (game.players[0].x, game.players[0].y) == (0, 0)
        assert game.players[0].stay == k
    assert game.players[0].energy == 10000 - (1 + 2 + 3 + 4 + 5)


# ------------------------------------------------------------------------- S3
def test_s3_stay_multiplier():
    game = game_on("...", [(0, 0)], toxic=" 2 ")
    p = game.players[0]
    shown = []
    for direction in ("EAST", "NONE", "NONE", "EAST", "WEST"):
        game.play_round([(0, direction, "NORTH")])
        shown.append(format_hundredths(p.energy))
    assert shown == ["99.96", "99.88", "99.76", "99.75", "99.71"]
    assert p.stay == 1


# ------------------------------------------------------------------------- S4
def test_s4_refused_move_counts_as_staying():
    game = game_on("#..", [(1, 0)], toxic=" 2 ")
    p = game.players[0]
    game.play_round([])
    assert (p.stay, p.energy) == (1, 9996)
    result = game.play_round([(0, "WEST", "WEST")])
    assert result.refused == [0]
    assert (p.x, p.y, p.stay, p.energy, p.facing) == (1, 0, 2, 9988, "WEST")


# ------------------------------------------------------------------------- S5
def test_s5_switch_at_exactly_zero():
    game = game_on("...", [(0, 0), (2, 0)], toxic="5 5")
    p = game.players[0]
    p.energy, p.stay = 30, 2
    result = game.play_round([])
    assert p.energy == 0
    assert p.team == RED
    assert result.changes == [TeamChange(0, RED, ENERGY)]


def test_s5_energy_clamps_at_zero_and_switches():
    game = game_on(".....", [(0, 0), (4, 0)], toxic=" 0   ")
    p = game.players[0]
    p.energy = 5
    result = game.play_round([(0, "EAST", "EAST")])
    assert (p.x, p.energy, p.team) == (1, 0, RED)
    assert result.changes == [TeamChange(0, RED, ENERGY)]


# ------------------------------------------------------------------------- S6
@pytest.mark.parametrize(("digit", "last_safe", "lost"), [("0", 31, 9920), (" ", 140, 9870)])
def test_s6_campers(digit, last_safe, lost):
    game = game_on("..", [(0, 0)], toxic=digit + " ", quiet_rounds=500)
    p = game.players[0]
    for _ in range(last_safe):
        game.play_round([])
    assert (p.team, 10000 - p.energy) == (BLUE, lost)
    result = game.play_round([])
    assert game.round == last_safe + 1
    assert result.changes == [TeamChange(0, RED, ENERGY)]
    assert p.energy == 0


def test_s6_sum_on_001_reaches_100_11():
    assert sum(range(1, 142)) == 10011


# ------------------------------------------------------------------------- S7
def test_s7_red_at_zero_keeps_playing():
    game = game_on("....", [(0, 0), (3, 0)], toxic="0   ")
    red = game.players[0]
    red.team, red.energy = RED, 15
    result = game.play_round([])
    assert (red.energy, red.team) == (0, RED)
    assert result.changes == []
    result = game.play_round([(0, "EAST", "EAST")])
    assert (red.x, red.energy, red.team) == (1, 0, RED)
    assert result.changes == []


# ------------------------------------------------------------------------- S8
def test_s8_contested_cell_arrival_order_not_id():
    game = game_on(OPEN_12, [(4, 5), (6, 5)])
    a, b = game.players
    game.play_round([])
    result = game.play_round([(1, "WEST", "WEST"), (0, "EAST", "SOUTH")])
    assert (b.x, b.y) == (5, 5)
    assert (a.x, a.y, a.facing, a.stay) == (4, 5, "SOUTH", 2)
    assert result.refused == [0]
    assert result.moved == [1]


# ------------------------------------------------------------------------- S9
def test_s9_chain_b_first_both_move():
    game = game_on(OPEN_12, [(1, 1), (2, 1)])
    game.play_round([(1, "EAST", "EAST"), (0, "EAST", "EAST")])
    assert [(p.x, p.y) for p in game.players] == [(2, 1), (3, 1)]


def test_s9_chain_a_first_a_refused():
    game = game_on(OPEN_12, [(1, 1), (2, 1)])
    result = game.play_round([(0, "EAST", "EAST"), (1, "EAST", "EAST")])
    assert [(p.x, p.y) for p in game.players] == [(1, 1), (3, 1)]
    assert result.refused == [0]


@pytest.mark.parametrize("first", [0, 1])
def test_s9_swap_always_fails(first):
    game = game_on(OPEN_12, [(1, 1), (2, 1)])
    moves = [(0, "EAST", "EAST"), (1, "WEST", "WEST")]
    if first == 1:
        moves.reverse()
    game.play_round(moves)
    assert [(p.x, p.y) for p in game.players] == [(1, 1), (2, 1)]


# ------------------------------------------------------------------------ S10
def test_s10_players_do_not_block_diagonal_corners():
    game = game_on(OPEN_12, [(2, 2), (3, 2), (2, 1)])
    assert game.legal_move(0, "NORTH_EAST")
    game.play_round([(0, "NORTH_EAST", "NORTH")])
    assert (game.players[0].x, game.players[0].y) == (3, 1)


# ------------------------------------------------------------------------ S11
def _walls(*cells, size=10) -> str:
    rows = [["."] * size for _ in range(size)]
    for x, y in cells:
        rows[y][x] = "#"
    return "\n".join("".join(r) for r in rows)


@pytest.mark.parametrize(
    ("blue", "walls", "extra", "caught"),
    [((5, 4), (), (), True),
     ((3, 3), ((4, 3),), (), True),
     ((3, 3), ((4, 3), (3, 4)), (), False),
     ((3, 3), ((4, 3),), ((3, 4),), False),
     ((6, 4), (), (), False)],
)
def test_s11_catching(blue, walls, extra, caught):
    game = game_on(_walls(*walls), [(4, 4), blue, *extra])
    game.players[0].team = RED
    result = game.play_round([])
    caught_ids = [b for b, _ in result.catches]
    assert (1 in caught_ids) is caught
    assert game.players[1].team == (RED if caught else BLUE)


# ------------------------------------------------------------------------ S12
def test_s12_simultaneous_catch():
    # P0 between reds P2 and P4; P1 beside P0, shielded from the reds by walls (6,6)/(4,6) and P0 itself.
    game = game_on(_walls((4, 6), (6, 6), size=12), [(5, 5), (5, 6), (4, 5), (0, 0), (6, 5), (11, 11)])
    for pid in (2, 4):
        game.players[pid].team = RED
    game.round = 54
    assert game.max_rounds == 180
    result = game.play_round([])
    assert result.round == 55
    assert result.catches == [(0, (2, 4))]
    assert game.players[2].points == Fraction(125, 8) == game.players[4].points
    assert format_points(game.players[2].points) == "15.63"
    assert format_points(game.players[0].points) == "11.00"
    assert result.changes == [TeamChange(0, RED, CAUGHT)]
    assert game.players[1].team == BLUE  # P0 was blue in the round-55 snapshot: no chain reaction
    result = game.play_round([])
    assert result.catches == [(1, (0,))]
    assert game.players[0].points == Fraction(55 * 2, 10) + Fraction(180 - 56, 3)
    assert game.players[1].points == Fraction(56 * 3, 10)


# ------------------------------------------------------------------------ S13
def test_s13_forced_switch_and_scoring_run():
    toxic = "\n".join(["  2  ", "     ", "     "])
    board = "\n".join(["." * 9] * 3)
    game = game_on(board, [(0, 2), (8, 2), (2, 0), (8, 0), (4, 0), (0, 0)], toxic=toxic)
    assert game.max_rounds == 180
    for r in range(1, 30):
        result = game.play_round([])
        assert result.changes == []
        assert game.quiet == r
    result = game.play_round([])
    assert result.changes == [TeamChange(2, RED, FORCED)]
    assert result.awarded == {2: Fraction(0)}
    assert game.quiet == 0
    for _ in range(31, 41):
        game.play_round([])
    assert game.quiet == 10
    result = game.play_round([(2, "EAST", "EAST")])
    assert result.catches == [(4, (2,))]
    assert format_points(game.players[2].points) == "27.80"
    assert format_points(game.players[4].points) == "4.10"
    assert game.players[2].points == Fraction(139, 5)
    assert game.quiet == 0


def test_s13_forced_tie_goes_to_lowest_id():
    game = game_on("." * 9, [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)], quiet_rounds=3)
    for _ in range(2):
        assert game.play_round([]).changes == []
    assert game.play_round([]).changes == [TeamChange(0, RED, FORCED)]


# ------------------------------------------------------------------------ S14
def test_s14_energy_beats_catch():
    game = game_on(OPEN_12, [(1, 1), (2, 1), (8, 8), (10, 10)])
    x, red = game.players[0], game.players[1]
    red.team = RED
    x.energy = 1
    game.round = 9
    result = game.play_round([])
    assert result.changes == [TeamChange(0, RED, ENERGY)]
    assert result.catches == []
    assert red.points == 0
    assert x.points == Fraction(10 * 1, 10)


# ------------------------------------------------------------------------ S15
def _viewer_board(target, walls=(), others=()):
    game = game_on(_walls(*walls, size=12), [(5, 5), target, *others])
    game.players[0].team = RED
    return game


@pytest.mark.parametrize(("target", "walls", "seen"), [
    ((5, 2), (), True),
    ((5, 7), (), False),
    ((7, 5), (), True),
    ((7, 5), ((6, 5),), False),
])
def test_s15_vision(target, walls, seen):
    game = _viewer_board(target, walls)
    assert (1 in visible(game.arena, game.players, 0)) is seen
    assert (1 in visible_plain(game.arena, game.players, 0)) is seen


@pytest.mark.parametrize("team", [BLUE, RED])
def test_s15_any_player_in_between_hides(team):
    game = _viewer_board((5, 2), others=[(5, 3)])
    game.players[2].team = team
    assert 1 not in visible(game.arena, game.players, 0)
    assert 1 not in visible_plain(game.arena, game.players, 0)


# ----------------------------------------------------------- refusal reasons (per-bot diagnostics)
@pytest.mark.parametrize(
    ("direction", "reason"),
    [("EAST", "wall"), ("SOUTH_WEST", "wall"), ("NORTH_EAST", "corner"), ("SOUTH_EAST", "corner"),
     ("NORTH", "player"), ("WEST", None)],
)
def test_s1_refusal_reasons(direction, reason):
    game = game_on(S1_MAP, [(2, 1), (2, 0)])
    result = game.play_round([(0, direction, "EAST")])
    assert result.reasons == ({} if reason is None else {0: reason})
    assert result.refused == ([] if reason is None else [0])
