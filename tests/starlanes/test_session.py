"""The one turn flow (starlanes/session.py) on its own: the trade phase of each rule set, the pace of computer
players and the tables both front ends draw."""

from __future__ import annotations

import random

from common.loop import Inbox
from starlanes.rules import CELLS_1977, RULES_1977, Company, Game, Player, cell_index
from starlanes.save import HUMAN
from starlanes.session import ANNOUNCE, COMPUTER, INVALID, TRADING, Session, chart_scale, standings_page


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
    for key in ("ENTER", "4", "ENTER"):  # 4 shares of A at $300: more than the $1000 buys
        session.press(key)
    assert session.mode == INVALID and game.asking == 0
    session.timer("invalid")
    for key in ("ENTER", "m"):  # the most of A: 3 shares
        session.press(key)
    assert game.players[0].holdings[0] == 5 and game.players[0].cash == 100
    assert game.asking == 2 and session.trade_rows() == [2] and session.panel_row() == 1
    session.press("ESC")  # Esc passes C, the last company: the turn ends
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
