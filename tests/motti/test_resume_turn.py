"""A turn in progress through a save and a resume, and ``--final`` as a save (script mode, motti/cli.py)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from motti_maps import TWO
from statusrun import StatusRun

from motti.cli import main
from motti.compose import Composer
from motti.mapfile import SavedTurn, find_map, load_map
from motti.rules import Game
from motti.script import play_script
from motti.session import Session


def two_runs(tmp_path: Path, board: str, first: str, then: str, seeds: tuple[int, int] = (1, 1)
             ) -> tuple[Path, Path, Path]:
    """Play the script *first* on the map *board* (``--final`` middle.map), then resume middle.map with the
    script *then* (``--status`` s.json, ``--final`` end.map); the three paths."""
    (tmp_path / "board.map").write_text(board)
    (tmp_path / "first.txt").write_text(first)
    (tmp_path / "then.txt").write_text(then)
    middle, end, status = tmp_path / "middle.map", tmp_path / "end.map", tmp_path / "s.json"
    assert main([str(tmp_path / "board.map"), "--script", str(tmp_path / "first.txt"), "--seed",
                 str(seeds[0]), "--final", str(middle)]) == 0
    assert main([str(middle), "--script", str(tmp_path / "then.txt"), "--seed", str(seeds[1]), "--status",
                 str(status), "--final", str(end)]) == 0
    return middle, end, status


def test_a_game_resumed_in_the_middle_of_an_attack_turn_ends_it_as_an_attack_turn(tmp_path, capsys) -> None:
    middle, end, status = two_runs(tmp_path, TWO, "attack\nattack\nattack\n", "pass\n")
    state = load_map(middle)
    assert (state.turn, state.attacks) == (1, 3)
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
    _, final, _ = two_runs(tmp_path, TWO, "defend 0,0\n", "attack\n")
    state = load_map(final)
    assert (state.turn, state.attacks) == (2, 5)
    lines = final.read_text().splitlines()
    assert lines[lines.index("last-turn 1 defend"):][:3] == ["last-turn 1 defend", "last-cell 0 0 occupied",
                                                             "grid"]


#: The map of spec §9 T16: player 1's attack on (1,1) brings a global reset in the middle of its turn.
T16 = "motti-map 1\nsize 4 2\nplayers 2\ncapital 1 0 0\ncapital 2 3 0\ngrid\nAABB\nAaBB\n"


def state_of(path: Path) -> list[str]:
    """The lines of a save from its ``turns`` line to ``grid`` (exclusive)."""
    lines = path.read_text().splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("turns ")):lines.index("grid")]


def test_a_resume_in_the_middle_of_an_attack_turn_marks_the_cells_it_changed_before_the_save(tmp_path,
                                                                                             capsys) -> None:
    middle, end, status = two_runs(tmp_path, TWO, "attack 0,0 1,0 2,0 3,0 4,0 0,1\n"
                                   "attack 0,2 1,2 2,2 3,2 4,2 0,3\n", "pass\n")
    assert state_of(middle) == ["turns 0", "reset-rule strict", "capital-rule v3", "tie-rule mover",
                                "takeable 1", "turn-cell 1 0 conquered", "turn-cell 4 2 conquered"]
    state = load_map(middle)
    assert (state.turn, state.attacks) == (1, 4)
    assert state.turn_so_far == SavedTurn(1, "attack", False, {(1, 0): "conquered", (4, 2): "conquered"})
    written = json.loads(status.read_text())
    assert written["message"] == "P1 ended the turn"
    assert written["last_turn"] == {"player": 1, "action": "attack", "reset": False,
                                    "cells": [[1, 0, "conquered"], [4, 2, "conquered"]]}
    assert state_of(end) == ["turns 1", "reset-rule strict", "capital-rule v3", "tie-rule mover",
                             "takeable 1", "last-turn 1 attack", "last-cell 1 0 conquered",
                             "last-cell 4 2 conquered"]
    assert capsys.readouterr().err == ""


def test_the_cells_changed_before_the_save_and_after_the_resume_are_one_turn(tmp_path, capsys) -> None:
    middle, end, status = two_runs(tmp_path, TWO, "attack 0,0 1,0 2,0 3,0 4,0 0,1\n",
                                   "attack 0,2 1,2 2,2 3,2 4,2 0,3\npass\n", seeds=(1, 3))
    assert state_of(middle)[-1:] == ["turn-cell 1 0 conquered"]
    assert json.loads(status.read_text())["last_turn"] == {
        "player": 1, "action": "attack", "reset": False, "cells": [[1, 0, "conquered"], [1, 2, "conquered"]]}
    assert state_of(end)[-3:] == ["last-turn 1 attack", "last-cell 1 0 conquered", "last-cell 1 2 conquered"]


def test_a_reset_in_the_turn_under_way_survives_the_save_and_the_resume(tmp_path, capsys) -> None:
    middle, end, status = two_runs(tmp_path, T16, "attack 1,1\n", "pass\n", seeds=(2, 1))
    assert state_of(middle)[-3:] == ["resets 1", "turn-reset", "turn-cell 1 1 conquered"]
    assert load_map(middle).turn_so_far == SavedTurn(1, "attack", True, {(1, 1): "conquered"})
    assert json.loads(status.read_text())["last_turn"] == {"player": 1, "action": "attack", "reset": True,
                                                           "cells": [[1, 1, "conquered"]]}
    assert state_of(end)[-3:] == ["resets 1", "last-turn 1 attack reset", "last-cell 1 1 conquered"]


def test_the_save_written_before_any_window_opens_keeps_the_turn_under_way(tmp_path, xvfb) -> None:
    middle, saved = tmp_path / "middle.map", tmp_path / "saved.map"
    middle.write_text(TWO.replace("grid\naaaaabbbbb", "turn 1\nattacks 4\nlast-turn 2 defend\n"
                                  "last-cell 5 0 occupied\nturn-cell 1 0 conquered\ngrid\naAaaaBbbbb"))
    # Nobody acts in the window: the save is still the first, which holds the resumed turns.
    game = StatusRun([sys.executable, "-m", "motti"], [str(middle), f"1,2:{xvfb.name}", "--save", str(saved)],
                     tmp_path, xvfb.env())
    try:
        game.wait(lambda s: len(s["windows"]) == 1, "the window")
        assert state_of(saved)[-3:] == ["last-turn 2 defend", "last-cell 5 0 occupied",
                                        "turn-cell 1 0 conquered"]
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
