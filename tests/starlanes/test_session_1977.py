"""The session's 1977 trade phase (spec/starlanes-1977.md §10, decisions 7 and 8): companies asked A to E."""

from __future__ import annotations

import random

from deadline import deadline

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


def test_esc_keeps_the_company_asked():
    session = trading_session()
    session.press("ESC")
    assert session.asked() == 2 and session.game.players[0].holdings[0] == 2
    session.press("ESC")
    assert session.game.current == 1 and session.game.players[0].holdings == [2, 0, 4, 0, 0]


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
                                stdin=subprocess.DEVNULL, timeout=deadline(10))
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1
