"""Headless script mode (spec/motti.md §3.3)."""

from __future__ import annotations

import random

import pytest
from motti_maps import T13

from motti.mapfile import dump_map, parse_map
from motti.rules import Game, GameOver, TurnPassed
from motti.script import ScriptError, parse_line, play_script, run_script


class Scripted(random.Random):
    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def randrange(self, *args, **kwargs):  # type: ignore[override]
        assert args == (6,) and not kwargs
        return self.draws.pop(0)


T1 = """motti-map 1
size 4 3
players 2
capital 1 0 0
capital 2 3 0
grid
aabb
aAbb
aabb
"""


def rows(game: Game) -> str:
    return "/".join(dump_map(game.board).split("grid\n", 1)[1].split())


def test_parse_line():
    assert parse_line("  # a comment") is None
    assert parse_line("") is None
    assert parse_line("attack") == ("attack", [])
    assert parse_line("attack 1,2 3,4") == ("attack", [(1, 2), (3, 4)])
    assert parse_line("defend 0,0") == ("defend", [(0, 0)])
    assert parse_line("guerilla 2,0") == ("guerilla", [(2, 0)])
    assert parse_line("pass") == ("pass", [])
    for bad, message in [
        ("fly 1,2", "unknown action 'fly'"),
        ("attack 1;2", "expected a cell x,y, found '1;2'"),
        ("attack \uff13,\uff19", "expected a cell x,y, found '\uff13,\uff19'"),
        ("attack 1,2 " * 1 + "0,0 " * 6, "0 to 6 cells, found 7"),
        ("defend", "1 to 3 cells, found 0"),
        ("guerilla 1,1 2,2", "takes 1 cells, found 2"),
        ("pass 1,1", "takes 0 cells"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_line(bad)


def test_a_turn_of_attacks_then_defend(tmp_path):
    script = tmp_path / "game.txt"
    script.write_text(
        "# player 1 attacks twice, then fails four times\n"
        "attack 2,1 0,0\n"
        "\n"
        "attack 0,0\n"
        "attack\nattack\nattack\nattack\n"
        "defend 3,1 3,2\n"
    )
    game = Game(parse_map(T1).board, Scripted([0, 0, 5, 5, 5, 5]))
    run_script(game, script)
    assert rows(game) == "Aabb/aAAB/aabB"
    assert game.current_player == 1 and game.attacks_left == 6


def test_events_of_a_script():
    game = Game(parse_map(T1).board, Scripted([]))
    assert play_script(game, "pass\npass\n") == [TurnPassed(2), TurnPassed(1)]


def test_illegal_cross_names_the_line(tmp_path):
    script = tmp_path / "bad.txt"
    script.write_text("attack 0,0\nattack 3,0\n")
    game = Game(parse_map(T1).board, Scripted([5]))
    with pytest.raises(ScriptError) as err:
        run_script(game, script)
    assert (
        str(err.value)
        == f"{script}:2: player 1: attack: (3,0) is not orthogonally next to an occupied cell of yours"
    )
    assert err.value.line == 2


def test_defend_after_attack_is_refused():
    game = Game(parse_map(T1).board, Scripted([5]))
    with pytest.raises(ScriptError, match=r"^s:2: player 1: defend: Defend is impossible after an attack"):
        play_script(game, "attack\ndefend 0,0\n", "s")


def test_malformed_line():
    game = Game(parse_map(T1).board, Scripted([]))
    with pytest.raises(ScriptError, match=r"^s:3: expected a cell x,y, found 'x'$"):
        play_script(game, "pass\n# fine\nattack x\n", "s")


def test_line_after_the_end():
    game = Game(parse_map(T13).board, Scripted([0]))
    events = play_script(game, "attack 3,1\n# comments are still fine\n\n", "s")
    assert events[-1] == GameOver(1, "win", "", 1)
    game = Game(parse_map(T13).board, Scripted([0]))
    with pytest.raises(ScriptError, match=r"^s:2: the game is over \(P1 wins after 1 turn\)"):
        play_script(game, "attack 3,1\npass\n", "s")


def test_a_script_that_is_not_utf8_names_the_line_and_column_of_its_first_bad_byte(tmp_path, capsys):
    from motti.cli import main

    game = Game(parse_map(T1).board, Scripted([]))
    script = tmp_path / "bin.map"
    script.write_bytes(b"pass\nattack 3,1 \xb5\n")
    with pytest.raises(ScriptError) as err:
        run_script(game, script)
    assert (str(err.value), game.turns) == (f"{script}:2:12: not UTF-8 text (invalid start byte)", 0)
    (tmp_path / "t1.map").write_text(T1)
    assert main([str(tmp_path / "t1.map"), "--script", str(script), "--seed", "1"]) == 2
    assert capsys.readouterr() == ("", f"motti: {script}:2:12: not UTF-8 text (invalid start byte)\n")


def test_unreadable_script(tmp_path):
    game = Game(parse_map(T1).board, Scripted([]))
    with pytest.raises(ScriptError, match=r"missing\.txt: cannot read the script"):
        run_script(game, tmp_path / "missing.txt")
