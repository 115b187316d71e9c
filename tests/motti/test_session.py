"""motti's one turn flow (motti/session.py) with no front end: what headless matches and script mode play
through (spec/motti.md §3.2 saves, §6 the status file)."""

from __future__ import annotations

import json
import random

from motti_maps import TWO

from common.loop import Command
from motti.compose import Composer
from motti.mapfile import load_map, parse_map
from motti.rules import Action, Game
from motti.session import Session


def test_every_action_is_announced_saved_and_written_to_the_status(tmp_path) -> None:
    save, status = tmp_path / "game.map", tmp_path / "s.json"
    game = Composer(Game(parse_map(TWO).board, random.Random(3)))
    session = Session(game, status=str(status), save=str(save))
    session.play(("attack", [(4, 1)]))
    assert session.message == "P1 attack 1 of 6 failed"        # seed 3 draws 5 first: no cross is conquered
    assert (load_map(save).turn, load_map(save).attacks) == (1, 5)
    assert json.loads(status.read_text())["message"] == "P1 attack 1 of 6 failed"


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


class Seats:
    """A front end that draws nothing and records what the session refuses (the seats' sources)."""

    uses_terminal = False

    def __init__(self) -> None:
        self.refused: list[tuple[str, str]] = []

    def handle(self, event: object) -> bool:
        return False

    def draw(self) -> None:
        pass

    def refuse(self, source: str, text: str) -> None:
        self.refused.append((source, text))

    def close(self) -> None:
        pass

    def status_fields(self) -> dict[str, object]:
        return {}


def test_a_tip_is_a_session_command_shown_to_the_seat_that_asked_until_the_game_changes(tmp_path) -> None:
    from motti_maps import T13

    status = tmp_path / "s.json"
    game = Composer(Game(parse_map(T13).board, random.Random(3)))
    session = Session(game, status=str(status))
    seats = Seats()
    session.attach(seats, {"console": (1,), "watch": ()})
    session.command("watch", Command("watch", "tip"))          # an observer cannot ask
    assert seats.refused == [("watch", "you are watching")] and session.tip is None
    session.command("console", Command("console", "tip"))
    assert (game.selected, game.crosses, game.turns) == (Action.GUERILLA, [(3, 1)], 0)   # not performed
    assert session.note_for("console") == "Tip for P1: guerilla 3,1 — takes P2's capital"
    assert session.note_for("watch") is None and session.message == "P1 asked for a tip"
    assert json.loads(status.read_text())["tip"] == {"player": 1, "action": "guerilla", "cells": [[3, 1]],
                                                     "why": "takes P2's capital"}
    session.command("console", Command("console", "perform"))
    assert game.winner == 1 and session.tip is None and session.note_for("console") is None
    assert json.loads(status.read_text())["tip"] is None


def test_a_resumed_sessions_save_keeps_the_last_turn_until_the_next_one_ends(tmp_path) -> None:
    save = tmp_path / "game.map"
    text = TWO.replace("grid", "last-turn 2 defend\nlast-cell 5 1 occupied\ngrid")
    state = parse_map(text)
    assert state.last_turn is not None
    game = Composer(Game(state.board, random.Random(3)))
    session = Session(game, save=str(save), last_turn=state.last_turn)
    session.save_now()
    saved = load_map(save).last_turn
    assert saved is not None
    assert (saved.player, saved.action, saved.cells) == (2, "defend", {(5, 1): "occupied"})
