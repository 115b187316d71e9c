"""motti through the one game interface (motti/game.py): the step actions, composed into the whole actions
of the rules (spec/motti.md §2.2), and the draw of §2.9. Random play over many seeds is
tests/test_conformance.py."""

from __future__ import annotations

import json
import random
import re

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
    with pytest.raises(ValueError, match=r"^motti state: \$: object missing required field map$"):
        GAME.deserialize_state('{"motti": 1}')
    fields = json.loads(text)
    counts = "takeable counts the players who can take a cell (0 to 2 here)"
    cases = [
        ({"motti": 2}, "$.motti: this program writes version 1, not 2"),
        ({"attacks": 0}, "$.attacks: attacks left are 1..6, not 0"),
        ({"selected": "hold"}, "$.selected: one of attack, defend, guerilla, not 'hold'"),
        ({"crosses": [[1, 2], [1, 2]]}, "$.crosses[1]: (1, 2) is not a cross the player in turn could add"),
        ({"crosses": [[3, 0]]}, "$.crosses[0]: (3, 0) is not a cross the player in turn could add"),
        ({"end": [3, "win", "", 1, []]}, "$.end: (3, 'win', '', 1, []), but the board says the game goes on"),
        ({"map": "motti-map 1\nsize 4"}, "$.map:2:7: expected 'size W H', found too few numbers"),
        ({"turn": 3}, "player 3 cannot be in turn: not an alive player"),
        ({"turns": -1}, "$.turns: turns played cannot be negative, not -1"),
        ({"turns": 5, "max_turns": 3}, "$.turns: turns cannot be past max-turns 3, found 5"),
        ({"takeable": -1}, f"$.takeable: {counts}, found -1"),
        ({"takeable": 99999}, f"$.takeable: {counts}, found 99999"),
        ({"takeable": 5, "reset_rule": "empty"},
         "$.takeable: takeable is kept only under reset-rule strict, not under reset-rule empty"),
    ]
    for changes, message in cases:
        with pytest.raises(ValueError, match=f"^motti state: {re.escape(message)}"):
            GAME.deserialize_state(json.dumps({**fields, **changes}))


def test_serialize_round_trips_finished_games_and_the_empty_rule():
    capped = GAME.new_initial_state(seed=1, max_turns=1)
    capped.apply_action(PASS)
    assert capped.is_terminal() and capped.game.turns == capped.game.max_turns == 1
    won = state_of("AbaB/AbaB", {1: (0, 0), 2: (3, 0)})
    won.composer.defeat([2])
    assert won.is_terminal() and won.game.alive == [1] and won.game.takeable == 2
    empty = MottiState(Composer(Game(board("AbaB/AbaB", {1: (0, 0), 2: (3, 0)}), random.Random(0),
                                     reset_rule="empty")))
    assert empty.game.takeable == 0
    for state in (capped, won, empty):
        text = state.serialize()
        assert GAME.deserialize_state(text).serialize() == text
    # An end the board does not give was taken as it stood: a win for P2 with both capitals standing.
    fields = json.loads(won.serialize())
    assert fields["end"][:3] == [1, "win", ""]
    turned = fields["map"].replace("grid\n", "attacks 3\ngrid\n")
    with pytest.raises(ValueError, match=r"^motti state: \$\.map: holds the board only \(the state is in the "
                                         r"other fields\), found attacks$"):
        GAME.deserialize_state(json.dumps({**fields, "map": turned}))
    said = r"^motti state: \$\.end: .*, but the board says P1 wins in turn 1$"
    for end in ([2, "win", "", 0, []], [1, "land", "", 0, [4]]):
        with pytest.raises(ValueError, match=said):
            GAME.deserialize_state(json.dumps({**fields, "end": end}))


def test_islands_are_terminal_at_once_with_a_draw():
    s = state_of("aa.bb/aa.bb", {1: (0, 0), 2: (4, 0)})
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert len(s.legal_actions()) == 0 and s.returns() == [0.0, 0.0]
    with pytest.raises(IllegalAction):
        s.apply_action(PASS)


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="unknown motti option 'colour'"):
        GAME.new_initial_state(seed=1, colour="red")


def test_a_player_not_in_turn_has_no_action():
    s = GAME.new_initial_state(seed=3)
    assert s.current_player() == 0 and len(s.legal_actions(0)) == len(s.legal_actions()) > 100
    assert list(s.legal_actions(1)) == []


def ordered(grid: str, caps: dict[int, tuple[int, int]], seed: int = 0) -> MottiState:
    return MottiState(Composer(Game(board(grid, caps), random.Random(seed))), "ordered")


