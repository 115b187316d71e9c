"""The one turn flow (starlanes/session.py) on its own: the trade phase of each rule set, the pace of computer
players and the tables both front ends draw."""

from __future__ import annotations

import random

import pytest

from common.loop import Inbox
from common.term import text_width
from starlanes.rules import CELLS, CELLS_1977, RULES_1977, Company, Game, Player, cell_index
from starlanes.save import HUMAN
from starlanes.session import (
    AMOUNT,
    ANNOUNCE,
    COMPUTER,
    INVALID,
    MOVING,
    QUIT,
    TRADING,
    Session,
    chart_history,
    chart_scale,
    fit_name,
    holdings_title,
    standings_page,
)


def trading_1977() -> Game:
    """A 1977 game in Ann's trade phase: A ($300) and C ($500) active, Ann has $1000 and 2 shares of A."""
    grid = ["."] * CELLS_1977
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(6, 6)] = "C"
    companies = [Company(1, 300), Company(0, 100), Company(1, 500), Company(0, 100), Company(0, 100)]
    game = Game(grid, [Player("Ann", 1000, [2, 0, 0, 0, 0]), Player("Bob")], random.Random(5), companies,
                current=0, phase="trade", rules=RULES_1977, asking=0)
    game.check()
    return game


def test_the_1977_trade_phase_asks_each_company_in_turn():
    game = trading_1977()
    session = Session(game, [HUMAN, HUMAN], Inbox(), delay=0.0)
    session.advance()
    assert session.mode == TRADING and session.trade_rows() == [0] and session.panel_row() == 0
    for key in ("4", "ENTER"):  # 4 shares of A at $300: more than the $1000 buys
        session.press(key)
    assert session.mode == INVALID and game.asking == 0
    session.timer("invalid")
    session.press("m")  # the most of A: 3 shares
    assert game.players[0].holdings[0] == 5 and game.players[0].cash == 100
    assert game.asking == 2 and session.trade_rows() == [2] and session.panel_row() == 1
    session.press("ENTER")  # an empty answer keeps C, the last company: the turn ends
    assert game.current == 1 and game.phase == "move" and game.players[0].holdings[2] == 0


def test_a_key_hurries_a_computer_and_its_announcements():
    game = trading_1977()
    inbox = Inbox()
    session = Session(game, ["easy", HUMAN], inbox, delay=60.0)
    session.advance()
    assert session.mode == COMPUTER and session.actor() is None
    assert session.skip()  # the computer trades now instead of in 60 s
    assert session.mode == ANNOUNCE and session.page_owner == 0 and game.current == 1
    assert session.prompt_lines()[0][0].startswith("Ann ") and inbox.wait_time() > 59
    assert session.holder(()) == 0  # the screen is about Ann: her holdings are shown
    while session.mode == ANNOUNCE:
        assert session.skip()
    assert session.mode == "move" and session.actor() == 1 and session.holder(()) == 1
    assert not session.skip()


def test_tables_computed_once():
    game = trading_1977()
    page = standings_page(game)
    assert page[0] == (("Player", "Stock Value", "Cash", "Net Worth"), "head")
    assert page[1] == (("Bob", (0, "$"), (6000, "$"), (6000, "$")), "")
    assert page[2] == (("Ann", (600, "$"), (1000, "$"), (1600, "$")), "")
    linear = chart_scale([[6000, 6000], [8000, 5000]])
    assert not linear.log and linear.fraction(4000) == 0.5 and linear.labels()[1] == (0.5, 4000)
    steep = chart_scale([[6000], [60_000_000]])
    assert steep.log and steep.labels() == [(1.0, 60_000_000), (0.5, 600_000), (0.0, 6000)]


def test_the_chart_of_a_game_left_adds_the_present_only_when_the_turn_changed_the_worths():
    """A game left at the start of a turn drew one more point, labelled with a turn nobody played."""
    game = Game.new(["Ann", "Bob"], random.Random(3))
    game.history = [[6000, 6000], [6500, 5800]]
    game.players[0].cash, game.players[1].cash = 6500, 5800
    assert game.net_worths() == [6500, 5800]
    assert chart_history(game) == [[6000, 6000], [6500, 5800]]
    game.players[0].cash = 6100
    assert chart_history(game) == [[6000, 6000], [6500, 5800], [6100, 5800]]


