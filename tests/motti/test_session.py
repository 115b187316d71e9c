"""motti's one turn flow (motti/session.py) with no front end: what headless matches and script mode play
through (spec/motti.md §3.2 saves, §6 the status file)."""

from __future__ import annotations

import json
import random

from motti_maps import TWO

from motti.compose import Composer
from motti.mapfile import load_map, parse_map
from motti.rules import Game
from motti.session import Session


def test_every_action_is_announced_saved_and_written_to_the_status(tmp_path) -> None:
    save, status = tmp_path / "game.map", tmp_path / "s.json"
    game = Composer(Game(parse_map(TWO).board, random.Random(3)))
    session = Session(game, status=str(status), save=str(save))
    session.play(("attack", [(4, 1)]))
    assert session.message == "P1 attack 1/6 failed"        # seed 3 draws 5 first: no cross is conquered
    assert (load_map(save).turn, load_map(save).attacks) == (1, 5)
    assert json.loads(status.read_text())["message"] == "P1 attack 1/6 failed"


def test_a_headless_session_writes_its_files_once_a_turn(tmp_path) -> None:
    save, status = tmp_path / "game.map", tmp_path / "s.json"
    game = Composer(Game(parse_map(TWO).board, random.Random(3)))
    session = Session(game, status=str(status), save=str(save), every_action=False)
    session.play(("attack", [(4, 1)]))
    assert not save.exists() and not status.exists()           # the turn goes on
    session.play(("pass",))
    assert (load_map(save).turn, load_map(save).attacks) == (2, 6)
    data = json.loads(status.read_text())
    assert (data["turn"], data["message"]) == (2, "P1 ended the turn")
    assert data["last_turn"] == {"player": 1, "action": "attack", "cells": [], "reset": False}
