"""arena vision (spec/arena.md §2.7): cone, blockers, diagonal cracks; vectorised vs plain reference."""

from __future__ import annotations

import math
import random
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena import vision
from arena.mapfile import arena_from_text, find_map, load_arena
from arena.rules import BLUE, DIRECTIONS, RED, VECTORS, Arena, Player
from arena.vision import in_cone, tan_cone, visibility, visible, visible_plain


def board(size, walls=()):
    rows = [["."] * size for _ in range(size)]
    for x, y in walls:
        rows[y][x] = "#"
    return arena_from_text("\n".join("".join(r) for r in rows))


def both(arena, players, viewer):
    fast = visible(arena, players, viewer)
    assert fast == visible_plain(arena, players, viewer)
    return fast


def test_tan_cone_value():
    assert float(tan_cone()) == pytest.approx(math.tan(math.radians(89.5)), rel=1e-12)


@pytest.mark.parametrize(("facing", "v", "inside"), [
    ("NORTH", (114, -1), True), ("NORTH", (115, -1), False), ("NORTH", (-114, -1), True),
    ("NORTH", (1, 0), False), ("NORTH", (0, 1), False), ("NORTH", (3, -1), True),
    ("EAST", (1, 114), True), ("EAST", (1, -115), False),
    # facing (1, 1): dot = vx + vy, cross = vy - vx; tan = |cross| / dot
    ("SOUTH_EAST", (-56, 58), True), ("SOUTH_EAST", (-57, 59), True), ("SOUTH_EAST", (-58, 59), False),
    ("NORTH_WEST", (57, -59), True), ("NORTH_WEST", (1, 1), False),
])
def test_cone_boundary(facing, v, inside):
    assert in_cone(facing, *v) is inside


def test_cone_angle_agrees_with_floats_far_from_the_edge():
    rng = random.Random(1)
    for _ in range(2000):
        facing = rng.choice(DIRECTIONS)
        vx, vy = rng.randint(-300, 300), rng.randint(-300, 300)
        if (vx, vy) == (0, 0):
            continue
        fx, fy = VECTORS[facing]
        angle = math.degrees(math.atan2(abs(fx * vy - fy * vx), fx * vx + fy * vy))
        if abs(angle - 89.5) > 1e-6:
            assert in_cone(facing, vx, vy) is (angle <= 89.5)


def test_team_mates_never_listed_and_teams_see_each_other():
    arena = board(8)
    players = [Player(0, 3, 5, "NORTH", RED), Player(1, 3, 2, "NORTH", RED), Player(2, 5, 1, "SOUTH", BLUE)]
    result = visibility(arena, players)
    assert result == {0: {2}, 1: {2}, 2: {0, 1}}
    players[1].team = BLUE
    assert visibility(arena, players)[0] == {1, 2}


def test_diagonal_crack_blocks_only_when_both_sides_block():
    players = [Player(0, 0, 0, "SOUTH_EAST", RED), Player(1, 2, 2, "NORTH", BLUE)]
    assert both(board(5, [(1, 0), (0, 1)]), players, 0) == set()
    assert both(board(5, [(1, 0)]), players, 0) == {1}
    assert both(board(5, [(0, 1)]), players, 0) == {1}
    # a player on one side and a wall on the other seal the crack as well
    players.append(Player(2, 0, 1, "NORTH", BLUE))
    assert both(board(5, [(1, 0)]), players, 0) == {2}


def test_line_through_wall_interior_blocks_but_touching_a_corner_does_not():
    # viewer (0,0) facing EAST; target (3,1). Wall (2,0): the lines to corners (6,2),(8,2) and (6,4),(8,4)
    arena = board(6, [(2, 0)])
    players = [Player(0, 0, 0, "EAST", RED), Player(1, 3, 1, "NORTH", BLUE)]
    # the line (1,1)->(6,4) runs below (2,0)'s interior: at x=4, y=2.8 (doubled); visible
    assert both(arena, players, 0) == {1}
    arena = board(6, [(2, 0), (2, 1), (1, 1)])
    assert both(arena, players, 0) == set()