def test_the_ordered_encoding_crosses_upwards_and_clears_after_a_perform():
    s = ordered("aabb/aabb/aabb", {1: (0, 0), 2: (3, 0)})          # W = 4; player 1 may cross its column 0, 1
    assert list(s.legal_actions()) == [PASS, PERFORM, CHOOSE + 1, CHOOSE + 2, CELL + 0, CELL + 1, CELL + 4,
                                       CELL + 5, CELL + 8, CELL + 9]
    s.apply_action(CELL + 4)                                          # (0, 1)
    assert list(s.legal_actions()) == [PASS, PERFORM, CELL + 5, CELL + 8, CELL + 9]   # above it, no choosing
    s.apply_action(CELL + 8)
    assert list(s.legal_actions()) == [PASS, PERFORM, CELL + 9]       # no uncrossing
    with pytest.raises(IllegalAction):
        s.apply_action(CELL + 4)
    s.apply_action(PERFORM)
    assert s.composer.crosses == [] and s.game.attacks_left == 5
    assert CHOOSE + 1 not in s.legal_actions()                        # Defend is impossible after an attack


def test_the_ordered_encoding_chooses_only_at_the_start_of_a_turn():
    s = ordered("aabb/aabb/aabb", {1: (0, 0), 2: (3, 0)})
    s.apply_action(CHOOSE + 1)                                        # Defend
    assert list(s.legal_actions()) == [PASS, CELL + 0, CELL + 1, CELL + 4, CELL + 5, CELL + 8, CELL + 9]
    for step in (CELL + 1, CELL + 5):
        s.apply_action(step)
    s.apply_action(PERFORM)
    assert s.current_player() == 1 and s.game.board.occupied[0:2, 1].all() and s.composer.crosses == []


def test_actions_of_writes_whole_actions_as_steps_in_either_encoding():
    s = ordered("aabb/aabb/aabb", {1: (0, 0), 2: (3, 0)})
    assert s.actions_of(("attack", [(1, 2), (0, 1)])) == [CELL + 4, CELL + 9, PERFORM]   # ascending
    assert s.actions_of(("guerilla", (1, 2))) == [CHOOSE + 2, CELL + 9, PERFORM]
    assert s.actions_of(("pass",)) == [PASS]
    s.apply_action(CELL + 4)
    with pytest.raises(IllegalAction, match="composition is under way"):
        s.actions_of(("attack", [(1, 2)]))
    t = state_of("aabb/aabb/aabb", {1: (0, 0), 2: (3, 0)})
    t.apply_action(CELL + 8)                                          # steps: the cross is taken back first
    assert t.actions_of(("defend", [(1, 2), (0, 1)])) == [CELL + 8, CHOOSE + 1, CELL + 9, CELL + 4, PERFORM]
    with pytest.raises(IllegalAction, match="not a whole motti action"):
        t.actions_of(("castle", ()))


@pytest.mark.slow
@pytest.mark.parametrize("actions", ["steps", "ordered"])
def test_the_hard_level_plays_through_the_interface(actions):
    """Each whole action of the hard level, written as steps, composes exactly its cells and is performed;
    in the steps encoding the game goes as when the rules apply the whole actions."""
    from motti.thinking import decide

    s = GAME.new_initial_state(seed=4, actions=actions)
    whole = s.clone()
    rng_a, rng_b = random.Random(9), random.Random(9)
    for _ in range(2):                                                # one turn each
        turn = s.game.turns
        while s.game.turns == turn:
            move = decide(s.game, "hard", rng_a)
            steps = s.actions_of(move)
            for step in steps[:-1]:
                s.apply_action(step)
            if move[0] != "pass":
                cells = [move[1]] if move[0] == "guerilla" else list(move[1])
                assert sorted(s.composer.crosses) == sorted(tuple(c) for c in cells)
                assert s.composer.selected.value == move[0]
            s.apply_action(steps[-1])
            if actions == "steps":
                whole.composer.apply(decide(whole.game, "hard", rng_b))
        if actions == "steps":
            assert whole.game.turns == s.game.turns
            assert (s.game.board.owner == whole.game.board.owner).all()
            assert (s.game.board.occupied == whole.game.board.occupied).all()


def test_scores_are_land_and_returns_rank_them():
    s = GAME.new_initial_state(seed=3)                              # 240 land cells, every one owned
    assert s.scores() == [157.0, 83.0] and s.returns() == [1.0, -1.0]
    grid, caps = "aaabbbccc/aaabbbccc/aaabbbccc", {1: (1, 1), 2: (4, 1), 3: (7, 1)}
    three = MottiState(Composer(Game(board(grid, caps), random.Random(0))))
    assert three.scores() == [9.0, 9.0, 9.0] and three.returns() == [0.0, 0.0, 0.0]
    three.composer.defeat([3])                                        # player 3's land goes to player 2
    assert three.scores() == [9.0, 18.0, 0.0] and three.returns() == [0.0, 1.0, -1.0]


def test_game_info_bounds_the_ordered_encoding():
    info = GAME.game_info(actions="ordered", max_turns=50)
    assert (info.num_players, info.max_game_length) == (2, 42 * 50)
    assert GAME.game_info().max_game_length is None                   # steps: cross, uncross for ever
    assert GAME.game_info(players=5).num_players == 5
