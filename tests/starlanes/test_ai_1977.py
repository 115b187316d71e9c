"""Computer players under the 1977 rules: plans walk the companies A to E, games end after 48 moves."""

from __future__ import annotations

import random

from starlanes import ai
from starlanes.rules import MOVE, RULES_1977, TRADE, Game, Move, Trade


def play(seed: int, levels: list[str]) -> Game:
    game = Game.new([f"P{i}" for i in range(len(levels))], random.Random(seed), RULES_1977)
    while not game.is_terminal():
        mover, phase = game.current, game.phase
        actions = ai.choose(game, levels[mover])
        if phase == MOVE:
            assert len(actions) == 1 and isinstance(actions[0], Move)
        else:
            companies = [a.company for a in actions if isinstance(a, Trade)]
            assert len(companies) == len(actions)
            assert companies == [c for c in game.active_companies() if c >= (game.asking or 0)]
        for action in actions:
            assert game.current == mover and game.is_legal(action)
            game.apply(action)
        if phase == TRADE:
            assert game.phase != TRADE or game.current != mover, "the plan answers every company asked"
    return game


def test_computer_games_trade_in_order_and_end_after_48_moves():
    for seed, levels in [(1, ["easy", "hard"]), (2, ["hard", "hard", "easy"]), (3, ["easy"] * 4)]:
        game = play(seed, levels)
        assert game.moves == 48 and game.end_reason() == "moves"


def test_the_walk_cuts_amounts_to_the_cash_reached():
    game = Game.new(["a", "b"], random.Random(6), RULES_1977)
    while game.phase != TRADE:
        game.apply(Move(0))
    company = game.asking
    price = game.companies[company].price
    player = game.players[game.current]
    walk = ai._in_order(game, [Trade(company, 10**6)])
    assert walk[0] == Trade(company, player.cash // price)
    assert all(t.amount == 0 for t in walk[1:] if isinstance(t, Trade))


def test_hard_beats_easy_under_the_1977_rules():
    wins = 0
    for seed in range(12):
        levels = ["hard", "easy"] if seed % 2 else ["easy", "hard"]
        game = play(seed, levels)
        wins += levels[game.standings()[0]] == "hard"
    assert wins >= 9
