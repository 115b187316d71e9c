"""A turn in progress through a save and a resume, and ``--final`` as a save (script mode, motti/cli.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from motti_maps import TWO

from motti.cli import main
from motti.compose import Composer
from motti.mapfile import find_map, load_map
from motti.rules import Game
from motti.script import play_script
from motti.session import Session


def test_a_game_resumed_in_the_middle_of_an_attack_turn_ends_it_as_an_attack_turn(tmp_path, capsys) -> None:
    (tmp_path / "two.map").write_text(TWO)
    (tmp_path / "attacks.txt").write_text("attack\nattack\nattack\n")
    (tmp_path / "pass.txt").write_text("pass\n")
    middle, end, status = tmp_path / "middle.map", tmp_path / "end.map", tmp_path / "status.json"
    assert main([str(tmp_path / "two.map"), "--script", str(tmp_path / "attacks.txt"), "--seed", "1",
                 "--final", str(middle)]) == 0
    state = load_map(middle)
    assert (state.turn, state.attacks) == (1, 3)
    assert main([str(middle), "--script", str(tmp_path / "pass.txt"), "--seed", "1", "--status", str(status),
                 "--final", str(end)]) == 0
    written = json.loads(status.read_text())
    assert written["message"] == "P1 ended the turn"
    assert written["last_turn"] == {"player": 1, "action": "attack", "cells": [], "reset": False}
    assert "last-turn 1 attack" in end.read_text().splitlines()
    assert capsys.readouterr().err == ""


def test_final_writes_the_state_lines_of_a_save_the_last_turn_included(tmp_path, capsys) -> None:
    script = tmp_path / "s2.txt"
    script.write_text("defend 3,9\ndefend 16,5\nguerilla 3,8\n")
    final, save = tmp_path / "sv2.map", tmp_path / "saved.map"
    assert main(["classic", "--script", str(script), "--seed", "1", "--final", str(final)]) == 0
    game = Game(load_map(find_map("classic")).board, random.Random(1))
    play_script(game, script.read_text(), session=Session(Composer(game), save=str(save)))
    saved = save.read_text().splitlines()
    assert saved[0].startswith("# motti saved game")
    assert final.read_text().splitlines() == saved[1:]
    lines = saved[saved.index("last-turn 1 guerilla"):]
    assert lines[:3] == ["last-turn 1 guerilla", "last-cell 3 8 conquered", "grid"]


def test_final_keeps_the_last_turn_of_a_resumed_save_while_no_turn_ends(tmp_path: Path, capsys) -> None:
    (tmp_path / "two.map").write_text(TWO)
    (tmp_path / "defend.txt").write_text("defend 0,0\n")
    (tmp_path / "attack.txt").write_text("attack\n")
    saved, final = tmp_path / "saved.map", tmp_path / "final.map"
    assert main([str(tmp_path / "two.map"), "--script", str(tmp_path / "defend.txt"), "--seed", "1",
                 "--final", str(saved)]) == 0
    assert main([str(saved), "--script", str(tmp_path / "attack.txt"), "--seed", "1", "--final",
                 str(final)]) == 0
    state = load_map(final)
    assert (state.turn, state.attacks) == (2, 5)
    lines = final.read_text().splitlines()
    assert lines[lines.index("last-turn 1 defend"):][:3] == ["last-turn 1 defend", "last-cell 0 0 occupied",
                                                             "grid"]
