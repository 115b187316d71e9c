"""motti/cli.py: the manual's options and defaults (spec/motti.md §3.1), exit statuses and one-line errors
(§3.4), -p/-o (T22), generate, script mode (§3.3). Nothing here opens a window (tests/e2e/test_motti_x.py
does)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from deadline import deadline
from motti_maps import THREE

from motti import cli
from motti.compose import Composer
from motti.mapfile import load_map


def parse(*argv: str):
    return cli.build_parser().parse_intermixed_args(list(argv))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys, *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("motti: ")
    return lines[0]


@pytest.fixture
def here(tmp_path: Path, monkeypatch) -> Path:
    """Work in an empty directory holding three.map, with no X display and no shipped maps."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISPLAY", raising=False)
    (tmp_path / "three.map").write_text(THREE)
    (tmp_path / "empty.txt").write_text("# nothing to play\n")
    return tmp_path


def test_defaults_are_the_manuals():
    args = parse("generate")
    assert args.map == "generate" and args.seats == []
    assert (args.distance_min, args.granularity, args.height, args.plasma_min, args.plasma_max,
            args.randomness, args.threshold, args.width) == (8.0, 0.3, 15, 0.0, 0.3, 0.2, 0.15, 20)
    assert args.players is None and args.output is None and args.curses is False
    # The rule options are resolved with a save's lines first (motti/cli.py _new_game): None = not given.
    assert (args.capital_rule, args.reset_rule, args.computer, args.seed) == (None, None, {}, None)
    assert args.max_turns is None and args.headless is False


def test_short_options_and_both_spellings_of_height():
    args = parse("generate", "-d", "5", "-g", "0.5", "-h", "30", "-m", "0.1", "-M", "0.4", "-r", "0.3",
                 "-t", "0.2", "-w", "40", "-c", "-p", "3", "-o", "big.map")
    assert (args.distance_min, args.granularity, args.height, args.plasma_min, args.plasma_max,
            args.randomness, args.threshold, args.width) == (5.0, 0.5, 30, 0.1, 0.4, 0.3, 0.2, 40)
    assert args.curses and args.players == 3 and args.output == "big.map"
    assert parse("generate", "--heigth", "31").height == 31
    assert parse("generate", "--height=32").height == 32


def test_player_strings_may_follow_options():
    args = parse("generate", "-p", "4", "1,2:hostA:0", "3:hostB:0", "0:hostC:0")
    assert args.map == "generate" and args.players == 4
    assert args.seats == ["1,2:hostA:0", "3:hostB:0", "0:hostC:0"]
    args = parse("islands.map", "-p", "2", "-o", "two.map", "1:host:0")
    assert (args.map, args.players, args.output, args.seats) == ("islands.map", 2, "two.map", ["1:host:0"])
    args = parse("two.map", "--script", "moves.txt", "--final", "end.map", "--computer", "2,3")
    assert (args.script, args.final, args.computer) == ("moves.txt", "end.map", {2: None, 3: None})


def test_help_is_only_long_and_names_every_option(capsys):
    code, out, _err = run(capsys, "--help")
    assert code == 0
    for option in ("--distance-min", "--granularity", "--heigth", "--height", "--plasma-min", "--plasma-max",
                   "--randomness", "--threshold", "--width", "--curses", "--players", "--output", "--seed",
                   "--script", "--final", "--status", "--computer", "--level", "--capital-rule",
                   "--reset-rule", "--version", "-d D", "-g G", "-h H", "-m MIN", "-M MAX", "-r R", "-t T",
                   "-w W", "-c", "-p N", "-o FILE"):
        assert option in out, option
    assert "-h, --help" not in out