def test_target_and_viewer_cells_are_no_blockers_but_third_players_are():
    arena = board(10)
    viewer = Player(0, 1, 5, "EAST", RED)
    target = Player(1, 4, 5, "WEST", BLUE)
    assert both(arena, [viewer, target], 0) == {1}
    wall_of_players = [Player(2 + k, 2, 3 + k, "NORTH", RED) for k in range(5)]
    assert both(arena, [viewer, target, *wall_of_players], 0) == set()
    gap = wall_of_players[:2] + wall_of_players[3:]
    assert both(arena, [viewer, target, *gap], 0) == {1}
    arena_wall = board(10, [(2, 5)])
    assert both(arena_wall, [viewer, target], 0) == set()


def test_unlimited_range():
    arena = board(40)
    players = [Player(0, 0, 39, "NORTH_EAST", RED), Player(1, 39, 0, "NORTH", BLUE)]
    assert both(arena, players, 0) == {1}


def _random_case(rng):
    w, h = rng.randint(2, 16), rng.randint(2, 16)
    density = rng.choice([0.0, 0.1, 0.25, 0.45])
    walls = np.array([[rng.random() < density for _ in range(w)] for _ in range(h)], dtype=bool)
    free = [(x, y) for y in range(h) for x in range(w) if not walls[y, x]]
    if len(free) < 2:
        return None
    n = min(len(free), rng.randint(2, 16))
    players = [Player(i, x, y, rng.choice(DIRECTIONS), rng.choice([RED, BLUE]))
               for i, (x, y) in enumerate(rng.sample(free, n))]
    return Arena(walls, np.ones((h, w), dtype=np.int16)), players


@pytest.mark.slow
def test_vectorised_agrees_with_plain_on_random_boards():
    rng = random.Random(2010)
    cases = 0
    seen_total = 0
    while cases < 400:
        case = _random_case(rng)
        if case is None:
            continue
        arena, players = case
        fast = visibility(arena, players)
        for p in players:
            assert fast[p.id] == visible_plain(arena, players, p.id)
            seen_total += len(fast[p.id])
        cases += 1
    assert seen_total > 500


def test_vectorised_agrees_with_plain_on_the_big_map():
    arena = load_arena(find_map("metropolis"))
    free = arena.free_cells()
    rng = random.Random(5)
    for _ in range(3):
        players = [Player(i, x, y, rng.choice(DIRECTIONS), RED if i % 3 == 0 else BLUE)
                   for i, (x, y) in enumerate(rng.sample(free, 16))]
        fast = visibility(arena, players)
        for p in players:
            assert fast[p.id] == visible_plain(arena, players, p.id)


@st.composite
def _boards(draw):
    """A small board (walls anywhere, often in diagonal pairs that make cracks) and 2..10 players on it."""
    w, h = draw(st.integers(2, 11)), draw(st.integers(2, 11))
    walls = np.array(draw(st.lists(st.lists(st.booleans(), min_size=w, max_size=w), min_size=h, max_size=h)),
                     dtype=bool).reshape(h, w)
    free = [(x, y) for y in range(h) for x in range(w) if not walls[y, x]]
    assume(len(free) >= 2)
    cells = draw(st.lists(st.sampled_from(free), min_size=2, max_size=min(10, len(free)), unique=True))
    players = [Player(i, x, y, draw(st.sampled_from(DIRECTIONS)), draw(st.sampled_from([RED, BLUE])))
               for i, (x, y) in enumerate(cells)]
    return Arena(walls, np.ones((h, w), dtype=np.int16)), players


@settings(max_examples=300, deadline=None)
@given(_boards())
def test_vectorised_agrees_with_plain_hypothesis(case):
    """Both ways of following the segments: the ray table (maps up to _TABLE_SIDE, as these) and the
    column walk (bigger maps, here forced)."""
    arena, players = case
    plain = {p.id: visible_plain(arena, players, p.id) for p in players}
    assert visibility(arena, players) == plain
    with mock.patch.object(vision, "_TABLE_SIDE", 0):
        assert visibility(arena, players) == plain