def test_a_save_that_works_again_takes_its_complaint_off_the_screen(tmp_path):
    """The save's folder went and came back: "Could not save … Trying again at the next prompt." stayed on
    the screen for the rest of the game although every later save worked."""
    folder = tmp_path / "saves"
    path = folder / "game.json"
    game = Game.new(["Ann", "Bob"], random.Random(4))
    session = Session(game, [HUMAN, HUMAN], Inbox(), delay=0.0, save_path=str(path), echo_errors=False)
    session.advance()  # saved at Ann's move prompt, with the folder missing
    assert session.notice == (f"Could not save to {path}: No such file or directory. Trying again at the "
                              "next prompt.")
    folder.mkdir()
    session.autosave()
    assert session.notice is None and path.exists()
    session.notice = "Bob's window closed: the computer plays for Bob."
    session.autosave()  # a save that works leaves other notices alone
    assert session.notice == "Bob's window closed: the computer plays for Bob."


def trading_1995() -> Game:
    """T26: A active at $300, Ann has $1000 and 2 shares of A, in her trade phase."""
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    companies = [Company(1, 300)] + [Company() for _ in range(4)]
    return Game(grid, [Player("Ann", 1000, [2, 0, 0, 0, 0]), Player("Bob")], random.Random(3), companies,
                current=0, phase="trade")


def test_ctrl_c_in_the_amount_field_asks_to_quit_and_no_goes_back_to_trading():
    session = Session(trading_1995(), [HUMAN, HUMAN], Inbox(), delay=0.0)
    session.advance()
    session.press("ENTER")
    session.press("1")
    assert session.mode == AMOUNT
    session.press("^C")                                   # it said "Ctrl-C cannot be typed"
    assert session.mode == QUIT and session.popup == (" Quit ", [("Really Quit? (y/n)", "bold")])
    session.press("n")
    assert session.mode == TRADING and session.field is None and session.game.players[0].holdings[0] == 2
    session.press("ENTER")
    session.press("^C")
    session.press("y")
    assert session.quit and session.quitter == 0


def test_the_1995_amount_field_refuses_what_spec_8_does_not_take_and_says_so():
    session = Session(trading_1995(), [HUMAN, HUMAN], Inbox(), delay=0.0)
    session.advance()
    session.press("ENTER")
    assert session.mode == AMOUNT and session.refusal() is None
    expected = {
        "x": '"x" cannot be typed: digits, a leading - to sell, or m or n first.',
        ".": '"." cannot be typed: digits, a leading - to sell, or m or n first.',
        "UP": "Up cannot be typed: digits, a leading - to sell, or m or n first.",
        "KEY_F(1)": "F1 cannot be typed: digits, a leading - to sell, or m or n first.",
        "TAB": "Tab cannot be typed: digits, a leading - to sell, or m or n first.",
        "Tab": "Tab cannot be typed: digits, a leading - to sell, or m or n first.",
        "LEFT": "Left cannot be typed: digits, a leading - to sell, or m or n first.",
        "KP_Left": "Keypad Left cannot be typed: digits, a leading - to sell, or m or n first.",
        "^A": "Ctrl-A cannot be typed: digits, a leading - to sell, or m or n first.",
        "XF86AudioRaiseVolume": "That key cannot be typed: digits, a leading - to sell, or m or n first.",
    }
    for key, why in expected.items():
        assert len(why) <= 74  # one line of the general window of an 80-column terminal
        session.press(key)
        assert session.refusal() == why and session.trade_note() == "Amount (-2 to 3): _"
        assert ("amount", "hint") not in session.prompt_lines() and (why, "bold") in session.prompt_lines()
    session.press("1")
    assert session.refusal() is None and session.trade_note() == "Amount (-2 to 3): 1_"
    for key in ("-", "m", "n"):  # only first
        session.press(key)
        assert session.refusal() is not None and session.trade_note() == "Amount (-2 to 3): 1_"
    for key in "000000000":  # 9 characters at most: the last 0 is refused
        session.press(key)
    assert session.refusal() == "At most 9 characters."
    assert session.trade_note() == "Amount (-2 to 3): 100000000_"
    for _ in range(9):
        session.press("BACKSPACE")
    for key in ("-", "1", "ENTER"):
        session.press(key)
    game = session.game
    assert game.players[0].holdings[0] == 1 and game.players[0].cash == 1300 and session.mode == TRADING
    for key in ("ENTER", "-", "ENTER"):  # "-" alone is 0 (spec §8): nothing changes, no refusal
        session.press(key)
    assert session.mode == TRADING and game.players[0].holdings[0] == 1 and game.current == 0
    session.press("ESC")
    assert game.current == 1 and game.phase == "move"


