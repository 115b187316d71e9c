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
from motti.rules import Board, Game, _takeable_bits, count_takeable


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
