"""motti map files (spec/motti.md §3.2), the map search path and -p (§3.1)."""

from __future__ import annotations

import os
import random
import threading

import numpy as np
import pytest
from deadline import deadline

from common.data import shipped_dir
from motti.mapfile import (
    MAX_FILE_BYTES,
    MapError,
    dump_map,
    find_map,
    list_maps,
    load_map,
    parse_map,
    reduce_players,
    renumber,
)
from motti.rules import Game

EXAMPLE = """motti-map 1
size 8 4
players 2
capital 1 1 1
capital 2 6 2
grid
.aaab...
aaaabbb.
.aabbbbb
..abbbb.
"""

SAVED = """# a saved state
motti-map 1
size 5 2
players 3
capital 1 0 0
eliminated 2
capital 3 4 1
turn 3
attacks 4
grid
aAa.c
aa.cC
"""


def test_spec_example():
    state = parse_map(EXAMPLE, "example.map")
    b = state.board
    assert (b.width, b.height, b.players) == (8, 4, 2)
    assert b.capitals == {1: (1, 1), 2: (6, 2)}
    assert state.turn is None and state.attacks is None
    assert not b.land[0, 0] and b.land[0, 1] and b.owner[0, 4] == 2
    assert int(b.land.sum()) == 23 and not b.occupied.any()
    assert b.owner.dtype == np.int8 and b.land.dtype == bool and b.occupied.dtype == bool
    assert dump_map(b) == EXAMPLE


def test_saved_state_round_trip():
    state = parse_map(SAVED)
    b = state.board
    assert b.capitals == {1: (0, 0), 2: None, 3: (4, 1)}
    assert state.turn == 3 and state.attacks == 4
    assert b.occupied[0, 1] and b.occupied[1, 4] and not b.occupied[0, 0]
    text = dump_map(b, turn=3, attacks=4, comment="a saved state")
    assert text == SAVED
    game = Game(b, random.Random(1), turn=state.turn, attacks=state.attacks)
    assert game.current_player == 3 and game.attacked and game.alive == [1, 3]


def test_crlf_comments_and_blank_lines_are_accepted():
    text = "# header comment\r\n\r\n" + EXAMPLE.replace("\n", "\r\n").replace(
        "grid\r\n", "# rows\r\ngrid\r\n"
    )
    assert dump_map(parse_map(text).board) == EXAMPLE


def test_load_map_and_unreadable_file(tmp_path):
    path = tmp_path / "x.map"
    path.write_text(EXAMPLE)
    assert load_map(path).board.capitals == {1: (1, 1), 2: (6, 2)}
    with pytest.raises(MapError) as err:
        load_map(tmp_path / "missing.map")
    assert str(err.value).startswith(f"{tmp_path / 'missing.map'}: cannot read: No such file")
    (tmp_path / "bin.map").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(MapError) as err:
        load_map(tmp_path / "bin.map")
    assert str(err.value) == f"{tmp_path / 'bin.map'}:1:1: not UTF-8 text (invalid start byte)"


@pytest.mark.parametrize(("data", "where", "reason"), [
    (b"abc\n\xb5x\n", "2:1", "invalid start byte"),
    (b"\xef\xbb\xbfmotti-map 1\nsize 3 \xc3(\n", "2:8", "invalid continuation byte"),
    ("motti-map 1\n# é\u00e9 \n".encode() + b"ab\xff", "3:3", "invalid start byte"),
    (b"motti-map 1\r\nsize \xe2\x82", "2:6", "unexpected end of data"),
])
def test_a_byte_that_is_not_utf8_is_named_by_line_and_column_in_characters(tmp_path, data, where, reason):
    (tmp_path / "bin.map").write_bytes(data)
    with pytest.raises(MapError) as err:
        load_map(tmp_path / "bin.map")
    assert str(err.value) == f"{tmp_path / 'bin.map'}:{where}: not UTF-8 text ({reason})"


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.map"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.encode())
    assert load_map(path).board.capitals == {1: (1, 1), 2: (6, 2)}