def test_the_rule_options_of_the_command_line_come_from_the_rules_declaration(capsys):
    from motti.rules import RULE_OPTIONS

    actions = {action.dest: action for action in cli.build_parser()._actions}
    for option in RULE_OPTIONS:
        assert actions[option.field].option_strings == [f"--{option.word}"]
        assert tuple(actions[option.field].choices or ()) == option.choices
    code, out, _err = run(capsys, "--help")
    assert code == 0 and "--tie-rule {mover,lowest}" in out


def test_version(capsys):
    code, out, _err = run(capsys, "--version")
    assert code == 0 and out.startswith("motti ")


@pytest.mark.parametrize(("argv", "culprit"), [
    (["--bogus"], "--bogus"),
    # Without MAP motti lists the maps: an option for a game is refused, not ignored.
    (["--computer", "1,2", "--headless"], "motti: --computer needs a MAP (run motti without arguments"),
    (["--script", "empty.txt"], "motti: --script needs a MAP"),
    (["-c"], "motti: --curses needs a MAP"),
    (["--reset-rule", "empty"], "motti: --reset-rule needs a MAP"),
    (["-w", "20"], "motti: --width needs a MAP"),        # given at its default value, still refused
    (["--level", "medium"], "motti: --level needs a MAP"),
    (["generate", "-w", "wide"], "wide"),
    (["generate", "-r", "nan"], "-r/--randomness: not a finite number: 'nan'"),
    (["generate", "-r", "inf"], "-r/--randomness: not a finite number: 'inf'"),
    (["generate", "-M", "inf"], "-M/--plasma-max: not a finite number"),
    (["generate", "-t", "nan"], "-t/--threshold: not a finite number"),
    (["generate", "-m", "nan"], "-m/--plasma-min: not a finite number"),
    (["generate", "-d", "nan"], "-d/--distance-min: not a finite number"),
    (["three.map", "--delay", "1e9"], "--delay: a delay cannot be over 60 seconds: '1e9'"),
    (["three.map", "--delay", "-1"], "--delay: a delay cannot be negative: '-1'"),
    (["generate", "-w", "3000", "-h", "3000"], "at most 2000x2000"),
    (["generate", "-h", "0"], "at least 1x1"),
    (["generate", "-p", "10"], "players must be 2 to 9"),
    (["generate", "-m", "0.5", "-M", "0.1"], "--plasma-min (0.5) must not exceed --plasma-max (0.1)"),
    (["nosuch"], "nosuch"),
    (["three.map", "-p", "5", "--script", "empty.txt"], "-p 5"),
    (["three.map", "-p", "1", "--script", "empty.txt"], "-p"),
    (["three.map", "--capital-rule", "v4"], "v4"),
    (["three.map", "--computer", "2,x"], "2,x"),
    (["three.map", "--computer", "4"], "4"),
    (["three.map", "--final", "end.map"], "--final"),
    (["three.map", "--script", "missing.txt"], "missing.txt"),
    (["three.map", "--status", "nowhere/status.json"], "nowhere/status.json"),
    (["three.map", "x:host:0"], "x:host:0"),
    (["three.map", "4:host:0"], "4:host:0"),
    (["three.map", "1:a:0", "1:b:0"], "1:b:0"),
    (["three.map", "1:a:0"], "players 2,3 have no display: $DISPLAY is not set (name one with 2,3:DISPLAY, "
                             "or play in this terminal with -c)"),
    # The computer plays 2 (make run without $DISPLAY): only player 1 needs a display.
    (["three.map", "--computer", "2", "3:a:0"], "motti: player 1 has no display: $DISPLAY is not set (name "
                                               "one with 1:DISPLAY, or play in this terminal with -c)"),
    # -p 2 drops player 2 (the highest player no string names): only player 1 is left without a display.
    (["three.map", "-p", "2", "3:a:0"], "player 1 has no display"),
    (["three.map", "--computer", "1,2,3"], "no display to watch the computer players on: $DISPLAY is not set "
                                           "(add 0:DISPLAY, watch in this terminal with -c, or play "
                                           "unwatched with --headless)"),
    (["three.map", "-c", "--status", "."], "--status .: is a directory, not a regular file"),
    (["three.map", "-c", "--status", "/proc/x.json"],
     "--status /proc/x.json: cannot write in /proc: not writable"),
    (["three.map", "-o", ""], "-o: empty file name"),
    (["three.map", "--script", "empty.txt", "-c"], "-c does not apply to --script"),
    (["three.map", "--script", "empty.txt", "--computer", "2"], "--computer does not apply to --script"),
    (["three.map", "--script", "empty.txt", "--computer", "3"], "--computer does not apply to --script"),
    # The script plays every player: no computer player for --level to set, nobody for --headless to play.
    (["three.map", "--script", "empty.txt", "--level", "hard"], "--level does not apply to --script"),
    (["three.map", "--script", "empty.txt", "--headless"], "--headless does not apply to --script"),
    (["three.map", "--script", "empty.txt", "1:a:0"], "player string '1:a:0'"),
    (["three.map", "--computer", "\uff12"], "not a comma-separated list of players, each a number"),
    # A player named twice in --computer is refused, as twice in player strings or a save's computer lines.
    (["three.map", "--computer", "2:hard,2:easy"], "--computer: player 2 is named twice: '2:hard,2:easy'"),
    (["three.map", "--computer", "2,3,2"], "--computer: player 2 is named twice: '2,3,2'"),
    (["three.map", "-c", "--status", ""], "--status: empty file name"),
    (["three.map", "-c", "--save", ""], "--save: empty file name"),
    (["three.map", "--script", ""], "--script: empty file name"),
    (["three.map", "-c", "--save", "."], "--save .: is a directory, not a regular file"),
    (["three.map", "-c", "--save", "/proc/version"],
     "--save /proc/version: cannot write in /proc: not writable"),
    (["three.map", "-c", "--save", "nowhere/g.map"], "--save nowhere/g.map: cannot write in "),
    (["three.map", "-c", "--save", "nowhere/g.map"], "/nowhere: no such folder"),
    # -o is checked before anything starts, in the same words as the files written during the game.
    (["three.map", "-c", "-o", "nowhere/g.map"], "-o nowhere/g.map: cannot write in "),
    (["three.map", "-c", "-o", "nowhere/g.map"], "/nowhere: no such folder"),
    (["three.map", "-c", "-o", "."], "-o .: is a directory, not a regular file"),
    # /proc takes no new file: named at the start, not "No such file or directory" after the whole script
    (["three.map", "--script", "empty.txt", "--final", "/proc/version"],
     "--final /proc/version: cannot write in /proc: not writable"),
])
def test_user_errors_are_one_line_and_exit_2(capsys, here, argv, culprit):
    line = one_line_error(capsys, *argv)
    assert culprit in line


