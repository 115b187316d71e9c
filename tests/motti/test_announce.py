"""motti/announce.py: one announcement per action in the words of issue 17, and the last turn of spec §6,
played on the worked scenarios of spec/motti.md §9."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from motti_maps import game

from common.term import wrap
from motti.announce import GAINS, LOSSES, Chronicle, LastTurn, end_text, end_title, shorten
from motti.rules import Cells, CellsChanged, Eliminated, Encircled, GameOver


def play(g, chronicle: Chronicle, verb: str, *args):
    """Play one action through Game.apply and let *chronicle* follow it; returns the announcement."""
    return chronicle.record(g.apply((verb, *args)), verb)


def test_defend_that_encircles_t6() -> None:
    g = game("aaaabbb/aAAAbbb/aABAbbb/aAaAbbb/aaaabbb", {1: (0, 0), 2: (6, 0)})
    chronicle = Chronicle(g.current_player)
    assert chronicle.last_turn is None
    said = play(g, chronicle, "defend", [(2, 3)])
    assert said == "P1 defended 1 cell — encircled 1 cell of P2"
    assert chronicle.last_turn.to_json() == {
        "player": 1, "action": "defend", "cells": [[2, 2, "encircled"], [2, 3, "occupied"]], "reset": False}
    assert chronicle.last_turn.gained() == [(2, 3)]
    assert chronicle.last_turn.lost() == [((2, 2), 1)]


def test_attacks_are_numbered_and_the_last_turn_waits_for_the_turn_to_end_t2_t3() -> None:
    g = game("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)}, draws=[0, 4, 5, 5, 5, 5])
    chronicle = Chronicle(g.current_player)
    assert play(g, chronicle, "attack", [(2, 1), (0, 0)]) == "P1 attack 1 of 6 took 2,1"
    assert chronicle.last_turn is None   # the turn goes on
    assert play(g, chronicle, "attack", [(0, 0)]) == "P1 attack 2 of 6 failed"
    for number in range(3, 6):
        assert play(g, chronicle, "attack", []) == f"P1 attack {number} of 6 failed"
    assert play(g, chronicle, "attack", []) == "P1 attack 6 of 6 failed"
    assert chronicle.last_turn.to_json() == {"player": 1, "action": "attack", "cells": [[2, 1, "conquered"]],
                                             "reset": False}
    assert play(g, chronicle, "defend", [(3, 1)]) == "P2 defended 1 cell"
    assert chronicle.last_turn.to_json()["cells"] == [[3, 1, "occupied"]]
    assert list(chronicle.lines)[-1] == "P2 defended 1 cell"
    assert len(chronicle.lines) == 7


def test_a_resumed_turn_counts_the_attacks_already_made() -> None:
    g = game("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)}, draws=[5], attacks=3)
    chronicle = Chronicle(g.current_player, g.attacks_left)
    assert play(g, chronicle, "attack", []) == "P1 attack 4 of 6 failed"


def test_guerilla_t5_and_pass() -> None:
    g = game("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)})
    chronicle = Chronicle(g.current_player)
    assert play(g, chronicle, "guerilla", (2, 0)) == "P1 guerilla at 2,0"
    assert chronicle.last_turn.to_json() == {"player": 1, "action": "guerilla",
                                             "cells": [[2, 0, "conquered"]], "reset": False}
    assert chronicle.record(g.apply(("pass",)), "pass") == "P2 passed"
    assert chronicle.last_turn.to_json() == {"player": 2, "action": "pass", "cells": [], "reset": False}


def test_a_pass_that_reaches_the_turn_cap_is_announced_before_the_end() -> None:
    # The last turn's pass was left out: a headless match capped on a pass ended on the result alone.
    g = game("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)}, max_turns=1)
    chronicle = Chronicle(g.current_player)
    assert chronicle.record(g.apply(("pass",)), "pass", "no cell to cross") == (
        "P1 passed: no cell to cross — draw on land after 1 turn: 6–6")
    g = game("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)}, draws=[0], max_turns=1)
    chronicle = Chronicle(g.current_player)
    assert play(g, chronicle, "attack", [(2, 1)]) == "P1 attack 1 of 6 took 2,1"
    assert chronicle.record(g.apply(("pass",)), "pass") == (
        "P1 ended the turn — P1 wins on land after 1 turn: 7–5")


def test_capital_capture_t13() -> None:
    g = game("aaAbbb/aaAbbb/aaAbbb", {1: (0, 0), 2: (3, 1)}, draws=[0])
    chronicle = Chronicle(g.current_player)
    said = play(g, chronicle, "attack", [(3, 1)])
    assert said == ("P1 attack 1 of 6 took 3,1 — captured the capital of P2 — encircled 8 cells of P2"
                    " — P2 is out — P1 wins after 1 turn")
    last = chronicle.last_turn.to_json()
    assert last["player"] == 1 and last["action"] == "attack" and last["reset"] is False
    changes = {(x, y): change for x, y, change in last["cells"]}
    assert changes[(3, 1)] == "captured"
    assert sorted(cell for cell, change in changes.items() if change == "encircled") == [
        (3, 0), (3, 2), (4, 0), (4, 1), (4, 2), (5, 0), (5, 1), (5, 2)]


def test_the_pockets_a_capture_hands_one_player_are_one_clause() -> None:
    # P2's two cells left are two pockets once its capital is taken; each was a clause of its own
    # ("encircled 1 cell of P2 — encircled 1 cell of P2"), which a long game's end repeated many times.
    g = game("aaAbA/aaAbA/aaAbA", {1: (0, 0), 2: (3, 1)}, draws=[0])
    chronicle = Chronicle(g.current_player)
    said = play(g, chronicle, "attack", [(3, 1)])
    assert said == ("P1 attack 1 of 6 took 3,1 — captured the capital of P2 — encircled 2 cells of P2"
                    " — P2 is out — P1 wins after 1 turn")


def test_capital_capture_with_two_heirs_then_a_strict_reset_t14() -> None:
    g = game("aAbbbCc/aAbbbCc/aAbbbCc", {1: (0, 0), 2: (2, 1), 3: (6, 0)}, draws=[0, 5, 5, 5, 5, 5],
             reset_rule="strict")
    chronicle = Chronicle(g.current_player)
    said = play(g, chronicle, "attack", [(2, 1)])
    assert said.startswith("P1 attack 1 of 6 took 2,1 — captured the capital of P2 — ")
    assert "P3 encircled 3 cells of P2" in said
    # The reset comes after the first attack: the announcement says who goes on, with how many attacks.
    assert said.endswith("P2 is out — reset: all land is free; P1 goes on with 5 attacks")
    for _ in range(5):
        play(g, chronicle, "attack", [])
    last = chronicle.last_turn.to_json()
    assert last["reset"] is True
    changes = {(x, y): change for x, y, change in last["cells"]}
    assert changes[(2, 1)] == "captured"
    assert chronicle.last_turn.lost() and {owner for _, owner in chronicle.last_turn.lost()} == {1, 3}


def test_reset_inside_an_attack_turn_t16() -> None:
    g = game("AABB/AaBB", {1: (0, 0), 2: (3, 0)}, draws=[0])
    chronicle = Chronicle(g.current_player)
    assert play(g, chronicle, "attack", [(1, 1)]) == (
        "P1 attack 1 of 6 took 1,1 — reset: all land is free; P1 goes on with 5 attacks")
    assert chronicle.turn.reset is True and chronicle.turn.cells == {(1, 1): "conquered"}


def test_once_another_taker_is_named_the_mover_is_named_too() -> None:
    # With three players and more, the clause of the mover's own cells came unnamed after another's: "P1
    # guerilla at 3,2 — P2 encircled 1 cell of P1 — encircled 34 cells of P4" read as P2's 34 cells.
    chronicle = Chronicle(1)
    events = [CellsChanged(((3, 2),)), Encircled(((0, 0),), 2, 1), Encircled(((5, 5),), 1, 4),
              Encircled(((6, 6),), 3, 4)]
    assert chronicle.record(events, "guerilla") == (
        "P1 guerilla at 3,2 — P2 encircled 1 cell of P1 — P1 encircled 1 cell of P4"
        " — P3 encircled 1 cell of P4")
    first = [CellsChanged(((3, 2),)), Encircled(((5, 5),), 1, 4), Encircled(((0, 0),), 2, 1)]
    assert Chronicle(1).record(first, "guerilla") == (
        "P1 guerilla at 3,2 — encircled 1 cell of P4 — P2 encircled 1 cell of P1")


def test_leaving_is_not_called_encircled_and_the_ends() -> None:
    chronicle = Chronicle(1)
    assert chronicle.record([Eliminated(2, "closed"), Encircled(((0, 0),), 1, 2)]) == "P2 left, out"
    assert chronicle.turn.cells == {(0, 0): "encircled"}
    assert chronicle.record([Eliminated(1, "quit"), Eliminated(3, "quit"), GameOver(None)]) == (
        "P1 quit, out — P3 quit, out — everyone left: game over")
    assert chronicle.record([]) is None


def test_shorten_cuts_at_word_bounds_only() -> None:
    text = "P1 attack 3 of 6 took 5,2 — encircled 4 cells of P2"
    assert shorten(text, lambda t: len(t) <= 60) == text
    assert shorten(text, lambda t: len(t) <= 40) == "P1 attack 3 of 6 took 5,2 — encircled 4…"
    assert shorten(text, lambda t: len(t) <= 26) == "P1 attack 3 of 6 took 5,2…"
    assert shorten(text, lambda t: len(t) <= 2) == "…"
    assert shorten(text, lambda t: False) == ""


def test_wrap_breaks_at_spaces() -> None:
    assert wrap("P1 attack 3 of 6 took 5,2 — encircled 4 cells of P2", 20) == [
        "P1 attack 3 of 6", "took 5,2 — encircled", "4 cells of P2"]
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]


def test_every_ending_in_the_same_words() -> None:
    assert end_text(GameOver(1, "win", "", 183)) == "P1 wins after 183 turns"
    assert end_text(GameOver(2, "win", "", 1), short=False) == "player 2 wins after 1 turn"
    assert end_text(GameOver(1, "land", "", 400, (160, 140))) == "P1 wins on land after 400 turns: 160–140"
    assert end_text(GameOver(None, "draw", "land", 400, (150, 150, 20))) == (
        "draw on land after 400 turns: 150–150–20")
    assert end_text(GameOver(None, "draw", "unreachable", 0)) == "draw: no player can reach another"
    assert end_text(GameOver(None, "draw", "left", 7)) == "everyone left: game over"
    assert end_title(GameOver(3, "land", "", 400, (9, 8))) == "Player 3 wins"
    assert end_title(GameOver(None, "draw", "unreachable")) == "Draw: no player can reach another"
    assert end_title(GameOver(None, "draw", "left")) == "Game over: everyone left"


def test_the_chronicle_announces_a_draw_in_the_same_words() -> None:
    g = game("aAcc.bb", {1: (0, 0), 2: (6, 0), 3: (2, 0)}, draws=[0])
    chronicle = Chronicle(g.current_player)
    said = play(g, chronicle, "attack", [(2, 0)])
    assert said.endswith(" — draw: no player can reach another")


class DictTurn:
    """The last turn as it was kept before its marks went into numpy arrays (the reference :class:`LastTurn`
    must agree with): a dict in the order of each cell's last change, and each cell's last owner."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], str] = {}
        self.owners: dict[tuple[int, int], int] = {}

    def mark(self, cells, change: str, owner: int) -> None:
        for cell in cells:
            self.cells.pop(cell, None)
            self.cells[cell] = change
            self.owners[cell] = owner


