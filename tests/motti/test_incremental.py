"""The rules' shortcuts give exactly the from-scratch results (spec/motti.md §2.4–§2.8).

The engine decides most actions from the cells around the change (no new pocket, §2.5) and keeps the count of
§2.8 up to date cell by cell. A second game plays the same actions with both shortcuts off — the whole board
labelled for pockets and the count taken over the whole board at every action — and must give the same events,
boards and counts, under both reset rules, on generated maps and on random maps with sea and islands.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from motti.generate import generate
from motti.rules import Board, Encircled, Game, _takeable_bits, count_takeable


def island_board(seed: int, width: int, height: int, players: int, sea: float, occupied: float) -> Board:
    """Nearest-capital territories with random sea (islands and straits) and some land already occupied."""
    gen = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:height, 0:width]
    cells = gen.choice(width * height, size=players, replace=False)
    caps = {p: (int(c % width), int(c // width)) for p, c in enumerate(cells, start=1)}
    d2 = np.stack([(xs - x) ** 2 + (ys - y) ** 2 for x, y in caps.values()])
    owner = (np.argmin(d2, axis=0) + 1).astype(np.int8)
    land = gen.random((height, width)) >= sea
    for x, y in caps.values():
        land[y, x] = True
    owner[~land] = 0
    taken = land & (gen.random((height, width)) < occupied)
    return Board(land, owner, taken, caps, players)


def random_action(game: Game, play: random.Random) -> tuple[object, ...]:
    """Mostly attacks with 1..6 random crosses (as searches play them), sometimes anything legal."""
    options = game.legal_actions()
    attacks = [a[1][0] for a in options if a[0] == "attack"]
    if attacks and play.random() < 0.7:
        return ("attack", tuple(play.sample(attacks, min(len(attacks), play.randint(1, 6)))))
    return play.choice(options)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), reset_rule=st.sampled_from(["strict", "empty"]),
       capital_rule=st.sampled_from(["v3", "v2"]), tie_rule=st.sampled_from(["mover", "lowest"]),
       players=st.integers(2, 4), islands=st.booleans(), width=st.integers(6, 26),
       height=st.integers(5, 18))
def test_shortcuts_equal_a_from_scratch_recomputation(seed, reset_rule, capital_rule, tie_rule, players,
                                                       islands, width, height):
    play = random.Random(seed)
    if islands:
        board = island_board(seed, width, height, players, sea=play.uniform(0.0, 0.35),
                             occupied=play.uniform(0.0, 0.6))
    else:
        try:
            board = generate(max(width, 12), max(height, 10), players, random.Random(seed))
        except ValueError:
            return
    rules = {"reset_rule": reset_rule, "capital_rule": capital_rule, "tie_rule": tie_rule}
    fast = Game(board.copy(), random.Random(seed), **rules)
    slow = Game(board.copy(), random.Random(seed), **rules)
    for _ in range(160):
        if fast.is_terminal():
            break
        action = random_action(fast, play)
        slow._whole_board = True    # label the whole board for pockets
        slow._tracker = None        # count §2.8 over the whole board
        events = fast.apply(action)
        assert slow.apply(action) == events, action
        assert (fast.board.owner == slow.board.owner).all()
        assert (fast.board.occupied == slow.board.occupied).all()
        assert fast.board.capitals == slow.board.capitals
        assert fast.takeable == slow.takeable and fast.end == slow.end
        assert (fast.holding() == slow.holding()).all(), action
        assert (slow.holding() == fast.rules.reset.holding(slow.board)).all()
        if reset_rule == "strict":
            b = fast.board
            assert (fast._tracker.bits == _takeable_bits(b.land, b.owner, b.occupied)).all(), action
            assert fast._tracker.count() == count_takeable(b)
    assert fast.is_terminal() == slow.is_terminal()


def test_a_clone_and_its_original_draw_the_same_numbers_whoever_draws_first():
    game = Game(generate(20, 15, 2, random.Random(3)), random.Random(3))
    twin = game.clone()
    first = [game.rng.randrange(6) for _ in range(20)]
    assert [twin.rng.randrange(6) for _ in range(20)] == first
    again = twin.clone()
    assert [again.rng.randrange(6) for _ in range(20)] == [twin.rng.randrange(6) for _ in range(20)]
    assert again.rng is not twin.rng and twin.rng is not game.rng


def test_a_clone_given_its_own_generator_leaves_the_original_alone():
    game = Game(generate(20, 15, 2, random.Random(4)), random.Random(4))
    state = game.rng.getstate()
    twin = game.clone()
    twin.rng = random.Random(99)
    cell = next(a[1][0] for a in twin.legal_actions() if a[0] == "attack")
    twin.attack([cell])
    assert game.rng.getstate() == state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), tie_rule=st.sampled_from(["mover", "lowest"]),
       players=st.integers(3, 5), islands=st.booleans(), width=st.integers(6, 26), height=st.integers(5, 18),
       moves=st.integers(1, 40), leaving=st.integers(1, 2))
def test_a_player_leaving_finds_the_pockets_a_from_scratch_check_finds(
    seed, tie_rule, players, islands, width, height, moves, leaving
):
    """§2.7: after a defeat only the heirs' new cells are searched for pockets; the whole-board search must
    find the same (players leaving with land occupied all around, walled pockets handed to an heir)."""
    play = random.Random(seed)
    if islands:
        board = island_board(seed, width, height, players, sea=play.uniform(0.0, 0.35),
                             occupied=play.uniform(0.0, 0.8))
    else:
        board = generate(max(width, 12), max(height, 10), players, random.Random(seed), distance_min=3)
    fast = Game(board.copy(), random.Random(seed), tie_rule=tie_rule)
    slow = Game(board.copy(), random.Random(seed), tie_rule=tie_rule)
    for _ in range(moves):
        if fast.is_terminal():
            return
        action = random_action(fast, play)
        assert slow.apply(action) == fast.apply(action)
    gone = play.sample(fast.alive, min(leaving, len(fast.alive)))
    slow._whole_board = True
    assert slow.defeat(gone, "quit") == fast.defeat(gone, "quit"), gone
    assert (fast.board.owner == slow.board.owner).all() and (fast.board.occupied == slow.board.occupied).all()
    assert fast.board.capitals == slow.board.capitals and fast.end == slow.end


def test_land_handed_to_the_nearest_capital_inside_a_wall_is_encircled_at_once():
    """§2.7 then §2.5: player 1's capital sits inside player 2's occupied wall, away from it; when player 1
    leaves, the cells nearer player 3's capital (13,3) go to player 3, whose land there is walled in by 2:
    a pocket at once, handed to 2. The heirs-only search after a defeat finds it as the whole-board one
    does.
    """
    width, height = 14, 7
    ys, xs = np.mgrid[0:height, 0:width]
    ring = ((xs == 4) | (xs == 10) | (ys == 0) | (ys == 6)) & (xs >= 4) & (xs <= 10)
    core = (xs >= 6) & (xs <= 8) & (ys >= 2) & (ys <= 4)
    owner = np.where(xs >= 11, 3, np.where(core, 1, 2)).astype(np.int8)
    capitals = {1: (7, 3), 2: (0, 3), 3: (13, 3)}
    board = Board(np.ones((height, width), dtype=bool), owner, ring.copy(), capitals, 3)
    fast = Game(board.copy(), random.Random(1))
    fast._whole_board = False      # the board is resolved as drawn: the shortcut applies
    slow = Game(board.copy(), random.Random(1))
    slow._whole_board = True
    events = fast.defeat([1], "quit")
    assert slow.defeat([1], "quit") == events
    walled = tuple((x, y) for y in (2, 3, 4) for x in (7, 8))
    assert Encircled(walled, 2, 3) in events
    assert (fast.board.owner[core] == 2).all() and not fast.board.occupied[core].any()
    assert (fast.board.owner == slow.board.owner).all()
