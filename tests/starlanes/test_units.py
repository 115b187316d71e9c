"""Pure parts of the front end and helpers: the amount field (T26 keys), key names, numbers that fit, tables,
computer players, save files and the command line's early exits."""

from __future__ import annotations

import curses
import json
import os
import random
import subprocess
import sys

import pytest
from deadline import deadline

from common.term import clip, decode_key, fit_number, money, printable, table, text_width, wrap
from starlanes import ai, cli, messages
from starlanes.console import standings_text, worth_chart
from starlanes.rules import MOVE, TRADE, Company, EndTurn, Game, Merged, MergeRow, Move, NewCompany, Trade
from starlanes.save import SaveError, load_game, save_game
from starlanes.session import AmountField


def typed(keys: list[str]) -> tuple[AmountField, int]:
    field = AmountField()
    for used, key in enumerate(keys, 1):
        if field.feed(key):
            return field, used
    return field, len(keys)


def test_t26_m_and_n_finish_at_once_and_swallow_nothing():
    field, used = typed(["m", "ESC"])
    assert used == 1 and not field.cancelled and field.value(-2, 3) == 3
    field, used = typed(["n", "ESC"])
    assert used == 1 and field.value(-2, 3) == -2


def test_amount_field_accepts_digits_and_leading_minus_only():
    field, used = typed(["-", "1", "-", "x", "m", "ENTER"])
    assert used == 6 and field.text == "-1" and field.value(-4, 2) == -1
    field, _ = typed(["1", "2", "BACKSPACE", "5", "ENTER"])
    assert field.value(0, 99) == 15
    field, _ = typed(["9"] * 12 + ["ENTER"])
    assert field.text == "9" * 9
    field, _ = typed(["ENTER"])
    assert field.value(-3, 3) == 0
    field, _ = typed(["-", "ENTER"])
    assert field.value(-3, 3) == 0
    field, _ = typed(["5", "ESC"])
    assert field.cancelled


def test_amount_field_is_wide_enough_for_every_amount_in_range():
    field = AmountField.for_limits(-1_234_567_890_123, 5)
    assert field.width == 14
    for key in "-1234567890123" + "4":
        field.feed(key)
    assert field.feed("ENTER") and field.value(-1_234_567_890_123, 5) == -1_234_567_890_123
    assert AmountField.for_limits(-2, 3).width == 9
    wide = AmountField.for_limits(0, 10**12)
    for key in "1000000000000":
        wide.feed(key)
    assert wide.value(0, 10**12) == 10**12


def test_key_names():
    assert decode_key("a") == "a"
    assert decode_key("\n") == decode_key("\r") == decode_key(curses.KEY_ENTER) == "ENTER"
    assert decode_key("\x1b") == "ESC"
    assert decode_key("\x03") == "^C"
    assert decode_key("\x0c") == "^L"
    assert decode_key("\x1a") == "^Z"
    assert decode_key("\x06") == "^F"
    assert decode_key("\x7f") == decode_key(curses.KEY_BACKSPACE) == "BACKSPACE"
    assert decode_key(curses.KEY_UP) == "UP" and decode_key(curses.KEY_DOWN) == "DOWN"
    assert decode_key(curses.KEY_RESIZE) == "RESIZE"
    assert decode_key(ord("j")) == "j"
    assert decode_key("é") == "é"


def test_numbers_fit_any_width():
    assert money(6150) == "$6150"
    assert fit_number(6150, 10, "$") == "$6150"
    assert fit_number(10**12 + 5, 14, "$") == "$1000000000005"
    assert fit_number(123456789012345, 9, "$") == "$1.234e14"
    assert fit_number(-123456789, 6) == "-1.2e8"
    assert fit_number(10**200, 6, "$") == "$1e200"
    assert fit_number(10**200, 3, "$") == "###"
    for value in (0, 7, 10**3, 10**25 + 17, -(10**40)):
        for width in range(1, 30):
            assert len(fit_number(value, width, "$")) <= width


def test_text_width_clip_and_printable():
    assert text_width("Ann") == 3
    assert text_width("日本") == 4
    assert clip("日本語", 5) == "日本"
    assert printable("a\x1bb%s") == "a?b%s"