_MARKS = st.lists(st.tuples(st.sets(st.tuples(st.integers(0, 7), st.integers(0, 5)), max_size=12),
                            st.sampled_from(GAINS + LOSSES), st.integers(1, 9)), max_size=8)


@settings(max_examples=200, deadline=None)
@given(_MARKS, st.tuples(st.integers(-1, 8), st.integers(-1, 6), st.integers(-1, 8), st.integers(-1, 6)))
def test_the_last_turns_marks_agree_with_a_dict_of_each_cells_last_change(marks, box) -> None:
    turn, reference = LastTurn(1), DictTurn()
    for cells, change, owner in marks:
        ordered = sorted(cells, key=lambda cell: (cell[1], cell[0]))   # as the rules' events list them
        as_event = Cells(np.array([y for _, y in ordered], dtype=np.intp),
                         np.array([x for x, _ in ordered], dtype=np.intp))
        turn.mark(as_event if len(ordered) % 2 else ordered, change, owner)
        reference.mark(ordered, change, owner)
        by_row = sorted(reference.cells.items(), key=lambda item: (item[0][1], item[0][0]))
        assert turn.to_json()["cells"] == [[x, y, change] for (x, y), change in by_row]   # after every mark
        assert list(turn.cells.items()) == list(reference.cells.items())
    assert turn.owners == reference.owners
    gained = [cell for cell, change in reference.cells.items() if change in GAINS]
    lost = [(cell, reference.owners[cell]) for cell, change in reference.cells.items() if change in LOSSES]
    assert (turn.gained(), turn.lost()) == (gained, lost)
    x0, y0, x1, y1 = box
    assert turn.gained(box) == [(x, y) for x, y in gained if x0 <= x < x1 and y0 <= y < y1]
    assert turn.lost(box) == [((x, y), owner) for (x, y), owner in lost if x0 <= x < x1 and y0 <= y < y1]
    again = LastTurn(1, "attack", reference.cells, reference.owners)
    assert (list(again.cells.items()), again.owners) == (list(turn.cells.items()), turn.owners)


def test_a_player_leaving_is_recorded_without_a_tuple_per_cell() -> None:
    """Giving up on a 1000x1000 board hands over some 100 000 cells: the record keeps the events' arrays."""
    g = game("aaaabbb/aAAAbbb/aABAbbb/aAaAbbb/aaaabbb", {1: (0, 0), 2: (6, 0)})
    chronicle = Chronicle(g.current_player)
    events = g.defeat([2], cause="quit")
    handed = [event for event in events if isinstance(event, Encircled)]
    assert handed and all(isinstance(event.cells, Cells) for event in handed)
    assert chronicle.record(events) == "P2 quit, out — P1 wins in turn 1"
    assert all(event.cells._tuple is None for event in handed)
    assert chronicle.last_turn is not None
    assert {tuple(cell[:2]) for cell in chronicle.last_turn.to_json()["cells"]} == {
        cell for event in handed for cell in event.cells}
