"""`motti -c` in a real terminal (tests/helpers/tmux_pane.py): the refusals of Defend and Guerilla without
their crosses, and an Attack turn resumed from a save."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from deadline import wait_until
from motti_maps import TWO
from tmux_pane import Pane

from motti import explain
from motti.mapfile import load_map

pytestmark = pytest.mark.e2e

MOTTI = [sys.executable, "-m", "motti"]
MESSAGE_ROW = 12   # under TWO's 6 rows: status, information, frame, the map, frame, legend, reset line
STATUS_1 = r"Player 1 \| Attack: 6 left \| Crosses: 6"


def shows(pane: Pane, row: int, text: str) -> None:
    """Wait until line *row* of *pane* reads *text* (trailing blanks aside); AssertionError at the end."""
    wait_until(lambda: pane.lines()[row].rstrip() == text, f"line {row} to read {text!r}", seconds=20)


def test_defend_and_guerilla_without_their_crosses_say_what_they_need(tmp_path: Path) -> None:
    (tmp_path / "two.map").write_text(TWO)
    pane = Pane([*MOTTI, "two.map", "-c", "--seed", "1"], tmp_path)
    try:
        pane.wait_for(STATUS_1)
        pane.send("z")
        pane.wait_for("an attack needs crosses")
        pane.send("x")
        shows(pane, MESSAGE_ROW, "Defend needs 1 to 3 crosses")
        assert pane.lines()[0].startswith("Player 1 | Attack: 6 left | Crosses: 6 |")
        pane.send("c")
        shows(pane, MESSAGE_ROW, "Guerilla needs exactly one cross")
        pane.send("d")
        pane.wait_for(r"Player 1 \| Defend \| Crosses: 3")
        pane.send("Enter")
        shows(pane, MESSAGE_ROW, "Defend needs 1 to 3 crosses")
        assert pane.lines()[0].startswith("Player 1 | Defend | Crosses: 3 |")
    finally:
        pane.close()


def test_an_attack_turn_resumed_at_the_terminal_ends_as_an_attack_turn(tmp_path: Path) -> None:
    (tmp_path / "two.map").write_text(TWO)
    save, status = tmp_path / "lt.map", tmp_path / "lt2.json"
    first = Pane([*MOTTI, "two.map", "-c", "--save", "lt.map", "--seed", "1"], tmp_path)
    try:
        first.wait_for(STATUS_1)
        first.send("Space", "z")   # a cross on the capital (1,1), one attack
        first.wait_for(r"Player 1 \| Attack: 5 left")
        first.send("q")
        first.wait_for(r"\(y/n\)")
        first.send("y")
        wait_until(lambda: first.rc.exists() and first.rc.read_text().strip(), "the first motti to end",
                   seconds=20)
    finally:
        first.close()
    assert (load_map(save).turn, load_map(save).attacks) == (1, 5)
    first.rc.unlink()
    second = Pane([*MOTTI, "lt.map", "-c", "--save", "lt.map", "--status", "lt2.json"], tmp_path)
    try:
        second.wait_for(r"Player 1 \| Attack: 5 left")
        second.send(explain.PASS_KEY)
        second.wait_for(r"Player 2 \| Attack: 6 left")
        shows(second, MESSAGE_ROW, "P1 ended the turn")
        last = wait_until(lambda: json.loads(status.read_text())["last_turn"], "the last turn in the status")
        assert (last["player"], last["action"]) == (1, "attack")
        assert "last-turn 1 attack" in save.read_text().splitlines()
    finally:
        second.close()
