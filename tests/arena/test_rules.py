"""arena rules beyond the worked scenarios: placement, validation, scoring details, cap, snapshots."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from arena.mapfile import arena_from_text
from arena.rules import (
    BLUE,
    CAP,
    CAUGHT,
    DIRECTIONS,
    ENERGY,
    FORCED,
    MOVES,
    RED,
    START_ENERGY,
    VECTORS,
    Game,
    TeamChange,
    format_hundredths,
    format_points,
)

OPEN = "\n".join(["." * 10] * 10)


def game_on(map_text, positions, toxic=None, quiet_rounds=30):
    return Game.with_positions(arena_from_text(map_text, toxic), positions, quiet_rounds=quiet_rounds)


def test_directions_and_vectors():
    assert DIRECTIONS == ("NORTH", "NORTH_EAST", "EAST", "SOUTH_EAST", "SOUTH", "SOUTH_WEST", "WEST",
                          "NORTH_WEST")
    assert VECTORS["NORTH_EAST"] == (1, -1)
    assert VECTORS["SOUTH_WEST"] == (-1, 1)
    x, y = 3, 8
    dx, dy = VECTORS["NORTH_EAST"]
    assert (x + dx, y + dy) == (4, 7)
    assert "NONE" in MOVES and "NONE" not in VECTORS


@pytest.mark.parametrize(("value", "text"), [(9873, "98.73"), (5, "0.05"), (0, "0.00"), (10000, "100.00"),
                                         (-7, "-0.07")])
def test_format_hundredths(value, text):
    assert format_hundredths(value) == text


@pytest.mark.parametrize(("value", "text"), [(Fraction(125, 8), "15.63"), (Fraction(1, 200), "0.01"),
                                         (Fraction(1, 3), "0.33"), (Fraction(2, 3), "0.67"),
                                         (Fraction(427, 9), "47.44"), (Fraction(0), "0.00"),
                                         (Fraction(139, 5), "27.80"), (Fraction(-1, 200), "-0.01")])
def test_format_points_half_up(value, text):
    assert format_points(value) == text


def test_setup_distinct_free_cells_facing_north_and_seeded():
    arena = arena_from_text("#...#\n.#.#.\n.....")
    a = Game(arena, 5, random.Random(7))
    b = Game(arena, 5, random.Random(7))
    cells = [(p.x, p.y) for p in a.players]
    assert cells == [(p.x, p.y) for p in b.players]
    assert len(set(cells)) == 5
    assert all(arena.is_free(x, y) for x, y in cells)
    assert all(p.facing == "NORTH" and p.team == BLUE and p.energy == START_ENERGY and p.stay == 0
               for p in a.players)
    assert a.round == 0 and a.quiet == 0 and a.max_rounds == 5 * 30
    others = {tuple((p.x, p.y) for p in Game(arena, 5, random.Random(s)).players) for s in range(20)}
    assert len(others) > 1


def test_setup_errors():
    arena = arena_from_text("#.#")
    with pytest.raises(ValueError, match="too few for 2 players"):
        Game(arena, 2, random.Random(1))
    with pytest.raises(ValueError, match="at least one player"):
        Game(arena, 0, random.Random(1))
    with pytest.raises(ValueError, match=r"^\(0,0\) is not a free cell"):
        Game.with_positions(arena, [(0, 0)])


@pytest.mark.parametrize("move", [(5, "NORTH", "NORTH"), (0, "UP", "NORTH"), (0, "NORTH", "NONE"),
                                  (0, "NORTH", "NNE")])
def test_bad_moves_raise(move):
    game = game_on(OPEN, [(1, 1), (5, 5)])
    with pytest.raises(ValueError, match=r"^unknown "):
        game.play_round([move])


def test_second_move_of_one_player_raises():
    game = game_on(OPEN, [(1, 1), (5, 5)])
    with pytest.raises(ValueError, match=r"^second move of player 0"):
        game.play_round([(0, "EAST", "EAST"), (0, "WEST", "WEST")])


def test_absent_players_keep_facing_and_move_after_received():
    game = game_on(OPEN, [(1, 1), (3, 1)])
    game.players[0].facing = "WEST"
    game.play_round([(1, "WEST", "SOUTH")])
    assert game.players[0].facing == "WEST"
    assert (game.players[1].x, game.players[1].facing) == (2, "SOUTH")


def test_move_into_cell_vacated_earlier_but_not_later():
    game = game_on(OPEN, [(1, 1), (2, 1), (3, 1)])
    game.play_round([(2, "EAST", "EAST"), (1, "EAST", "EAST"), (0, "EAST", "EAST")])
    assert [p.x for p in game.players] == [2, 3, 4]
    game.play_round([(0, "EAST", "EAST"), (1, "EAST", "EAST"), (2, "EAST", "EAST")])
    assert [p.x for p in game.players] == [2, 3, 5]


def test_diagonal_needs_both_corners_on_map():
    game = game_on("..\n..", [(1, 1)])
    assert game.legal_move(0, "NORTH_WEST")
    assert not game.legal_move(0, "NORTH_EAST")
    game2 = game_on(".#\n..", [(0, 1)])
    assert not game2.legal_move(0, "NORTH_EAST")
    assert game2.legal_move(0, "NORTH")


def test_energy_red_catches_in_same_round():
    game = game_on(OPEN, [(1, 1), (2, 1), (8, 8)])
    game.players[0].energy = 1
    result = game.play_round([])
    assert result.changes == [TeamChange(0, RED, ENERGY), TeamChange(1, RED, CAUGHT)]
    assert result.catches == [(1, (0,))]
    # B = 2 blues at the start of phase 4; MAXR = 90
    assert game.players[0].points == Fraction(0) + Fraction(90 - 1, 2)
    assert game.players[1].points == Fraction(1 * 1, 10)


def test_blue_points_exclude_same_phase_switchers():
    game = game_on(OPEN, [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)])
    game.players[4].team = RED
    game.players[0].energy = game.players[1].energy = 1
    game.round = 19
    result = game.play_round([])
    assert [c.id for c in result.changes] == [0, 1]
    assert game.players[0].points == Fraction(20 * 1, 10) == game.players[1].points


def test_one_blue_caught_by_several_and_several_blues():
    game = game_on(OPEN, [(1, 1), (2, 1), (3, 1), (7, 7), (9, 9)])
    game.players[0].team = RED
    game.players[2].team = RED
    result = game.play_round([])
    assert result.catches == [(1, (0, 2))]
    # B = 3 (1, 3, 4), RF = 2, MAXR = 150
    assert game.players[0].points == Fraction(149, 6) == game.players[2].points
    assert game.players[0].catches == 1 == game.players[2].catches


def test_forced_picks_lowest_energy_and_resets_quiet():
    game = game_on(OPEN, [(0, 0), (3, 0), (6, 0), (9, 0)], quiet_rounds=2)
    game.players[3].energy = 9000
    game.players[1].energy = 8000
    assert game.play_round([]).changes == []
    result = game.play_round([])
    assert result.changes == [TeamChange(1, RED, FORCED)]
    assert game.quiet == 0


def test_cap_switches_remaining_blues():
    game = game_on(OPEN, [(0, 0), (3, 0), (6, 0), (9, 9)], quiet_rounds=5)
    game.players[3].team = RED
    game.round = game.max_rounds - 1
    result = game.play_round([])
    assert result.round == 20
    assert [(c.id, c.cause) for c in result.changes] == [(0, CAP), (1, CAP), (2, CAP)]
    assert all(game.players[i].points == Fraction(20 * 1, 10) for i in range(3))
    assert result.over and game.is_over()
    with pytest.raises(ValueError, match=r"^the game is over$"):
        game.play_round([])


def test_standings_share_places():
    game = game_on(OPEN, [(0, 0), (3, 0), (6, 0), (9, 0)])
    for pid, pts in enumerate([Fraction(5), Fraction(7), Fraction(5), Fraction(1, 3)]):
        game.players[pid].points = pts
    assert game.standings() == [(1, 1, Fraction(7)), (2, 0, Fraction(5)), (2, 2, Fraction(5)),
                                (4, 3, Fraction(1, 3))]


def _random_moves(game, rng):
    moves = [(p.id, rng.choice(MOVES), rng.choice(DIRECTIONS)) for p in game.players if rng.random() < 0.9]
    rng.shuffle(moves)
    return moves


@pytest.mark.parametrize("seed", range(6))
def test_random_games_end_by_maxr_with_invariants(seed):
    rng = random.Random(seed)
    arena = arena_from_text("#....#...\n..##.....\n.....#.#.\n.#.......\n...##..#.", " 5 0 9\n  3  0")
    game = Game(arena, rng.randint(2, 8), rng, quiet_rounds=rng.randint(1, 6))
    changed = 0
    while not game.is_over():
        result = game.play_round(_random_moves(game, rng))
        changed += len(result.changes)
        cells = [(p.x, p.y) for p in game.players]
        assert len(set(cells)) == len(cells)
        assert all(arena.is_free(x, y) for x, y in cells)
        assert all(p.energy >= 0 for p in game.players)
        assert game.round <= game.max_rounds
    assert changed == len(game.players)
    assert all(p.team == RED and p.switch_round is not None for p in game.players)


def test_snapshot_is_json_and_resumes_identically():
    rng = random.Random(3)
    arena = arena_from_text(OPEN, "12345\n67890")
    game = Game(arena, 6, rng, quiet_rounds=4)
    for _ in range(7):
        game.play_round(_random_moves(game, rng))
    data = json.loads(json.dumps(game.snapshot()))
    copy = Game.from_snapshot(arena, data)
    assert copy.snapshot() == game.snapshot()
    while not game.is_over():
        moves = _random_moves(game, rng)
        assert copy.play_round(moves) == game.play_round(moves)
    assert copy.snapshot() == game.snapshot()
    assert all(isinstance(p["points"], str) and "/" in p["points"] for p in data["players"])


def test_caught_player_keeps_energy_and_silent_players_still_count():
    game = game_on(OPEN, [(1, 1), (2, 1), (8, 8)], toxic="\n 2")
    game.players[0].team = RED
    game.players[1].energy = 4321
    result = game.play_round([])
    assert result.catches == [(1, (0,))]
    assert game.players[1].energy == 4321 - 1
    assert game.players[0].energy == START_ENERGY - 4


def test_with_positions_rejects_shared_cells():
    with pytest.raises(ValueError, match="distinct cells"):
        game_on(OPEN, [(1, 1), (1, 1)])