def test_a_map_is_any_readable_file_but_not_a_directory_or_an_endless_device(tmp_path):
    (tmp_path / "dir.map").mkdir()
    with pytest.raises(MapError) as err:
        load_map(tmp_path / "dir.map")
    assert str(err.value) == f"{tmp_path / 'dir.map'}: is a directory, not a file to read"
    with pytest.raises(MapError) as err:
        load_map("/dev/null")
    assert str(err.value) == "/dev/null:1:1: unexpected end of file, expected 'motti-map 1'"
    with pytest.raises(MapError) as err:
        load_map("/dev/zero")
    assert str(err.value) == f"/dev/zero: cannot read: is larger than {MAX_FILE_BYTES} bytes"
    os.mkfifo(tmp_path / "pipe.map")
    writer = threading.Thread(target=(tmp_path / "pipe.map").write_text, args=(EXAMPLE,))
    writer.start()
    assert load_map(tmp_path / "pipe.map").board.capitals == {1: (1, 1), 2: (6, 2)}
    writer.join(10)


def bad(text: str) -> MapError:
    with pytest.raises(MapError) as err:
        parse_map(text, "m.map")
    return err.value


def replace(old: str, new: str) -> str:
    assert old in EXAMPLE
    return EXAMPLE.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (
            replace("motti-map 1", "motti-map 2"),
            1,
            1,
            "expected 'motti-map 1' as the first line, found 'motti-map 2'",
        ),
        ("", 1, 1, "unexpected end of file, expected 'motti-map 1'"),
        (replace("size 8 4", "size 8"), 2, 7, "expected 'size W H', found too few numbers"),
        (replace("size 8 4", "size 8 4 1"), 2, 10, "expected 'size W H', found too many numbers"),
        (replace("size 8 4", "size eight 4"), 2, 6, "expected an integer W, found 'eight'"),
        (replace("size 8 4", "size 8 4x"), 2, 8, "expected an integer H, found '4x'"),
        (replace("size 8 4", "size \uff18 4"), 2, 6, "expected an integer W, found '\uff18'"),
        (replace("size 8 4", "size 8 4_0"), 2, 8, "expected an integer H, found '4_0'"),
        (replace("size 8 4", "size 0 4"), 2, 6, "size must be at least 1 1, found 0 4"),
        (replace("size 8 4", "width 8 4"), 2, 1, "expected 'size W H', found 'width 8 4'"),
        (replace("players 2", "players 1"), 3, 9, "players must be 2 to 9, found 1"),
        (replace("players 2", "player 2"), 3, 1, "expected 'players N'"),
        (replace("capital 1 1 1", "capital 1 1"), 4, 12, "expected 'capital K X Y'"),
        (replace("capital 1 1 1", "capital 3 1 1"), 4, 9, "expected a player 1 to 2, found 3"),
        (replace("capital 1 1 1", "capital 2 1 1"), 5, 9, "player 2 has a second capital/eliminated line"),
        (replace("capital 1 1 1", "capital 1 0 0"), 4, 11, "capital of player 1 at (0,0) is on sea"),
        (
            replace("capital 1 1 1", "capital 1 4 0"),
            4,
            11,
            "capital of player 1 at (4,0) is on land of player 2",
        ),
        (
            replace("capital 1 1 1", "capital 1 9 1"),
            4,
            11,
            "capital of player 1 at (9,1) is outside the 8x4 grid",
        ),
        (replace("capital 1 1 1\n", ""), 5, 1, "player 1 has no 'capital' or 'eliminated' line"),
        (
            replace("capital 1 1 1", "castle 1 1 1"),
            4,
            1,
            "expected 'capital', 'eliminated', 'turn', 'attacks' or",
        ),
        (replace("capital 1 1 1", "eliminated 1"), 7, 2, "'a' is land of eliminated player 1"),
        (replace("grid", "grid 2"), 6, 1, "expected 'grid' alone on its line"),
        (replace(".aabbbbb", ".aabbbb"), 9, 8, "expected a grid row of 8 characters, found 7"),
        (replace(".aabbbbb", ".aabbbbbb"), 9, 9, "expected a grid row of 8 characters, found 9"),
        (replace("..abbbb.\n", ""), 10, 1, "unexpected end of file, expected grid row 4 of 4"),
        (EXAMPLE + "aaaaaaaa\n", 11, 1, "expected the end of the file after 4 grid rows"),
        (replace(".aabbbbb", ".aaxbbbb"), 9, 4, "unknown character 'x', expected '.', 'a'-'i' or 'A'-'I'"),
        (replace(".aabbbbb", ".aa bbbb"), 9, 4, "unknown character ' '"),
        (replace(".aabbbbb", ".aacbbbb"), 9, 4, "'c' is land of player 3, but players is 2"),
        (replace("grid", "turn 3\ngrid"), 6, 6, "turn must name an alive player, found 3"),
        (replace("grid", "attacks 7\ngrid"), 6, 9, "attacks must be 1 to 6, found 7"),
        (replace("grid", "turn 1\nturn 2\ngrid"), 7, 1, "a second 'turn' line"),
        (replace("grid", "attacks 3\nturn 1\nattacks 3\ngrid"), 8, 1, "a second 'attacks' line"),
        (replace("grid", "attacks x\ngrid"), 6, 9, "expected an integer R, found 'x'"),
    ],
)
def test_loader_errors(text, line, column, message):
    err = bad(text)
    assert (err.file, err.line, err.column) == ("m.map", line, column)
    assert err.message.startswith(message), err.message
    assert str(err) == f"m.map:{line}:{column}: {err.message}"


