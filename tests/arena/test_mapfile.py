"""arena map files (spec/arena.md §2.2): parsing, toxicity, errors with file:line:col, validation, lookup."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from deadline import deadline
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from arena import maptext
from arena.mapfile import MapError, arena_from_text, find_map, load_arena, normalised_text, validate
from arena.rules import Arena
from common.data import shipped_dir

SHIPPED = ["corridors", "field", "maze", "metropolis", "office"]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_walls_free_dots_padding_and_trailing_blank_lines(tmp_path):
    path = write(tmp_path, "m.map", "#..#\n #\n\n## \n\n\n")
    arena = load_arena(path)
    assert (arena.width, arena.height, arena.name) == (4, 4, "m")
    assert arena.walls.tolist() == [[True, False, False, True],
                                    [False, True, False, False],
                                    [False, False, False, False],
                                    [True, True, False, False]]
    assert (arena.toxicity == 1).all()
    assert arena.toxicity.dtype == np.int16
    assert normalised_text(arena) == "#  #\n #  \n    \n##  \n"


def test_crlf_line_ends(tmp_path):
    arena = load_arena(write(tmp_path, "m.map", "# \r\n  \r\n"))
    assert arena.walls.tolist() == [[True, False], [False, False]]


def test_toxic_values_beside_the_map(tmp_path):
    write(tmp_path, "t.map", "             \n  \n")
    write(tmp_path, "t.toxic", " .1234567890#\n9")
    arena = load_arena(tmp_path / "t.map")
    assert arena.toxicity[0].tolist() == [1, 1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 20]
    assert arena.toxicity[1].tolist() == [18] + [1] * 12


def test_explicit_toxic_path(tmp_path):
    path = write(tmp_path, "a.map", "...")
    other = write(tmp_path, "other.toxic", "0")
    assert load_arena(path, other).toxicity.tolist() == [[20, 1, 1]]


@pytest.mark.parametrize(("text", "line", "col"), [("#.#\n.x.\n", 2, 2), ("\t", 1, 1), ("..\n..\n..*", 3, 3)])
def test_bad_map_character_names_file_line_col(tmp_path, text, line, col):
    path = write(tmp_path, "bad.map", text)
    with pytest.raises(MapError) as info:
        load_arena(path)
    assert str(info.value).startswith(f"{path}:{line}:{col}: unexpected character")
    assert (info.value.line, info.value.col) == (line, col)


@pytest.mark.parametrize(("text", "line", "col", "what"), [
    ("  \n 3a\n", 2, 3, "unexpected character 'a'"),
    ("   \n", 1, 3, "wider than the map"),
    ("  \n  \n  \n", 3, 1, "more rows than the map"),
    # the first fault in the file is named: a text file given as toxicity fails at its first letter
    ("root:x:0\n  \n  \n", 1, 1, "unexpected character 'r'"),
    ("  \n  \n  \n x\n", 3, 1, "more rows than the map"),
])
def test_bad_toxic_file(tmp_path, text, line, col, what):
    write(tmp_path, "m.map", "..\n..\n")
    toxic = write(tmp_path, "m.toxic", text)
    with pytest.raises(MapError) as info:
        load_arena(tmp_path / "m.map")
    assert str(info.value).startswith(f"{toxic}:{line}:{col}: ")
    assert what in str(info.value)


def test_a_leading_byte_order_mark_is_skipped(tmp_path):
    plain = load_arena(write(tmp_path, "plain.map", "#..\n...\n"))
    (tmp_path / "bom.map").write_bytes(codecs.BOM_UTF8 + b"#..\n...\n")
    (tmp_path / "bom.toxic").write_bytes(codecs.BOM_UTF8 + b"9\n.5\n")
    marked = load_arena(tmp_path / "bom.map")
    assert (marked.walls == plain.walls).all() and marked.walls[0, 0] and not marked.walls[0, 1]
    assert marked.toxicity.tolist() == [[18, 1, 1], [1, 10, 1]]
    (tmp_path / "bad.map").write_bytes(codecs.BOM_UTF8 + b".x\n")
    with pytest.raises(MapError, match=r"bad\.map:1:2: "):
        load_arena(tmp_path / "bad.map")


def test_empty_and_unreadable_and_binary(tmp_path):
    with pytest.raises(MapError, match=r"empty\.map:1:1: empty map"):
        load_arena(write(tmp_path, "empty.map", "\n\n"))
    with pytest.raises(MapError, match=r"missing\.map: cannot read: No such file"):
        load_arena(tmp_path / "missing.map")
    path = tmp_path / "bin.map"
    path.write_bytes(b"..\n.\xff\n")
    with pytest.raises(MapError, match=r"bin\.map:2:2: not a text file \(expected '#', ' ' or '\.'\)"):
        load_arena(path)
    good = write(tmp_path, "good.map", "...\n")
    toxic = tmp_path / "good.toxic"
    toxic.write_bytes(b"1\x80\n")
    with pytest.raises(MapError) as info:
        load_arena(good)
    assert str(info.value) == f"{toxic}:1:2: not a text file (expected ' ', '.', '0'-'9' or '#')"
    toxic.unlink()
    toxic.mkdir()
    for explicit in (None, toxic):
        with pytest.raises(MapError) as info:
            load_arena(good, explicit)
        assert str(info.value) == f"{toxic}: is a directory, not a file"
    with pytest.raises(MapError) as info:
        find_map(str(tmp_path))
    assert str(info.value) == f"{tmp_path}: is a directory, not a map file"


def test_a_device_a_fifo_or_a_huge_file_is_refused_without_reading_it(tmp_path, monkeypatch):
    # --toxic /dev/zero once read forever (and filled the memory); a FIFO waited forever for a writer.
    good = write(tmp_path, "good.map", "...\n")
    fifo = tmp_path / "fifo.toxic"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo):
        with pytest.raises(MapError) as info:
            load_arena(good, path)
        assert str(info.value) == f"{path}: cannot read: not a regular file"
    monkeypatch.setattr(maptext, "MAX_FILE_BYTES", 8)
    big = write(tmp_path, "big.map", "...\n" * 3)
    with pytest.raises(MapError) as info:
        load_arena(big)
    assert str(info.value) == f"{big}: cannot read: larger than 8 bytes"
    assert load_arena(write(tmp_path, "small.map", "...\n...\n")).walls.shape == (2, 3)


def test_disconnected_map_is_refused_with_the_place(tmp_path):
    path = write(tmp_path, "split.map", "..#..\n..#..\n")
    with pytest.raises(MapError) as info:
        load_arena(path)
    assert str(info.value) == (f"{path}:1:4: free cell cannot be reached from the free cell at line 1, "
                               "column 1 (all free cells must be connected)")


def _refusal(path):
    with pytest.raises(MapError) as info:
        load_arena(path)
    return str(info.value)


def test_an_unreached_cell_past_the_end_of_a_short_line_says_so(tmp_path):
    # "ragged.map:2:5: free cell cannot be reached": line 2 is "#  #", so column 5 held no character; it is
    # a free cell of the padding (§2.2), walled off from the rest by the '#' that ends the line.
    path = write(tmp_path, "ragged.map", "#####\n#  #\n#####\n")
    assert _refusal(path) == (f"{path}:2:5: free cell past the end of line 2 (4 characters long; short "
                              "lines are padded with free cells) cannot be reached from the free cell at "
                              "line 2, column 2 (all free cells must be connected)")
    # the cell reached from can be padding too, and an empty line is all padding
    path = write(tmp_path, "empty-line.map", "###\n\n###\n#.#\n")
    assert _refusal(path) == (f"{path}:4:2: free cell cannot be reached from the free cell at line 2, "
                              "column 1, past the end of line 2 (an empty line; short lines are padded with "
                              "free cells) (all free cells must be connected)")
    # a cell that the file holds is named as before
    path = write(tmp_path, "written.map", "#####\n#  # \n#####\n")
    assert _refusal(path) == (f"{path}:2:5: free cell cannot be reached from the free cell at line 2, "
                              "column 2 (all free cells must be connected)")


def test_diagonal_only_link_is_not_a_connection():
    arena = arena_from_text(".#\n#.")
    with pytest.raises(MapError, match=":2:2: free cell cannot be reached"):
        validate(arena, 1)


def test_walled_cell_inside_is_fine_and_player_count_checked():
    arena = arena_from_text("...\n.#.\n...", name="ring")
    validate(arena, 8)
    with pytest.raises(MapError) as info:
        validate(arena, 9)
    assert str(info.value) == "ring: 8 free cells, but 9 players need one each"


def test_a_map_of_one_free_cell_says_cell():
    # "one.map: 1 free cells, but 2 players need one each"
    with pytest.raises(MapError) as info:
        validate(arena_from_text("#.#", name="one"), 2)
    assert str(info.value) == "one: 1 free cell, but 2 players need one each"


def test_find_map_path_and_shipped_name(tmp_path):
    path = write(tmp_path, "mine.map", "..")
    assert find_map(str(path)) == path
    assert find_map("office") == shipped_dir("arena") / "office.map"
    assert find_map("office.map") == shipped_dir("arena") / "office.map"
    with pytest.raises(MapError) as info:
        find_map("no-such-map")
    assert str(info.value).startswith("no-such-map: no such map file or shipped map (shipped maps: ")
    assert "office" in str(info.value)
    # a name too long for the file system was a traceback from the check for a file of that name
    long = str(tmp_path / ("x" * 300)) + ".map"
    with pytest.raises(MapError) as info:
        find_map(long)
    assert str(info.value) == f"{long}: cannot read: File name too long"


def test_a_folder_in_the_current_folder_does_not_hide_a_shipped_map(tmp_path, monkeypatch):
    # "arena serve office" with a folder office/ here said "office: is a directory, not a map file"; motti
    # takes its shipped map then, and so does arena now.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "office").mkdir()
    (tmp_path / "field.map").mkdir()
    os.mkfifo(tmp_path / "maze")
    assert find_map("office") == shipped_dir("arena") / "office.map"
    assert find_map("field.map") == shipped_dir("arena") / "field.map"
    assert find_map("maze") == shipped_dir("arena") / "maze.map"
    done = subprocess.run([sys.executable, "-m", "arena", "play", "office", "--bots", "2", "--no-window",
                           "-q", "--prep-ms", "0", "--round-ms", "0", "--replay", "game.jsonl"],
                          capture_output=True, text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "game.jsonl").read_text().splitlines()[0])["map"] == "office"
    # one that is no shipped map is refused saying what it is
    (tmp_path / "mine").mkdir()
    os.mkfifo(tmp_path / "pipe.map")
    for name, what in (("mine", "a directory"), ("pipe.map", "a FIFO"), ("./office", "a directory"),
                       ("/dev/zero", "a character device")):
        with pytest.raises(MapError) as info:
            find_map(name)
        assert str(info.value) == f"{name}: is {what}, not a map file"


def test_a_device_given_as_the_map_says_what_it_is():
    # "arena serve /dev/zero" said "no such map file or shipped map", of a file that exists
    done = subprocess.run([sys.executable, "-m", "arena", "serve", "/dev/zero", "--port", "0"],
                          capture_output=True, text=True, timeout=deadline(20))
    refused = "arena: /dev/zero: is a character device, not a map file\n"
    assert (done.returncode, done.stderr, done.stdout) == (2, refused, "")


def test_an_empty_map_name_says_so():
    # "arena serve ''" said ": is a directory, not a map file": Path("") is the current folder
    done = subprocess.run([sys.executable, "-m", "arena", "serve", "", "--port", "0"],
                          capture_output=True, text=True, timeout=deadline(20))
    refused = ("arena: '': an empty name is no map file or shipped map (shipped maps: "
               f"{', '.join(sorted(SHIPPED))})\n")
    assert (done.returncode, done.stderr, done.stdout) == (2, refused, "")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_maps_load_and_host_16_players(name):
    path = find_map(name)
    assert path.with_suffix(".toxic").is_file()
    arena = load_arena(path)
    validate(arena, 16)
    free = ~arena.walls
    assert arena.toxicity[free].min() == 1
    assert arena.toxicity[free].max() >= 10
    assert len(set(arena.toxicity[free].tolist())) >= 3
    again = arena_from_text(normalised_text(arena))
    assert (again.walls == arena.walls).all()


def test_shipped_big_map_is_at_least_200_by_200():
    arena = load_arena(find_map("metropolis"))
    assert arena.width >= 200 and arena.height >= 200


def test_shipped_set_is_complete():
    assert sorted(p.stem for p in shipped_dir("arena").glob("*.map")) == SHIPPED


def _validates_as_scipy_labels(walls: np.ndarray) -> None:
    """validate() refuses the map exactly when scipy's 4-connectivity labelling finds two or more groups of
    free cells, naming the first free cell (reading order) outside the first cell's group."""
    arena = Arena(walls=walls, toxicity=np.ones(walls.shape, dtype=np.int16), name="random")
    labels, count = ndimage.label(~walls)
    if count <= 1:
        validate(arena, 1 if count else 0)
        return
    first = labels.flat[np.flatnonzero(labels)[0]]
    ys, xs = np.nonzero((labels != first) & ~walls)
    with pytest.raises(MapError) as info:
        validate(arena, 1)
    assert (info.value.line, info.value.col) == (int(ys[0]) + 1, int(xs[0]) + 1)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12).flatmap(lambda w: st.lists(st.lists(st.booleans(), min_size=w, max_size=w),
                                                     min_size=1, max_size=12)))