def test_table_widens_then_compacts():
    rows = [["Altair Starways", (1750, "$"), (12, "")]]
    lines = table(["Company", "Price", "Holdings"], rows, 36)
    assert lines == ["Company          Price  Holdings", "Altair Starways  $1750        12"]
    huge = [["Altair Starways", (10**40, "$"), (10**30, "")]]
    lines = table(["Company", "Price", "Holdings"], huge, 36)
    assert all(text_width(line) <= 36 for line in lines)
    assert "e40" in lines[1] and "e30" in lines[1]
    wide = table(["Company", "Price", "Holdings"], huge, 100)
    assert str(10**40) in wide[1] and str(10**30) in wide[1]


def test_table_numbers_keep_the_most_digits_that_fit():
    """Cash 123456789012345 was shown as $1e14 in a standings table where $1.23e14 fitted."""
    headers = ["Player", "Stock Value", "Cash", "Net Worth"]
    rows = [["Ann", (12000, "$"), (123456789012345, "$"), (123456789024345, "$")],
            ["Bob", (5000, "$"), (6000, "$"), (11000, "$")]]
    assert table(headers, rows, 39)[1].split() == ["Ann", "$12000", "$1.2e14", "$1.234e14"]
    assert table(headers, rows, 42)[1].split() == ["Ann", "$12000", "$1.234e14", "$1.2345e14"]
    for width in range(36, 60):
        lines = table(headers, rows, width)
        assert all(text_width(line) <= width for line in lines) and "#" not in "".join(lines), width
        assert lines[0].split() == ["Player", "Stock", "Value", "Cash", "Net", "Worth"] or width < 39, width


def test_table_keeps_headers_and_gives_spare_room_to_names():
    merger = table(["Player", "Old Stock", "New Stock", "Total Holdings", "Bonus"],
                   [["Ann", (10**20, ""), (10**19, ""), (10**21, ""), (10**25, "$")]], 72)
    assert merger[0].split() == ["Player", "Old", "Stock", "New", "Stock", "Total", "Holdings", "Bonus"]
    assert all(text_width(line) <= 72 for line in merger)
    name = "日本語" * 6 + "日本"  # 20 characters, 40 columns
    standings = table(["Player", "Stock Value", "Cash", "Net Worth"],
                      [[name, (10**30, "$"), (10**29, "$"), (10**31, "$")]], 70)
    assert standings[1].startswith(clip(name, 38)) and text_width(standings[1]) <= 70
    companies = table(["Company", "Price", "Holdings"], [["Altair Starways", (123456789012345, "$"),
                                                          (196728559506, "")]], 36)
    assert companies[1].startswith("Altair Starways ") and text_width(companies[1]) <= 36


def test_wrap_breaks_at_spaces_and_cuts_long_words():
    assert wrap("Ann buys 196728559506 shares of Beetlejuice, Ltd.", 21) == [
        "Ann buys 196728559506", "shares of", "Beetlejuice, Ltd."]
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert wrap("日本語 x", 4) == ["日本", "語 x"]
    assert wrap("", 5) == [""]


def test_messages_shared_by_both_front_ends():
    assert messages.sentence("Its name is Beetlejuice, Ltd.") == "Its name is Beetlejuice, Ltd."
    assert messages.sentence("Its name is Altair Starways") == "Its name is Altair Starways."
    assert messages.move_prompt("Ann", 1) == "Ann, enter your move [1]:"
    assert messages.move_prompt("Ann", 5) == "Ann, enter your move [1-5]:"
    assert messages.trade_report("HAL", Trade(1, 60)) == "HAL buys 60 shares of Beetlejuice, Ltd."
    assert messages.trade_report("HAL", Trade(0, -3)) == "HAL sells 3 shares of Altair Starways."
    pages = messages.event_pages([NewCompany(1, 0, 0)], ["Ann"])
    assert pages == [[("A new shipping company has been formed!", "bold"),
                      ("Its name is Beetlejuice, Ltd.", "")]]
    merger = messages.event_pages([Merged(1, 0, (MergeRow(0, 3, 2, 7, 1000),))], ["Ann"])
    assert merger[0] == [("Beetlejuice, Ltd. has just been merged into Altair Starways.", "bold")]
    assert merger[1][2] == (("Ann", (3, ""), (2, ""), (7, ""), (1000, "$")), "")