def test_find_map_cwd_first_then_shipped(tmp_path, monkeypatch):
    cwd, shipped = tmp_path / "cwd", tmp_path / "shipped"
    cwd.mkdir()
    shipped.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("MOTTI_MAPDIR", str(shipped))
    (shipped / "duel.map").write_text(EXAMPLE)
    (shipped / "local.map").write_text(EXAMPLE)
    (cwd / "local.map").write_text(EXAMPLE)
    (cwd / "plain").write_text(EXAMPLE)
    assert find_map("duel") == shipped / "duel.map"
    assert find_map("duel.map") == shipped / "duel.map"
    assert find_map("local").resolve() == (cwd / "local.map").resolve()
    assert find_map("plain").resolve() == (cwd / "plain").resolve()
    with pytest.raises(
        FileNotFoundError, match=f"map 'nowhere' not found in the current directory or in {shipped}"
    ):
        find_map("nowhere")
    # "motti ''" said ".: is a directory, not a file to read"
    empty = f"an empty map name is no map file in the current directory or in {shipped}"
    with pytest.raises(FileNotFoundError, match=empty):
        find_map("")


def test_list_maps(tmp_path, monkeypatch):
    monkeypatch.setenv("MOTTI_MAPDIR", str(tmp_path))
    (tmp_path / "b.map").write_text(EXAMPLE)
    (tmp_path / "a.map").write_text(SAVED)
    (tmp_path / "broken.map").write_text("nonsense\n")
    (tmp_path / "notes.txt").write_text(EXAMPLE)
    assert list_maps() == [("a", 5, 2, 3), ("b", 8, 4, 2)]
    monkeypatch.setenv("MOTTI_MAPDIR", str(tmp_path / "none"))
    assert list_maps() == []


def test_reduce_players_errors():
    b = parse_map(SAVED).board
    with pytest.raises(ValueError, match="at least 2"):
        reduce_players(b, 1, set())
    with pytest.raises(ValueError, match=r"^-p 3 is more than the 2 players still alive on this map \(3 in "
                       r"the file\)$"):
        reduce_players(b, 3, set())
    full = parse_map(
        "motti-map 1\nsize 3 1\nplayers 3\ncapital 1 0 0\ncapital 2 1 0\ncapital 3 2 0\ngrid\nabc\n"
    ).board
    with pytest.raises(ValueError, match="cannot disable 1 players"):
        reduce_players(full, 2, {1, 2, 3})


def test_reduce_keeps_occupied_flags_and_renumber_drops_eliminated():
    b = parse_map(
        "motti-map 1\nsize 3 1\nplayers 3\ncapital 1 0 0\ncapital 2 1 0\ncapital 3 2 0\ngrid\naBc\n"
    ).board
    reduced, mapping = reduce_players(b, 2, set())
    assert mapping == {1: 1, 2: 2}
    assert dump_map(renumber(reduced, mapping)).endswith(
        "players 2\ncapital 1 0 0\ncapital 2 1 0\ngrid\naBb\n"
    )