def test_an_unknown_argument_says_where_the_usage_is(capsys, here):
    # "motti: unrecognized arguments: --bogus" gave no hint of where to look; the hint names the program as
    # it was started (python -m motti, or motti), and --help, since -h is motti's --height.
    assert one_line_error(capsys, "three.map", "--bogus") == (
        "motti: unrecognized arguments: --bogus (motti --help shows the usage)")
    done = subprocess.run([sys.executable, "-m", "motti", "three.map", "--bogus"], capture_output=True,
                          text=True, timeout=deadline(20), env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"motti: unrecognized arguments: --bogus ({sys.executable} -m motti --help shows "
                           f"the usage)\n")


def test_maps_that_cannot_be_read_say_what_they_are(capsys, here):
    (here / "dir.map").mkdir()
    (here / "moves").mkdir()
    assert one_line_error(capsys, "dir.map") == "motti: dir.map: is a directory, not a file to read"
    # A file only read may be any readable file: /dev/null is read, and is an empty map.
    assert one_line_error(capsys, "/dev/null") == (
        "motti: /dev/null:1:1: unexpected end of file, expected 'motti-map 1'")
    (here / "bin.map").write_bytes(b"\x80motti-map 1\n")
    assert one_line_error(capsys, "bin.map").endswith("/bin.map:1:1: not UTF-8 text (invalid start byte)")
    assert one_line_error(capsys, "three.map", "--script", "moves") == (
        "motti: --script moves: is a directory, not a file to read")
    assert one_line_error(capsys, "three.map", "--script", "gone") == (
        "motti: --script gone: No such file or directory")
    assert one_line_error(capsys, "three.map", "--script", "/dev/null", "--final", "/dev/null") == (
        "motti: --final /dev/null: is a character device, not a regular file")