def founding_move() -> Game:
    """Ann's move 1 founds Altair Starways next to a star (T4); trading follows."""
    grid = ["."] * CELLS
    grid[cell_index(5, 4)] = "*"
    return Game(grid, [Player("Ann"), Player("Bob")], random.Random(3), current=0,
                candidates=[cell_index(5, 5), cell_index(9, 1)])


def test_esc_at_the_announcement_of_ones_own_move_ends_the_turn_keeping_every_holding():
    game = founding_move()
    session = Session(game, [HUMAN, HUMAN], Inbox(), delay=0.0)
    session.advance()
    session.press("1")
    assert session.mode == ANNOUNCE and session.pages and game.phase == "trade"
    assert session.prompt_lines()[-1] == ("skip", "hint")
    session.press("ESC")
    assert game.current == 1 and game.phase == "move" and session.mode == MOVING and not session.pages
    assert game.players[0].holdings[0] == 5 and game.players[0].cash == 6150


def test_any_other_key_at_the_announcement_goes_on_to_the_trading():
    game = founding_move()
    session = Session(game, [HUMAN, HUMAN], Inbox(), delay=0.0)
    session.advance()
    session.press("1")
    session.press(" ")
    assert session.mode == TRADING and game.current == 0


def test_a_window_not_in_turn_is_told_whose_turn_it_is():
    game = founding_move()
    session = Session(game, [HUMAN, "easy"], Inbox(), delay=60.0)
    session.advance()
    assert session.watch_lines() == [("It is Ann's turn.", "bold")]
    session.press("1")
    assert session.watch_lines() == [*session.pages[0], ("", ""), ("It is Ann's turn.", "bold")]
    session.press("ESC")
    assert session.mode == COMPUTER and session.watch_lines() == [("Bob (computer) is thinking...", "bold")]
    session.skip()
    assert session.mode == ANNOUNCE
    assert session.watch_lines()[-1] == ("It is Bob's turn (computer).", "bold")


def test_a_quit_game_says_it_was_left_unfinished_and_how_to_go_on(tmp_path):
    save = tmp_path / "game.json"
    session = Session(trading_1995(), [HUMAN, HUMAN], Inbox(), delay=0.0, save_path=str(save),
                      resume_args=" PLAYERSTRING...")
    session.advance()
    assert session.left_lines() == []
    for key in ("q", "y"):
        session.press(key)
    assert session.over and session.final_page()[-5:] == [
        ("The game was left unfinished: Ann quit.", "bold"), ("It is saved: go on with it by", ""),
        (f"starlanes --resume {save} PLAYERSTRING...", ""), ("", ""), ("final", "hint")]
    assert save.exists()


@pytest.mark.parametrize("name", ["日本語" * 6 + "日本", "Zoë日本 ab語" + "x日" * 5, "W" * 20,
                                  "a日b本c語d" * 2 + "xy"], ids=["cjk", "mixed", "ascii", "alternating"])
def test_a_name_cut_for_a_title_ends_with_an_ellipsis_and_keeps_within_the_width(name):
    """A 20-character CJK name in "Companies (holdings: …)" kept 8 characters (16 columns) whatever the room,
    so the terminal clipped the title's end and its "…" went with it; ASCII names ended with "…". A name now
    gives way as far as the width needs, counted in columns."""
    full = text_width(holdings_title(name))
    for width in range(text_width(holdings_title(name[0] + "…")), full + 2):
        title = fit_name(name, holdings_title, width)
        shown = title.removeprefix("Companies (holdings: ").removesuffix(")")
        assert text_width(title) <= width, (width, title)
        if width >= full:
            assert shown == name
        else:
            # the longest start of the name that fits, then "…"
            assert shown.endswith("…") and name.startswith(shown[:-1]), (width, title)
            assert text_width(holdings_title(name[:len(shown)] + "…")) > width, (width, title)


def test_names_in_the_terminals_company_title():
    """The room of the company window's title at 80 columns: 34 columns."""
    assert fit_name("日本語" * 6 + "日本", holdings_title, 34) == "Companies (holdings: 日本語日本…)"
    assert fit_name("Zoë日本 ab語" + "x日" * 5, holdings_title, 34) == "Companies (holdings: Zoë日本 ab…)"
    assert fit_name("W" * 20, holdings_title, 34) == "Companies (holdings: WWWWWWWWWWW…)"
    assert fit_name("Ann", holdings_title, 34) == "Companies (holdings: Ann)"
    # too narrow for the title's own words: the name is kept whole rather than lost
    assert fit_name("日本語", holdings_title, 10) == "Companies (holdings: 日本語)"