def test_connectivity_agrees_with_scipy_labelling(rows):
    _validates_as_scipy_labels(np.array(rows, dtype=bool))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(
    lambda w: st.lists(st.lists(st.sampled_from([False, False, True]), min_size=w, max_size=w),
                       min_size=1, max_size=30)))
def test_connectivity_of_sparse_walls_agrees_with_scipy_labelling(rows):
    # a wall in three cells: mostly connected maps, with long runs of free cells joined in many ways
    _validates_as_scipy_labels(np.array(rows, dtype=bool))


def _snake(size: int) -> np.ndarray:
    """A corridor folding from row to row: each run of free cells joined only to the previous and the next."""
    walls = np.zeros((size, size), dtype=bool)
    walls[1::4, :-1] = True
    walls[3::4, 1:] = True
    return walls


def _diagonals(size: int) -> np.ndarray:
    """Corridors two cells wide running diagonally, joined along the top row and the left column: runs of
    two cells both along the rows and along the columns."""
    y, x = np.indices((size, size))
    walls = (x - y) % 3 == 2
    walls[0, :] = walls[:, 0] = False
    return walls


def _spiral(size: int) -> np.ndarray:
    """Rings of wall one cell thick, each open at one corner: the centre is reached round every ring."""
    walls = np.zeros((size, size), dtype=bool)
    for ring in range(1, size // 2, 2):
        walls[ring, ring - 1:size - ring] = True
        walls[ring:size - ring, size - ring - 1] = True
        walls[size - ring - 1, ring:size - ring] = True
        walls[ring + 2:size - ring, ring] = True
    return walls


@pytest.mark.parametrize("shape", [_snake, _diagonals, _spiral])
@pytest.mark.parametrize("size", [1, 2, 7, 101, 200])
def test_connectivity_of_long_winding_corridors(shape, size):
    # the maps where one part reaches another only the long way round, whole and with one cell walled off
    walls = shape(size)
    _validates_as_scipy_labels(walls)
    cut = walls.copy()
    free = np.flatnonzero(~cut)
    cut.flat[free[len(free) // 2]] = True
    _validates_as_scipy_labels(cut)
