"""The loaders of files and messages a user or a bot can get wrong, generated and mutated with Hypothesis:
never a traceback, every error one line naming the file and the place (motti maps and arena maps and toxicity
files: ``FILE:LINE:COL``), and protocol lines refused with a ProtocolError."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from deadline import deadline
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import replay
from arena.mapfile import MapError as ArenaMapError
from arena.mapfile import load_arena
from arena.protocol import ProtocolError, format_message, parse_client, parse_server
from common.save import BOM
from motti.mapfile import MapError as MottiMapError
from motti.mapfile import load_map

ROOT = Path(__file__).resolve().parents[2]
MOTTI_MAP = (ROOT / "maps" / "motti" / "classic.map").read_bytes()
ARENA_MAP = (ROOT / "maps" / "arena" / "office.map").read_bytes()
ARENA_TOXIC = (ROOT / "maps" / "arena" / "office.toxic").read_bytes()
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PLACE = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+): [^\n]+$|^(?P<whole>[^\n]+?): [^\n]+$")


@st.composite
def mutated(draw: st.DrawFn, original: bytes) -> bytes:
    """Random edits of *original*: cut, spliced bytes, a duplicated or dropped line, a changed number."""
    data = original
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["cut", "splice", "line", "number"]))
        at = draw(st.integers(0, len(data)))
        if kind == "cut":
            data = data[:at]
        elif kind == "splice":
            data = data[:at] + draw(st.binary(max_size=8)) + data[at + draw(st.integers(0, 8)):]
        elif kind == "line":
            lines = data.split(b"\n")
            i = draw(st.integers(0, max(0, len(lines) - 1)))
            lines.insert(i, lines[i]) if draw(st.booleans()) else lines.pop(i)
            data = b"\n".join(lines)
        else:
            number = str(draw(st.sampled_from([-1, 0, 9, 2001, 3_000_000_000, 10**30]))).encode()
            data = re.sub(rb"\d+", number, data, count=1) if at % 2 else data.replace(b"2", number, 1)
    return data


def _one_line_naming(message: str, path: Path) -> None:
    assert "\n" not in message and "Traceback" not in message, message
    found = PLACE.match(message)
    assert found, message
    assert (found.group("file") or found.group("whole")) == str(path), message


@FUZZ
@given(data=mutated(MOTTI_MAP))
def test_motti_map_files(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzzed.map"
    path.write_bytes(data)
    try:
        load_map(path)
    except MottiMapError as error:
        _one_line_naming(str(error), path)


@FUZZ
@given(text=st.text(alphabet=st.sampled_from(list("abAB.#0123456789 \n-xyzsizegridcapitalplayers")),
                    max_size=300))
def test_motti_map_text_of_map_words(tmp_path: Path, text: str) -> None:
    path = tmp_path / "words.map"
    path.write_text("motti-map 1\n" + text)
    try:
        load_map(path)
    except MottiMapError as error:
        _one_line_naming(str(error), path)


@FUZZ
@given(map_data=mutated(ARENA_MAP), toxic_data=mutated(ARENA_TOXIC), players=st.integers(1, 16))
def test_arena_map_and_toxic_files(tmp_path: Path, map_data: bytes, toxic_data: bytes, players: int) -> None:
    map_path, toxic_path = tmp_path / "fuzzed.map", tmp_path / "fuzzed.toxic"
    map_path.write_bytes(map_data)
    toxic_path.write_bytes(toxic_data)
    error: ArenaMapError | None = None
    try:
        load_arena(map_path, toxic_path, players=players)
    except ArenaMapError as caught:
        error = caught
    if error is not None:
        assert "\n" not in str(error)
        assert str(error).startswith((str(map_path), str(toxic_path))), str(error)


WORDS = st.sampled_from(
    ["ID_OKAY", "ID_NOT_OKAY", "MOVE", "PING", "START", "MAP", "SET", "SEE_PLAYER", "TOXIC", "LIFE",
     "TEAMCHANGE", "CONNECTED", "DISCONNECTED", "DISCONNECT", "ID", "RED", "BLUE", "N", "NE", "E", "S", "W",
     "0", "1", "-3", "4,5", "1,2,3", "99.7", "1e9", "x", ""])


@settings(max_examples=500, deadline=None)
@given(words=st.lists(WORDS, min_size=0, max_size=6), junk=st.text(max_size=6))
def test_protocol_lines(words: list[str], junk: str) -> None:
    for line in (" ".join(words), " ".join(words) + junk, junk + " ".join(words)):
        for parse in (parse_client, parse_server):
            try:
                message = parse(line)
            except ProtocolError as error:
                refused: ProtocolError | None = error
            else:
                refused = None
                assert parse(format_message(message)) == message
            if refused is not None:
                assert "\n" not in str(refused)


@pytest.fixture(scope="module")
def replay_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real replay: four example bots on the field map, played by the command line."""
    path = tmp_path_factory.mktemp("replay") / "game.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    subprocess.run([sys.executable, "-m", "arena", "play", "field", "--bots", "4", "--no-window", "--seed",
                    "5", "--round-ms", "0", "--prep-ms", "0", "--replay", str(path), "-q"],
                   check=True, timeout=deadline(40), env=env, capture_output=True)
    data = path.read_bytes()
    replay.load(path)
    return data


@FUZZ
@given(edits=st.data())
def test_arena_replays(tmp_path: Path, replay_bytes: bytes, edits: st.DataObject) -> None:
    path = tmp_path / "fuzzed.jsonl"
    lines = replay_bytes.split(b"\n")
    at = edits.draw(st.integers(0, min(len(lines) - 1, 6)))
    lines[at] = edits.draw(mutated(lines[at]))
    path.write_bytes(b"\n".join(lines))
    message = ""
    try:
        replay.load(path)
    except replay.ReplayError as error:
        message = str(error)
    if message:
        assert "\n" not in message and message.startswith(f"{path}:"), message


def test_arena_replay_bom_and_deep_nesting(tmp_path: Path, replay_bytes: bytes) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM + replay_bytes)
    assert replay.load(path).header["map"] == "field"
    lines = replay_bytes.split(b"\n")
    lines[1] = b"[" * 100_000 + b"]" * 100_000
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(replay.ReplayError) as error:
        replay.load(path)
    assert str(error.value) == f"{path}:2: nested too deeply to be a replay line"
