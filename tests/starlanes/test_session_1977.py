"""The session's 1977 trade phase (spec/starlanes-1977.md §10, decisions 7 and 8): companies asked A to E."""

from __future__ import annotations

import random

import pytest

from common.loop import Inbox
from starlanes import session as sess
from starlanes.rules import CELLS_1977, RULES_1977, Company, Game, Player, cell_index


def trading_session() -> sess.Session:
    grid = ["."] * CELLS_1977
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(11, 8)] = "C"
    companies = [Company(1, 300), Company(0, 100), Company(1, 700), Company(0, 100), Company(0, 100)]
    players = [Player("Ann", 1000, [2, 0, 4, 0, 0]), Player("Bob")]
    game = Game(grid, players, random.Random(3), companies, candidates=[cell_index(5, 4)], rules=RULES_1977)
    session = sess.Session(game, ["human", "human"], Inbox())
    session.advance()
    session.press("1")
    return session


def test_the_cursor_stays_on_the_company_asked():
    session = trading_session()
    game = session.game
    assert session.mode == sess.TRADING and session.asked() == 0 and session.panel_row() == 0
    assert session.prompt_lines()[0] == ("Ann, how many shares of Altair Starways?", "bold")
    for key in ("DOWN", "UP"):
        session.press(key)
        assert session.mode == sess.TRADING and session.panel_row() == 0 and game.asking == 0
    session.press("5")
    assert session.mode == sess.AMOUNT and session.trade_note() == "Amount (-2 to 3): 5_"
    session.press("ENTER")
    assert session.mode == sess.INVALID and game.players[0].cash == 1170
    session.press("3")
    session.press("ENTER")
    assert game.players[0].holdings[0] == 5 and game.players[0].cash == 270
    assert session.asked() == 2 and session.panel_row() == 1 and session.mode == sess.TRADING
    session.pick_row(0)
    assert session.mode == sess.TRADING
    session.pick_row(1)
    assert session.mode == sess.AMOUNT
    session.press("ENTER")
    assert game.current == 1 and game.phase == "move" and session.mode == sess.MOVING
    assert game.players[0].holdings == [5, 0, 4, 0, 0]


def test_esc_ends_the_whole_trading_phase_keeping_every_holding():
    session = trading_session()
    assert ("ask", "hint") in session.prompt_lines()
    session.press("ESC")
    game = session.game
    assert game.current == 1 and game.phase == "move" and session.mode == sess.MOVING
    assert game.players[0].holdings == [2, 0, 4, 0, 0] and game.players[0].cash == 1170


def test_esc_while_typing_cancels_the_amount_and_a_second_esc_ends_trading():
    session = trading_session()
    session.press("2")
    session.press("ESC")
    assert session.mode == sess.TRADING and session.asked() == 0
    assert session.trade_note() == "Amount (-2 to 3): _"
    session.press("ESC")
    assert session.game.current == 1 and session.game.players[0].holdings == [2, 0, 4, 0, 0]


@pytest.mark.parametrize("answer", ["0.5", "1.5", "2X", "HELLO", "-", "1e2", " 1", "+1", "--1"])
def test_an_answer_that_is_no_whole_number_is_refused_and_asked_again(answer):
    """S20 under decision 8: the field shows what was typed; Enter refuses it and asks the same company."""
    session = trading_session()
    for key in answer:
        session.press(key)
    assert session.mode == sess.AMOUNT and session.trade_note() == f"Amount (-2 to 3): {answer}_"
    assert session.refusal() is None
    session.press("ENTER")
    game = session.game
    assert session.mode == sess.INVALID and session.trade_note() == "Invalid amount!"
    assert game.asking == 0 and game.players[0].holdings == [2, 0, 4, 0, 0] and game.players[0].cash == 1170
    session.timer("invalid")
    assert session.mode == sess.TRADING and session.asked() == 0
    assert session.trade_note() == "Amount (-2 to 3): _"
    for key in ("1", "ENTER"):
        session.press(key)
    assert game.players[0].holdings[0] == 3 and game.players[0].cash == 870 and game.asking == 2


def test_minus_one_sells_one_held_and_is_refused_with_none_held():
    """Decision 7: a sale up to the holding. Ann holds 2 A and 4 C; then C is sold out and -1 is refused."""
    session = trading_session()
    game = session.game
    for key in "-1":
        session.press(key)
    session.press("ENTER")
    assert game.players[0].holdings[0] == 1 and game.players[0].cash == 1470 and game.asking == 2
    for key in "-4":
        session.press(key)
    session.press("ENTER")
    assert game.current == 1
    # Ann's next turn: C is held no more, so -1 of it is refused.
    game.current, game.phase, game.asking = 0, "trade", 2
    session.advance()
    for key in "-1":
        session.press(key)
    session.press("ENTER")
    assert session.mode == sess.INVALID and game.players[0].holdings == [1, 0, 0, 0, 0]


def test_an_empty_answer_keeps_the_holding():
    session = trading_session()
    game = session.game
    session.press("ENTER")
    assert game.asking == 2 and game.players[0].holdings == [2, 0, 4, 0, 0] and game.players[0].cash == 1170
    session.press("7")
    session.press("BACKSPACE")
    assert session.trade_note() == "Amount (-4 to 1): _"
    session.press("ENTER")
    assert game.current == 1 and game.players[0].holdings == [2, 0, 4, 0, 0] and game.players[0].cash == 1170


def test_m_and_n_answer_at_once_and_s_shows_the_moves_remaining():
    session = trading_session()
    game = session.game
    session.press("n")
    assert game.players[0].holdings[0] == 0 and game.players[0].cash == 1770 and session.asked() == 2
    session.press("s")
    assert session.mode == sess.POPUP
    assert ("Moves remaining: 48", "") in session.popup[1]
    session.press("x")
    session.press("m")
    assert game.players[0].holdings[2] == 4 + 1770 // 700 and game.current == 1


def test_rules_option_is_checked_against_the_save(tmp_path):
    import subprocess
    import sys

    from starlanes.save import save_game

    path = tmp_path / "game.json"
    save_game(path, Game.new(["Ann"], random.Random(1), RULES_1977), ["human"])
    for args, message in [(["--rules", "1995", "--resume", str(path)], "plays the 1977 rules"),
                          (["--rules", "1980"], "invalid choice: '1980'")]:
        result = subprocess.run([sys.executable, "-m", "starlanes", *args], capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=30)
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1
