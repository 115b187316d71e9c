"""motti through the one game interface (motti/game.py): the step actions, composed into the whole actions
of the rules (spec/motti.md §2.2), and the draw of §2.9. Random play over many seeds is
tests/test_conformance.py."""

from __future__ import annotations

import random

import pytest
from motti_maps import board

from common.game import TERMINAL, IllegalAction, load
from motti.compose import Composer
from motti.game import CELL, CHOOSE, GAME, PASS, PERFORM, MottiState
from motti.rules import Game


def state_of(grid: str, caps: dict[int, tuple[int, int]], seed: int = 0) -> MottiState:
    return MottiState(Composer(Game(board(grid, caps), random.Random(seed))))


def test_load_gives_the_motti_game():
    assert load("motti") is GAME
    state = GAME.new_initial_state(seed=3)
    assert state.num_players() == 2 and state.current_player() == 0
    assert (state.game.board.width, state.game.board.height) == (20, 15)


def test_a_defend_composed_step_by_step_t4():
    s = state_of("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)})
    width = 4
    listed = s.legal_actions()
    assert list(listed)[:4] == [PASS, PERFORM, CHOOSE + 1, CHOOSE + 2]   # Attack is selected already
    s.apply_action(CHOOSE + 1)                                           # Defend
    assert PERFORM not in s.legal_actions()                              # Defend needs a cross
    for x, y in [(0, 0), (0, 1), (0, 2)]:
        s.apply_action(CELL + y * width + x)
    assert CELL + 0 * width + 1 not in s.legal_actions()                 # a 4th cross is refused
    with pytest.raises(IllegalAction):
        s.apply_action(CELL + 1)
    s.apply_action(CELL + 0)                                             # uncross (0,0): always allowed
    s.apply_action(CELL + 0)
    s.apply_action(PERFORM)
    assert s.current_player() == 1
    assert s.game.board.occupied[:, 0].all() and s.composer.crosses == []


def test_serialize_keeps_the_selection_and_the_generator():
    s = state_of("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)}, seed=5)
    s.apply_action(CELL + 2 * 4 + 1)
    text = s.serialize()
    copy = GAME.deserialize_state(text)
    assert copy.serialize() == text and copy.composer.crosses == [(1, 2)]
    s.apply_action(PERFORM)
    copy.apply_action(PERFORM)
    assert copy.serialize() == s.serialize()
    with pytest.raises(ValueError, match="not a serialized motti state"):
        GAME.deserialize_state('{"motti": 1}')


def test_islands_are_terminal_at_once_with_a_draw():
    s = state_of("aa.bb/aa.bb", {1: (0, 0), 2: (4, 0)})
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert len(s.legal_actions()) == 0 and s.returns() == [0.0, 0.0]
    with pytest.raises(IllegalAction):
        s.apply_action(PASS)


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="unknown motti option 'colour'"):
        GAME.new_initial_state(seed=1, colour="red")