def test_a_script_or_a_map_may_be_a_character_device_or_a_fifo(capsys, here):
    # --script /dev/null plays nothing: the game stays as it was.
    code, _out, err = run(capsys, "three.map", "--script", "/dev/null", "--seed", "1", "--final", "end.map")
    assert (code, err) == (0, "")
    assert "turns 0" in (here / "end.map").read_text()
    # A map read from a FIFO (a shell's <(...)) loads like a file.
    os.mkfifo(here / "pipe.map")
    writer = threading.Thread(target=(here / "pipe.map").write_text, args=(THREE,))
    writer.start()
    code, _out, err = run(capsys, "pipe.map", "--script", "/dev/null", "--seed", "1", "--final", "piped.map")
    writer.join(10)
    assert (code, err) == (0, "")
    assert (here / "piped.map").read_text().splitlines()[-3:] == ["aaabbbccc"] * 3


def test_a_map_with_a_byte_order_mark_plays(capsys, here):
    (here / "bom.map").write_bytes(b"\xef\xbb\xbf" + THREE.encode())
    (here / "bom.txt").write_bytes(b"\xef\xbb\xbf" + b"defend 0,0\n")
    code, _out, err = run(capsys, "bom.map", "--script", "bom.txt", "--seed", "1", "--final", "end.map")
    assert (code, err) == (0, "")
    assert load_map(here / "end.map").board.occupied[0, 0]


def test_a_bad_map_names_file_line_and_column(capsys, here):
    (here / "bad.map").write_text(THREE.replace("aaabbbccc\naaabbbccc\n", "aaabbbccc\naaab?bccc\n"))
    line = one_line_error(capsys, "bad.map")
    assert line.startswith("motti: ")
    assert "bad.map:9:5:" in line


def test_output_reduces_with_p_and_renumbers(capsys, here):
    # T22 style: player strings name players 1 and 3, so -p 2 disables player 2 (the highest unnamed one); its
    # cells go to the nearest capital; -o writes the survivors renumbered 1..2.
    code, _out, err = run(capsys, "three.map", "-p", "2", "1:hostA:0", "3:hostB:0", "-o", "two.map",
                          "--script", "empty.txt", "--seed", "1")
    assert code == 0, err
    state = load_map(here / "two.map")
    assert state.board.players == 2
    assert state.board.capitals == {1: (1, 1), 2: (7, 1)}
    grid = (here / "two.map").read_text().splitlines()
    assert grid[grid.index("grid") + 1:] == ["aaaaabbbb"] * 3


def test_generate_writes_the_map_and_the_seed_makes_it_repeatable(capsys, here):
    for name in ("big.map", "again.map"):
        code, _out, err = run(capsys, "generate", "-w", "40", "-h", "30", "-p", "3", "--seed", "7",
                              "-o", name, "--script", "empty.txt")
        assert code == 0, err
    state = load_map(here / "big.map")
    assert (state.board.width, state.board.height, state.board.players) == (40, 30, 3)
    assert (here / "big.map").read_text() == (here / "again.map").read_text()


