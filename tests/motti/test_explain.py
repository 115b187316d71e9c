"""A newcomer sees why a capital cannot fall yet, what will bring the reset and what to try next: the rules'
queries (motti.rules: capital_threats, takeable_by_player, ResetOutlook, the turns of the resets), their words
(motti.explain), the status file's ``land``/``reset``/``tip`` keys and the front end's ``t``, ``?``/F1 and
``m`` (spec/motti.md §2.2, §2.7, §2.8, §6, §7)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
from motti_maps import T13, game, grid

from common.displays import Seat
from common.loop import Click, Closed, Key
from motti import explain, rules, status, view
from motti.compose import Composer
from motti.frontend import Frontend
from motti.mapfile import parse_map
from motti.rules import Action, Game
from motti.session import Session

#: spec §9 T25: player 2 can reach (1,0) and (1,1); player 1 defends both and the strict reset follows.
T25 = ("AaBbb/AaBbb", {1: (0, 0), 2: (4, 0)})


def test_the_cells_from_which_a_capital_can_be_taken_are_its_neighbours_of_other_players():
    board = game("aaAbbb/aaAbbb/aaAbbb", {1: (0, 0), 2: (3, 1)}).board      # spec §9 T13
    threats = rules.capital_threats(board)
    assert threats == {1: [], 2: [((2, 0), 1), ((2, 1), 1), ((2, 2), 1)]}
    assert explain.threat_cells(board) == [((2, 0), (3, 1), 1), ((2, 1), (3, 1), 1), ((2, 2), (3, 1), 1)]
    assert explain.capital_state(board, 2) == explain.OPEN
    board.occupied[1, 3] = True
    assert explain.capital_state(board, 2) == explain.SAFE


def test_strict_reset_line_counts_what_each_player_can_still_take_then_the_reset_is_recorded():
    g = game(*T25, max_turns=50)
    outlook = g.game.reset_outlook()
    assert outlook == rules.ResetOutlook("strict", {1: 0, 2: 2}, armed=True)
    assert outlook.to_json() == {"rule": "strict", "takeable": {"1": 0, "2": 2}}
    assert explain.reset_variants(outlook) == (
        "Reset when no player can take a free cell of another: P1 can take 0, P2 2",
        "Reset when none can take: P1 0, P2 2", "Reset: P1 0 P2 2")
    assert explain.info_variants(g.game)[0] == (
        "Turn 1 of 50 · 6 attacks left; Defend or Guerilla ends the turn · land P1 4, P2 6 · Reset when no "
        "player can take a free cell of another: P1 can take 0, P2 2")
    assert explain.info_variants(g.game)[-1] == "T1/50 · 6 att · 1:4 2:6 · Reset: P1 0 P2 2"
    assert explain.resets_line(g.resets) == "Resets: none yet"
    g.defend([(1, 0), (1, 1)])                       # T25: the count drops to 0, the board resets
    assert grid(g.board) == "aabbb/aabbb"
    assert g.resets == [1] and explain.resets_line(g.resets) == "Resets: turn 1"
    after = g.game.reset_outlook()
    assert after == rules.ResetOutlook("strict", {1: 0, 2: 0}, armed=False)
    assert explain.reset_variants(after)[0] == "No reset due: nobody can take a free cell of another yet"
    assert explain.resets_line([31, 77]) == "Resets: turns 31, 77"


def test_empty_reset_line_counts_the_free_land():
    g = game("AaBbb/AaBbb", {1: (0, 0), 2: (4, 0)}, reset_rule="empty")
    outlook = g.game.reset_outlook()
    assert outlook.to_json() == {"rule": "empty", "free": 6}
    assert explain.reset_variants(outlook)[0] == "Reset when no land is free: 6 free cells left"


def test_the_turns_of_the_resets_survive_a_clone_and_a_save():
    g = game("AABB/AaBB", {1: (0, 0), 2: (3, 0)})          # spec §9 T15
    copy = g.game.clone()
    g.defend([(1, 1)])
    assert (g.resets, copy.resets) == ([1], [])
    from motti.savegame import save_text

    text = save_text(g)
    assert "resets 1" in text.splitlines()
    assert parse_map(text).resets == (1,)


def test_the_tip_is_the_medium_players_choice_and_never_changes_the_game():
    g = game("aaAbbb/aaAbbb/aaAbbb", {1: (0, 0), 2: (3, 1)})
    before = (g.board.owner.copy(), g.board.occupied.copy(), g.game.rng.getstate(), g.turns, g.attacks_left)
    tip = explain.tip_for(g.game)
    assert tip == explain.Tip(1, "guerilla", ((3, 1),), "takes P2's capital")
    assert tip.text() == "Tip for P1: guerilla 3,1 — takes P2's capital"
    assert np.array_equal(g.board.owner, before[0]) and np.array_equal(g.board.occupied, before[1])
    assert (g.game.rng.getstate(), g.turns, g.attacks_left) == before[2:]
    assert explain.why(g.game, "attack", [(1, 0)]) == (
        "occupies your own free cells, so that they cannot be attacked")
    assert explain.why(g.game, "pass", []) == (
        "nothing is worth an attack now: press p to pass (end the turn)")


def test_the_status_file_gives_turns_land_reset_and_the_tip():
    g = game(*T25, max_turns=50)
    data = status.status_data(g)
    assert (data["turns"], data["max_turns"], data["land"], data["resets"], data["tip"]) == (
        0, 50, {"1": 4, "2": 6}, [], None)
    assert data["reset"] == {"rule": "strict", "takeable": {"1": 0, "2": 2}}
    g.game.defeat([2])
    assert status.status_data(g)["reset"] is None


class FakeWindow:
    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.display = ":99"

    def present(self, surface, rects=None) -> None:
        pass

    def close(self) -> None:
        pass


def two_windows(text: str = T13, **kwargs) -> Frontend:
    g = Composer(Game(parse_map(text).board, random.Random(3)))
    size = view.default_size(g.board.width, g.board.height)
    front = Frontend(Session(g, **kwargs), {"seat0": (FakeWindow(size), Seat((1,), ":99")),
                                            "seat1": (FakeWindow(size), Seat((2,), ":99"))})
    front.draw()
    return front


def notes(front: Frontend) -> dict[str, str | None]:
    return {w["source"]: w["note"] for w in front.session.status_data()["windows"]}


def test_t_shows_the_tip_as_crosses_in_the_window_in_turn_and_tells_the_others():
    front = two_windows()
    front.session.handle(Key("seat0", "t"))
    g = front.game
    assert (g.selected, g.crosses) == (Action.GUERILLA, [(3, 1)])     # shown, not performed
    assert g.board.capitals[2] == (3, 1) and g.turns == 0
    assert notes(front) == {"seat0": "Tip for P1: guerilla 3,1 — takes P2's capital", "seat1": None}
    data = front.session.status_data()
    assert data["message"] == "P1 asked for a tip"
    legends = {w["source"]: w["legend"] for w in data["windows"]}
    assert legends["seat1"] == "waiting for P1 · P1 asked for a tip"
    assert data["tip"] == {"player": 1, "action": "guerilla", "cells": [[3, 1]], "why": "takes P2's capital"}
    front.session.handle(Key("seat1", "t"))          # not player 2's turn: nothing but why
    assert notes(front)["seat1"] == "not your turn: waiting for P1"
    front.session.handle(Click("seat0", 3, 1, 1))    # the right button performs it: the capital falls
    assert g.winner == 1 and front.session.status_data()["tip"] is None


def test_question_mark_and_f1_show_the_help_until_any_key_and_m_starts_with_the_resets():
    front = two_windows()
    for name in ("question", "F1"):
        front.session.handle(Key("seat0", name))
        assert [w["help"] for w in front.session.status_data()["windows"]] == [True, False]
        front.session.handle(Key("seat0", "space"))
        assert [w["help"] for w in front.session.status_data()["windows"]] == [False, False]
    window, console = explain.help_lines("window"), explain.help_lines("console")
    assert len(window) == 1 + 11 + 1 + 6 and len(console) == 1 + 11 + 1 + 5
    assert all(len(line) <= 79 for line in window + console)      # one row each on an 80-column terminal
    assert any("F1" in line for line in window) and any("h j k l" in line for line in console)
    assert window[1:12] == console[1:12] == explain.RULES
    # The pass key, the tip put away and the last turn's outlines are in the help (windows and console).
    for lines in (window, console):
        assert any(line.startswith("p: pass (end the turn now)") for line in lines)
        assert "t: a tip (the medium computer's move, as crosses); t again takes it away." in lines
    assert "m: the last announcements. Outlined cells: the last turn's (dashed: encircled)." in window
    watch = explain.help_lines("watch")
    assert watch[:13] == console[:13] and watch[13:] == explain.WATCH_KEYS
    assert all(len(line) <= 79 for line in watch) and not any("z/x/c" in line for line in watch)


def test_the_guide_says_in_how_many_lines_the_help_gives_the_rules():
    guide = (Path(__file__).parents[2] / "docs" / "motti.md").read_text(encoding="utf-8")
    count = {10: "ten", 11: "eleven", 12: "twelve"}[len(explain.RULES)]
    assert f"`?` (or F1) shows the rules in {count} lines" in guide


def test_the_last_person_closing_the_window_while_a_computer_plays_suspends_the_game(tmp_path, capsys):
    save, status_path = tmp_path / "game.map", tmp_path / "s.json"
    g = Composer(Game(parse_map(T13).board, random.Random(3)))
    size = view.default_size(g.board.width, g.board.height)
    session = Session(g, computer={2: "easy"}, save=str(save), status=str(status_path))
    Frontend(session, {"seat0": (FakeWindow(size), Seat((1,), ":99"))})
    session.inbox.put(Closed("seat0"))
    assert session.run() == 0
    said = (f"P1 left — nobody is left at a window or the terminal: the game stops unfinished; it is saved "
            f"in {save} (motti {save} --save {save} resumes it)")
    data = json.loads(status_path.read_text())
    assert (data["message"], data["winner"], data["alive"]) == (said, None, [1, 2])
    assert capsys.readouterr().out == f"motti: {said}\n"
    assert parse_map(save.read_text()).board.alive_players() == [1, 2]


def test_without_a_save_closing_the_last_window_is_a_defeat_and_the_terminal_says_so(tmp_path, capsys):
    g = Composer(Game(parse_map(T13).board, random.Random(3)))
    size = view.default_size(g.board.width, g.board.height)
    session = Session(g, computer={2: "easy"})
    Frontend(session, {"seat0": (FakeWindow(size), Seat((1,), ":99"))})
    session.inbox.put(Closed("seat0"))
    assert session.run() == 0
    assert g.winner == 2
    assert capsys.readouterr().out == "motti: P1 left, out — P2 wins after 1 turn\n"