def test_every_shipped_map_loads():
    maps = sorted(shipped_dir("motti").glob("*.map"))
    names = {p.stem for p in maps}
    assert {"classic", "islands", "corridor", "continent"} <= names
    counts = set()
    for path in maps:
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# "), f"{path.name} lacks a describing comment"
        state = load_map(path)
        b = state.board
        counts.add(b.players)
        assert state.turn is None and state.attacks is None and not b.occupied.any()
        for p, (x, y) in b.capitals.items():
            assert b.land[y, x] and b.owner[y, x] == p, (path.name, p)
        assert dump_map(b) in text
        Game(b, random.Random(0))
    assert {3, 6, 9} <= counts
    classic = load_map(shipped_dir("motti") / "classic.map").board
    assert (classic.width, classic.height) == (20, 15)
    islands = load_map(shipped_dir("motti") / "islands.map").board
    assert islands.players == 3
    continent = load_map(shipped_dir("motti") / "continent.map").board
    assert continent.width >= 200 and continent.height >= 150
    assert [m[0] for m in list_maps()] == sorted(names)


@pytest.mark.parametrize(("size_line", "column", "message"), [
    ("size 3000000000 3000000000", 6, "size must be at most 2000 2000, found 3000000000 3000000000"),
    ("size 200000 200000", 6, "size must be at most 2000 2000, found 200000 200000"),
    ("size 20 2001", 9, "size must be at most 2000 2000, found 20 2001"),
    ("size " + "9" * 5000 + " 1", 6, "W is far too large (5000 digits)"),
])
def test_an_absurd_size_line_is_an_error_naming_line_and_column(size_line, column, message):
    text = f"motti-map 1\n{size_line}\nplayers 2\ncapital 1 0 0\ncapital 2 1 0\ngrid\nab\n"
    with pytest.raises(MapError) as caught:
        parse_map(text, "huge.map")
    assert str(caught.value) == f"huge.map:2:{column}: {message}"


@pytest.mark.slow
def test_a_map_of_2000_cells_a_side_loads():
    row = "a" * 1000 + "b" * 1000
    text = "motti-map 1\nsize 2000 2000\nplayers 2\ncapital 1 0 0\ncapital 2 1999 1999\ngrid\n"
    board = parse_map(text + (row + "\n") * 2000).board
    assert (board.width, board.height) == (2000, 2000)


def test_list_maps_skips_a_fifo_without_opening_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MOTTI_MAPDIR", str(tmp_path))
    (tmp_path / "b.map").write_text(EXAMPLE)
    os.mkfifo(tmp_path / "ff.map")
    (tmp_path / "dir.map").mkdir()
    skipped: list[MapError] = []
    listed: list[list[tuple[str, int, int, int]]] = []
    lister = threading.Thread(target=lambda: listed.append(list_maps(skipped.append)), daemon=True)
    lister.start()
    lister.join(deadline(5))
    if lister.is_alive():
        with open(tmp_path / "ff.map", "w"):   # a writer's end of file lets the hung listing finish
            pass
        lister.join(deadline(5))
        pytest.fail("list_maps opened ff.map, a FIFO, and waited for a writer")
    assert listed == [[("b", 8, 4, 2)]]
    assert [str(error) for error in skipped] == [
        f"{tmp_path / 'dir.map'}: is a directory, not a regular file",
        f"{tmp_path / 'ff.map'}: is a FIFO, not a regular file"]


def test_list_maps_reports_each_file_it_skips(tmp_path, monkeypatch):
    monkeypatch.setenv("MOTTI_MAPDIR", str(tmp_path))
    (tmp_path / "b.map").write_text(EXAMPLE)
    (tmp_path / "huge.map").write_text("motti-map 1\nsize 200000 200000\nplayers 2\n")
    skipped: list[MapError] = []
    assert list_maps(skipped.append) == [("b", 8, 4, 2)]
    assert [str(error) for error in skipped] == [
        f"{tmp_path / 'huge.map'}:2:6: size must be at most 2000 2000, found 200000 200000"]


def test_p_above_the_one_player_left_names_both_counts():
    one_left = parse_map("motti-map 1\nsize 3 1\nplayers 3\ncapital 1 0 0\neliminated 2\neliminated 3\n"
                         "grid\na..\n").board
    with pytest.raises(ValueError, match=r"^-p 2 is more than") as caught:
        reduce_players(one_left, 2, set())
    assert str(caught.value) == "-p 2 is more than the 1 player still alive on this map (3 in the file)"
    full = parse_map(EXAMPLE).board
    with pytest.raises(ValueError, match=r"^-p 3 is more than") as caught:
        reduce_players(full, 3, set())
    assert str(caught.value) == "-p 3 is more than the 2 players of this map"