def test_generating_or_loading_a_map_that_takes_long_says_so_on_stderr(capsys, here, monkeypatch):
    code, _out, err = run(capsys, "generate", "-w", "40", "-h", "30", "--seed", "7", "-o", "quick.map",
                          "--script", "empty.txt")
    assert (code, err) == (0, "")          # a 40x30 map takes a millisecond: nothing said
    monkeypatch.setattr(cli, "PROGRESS_AFTER_S", 0.0)   # as if it took longer than a second
    code, _out, err = run(capsys, "generate", "-w", "40", "-h", "30", "-p", "3", "--seed", "7",
                          "--script", "empty.txt")
    lines = err.splitlines()
    assert code == 0 and lines[0] == "motti: generating a 40x30 map for 3 players..."
    assert re.fullmatch(r"motti: generating a 40x30 map for 3 players: done in \d+\.\d s", lines[1])
    code, _out, err = run(capsys, "quick.map", "--script", "empty.txt", "--seed", "1")
    assert code == 0 and err.splitlines()[0] == "motti: loading quick.map..."
    assert err.splitlines()[1].startswith("motti: loading quick.map: done in ")


def test_generate_that_cannot_place_capitals_is_a_user_error(capsys, here):
    line = one_line_error(capsys, "generate", "-w", "5", "-h", "5", "-d", "8", "--script", "empty.txt")
    assert "generate" in line


def test_script_mode_writes_the_final_state(capsys, here):
    (here / "moves.txt").write_text("defend 0,0 0,1\nguerilla 4,0\nattack\npass\n")
    code, out, err = run(capsys, "three.map", "--script", "moves.txt", "--seed", "3", "--final", "end.map")
    assert (code, out, err) == (0, "", "")
    text = (here / "end.map").read_text().splitlines()
    assert "turn 1" in text and "attacks 6" in text
    assert text[text.index("grid") + 1:] == ["AaabBbccc", "Aaabbbccc", "aaabbbccc"]


def test_script_mode_writes_the_status_file_at_the_end(capsys, here):
    (here / "moves.txt").write_text("defend 0,0 0,1\n")
    code, out, err = run(capsys, "three.map", "--script", "moves.txt", "--seed", "3", "--status", "s.json")
    assert (code, out, err) == (0, "", "")
    status = json.loads((here / "s.json").read_text())
    assert (status["turn"], status["board"][0], status["board"][1]) == (2, "Aaabbbccc", "Aaabbbccc")


def test_the_status_names_no_player_in_turn_once_the_game_is_over(here):
    import random

    from motti.rules import Game
    from motti.status import status_data

    game = Composer(Game(load_map(here / "three.map").board, random.Random(1)))
    assert status_data(game)["turn"] == 1
    game.defeat([1, 2], cause="quit")
    status = status_data(game)
    assert (status["turn"], status["winner"], status["alive"]) == (None, 3, [3])


def test_naming_a_player_who_is_out_is_a_user_error(capsys, here):
    text = THREE.replace("capital 2 4 1", "eliminated 2").replace("aaabbbccc", "aaaaacccc")
    (here / "out.map").write_text(text)
    line = one_line_error(capsys, "out.map", "-c", "2::D")
    assert line == "motti: player 2 is out of this game (players left: 1, 3); name only those"


def test_a_start_refused_for_a_display_leaves_the_files_as_they_were(capsys, here):
    # A saved game of computer players resumed with a player string that names one of them on a display
    # that cannot be opened: the display's line alone, and the save as it was (its computer lines kept).
    code, _out, err = run(capsys, "three.map", "--computer", "1,2,3", "--headless", "--max-turns", "2",
                          "--save", "game.map", "--seed", "1")
    assert code == 0, err
    before = (here / "game.map").read_bytes()
    assert b"computer 2 medium" in before
    line = one_line_error(capsys, "game.map", "--save", "game.map", "--status", "game.json", "2:x")
    assert line.startswith('motti: cannot open display "x"')
    assert (here / "game.map").read_bytes() == before
    assert not (here / "game.json").exists()
    # New --save and --status files are not left behind; a link to a file not there yet stays a link.
    (here / "link.map").symlink_to(here / "target.map")
    one_line_error(capsys, "three.map", "--save", "link.map", "--status", "new.json", "1,2,3:x")
    assert (here / "link.map").is_symlink() and not (here / "target.map").exists()
    assert not (here / "new.json").exists()
    # The terminal the console needs is checked first: its line alone, though the save's rules differ.
    line = one_line_error(capsys, "game.map", "--save", "game.map", "-c", "--max-turns", "40")
    assert line == "motti: the console needs a terminal, but standard input is not one"
    assert (here / "game.map").read_bytes() == before