def test_shell_standings_fit_80_columns_in_full_digits():
    game = Game.new(["Ann", "日本語" * 6 + "日本"], random.Random(2))
    small = standings_text(game).splitlines()
    assert small[0].split() == ["Player", "Stock", "Value", "Cash", "Net", "Worth"] and len(small) == 3
    game.players[1].cash = 10**43 + 7
    game.players[0].cash = 10**40 + 3
    big = standings_text(game).splitlines()
    assert all(text_width(line) <= 80 for line in big)
    assert big[0] == "1. " + "日本語" * 6 + "日本"
    assert big[2] == f"   Cash:        ${10**43 + 7}" and big[6] == f"   Cash:        ${10**40 + 3}"
    game.phase, game.candidates = "over", []
    game.grid = ["@"] * 120
    assert standings_text(game).splitlines()[-1] == "The game is over: no sector can be offered any more."
    game.grid = ["A"] * 65 + ["@"] * 55
    game.companies[0] = Company(65, 100)
    assert game.end_reason() == "sectors"


def play(seed: int, levels: list[str]) -> Game:
    game = Game.new([f"P{i}" for i in range(len(levels))], random.Random(seed))
    while not game.is_terminal():
        for action in ai.choose(game, levels[game.current]):
            assert game.is_legal(action)
            game.apply(action)
    return game


def test_computer_players_do_not_touch_the_game_generator():
    game = Game.new(["a", "b"], random.Random(4))
    state = game.rng.getstate()
    before = game.to_dict()
    for level in ai.LEVELS:
        assert ai.choose(game, level) == [ai.choose_move(game, ai.STYLES[level][0])]
    assert game.rng.getstate() == state and game.to_dict() == before


def test_hard_beats_easy():
    wins = 0
    for seed in range(20):
        levels = ["hard", "easy"] if seed % 2 else ["easy", "hard"]
        game = play(seed, levels)
        wins += levels[game.standings()[0]] == "hard"
    assert wins >= 15


def test_trade_phase_plans_end_with_end_turn():
    game = Game.new(["a", "b", "c"], random.Random(2))
    seen_trade = False
    while not game.is_terminal():
        actions = ai.choose(game, ["easy", "hard", "hard"][game.current])
        if game.phase == TRADE:
            seen_trade = True
            assert actions[-1] == EndTurn() and all(isinstance(a, Trade) for a in actions[:-1])
        else:
            assert game.phase == MOVE and len(actions) == 1 and isinstance(actions[0], Move)
        for action in actions:
            game.apply(action)
    assert seen_trade
    with pytest.raises(ValueError, match=r"^the game is over$"):
        ai.choose(game, "hard")
    with pytest.raises(ValueError, match=r"^unknown computer level 'genius'"):
        ai.choose(Game.new(["a"], random.Random(1)), "genius")


def test_save_round_trip_and_errors(tmp_path):
    game = Game.new(["Ann", "日本"], random.Random(8))
    path = tmp_path / "game.json"
    save_game(path, game, ["human", "easy"])
    again, controllers = load_game(path)
    assert again.to_dict() == game.to_dict() and controllers == ["human", "easy"]
    data = json.loads(path.read_text())
    data["controllers"] = ["human"]
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match="controllers"):
        load_game(path)
    path.write_text("{")
    with pytest.raises(SaveError, match=r"game\.json:1:2: Input data was truncated$"):
        load_game(path)
    with pytest.raises(SaveError, match=r"game\.json"):
        load_game(tmp_path / "missing" / "game.json")
    del data["game"]
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match=r"game\.json: \$: object missing required field game$"):
        load_game(path)
    data["game"] = {k: v for k, v in game.to_dict().items() if k != "players"}
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match=r"game\.json: \$\.game: object missing required field players$"):
        load_game(path)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "starlanes", *args], capture_output=True, text=True,
                          timeout=deadline(10), stdin=subprocess.DEVNULL)


def test_an_unknown_argument_says_where_the_usage_is(capsys):
    # "starlanes: unrecognized arguments: --bogus" gave no hint of where to look; the hint names the program
    # as the user can type it again (here python -m starlanes, the venv's python not on the search path).
    result = subprocess.run([sys.executable, "-m", "starlanes", "--bogus"], capture_output=True, text=True,
                            timeout=deadline(10), stdin=subprocess.DEVNULL,
                            env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"starlanes: unrecognized arguments: --bogus ({sys.executable} -m starlanes "
                             f"--help shows the usage)\n")
    assert cli.main(["--bogus"]) == 2
    assert capsys.readouterr().err == ("starlanes: unrecognized arguments: --bogus (starlanes --help shows "
                                       "the usage)\n")


