"""The worked scenarios T1–T26 of spec/motti.md §9 under the reset rule each one names (T21, player strings,
is tested with common/displays.py; T23, the generator, in test_generate.py). The games are composed through
motti/compose.py, as the front ends do."""

from __future__ import annotations

import pytest
from motti_maps import board, game, grid

from motti.compose import Composer
from motti.mapfile import dump_map, parse_map, reduce_players, renumber
from motti.rules import (
    Action,
    AttackDrawn,
    CapitalCaptured,
    Eliminated,
    Encircled,
    GameOver,
    IllegalAction,
    Reset,
    TurnPassed,
)


def legal_for(g: Composer, player: int, action: Action):
    """The legal mask of *player* (not necessarily in turn) on *g*'s board."""
    from motti.rules import legal_mask

    return legal_mask(g.board, player, action)


def cells(mask) -> set[tuple[int, int]]:
    ys, xs = mask.nonzero()
    return set(zip(xs.tolist(), ys.tolist(), strict=True))


T1 = ("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)})
T13 = ("aaAbbb/aaAbbb/aaAbbb", {1: (0, 0), 2: (3, 1)})


def test_t1_legal_targets():
    g = game(*T1)
    attack = {(0, 0), (1, 0), (0, 1), (0, 2), (1, 2), (2, 1)}
    assert cells(g.legal_mask(Action.ATTACK)) == attack
    assert cells(g.legal_mask(Action.GUERILLA)) == attack | {(2, 0), (2, 2)}
    assert cells(g.legal_mask(Action.DEFEND)) == {(0, 0), (1, 0), (0, 1), (0, 2), (1, 2)}
    for action in Action:
        for cell in [(1, 1), (3, 0), (3, 1), (3, 2), (-1, 0), (4, 0)]:
            assert not g.is_legal_cross(*cell, action)
        for cell in attack:
            assert g.is_legal_cross(*cell, Action.ATTACK)


@pytest.mark.parametrize(
    ("draw", "expected"),
    [(0, "aabb/aAAb/aabb"), (1, "Aabb/aAbb/aabb")] + [(d, "aabb/aAbb/aabb") for d in range(2, 6)],
)
def test_t2_attack_rng(draw, expected):
    g = game(*T1, draws=[draw])
    g.toggle_cross(2, 1)
    g.toggle_cross(0, 0)
    assert g.possible_actions() == {Action.ATTACK, Action.DEFEND, Action.GUERILLA}
    events = g.perform()
    conquered = [(2, 1), (0, 0)][draw] if draw < 2 else None
    assert events[0] == AttackDrawn(1, draw, conquered)
    assert grid(g.board) == expected
    assert g.attacks_left == 5
    assert g.possible_actions() == {Action.ATTACK}
    assert g.current_player == 1


def test_t3_six_attacks_end_the_turn():
    g = game(*T1, draws=[0, 1, 2, 3, 4, 5])
    for left in range(5, 0, -1):
        assert TurnPassed(2) not in g.attack([])
        assert g.attacks_left == left and g.current_player == 1
    events = g.attack([])
    assert events[-1] == TurnPassed(2)
    assert g.current_player == 2 and g.attacks_left == 6
    assert grid(g.board) == T1[0]


def test_t4_defend_limits():
    g = game(*T1)
    g.select(Action.DEFEND)
    for cell in [(0, 0), (0, 1), (0, 2)]:
        g.toggle_cross(*cell)
    with pytest.raises(IllegalAction, match="at most 3"):
        g.toggle_cross(1, 0)
    with pytest.raises(IllegalAction, match="not your land"):
        game(*T1).defend([(2, 1)])
    events = g.perform()
    assert grid(g.board) == "Aabb/AAbb/Aabb"
    assert events[-1] == TurnPassed(2)


def test_t5_guerilla_diagonal():
    g = game(*T1)
    events = g.guerilla((2, 0))
    assert grid(g.board) == "aaAb/aAbb/aabb"
    assert g.board.owner[0, 2] == 1
    assert not [e for e in events if isinstance(e, Encircled)]
    assert g.current_player == 2


def test_t6_simple_encirclement_frees_occupied():
    g = game("aaaabbb/aAAAbbb/aABAbbb/aAaAbbb/aaaabbb", {1: (0, 0), 2: (6, 0)})
    g.defend([(2, 3)])
    assert grid(g.board) == "aaaabbb/aAAAbbb/aAaAbbb/aAAAbbb/aaaabbb"


def test_t6_enemy_unoccupied_cell_keeps_the_connection():
    g = game("aaaabbb/aAAAbbb/aABAbbb/aAaAbbb/aaaabbb", {1: (0, 0), 2: (6, 0)})
    g.defend([(0, 0)])
    assert g.board.owner[2, 2] == 2 and g.board.occupied[2, 2]


def test_t7_diagonal_gap_does_not_save():
    g = game("aAbbbb/AbAbbb/aabbbb", {1: (0, 0), 2: (5, 0)}, draws=[0])
    events = g.attack([(1, 2)])
    assert grid(g.board) == "aAbbbb/AaAbbb/aAbbbb"
    assert Encircled(((1, 1),), 1, 2) in events


def test_t8_escape_through_enemy_unoccupied_cell():
    start = "aaaab/aAAAb/aAbab/aAAAb/aaaab"
    g = game(start, {1: (0, 0), 2: (4, 0)})
    g.defend([(0, 0)])
    assert g.board.owner[2, 2] == 2
    g = game(start, {1: (0, 0), 2: (4, 0)}, draws=[0])
    g.attack([(3, 2)])
    assert grid(g.board) == "aaaab/aAAAb/aAaAb/aAAAb/aaaab"


@pytest.mark.parametrize(("tie_rule", "heir"), [("mover", "c"), ("lowest", "a")])
def test_t9_two_encirclers_tie(tie_rule, heir):
    caps = {1: (0, 0), 2: (5, 0), 3: (3, 0)}
    g = game("aaaccb/aAAccb/aAbccb/aAAccb/aaaccb", caps, turn=3, tie_rule=tie_rule)
    events = g.defend([(3, 2)])
    assert grid(g.board) == f"aaaccb/aAAccb/aA{heir}Ccb/aAAccb/aaaccb"
    assert Encircled(((2, 2),), ord(heir) - ord("a") + 1, 2) in events
    assert events[-1] == TurnPassed(1)


def test_t10_division_of_a_larger_pocket():
    caps = {1: (0, 0), 2: (3, 3), 3: (6, 0)}
    g = game("aAbbbCc/aAbbbCc/aAAAcCc/aaabccc", caps, turn=3)
    events = g.defend([(4, 2)])
    assert grid(g.board) == "aAaccCc/aAaacCc/aAAACCc/aaabccc"
    assert Encircled(((2, 0), (2, 1), (3, 1)), 1, 2) in events
    assert Encircled(((3, 0), (4, 0), (4, 1)), 3, 2) in events
    assert g.alive == [1, 2, 3]
    assert g.board.capitals[2] == (3, 3)


def test_t11_third_player_enclave():
    caps = {1: (0, 0), 2: (5, 0), 3: (0, 4)}
    g = game("aAAAAb/aAbcAb/aAa.Ab/aaaaAb/cccccc", caps, draws=[0])
    g.attack([(2, 2)])
    assert grid(g.board) == "aAAAAb/aAaaAb/aAA.Ab/aaaaAb/cccccc"


def test_t12_sea_isolation_is_not_encirclement():
    g = game("aa.a./aA.../bbbbb", {1: (0, 0), 2: (4, 2)}, turn=2)
    events = g.defend([(0, 2)])
    assert grid(g.board) == "aa.a./aA.../Bbbbb"
    assert not [e for e in events if isinstance(e, Encircled)]


@pytest.mark.parametrize("reset_rule", ["strict", "empty"])
@pytest.mark.parametrize("rule", ["v3", "v2"])
def test_t13_capital_capture_one_heir(rule, reset_rule):
    g = game(*T13, draws=[0], capital_rule=rule, reset_rule=reset_rule)
    events = g.attack([(3, 1)])
    assert grid(g.board) == "aaAaaa/aaAAaa/aaAaaa"
    assert g.board.capitals == {1: (0, 0), 2: None}
    assert CapitalCaptured(2, 1, (3, 1)) in events
    assert Eliminated(2, "capital") in events
    # No reset although nobody can take anything any more: only one player is alive (§2.4).
    assert not [e for e in events if isinstance(e, Reset)]
    assert events[-1] == GameOver(1, "win", "", 1)
    assert g.winner == 1 and g.is_terminal() and g.returns() == [1.0, -1.0]
    with pytest.raises(IllegalAction, match="over"):
        g.attack([])


def test_t14_capital_capture_two_heirs_under_empty():
    caps = {1: (0, 0), 2: (2, 1), 3: (6, 0)}
    g = game("aAbbbCc/aAbbbCc/aAbbbCc", caps, draws=[0, 5, 5, 5, 5, 5], reset_rule="empty")
    events = g.attack([(2, 1)])
    assert grid(g.board) == "aAaacCc/aAAacCc/aAaacCc"
    assert Reset() not in events
    assert g.alive == [1, 3] and g.attacks_left == 5 and g.current_player == 1
    for _ in range(5):
        events = g.attack([])
    assert events[-1] == TurnPassed(3)


def test_t14_capital_capture_two_heirs_then_the_strict_reset():
    caps = {1: (0, 0), 2: (2, 1), 3: (6, 0)}
    g = game("aAbbbCc/aAbbbCc/aAbbbCc", caps, draws=[0, 5, 5, 5, 5, 5])
    assert g.game.reset_rule == "strict" and g.game.takeable == 2
    events = g.attack([(2, 1)])
    # Players 1 and 3 no longer touch: nobody can take an unoccupied cell of another, so the reset follows.
    assert events.index(Reset()) > events.index(Eliminated(2, "capital"))
    assert grid(g.board) == "aaaaccc/aaaaccc/aaaaccc"
    assert g.board.capitals == {1: (0, 0), 2: None, 3: (6, 0)}
    assert g.alive == [1, 3] and g.attacks_left == 5 and g.current_player == 1
    for _ in range(5):
        events = g.attack([])
    assert events[-1] == TurnPassed(3)


def test_t14_v2_rule():
    caps = {1: (0, 0), 2: (2, 1), 3: (6, 0)}
    g = game("aAbbbCc/aAbbbCc/aAbbbCc", caps, draws=[0], capital_rule="v2")
    g.attack([(2, 1)])
    assert grid(g.board) == "aAaaaCc/aAAaaCc/aAaaaCc"


@pytest.mark.parametrize("reset_rule", ["strict", "empty"])
def test_t15_global_reset(reset_rule):
    g = game("AABB/AaBB", {1: (0, 0), 2: (3, 0)}, reset_rule=reset_rule)
    events = g.defend([(1, 1)])
    assert Reset() in events
    assert grid(g.board) == "aabb/aabb"
    assert g.board.capitals == {1: (0, 0), 2: (3, 0)}
    assert g.current_player == 2


def test_t15_strict_count_drops_from_one_to_zero():
    # Player 2's (2,1) touches player 1's free (1,1): the count is 1; the Defend takes it to 0.
    g = game("AABB/AaBB", {1: (0, 0), 2: (3, 0)})
    assert g.game.takeable == 1
    g.defend([(1, 1)])
    assert g.game.takeable == 0


@pytest.mark.parametrize("reset_rule", ["strict", "empty"])
def test_t16_reset_inside_an_attack_turn(reset_rule):
    g = game("AABB/AaBB", {1: (0, 0), 2: (3, 0)}, draws=[0], reset_rule=reset_rule)
    events = g.attack([(1, 1)])
    assert Reset() in events
    assert grid(g.board) == "aabb/aabb"
    assert g.current_player == 1 and g.attacks_left == 5
    assert g.is_legal_cross(0, 0, Action.ATTACK) and g.is_legal_cross(1, 1, Action.ATTACK)


def test_t17_attacking_own_capital():
    g = game(*T13, draws=[0], turn=2)
    events = g.attack([(3, 1)])
    assert grid(g.board) == "aaAbbb/aaABbb/aaAbbb"
    assert g.board.capitals[2] == (3, 1)
    assert not [e for e in events if isinstance(e, CapitalCaptured)]


def test_t18_capital_safe_while_occupied():
    g = game("aaAbbb/aaABbb/aaAbbb", {1: (0, 0), 2: (3, 1)})
    for action in Action:
        assert not g.is_legal_cross(3, 1, action)
        assert not g.legal_mask(action)[1, 3]
    with pytest.raises(IllegalAction, match=r"\(3,1\) is occupied"):
        g.toggle_cross(3, 1)


def test_t19_guerilla_completes_an_encirclement():
    g = game("aAbbb/AbAbb/abbbb", {1: (0, 0), 2: (4, 0)})
    assert g.is_legal_cross(1, 2, Action.GUERILLA)
    g.guerilla((1, 2))
    assert grid(g.board) == "aAbbb/AaAbb/aAbbb"


def test_t20_failed_attack_keeps_crosses():
    g = game(*T1, draws=[4])
    for cell in [(0, 0), (0, 1), (0, 2)]:
        g.toggle_cross(*cell)
    events = g.perform()
    assert events == [AttackDrawn(1, 4, None)]
    assert g.attacks_left == 5
    assert g.crosses == [(0, 0), (0, 1), (0, 2)]


def test_t22_reduce_players():
    b = board("aaaccc/aaaccc/bbbccc", {1: (0, 0), 2: (0, 2), 3: (5, 1)})
    reduced, mapping = reduce_players(b, 2, keep={1})
    assert grid(reduced) == "aaaaaa/aaaaaa/bbbbbb"
    assert reduced.capitals == {1: (0, 0), 2: (0, 2), 3: None}
    assert mapping == {1: 1, 2: 2}
    written = dump_map(renumber(reduced, mapping))
    assert "players 2\n" in written and "capital 3" not in written and "eliminated" not in written
    assert parse_map(written).board.players == 2


def test_t22_named_player_is_kept():
    b = board("aaaccc/aaaccc/bbbccc", {1: (0, 0), 2: (0, 2), 3: (5, 1)})
    reduced, mapping = reduce_players(b, 2, keep={3})
    assert reduced.capitals[2] is None
    assert mapping == {1: 1, 3: 2}
    assert grid(reduced) == "aaaccc/aaaccc/aaaccc"
    assert grid(renumber(reduced, mapping)) == "aaabbb/aaabbb/aaabbb"


def test_t24_window_close():
    caps = {1: (0, 0), 2: (2, 0), 3: (5, 0)}
    g = game("aAbbCc/aAbbCc/aabbcc", caps, reset_rule="empty")
    events = g.defeat([2])
    assert grid(g.board) == "aAacCc/aAacCc/aaaccc"
    assert Eliminated(2, "closed") in events
    assert g.alive == [1, 3] and g.current_player == 1
    assert g.pass_turn() == [TurnPassed(3)]
    assert g.pass_turn() == [TurnPassed(1)]


def test_t24_window_close_under_strict_resets():
    # Under the default rule the division leaves nobody able to take anything from anybody: a reset follows.
    caps = {1: (0, 0), 2: (2, 0), 3: (5, 0)}
    g = game("aAbbCc/aAbbCc/aabbcc", caps)
    events = g.defeat([2])
    assert events.index(Reset()) > events.index(Eliminated(2, "closed"))
    assert grid(g.board) == "aaaccc/aaaccc/aaaccc"
    assert g.alive == [1, 3] and g.current_player == 1


@pytest.mark.parametrize(("reset_rule", "after"), [("strict", "aabbb/aabbb"), ("empty", "AABbb/AABbb")])
def test_t25_the_strict_reset_leaves_no_cell_to_hide_behind(reset_rule, after):
    g = game("AaBbb/AaBbb", {1: (0, 0), 2: (4, 0)}, reset_rule=reset_rule)
    assert {(1, 0), (1, 1)} <= cells(legal_for(g, 2, Action.GUERILLA))
    events = g.defend([(1, 0), (1, 1)])
    assert grid(g.board) == after
    assert (Reset() in events) == (reset_rule == "strict")
    assert g.current_player == 2


@pytest.mark.parametrize("reset_rule", ["strict", "empty"])
def test_t26_the_opening_does_not_reset(reset_rule):
    g = game("aabb/aabb", {1: (0, 0), 2: (3, 0)}, reset_rule=reset_rule)
    assert g.game.takeable == 0
    events = g.defend([(0, 0)])
    assert Reset() not in events
    assert grid(g.board) == "Aabb/aabb"
    assert g.game.takeable == 0 and g.current_player == 2