def test_a_file_written_may_not_be_one_the_game_needs_whole(capsys, here):
    (here / "moves.txt").write_text("pass\n")
    for argv, culprit in ((["-o", "out.map", "--save", "out.map"], "-o and --save"),
                          (["--script", "moves.txt", "-o", "moves.txt"], "--script and -o"),
                          (["--script", "moves.txt", "--final", "./moves.txt"], "--script and --final")):
        line = one_line_error(capsys, "three.map", *argv)
        assert line.startswith(f"motti: {culprit} name the same file"), line
    assert (here / "moves.txt").read_text() == "pass\n"
    assert not (here / "out.map").exists()
    line = one_line_error(capsys, "three.map", "--script", "moves.txt", "--final", "three.map")
    assert line == "motti: --final three.map is the map being played: the final state would overwrite it"
    assert (here / "three.map").read_text() == THREE


def test_output_renumbers_the_players_of_a_saved_game_with_one_out(capsys, here):
    text = THREE.replace("capital 2 4 1", "eliminated 2").replace("aaabbbccc", "aaaaacccc")
    (here / "out.map").write_text(text)
    code, _out, err = run(capsys, "out.map", "-p", "2", "-o", "x.map", "--script", "empty.txt", "--seed", "1")
    assert code == 0, err
    written = (here / "x.map").read_text().splitlines()
    assert "players 2" in written and "capital 2 7 1" in written
    assert not any("eliminated" in line for line in written)
    assert written[written.index("grid") + 1:] == ["aaaaabbbb"] * 3


def test_window_titles_name_the_computer_players():
    from motti.frontend import seat_title

    # "motti: players 1, 2 computer" read as if both were computer players
    assert seat_title((1, 2), computer={2}) == "motti: player 1, player 2 (computer)"
    assert seat_title((2, 1, 3), computer={1, 3}) == ("motti: player 2, player 1 (computer), "
                                                       "player 3 (computer)")
    assert seat_title((1, 3)) == "motti: player 1, player 3"
    assert seat_title((3,), computer={2}) == "motti: player 3"
    assert seat_title((2,), computer={2}) == "motti: player 2 (computer)"
    assert seat_title(()) == "motti: observer"


def test_script_mode_without_seed_prints_the_seed(capsys, here):
    code, _out, err = run(capsys, "three.map", "--script", "empty.txt")
    assert code == 0
    assert err.startswith("motti: seed ") and err.split()[-1].isdigit()


def test_a_bad_script_line_is_a_user_error(capsys, here):
    (here / "moves.txt").write_text("defend 0,0\nfly 3,3\n")
    line = one_line_error(capsys, "three.map", "--script", "moves.txt", "--seed", "1")
    assert "moves.txt:2" in line


def test_listing_with_no_maps_is_not_an_error(capsys, here, monkeypatch):
    monkeypatch.setenv("MOTTI_MAPDIR", str(here / "nowhere"))
    code, out, _err = run(capsys)
    assert code == 0 and "no maps" in out
    monkeypatch.setenv("MOTTI_MAPDIR", str(here))
    code, out, _err = run(capsys)
    assert code == 0 and out.split() == ["three", "9x3", "3", "players"]


