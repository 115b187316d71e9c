"""Rules invariants of motti under random play (Hypothesis, spec/motti.md §2.4–§2.8): an action changes only
the cells its events name (a global reset only frees land), sea and capitals never change, and no encircled
pocket survives a resolution."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.game import load
from motti.rules import CellsChanged, Encircled, Reset, find_encircled


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), reset_rule=st.sampled_from(["strict", "empty"]),
       capital_rule=st.sampled_from(["v3", "v2"]), players=st.integers(2, 4))
def test_actions_change_only_what_their_events_name(seed, reset_rule, capital_rule, players):
    state = load("motti").new_initial_state(seed=seed, max_turns=120, reset_rule=reset_rule,
                                            capital_rule=capital_rule, players=players)
    game = state.game
    play = random.Random(seed)
    land = game.board.land.copy()
    while not game.is_terminal():
        before_owner, before_occupied = game.board.owner.copy(), game.board.occupied.copy()
        capitals = dict(game.board.capitals)
        mover = game.current_player
        options = game.legal_actions()
        action = play.choice(options)
        if action[0] == "attack" and play.random() < 0.5:
            cells = [a[1][0] for a in options if a[0] == "attack"]
            action = ("attack", tuple(play.sample(cells, min(len(cells), play.randint(0, 6)))))
        events = game.apply(action)
        named = {cell for e in events if isinstance(e, CellsChanged | Encircled) for cell in e.cells}
        reset = any(isinstance(e, Reset) for e in events)
        changed = (game.board.owner != before_owner) | (game.board.occupied != before_occupied)
        for y, x in zip(*np.nonzero(changed), strict=True):
            freed_by_reset = (reset and game.board.owner[y, x] == before_owner[y, x]
                              and not game.board.occupied[y, x])
            assert (int(x), int(y)) in named or freed_by_reset, (action, (x, y), events)
        assert (game.board.land == land).all(), "sea and land never change"
        assert not game.board.owner[~land].any() and not game.board.occupied[~land].any()
        for player in game.board.alive_players():
            assert game.board.capitals[player] == capitals[player], "a capital never moves"
        if not game.is_terminal():
            assert find_encircled(game.board, mover) == [], (action, events)
