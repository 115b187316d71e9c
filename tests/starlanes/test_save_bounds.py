"""Star Lanes saves holding numbers no game reaches are refused, one field at a time, with one line naming the
file and the field; saves made along real games, the richest and the longest of hundreds of seeded games
among them, still load."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deadline import deadline

from starlanes import ai
from starlanes.rules import MOVE, RULES_1977, RULES_1995, Company, Game, Player, RuleSet, cell_index
from starlanes.save import SaveError, load_game, save_game


def founded(rules: RuleSet = RULES_1995) -> Game:
    """Ann has just founded A at (0, 0) next to a star and trades: her 5 shares, $600 a share (§3, T4; in the
    1977 rules A is asked)."""
    grid = ["."] * rules.cells
    grid[cell_index(0, 0)], grid[cell_index(1, 0)] = "A", "*"
    companies = [Company(0, rules.inactive_price) for _ in range(5)]
    companies[0] = Company(1, 600)
    players = [Player("Ann", 6150, [5, 0, 0, 0, 0]), Player("Bob")]
    return Game(grid, players, random.Random(1), companies, current=0, phase="trade", rules=rules,
                asking=0 if rules is RULES_1977 else None)


def saved(tmp_path: Path, game: Game, edit: Callable[[dict[str, Any]], object]) -> Path:
    """``game`` saved, then its ``$.game`` changed by ``edit``."""
    path = tmp_path / "game.json"
    save_game(path, game, ["human", "human"])
    data = json.loads(path.read_text())
    edit(data["game"])
    path.write_text(json.dumps(data))
    return path


def set_company(data: dict[str, Any], company: int, size: int, price: int) -> None:
    data["companies"][company] = [size, price]


def over_with_sectors(data: dict[str, Any], sectors: int) -> None:
    """The game over with A holding ``sectors`` sectors, the map filled row by row."""
    data["map"] = ["".join("A" if 12 * y + x < sectors else "." for x in range(12)) for y in range(10)]
    data.update(phase="over", candidates=[])
    set_company(data, 0, sectors, 600)


# One turn under way (moves 0): cash and shares below 2**32; two turns (moves 1): below 2**49, net worths in
# the history below 2**61.
REFUSED = [
    pytest.param(lambda d: set_company(d, 0, 1, 10**20),
                 "companies: A has price $1.000e20; no price stays above $3000 (it splits at once)",
                 id="price"),
    pytest.param(lambda d: set_company(d, 0, 1, 3001),
                 "companies: A has price $3001; no price stays above $3000 (it splits at once)",
                 id="price-3001"),
    pytest.param(lambda d: set_company(d, 1, 0, 3001),
                 "companies: B has price $3001; no price stays above $3000 (it splits at once)",
                 id="merged-away-price"),
    pytest.param(lambda d: d["players"][1].update(cash=2**32),
                 "players: 'Bob' has cash $4294967296, more than a game reaches in 1 turn (below "
                 "$4294967296)", id="cash"),
    pytest.param(lambda d: d.update(moves=1) or d["players"][1].update(cash=10**20),
                 "players: 'Bob' has cash $1.000e20, more than a game reaches in 2 turns (below "
                 "$562949953421312)", id="cash-after-a-turn"),
    pytest.param(lambda d: d.update(moves=1) or d["players"][0]["holdings"].__setitem__(0, 10**20),
                 "players: 'Ann' holds 1.000e20 shares of A, more than a game reaches in 2 turns (below "
                 "562949953421312)", id="holdings"),
    pytest.param(lambda d: d.update(moves=1, history=[[6000, 6000], [10**20, 6000]]),
                 "history: row 1 holds a net worth of $1.000e20, more than a game reaches in 2 turns (below "
                 "$2.305e18)", id="history"),
    pytest.param(lambda d: over_with_sectors(d, 70),
                 "companies: 70 company sectors; no game goes past 69 (the game ends at 65 and a move adds "
                 "at most 5)", id="sectors"),
]


@pytest.mark.parametrize(("edit", "culprit"), REFUSED)
def test_a_number_no_game_reaches_is_refused_naming_its_field(tmp_path, edit, culprit):
    path = saved(tmp_path, founded(), edit)
    with pytest.raises(SaveError) as refused:
        load_game(path)
    assert str(refused.value) == f"{path}: $.game: bad game state: {culprit}"


def test_1977_cash_is_bounded_alike(tmp_path):
    path = saved(tmp_path, founded(RULES_1977), lambda d: d["players"][0].update(cash=2**32))
    with pytest.raises(SaveError) as refused:
        load_game(path)
    assert str(refused.value) == (f"{path}: $.game: bad game state: players: 'Ann' has cash $4294967296, "
                                  "more than a game reaches in 1 turn (below $4294967296)")


@pytest.mark.parametrize("edit", [
    lambda d: set_company(d, 0, 1, 3000),
    lambda d: set_company(d, 1, 0, 3000),
    lambda d: d["players"][1].update(cash=2**32 - 1),
    lambda d: d["players"][0]["holdings"].__setitem__(0, 2**32 - 1),
    lambda d: d.update(moves=1, history=[[6000, 6000], [2**61 - 1, 6000]]),
    lambda d: over_with_sectors(d, 69),
], ids=["price-3000", "merged-away-3000", "cash", "holdings", "history", "sectors-69"])
def test_the_largest_numbers_allowed_load(tmp_path, edit):
    load_game(saved(tmp_path, founded(), edit))


def test_the_testers_save_is_refused_by_the_program_with_one_line(tmp_path):
    """A price of $10^20 was accepted and shown."""
    path = saved(tmp_path, founded(), lambda d: set_company(d, 0, 1, 10**20))
    result = subprocess.run([sys.executable, "-m", "starlanes", "--resume", str(path)], capture_output=True,
                            text=True, timeout=deadline(10), stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"starlanes: cannot resume {path}: $.game: bad game state: companies: A has "
                             "price $1.000e20; no price stays above $3000 (it splits at once)\n")


@pytest.mark.parametrize(("rules", "seed", "levels", "richest"), [
    # the richest of 400 seeded games of each rule set (1-4 players, the computer levels and random players)
    (RULES_1995, 201, ["hard"], 363_857_783_070),
    (RULES_1977, 396, ["hard"], 1_871_274_107),
    (RULES_1995, 334, ["easy", "medium"], None),
    (RULES_1977, 0, ["easy", "hard", "medium", "easy"], None),
])
def test_saves_along_real_games_load(tmp_path, rules, seed, levels, richest):
    """Saved at every move prompt and at the end, as the program saves itself, and loaded back unchanged."""
    game = Game.new([f"P{i}" for i in range(len(levels))], random.Random(seed), rules)
    path = tmp_path / "game.json"
    loads = most = 0
    while True:
        if game.phase == MOVE or game.is_terminal():
            save_game(path, game, levels)
            again, controllers = load_game(path)
            assert again.to_dict() == game.to_dict() and controllers == levels
            loads += 1
        if game.is_terminal():
            break
        for action in ai.choose(game, levels[game.current]):
            game.apply(action)
            most = max(most, *(max(p.cash, *p.holdings) for p in game.players))
    assert loads == game.moves + 1
    if richest is not None:
        assert most == richest