def test_version_exits_zero():
    result = run_cli("-v")
    assert result.returncode == 0 and result.stdout.startswith("starlanes ")


def test_bad_options_exit_two_without_traceback(tmp_path):
    for args in (["-x"], ["-c", "-m"], ["--seed", "x"], ["--computer", "9"]):
        result = run_cli(*args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    result = run_cli("--resume", str(bad))
    assert result.returncode == 2 and "not a Star Lanes save" in result.stderr
    assert "Traceback" not in result.stderr


def test_impossible_saves_are_refused_before_the_terminal_is_used(tmp_path):
    """A price of $0 (a division by zero at the trade prompt), history rows of the wrong length (the chart)
    and moves run ahead of the history (a 1977 game ended early) are refused with one line and status 2."""
    game = Game.new(["Ann", "Bob"], random.Random(8))
    for name, edit, culprit in (
            ("price0", lambda d: d["companies"].__setitem__(0, [1, 0]) or d["map"].__setitem__(
                0, "A" + d["map"][0][1:]), "price $0"),
            ("history", lambda d: d.update(history=[[1], [2, 3, 4, 5, 6, 7]]), "history"),
            ("moves", lambda d: d.update(moves=15),
             "history: 1 row for 15 moves done (a row for the start and one a move)\n")):
        path = tmp_path / f"{name}.json"
        save_game(path, game, ["human", "human"])
        data = json.loads(path.read_text())
        edit(data["game"])
        path.write_text(json.dumps(data))
        result = run_cli("--resume", str(path))
        assert result.returncode == 2, name
        assert result.stderr.startswith(f"starlanes: cannot resume {path}: $.game: bad game state: "), \
            result.stderr
        assert len(result.stderr.splitlines()) == 1
        assert culprit in result.stderr


@pytest.mark.parametrize(("field", "value", "culprit"), [
    ("moves", -5, "moves: -5 moves done (0 or more)"),
    ("asking", 2, "asking: the 1995 rules ask no company"),
    ("phase", "x" * 10000, "phase: unknown 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"),
    ("rules", "1" * 10000, "rules: unknown rules '11111111111111111111111111111… (choose from 1995, 1977)"),
])
def test_1995_saves_with_counters_no_game_reaches_are_refused(tmp_path, field, value, culprit):
    """A 1995 save with a negative move count, or a company asked in the order trading of 1977, loaded and
    played on; both are states no 1995 game reaches. A 10,000-letter phase or rule set was printed whole."""
    game = Game.new(["Ann", "Bob"], random.Random(8))
    path = tmp_path / "save.json"
    save_game(path, game, ["human", "human"])
    data = json.loads(path.read_text())
    data["game"][field] = value
    path.write_text(json.dumps(data))
    result = run_cli("--resume", str(path))
    assert result.returncode == 2
    assert result.stderr == f"starlanes: cannot resume {path}: $.game: bad game state: {culprit}\n", \
        result.stderr


def test_bad_delays_and_save_paths_are_one_line_and_exit_2(tmp_path):
    """--delay inf froze the game and nan meant 0; --save DIR or a device failed only at the first save."""
    for value in ("inf", "nan", "-1", "x"):
        result = run_cli("--delay", value, "1::0")
        assert result.returncode == 2, value
        assert result.stderr.startswith("starlanes: argument --delay: "), result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr
    for path, reason in ((tmp_path, "is a directory"), ("/dev/null", "is a character device"),
                         (tmp_path / "none" / "g.json",
                          f"cannot write in {tmp_path / 'none'}: no such folder"),
                         ("/proc/version", "cannot write in /proc: not writable")):
        for extra in ([], ["1::0"]):
            result = run_cli("--save", str(path), *extra)
            assert result.returncode == 2, path
            assert result.stderr.startswith(f"starlanes: --save {path}: {reason}"), result.stderr
            assert len(result.stderr.splitlines()) == 1, result.stderr
    assert run_cli("--delay", "0.5", "--save", str(tmp_path / "g.json")).stderr.startswith(
        "starlanes: needs a terminal")


def test_empty_file_names_are_refused_naming_the_option():
    """--resume '' started a new game and --save '' played unsaved, as if the options were not given."""
    for option in ("--resume", "--save", "--status"):
        for extra in ([], ["1::0"]):
            result = run_cli(option, "", *extra)
            assert (result.returncode, result.stderr) == (2, f"starlanes: {option}: empty file name\n")


def test_no_terminal_is_a_clear_error():
    result = run_cli("--seed", "1")
    assert result.returncode == 2 and "needs a terminal" in result.stderr


def test_parser_defaults():
    args = cli.parser().parse_args([])
    assert args.colour is None and args.computer is None and args.level == "hard"
    assert cli.parser().parse_args(["-m"]).colour is False
    assert cli.parser().parse_args(["--colour"]).colour is True


def test_worth_chart_linear_log_and_joined():
    flat = worth_chart([[6000, 6000], [7000, 6000], [8000, 5000]], 21, 11)
    assert not flat.log
    assert flat.labels == [(0, 8000), (5, 4000), (10, 0)]
    assert (0, 10 - round(6000 / 8000 * 10)) in flat.cells[0]
    assert (20, 0) in flat.cells[0]
    assert all({x for x, _ in cells} == set(range(21)) for cells in flat.cells)
    steep = worth_chart([[6000], [6000], [60_000_000]], 3, 21)
    assert steep.log
    assert steep.labels == [(0, 60_000_000), (10, 600_000), (20, 6000)]
    assert steep.cells[0] == {(0, 20), (1, 20)} | {(2, y) for y in range(20)}
    huge = worth_chart([[10**400, 6000]], 5, 5)
    assert huge.log and huge.labels[0] == (0, 10**400) and huge.labels[-1] == (4, 6000)


def test_setup_questions_one_key_at_a_time():
    from starlanes.console import Setup

    asked = Setup(2, "medium")
    for key in ("1", "3", "ENTER"):
        asked.key(key)
    assert asked.step == "name" and asked.count == 3 and asked.note == "A name is needed."
    for key in ("A", "n", "x", "BACKSPACE", "n", "ENTER"):
        asked.key(key)
    # The computers' names are offered: Enter keeps one, a typed character replaces it, Backspace edits it.
    assert asked.text == "Computer 2" and asked.default
    assert "(Enter keeps this name; type to rename)" in [text for text, _ in asked.body()]
    for key in ("ENTER", "B", "o", "b", "ENTER"):
        asked.key(key)
    assert asked.step == "done"
    assert (asked.names, asked.controllers) == (["Ann", "Computer 2", "Bob"], ["human", "medium", "medium"])
    edited = Setup(1, "easy")
    for key in ("2", "A", "ENTER", "BACKSPACE", "9", "ENTER"):
        edited.key(key)
    assert edited.names == ["A", "Computer 9"] and edited.controllers == ["human", "easy"]
    chosen = Setup(None, "hard")
    for key in ("2", "2", "ENTER", "h", "x", "ENTER"):
        chosen.key(key)
    assert chosen.step == "done" and chosen.controllers == ["medium", "human"]
    assert chosen.names == ["Computer 1", "x"]
    chosen = Setup(0, "hard")
    chosen.key("^C")
    assert chosen.step == "quit"


def test_setup_asks_nothing_it_has_been_told():
    """--computer 0: everybody is human, so who plays each is not asked; --computer 4: the number of players
    can only be 4, so it is not asked."""
    from starlanes.console import Setup

    people = Setup(0, "hard")
    for key in ("2", "A", "ENTER", "B", "ENTER"):
        assert people.step in ("count", "name")
        people.key(key)
    assert people.step == "done" and people.controllers == ["human", "human"] and people.names == ["A", "B"]
    machines = Setup(4, "easy")
    assert machines.step == "name" and machines.count == 4
    for _ in range(4):
        machines.key("ENTER")
    assert machines.step == "done" and machines.controllers == ["easy"] * 4
    assert machines.names == [f"Computer {n}" for n in range(1, 5)]


def test_the_amount_line_fits_its_room_and_keeps_what_is_typed_in_view():
    from starlanes.session import amount_prompt

    low, high = -18971089406675502243915224481, 26598425673791269210135308756
    width = len(str(low))
    assert amount_prompt(-14, 10, "1", 74, width=9) == "Amount (-14 to 10): 1_"
    assert amount_prompt(low, high, "", None) == f"Amount ({low} to {high}): _"
    assert amount_prompt(low, high, "123", 74, width=width) == "Amount (-1.897e28 to 2.6598e28): 123_"
    typed = "9" * 100
    line = amount_prompt(-10**100, 10**100, typed, 74, width=101)
    assert line == "Amount (-1e100 to 1e100): …" + "9" * 46 + "_" and len(line) == 74
