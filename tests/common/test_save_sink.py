"""common.save.Sink: the one failure policy for saves and status files, and typed JSON decoding."""

from __future__ import annotations

import os
import random
from pathlib import Path

import msgspec
import pytest

from common.loop import Inbox
from common.save import FileFormatError, Sink, decode_json, remove_stale_temporaries, write_atomic
from starlanes.rules import Game
from starlanes.save import load_game
from starlanes.session import Session


def test_a_failure_is_shown_once_retried_and_the_last_good_file_stays(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]):
    shown: list[str] = []
    path = tmp_path / "g.json"
    sink = Sink(path, "the save", "prog", show=shown.append)
    assert sink.write_text("one\n")
    failures = 0

    def broken(target: str) -> None:
        nonlocal failures
        failures += 1
        raise OSError(28, "No space left on device")

    assert not sink.write(broken) and not sink.write(broken)
    assert failures == 2, "every chance is a new try"
    line = f"cannot write the save {path}: No space left on device"
    assert shown == [line] and sink.failure == line
    assert capsys.readouterr().err == f"prog: {line}\n"
    assert path.read_text() == "one\n", "the last good file is never damaged"
    assert sink.write_text("two\n")
    assert sink.failure is None and path.read_text() == "two\n"
    assert capsys.readouterr().err == f"prog: the save {path}: written again\n"


def test_no_echo_where_stderr_is_the_screen(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    shown: list[str] = []
    sink = Sink(tmp_path / "missing" / "g.json", "--status", "prog", show=shown.append, echo=False)
    assert not sink.write_text("x")
    assert shown == [f"cannot write --status {tmp_path / 'missing' / 'g.json'}: No such file or directory"]
    assert capsys.readouterr().err == ""


def test_stale_temporaries_of_dead_processes_go(tmp_path: Path):
    path = tmp_path / "g.json"
    write_atomic(path, "x")
    dead = tmp_path / ".g.json.999999999.abcd1234.tmp"
    mine = tmp_path / f".g.json.{os.getpid()}.efgh5678.tmp"
    other = tmp_path / ".h.json.999999999.abcd1234.tmp"
    for p in (dead, mine, other):
        p.write_text("half")
    assert remove_stale_temporaries(path) == [dead]
    assert mine.exists() and other.exists() and not dead.exists()
    dead.write_text("half")
    Sink(path, "the save", "prog")
    assert not dead.exists()


def test_star_lanes_keeps_trying_to_save(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    folder = tmp_path / "saves"
    folder.write_text("a file where the folder should be")
    path = folder / "g.json"
    game = Game.new(["Ann", "Bob"], random.Random(3))
    session = Session(game, ["human", "human"], Inbox(), save_path=str(path))
    session.autosave()
    assert session.notice == f"Could not save to {path}: Not a directory. Trying again at the next prompt."
    assert capsys.readouterr().err == f"starlanes: cannot write the save {path}: Not a directory\n"
    session.notice = None
    session.autosave()
    assert session.notice is None and capsys.readouterr().err == "", "shown once"
    folder.unlink()
    folder.mkdir()
    session.autosave()
    again, _ = load_game(path)
    assert again.to_dict() == game.to_dict()


class Point(msgspec.Struct):
    x: int
    y: int


def test_decode_json_names_the_place(tmp_path: Path):
    path = tmp_path / "p.json"
    path.write_bytes(b'\xef\xbb\xbf{"x": 1, "y": 2}')
    assert decode_json(path, Point) == Point(1, 2)
    for text, message in (('{"x": 1, "y": "2"}', "$.y: expected int, got str"),
                          ('{"x": 1}', "$: object missing required field y"),
                          ('{"x": 1,\n "y": }', "2:7: JSON is malformed: invalid character"),
                          ('{"x": 1,', "1:9: Input data was truncated"),
                          ("[" * 100_000 + "]" * 100_000, "$: expected object, got array")):
        path.write_text(text)
        with pytest.raises(FileFormatError) as error:
            decode_json(path, Point)
        sep = ":" if message[0].isdigit() else ": "
        assert str(error.value) == f"{path}{sep}{message}"
