"""1977 words (company names, the end, moves remaining) and 1977 save files."""

from __future__ import annotations

import json
import random

import pytest

from starlanes import messages
from starlanes.rules import RULES_1977, Game, Merged, MergeRow, NewCompany, Trade
from starlanes.save import SaveError, load_game, save_game


def test_1977_company_names_and_reports():
    names = RULES_1977.company_names
    pages = messages.event_pages([NewCompany(1, 0, 0), Merged(1, 0, (MergeRow(0, 4, 2, 7, 900),))], ["Ann"],
                                 names)
    assert pages[0][1][0] == "Its name is Betelgeuse, Ltd."
    assert pages[1][0][0] == "Betelgeuse, Ltd. has just been merged into Altair Starways."
    assert messages.trade_report("HAL", Trade(1, 3), names) == "HAL buys 3 shares of Betelgeuse, Ltd."
    assert messages.trade_report("HAL", Trade(2, 0), names) == "HAL keeps Capella Freight Co."
    assert messages.event_pages([NewCompany(1, 0, 0)], ["Ann"])[0][1][0] == "Its name is Beetlejuice, Ltd."


def test_remaining_text_and_end_reason():
    game = Game.new(["a", "b"], random.Random(3), RULES_1977)
    assert messages.remaining_text(game) == "Moves remaining: 48"
    assert messages.remaining_text(Game.new(["a"], random.Random(3))).startswith(
        "Available company sectors remaining: 65")
    game.finish("moves", record=False)
    game.moves = 48
    assert messages.end_reason(game) == "The game is over: all 48 moves have been played."


def test_a_1977_save_resumes_with_its_rules(tmp_path):
    path = tmp_path / "game.json"
    game = Game.new(["Ann", "Bob"], random.Random(8), RULES_1977)
    save_game(path, game, ["human", "hard"])
    again, controllers = load_game(path)
    assert again.rules is RULES_1977 and again.to_dict() == game.to_dict()
    assert controllers == ["human", "hard"]
    data = json.loads(path.read_text())
    assert data["game"]["rules"] == "1977" and len(data["game"]["map"]) == 9
    data["game"]["map"].append("." * 12)
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match="expected 9 rows of 12 cells \\(1977 rules\\)"):
        load_game(path)