def test_the_listing_keeps_its_columns_with_wide_map_names(capsys, here, monkeypatch):
    # A name of wide characters (two columns each) was padded by its characters, not its columns
    monkeypatch.setenv("MOTTI_MAPDIR", str(here))
    (here / "three.map").rename(here / "東京.map")
    (here / "osaka-bay.map").write_text((here / "東京.map").read_text())
    (here / "red\x1b[31m.map").write_text((here / "東京.map").read_text())  # an escape: not sent as it is
    code, out, _err = run(capsys)
    assert code == 0
    assert out.splitlines() == ["osaka-bay     9x3    3 players", "red?[31m      9x3    3 players",
                                "東京          9x3    3 players"]


def test_listing_into_a_closed_pipe_is_quiet(here):
    # `motti | head -3`: the reader is gone before motti writes; no traceback, exit 141.
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "MOTTI_MAPDIR": str(here)}
    try:
        done = subprocess.run([sys.executable, "-m", "motti"], stdout=write_end, stderr=subprocess.PIPE,
                              env=env, timeout=deadline(20), text=True)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize(("argv", "option", "value"), [
    (["-m", "-1e308"], "plasma_min", -1e308),
    (["-t", "-1e-3"], "threshold", -1e-3),
    (["-r", "-2.5E+1"], "randomness", -25.0),
    (["-d", "-.5"], "distance_min", -0.5),
    (["-w", "-3"], "width", -3),
])
def test_negative_values_in_any_float_form_are_numbers(argv, option, value):
    assert getattr(parse("generate", *argv), option) == value


def test_a_negative_exponent_threshold_generates_a_map(capsys, here):
    code, _out, err = run(capsys, "generate", "-t", "-1e-3", "-m", "-1e-308", "-M", "0", "--seed", "3", "-o",
                          "all.map", "--script", "empty.txt")
    assert (code, err) == (0, "")
    assert load_map(here / "all.map").board.land.all()


def test_an_absurd_map_size_is_a_one_line_error_naming_file_line_and_column(capsys, here):
    (here / "huge.map").write_text("motti-map 1\nsize 3000000000 3000000000\nplayers 2\n")
    line = one_line_error(capsys, "huge.map")
    assert line == (f"motti: {here / 'huge.map'}:2:6: size must be at most 2000 2000, "
                    "found 3000000000 3000000000")


def test_the_listing_warns_about_a_map_it_skips(capsys, here, monkeypatch):
    monkeypatch.setenv("MOTTI_MAPDIR", str(here))
    (here / "huge.map").write_text("motti-map 1\nsize 200000 200000\nplayers 2\n")
    code, out, err = run(capsys)
    assert code == 0 and out.split() == ["three", "9x3", "3", "players"]
    assert err == (f"motti: warning: skipped {here / 'huge.map'}:2:6: size must be at most 2000 2000, "
                   "found 200000 200000\n")


def test_p_above_the_players_still_alive_names_both_counts(capsys, here):
    (here / "left.map").write_text("motti-map 1\nsize 3 1\nplayers 3\ncapital 1 0 0\ncapital 2 2 0\n"
                                   "eliminated 3\ngrid\nabb\n")
    line = one_line_error(capsys, "left.map", "-p", "3")
    assert line == (f"motti: {here / 'left.map'}: -p 3 is more than the 2 players still alive on this map "
                    "(3 in the file)")


def test_the_manual_page_names_every_long_option_of_the_game():
    # The generator's options are named together by their short forms; every other long option is named.
    page = (Path(__file__).resolve().parents[2] / "docs" / "motti.6").read_text()
    generator = {"--distance-min", "--granularity", "--heigth", "--height", "--plasma-min", "--plasma-max",
                 "--randomness", "--threshold", "--width"}
    options = {o for a in cli.build_parser()._actions for o in a.option_strings if o.startswith("--")}
    missing = sorted(o for o in options - generator if o.replace("-", "\\-") not in page)
    assert missing == []
