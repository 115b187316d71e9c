"""Star Lanes through common/game.py: every legal trade listed lazily, refusals, returns, both rule sets."""

from __future__ import annotations

import json
import random
import re

import pytest

from common.game import TERMINAL, IllegalAction, load
from starlanes import rules
from starlanes.game import END_ACTION, MOVE_ACTION, TRADE_ACTION, StarLanesState
from starlanes.rules import RULES_1977, Company, Game, Player, cell_index


def trading_state(rule_set: rules.RuleSet) -> StarLanesState:
    """P0 (5 shares of A) trades after growing A to $700; C is active at $300."""
    grid = ["."] * rule_set.cells
    grid[cell_index(4, 5)] = "A"
    grid[cell_index(0, 0)] = "C"
    companies = [Company(0, rule_set.inactive_price) for _ in range(5)]
    companies[0] = Company(1, 600)
    companies[2] = Company(1, 300)
    players = [Player("P1", holdings=[5, 0, 0, 0, 0]), Player("P2")]
    game = Game(grid, players, random.Random(1), companies, candidates=[cell_index(5, 5)], rules=rule_set)
    state = StarLanesState(game)
    state.apply_action((MOVE_ACTION, 0))
    return state


def test_1995_lists_every_trade_of_every_active_company():
    state = trading_state(rules.RULES_1995)
    cash = state.game.players[0].cash
    assert cash == 6000 + 5 * 700 // 20
    listed = state.legal_actions()
    expected = [(END_ACTION,)]
    expected += [(TRADE_ACTION, 0, a) for a in range(-5, cash // 700 + 1)]
    expected += [(TRADE_ACTION, 2, a) for a in range(0, cash // 300 + 1)]
    assert len(listed) == len(expected) and list(listed) == expected
    assert [listed[i] for i in range(len(listed))] == expected and listed[-1] == expected[-1]
    assert all(a in listed for a in expected)
    for bad in [(TRADE_ACTION, 0, -6), (TRADE_ACTION, 1, 0), (TRADE_ACTION, 0, True), (END_ACTION, 0),
                (MOVE_ACTION, 0), (TRADE_ACTION, 2, cash // 300 + 1), "end", None, ()]:
        assert bad not in listed
        before = state.serialize()
        with pytest.raises(IllegalAction):
            state.apply_action(bad)
        assert state.serialize() == before
    with pytest.raises(IndexError):
        listed[len(listed)]


def test_1977_lists_the_amounts_of_the_company_asked():
    state = trading_state(RULES_1977)
    cash = state.game.players[0].cash
    listed = state.legal_actions()
    assert list(listed) == [(TRADE_ACTION, 0, a) for a in range(-5, cash // 700 + 1)]
    assert (END_ACTION,) not in listed and (TRADE_ACTION, 2, 0) not in listed
    state.apply_action((TRADE_ACTION, 0, 2))
    assert list(state.legal_actions())[:2] == [(TRADE_ACTION, 2, 0), (TRADE_ACTION, 2, 1)]
    state.apply_action((TRADE_ACTION, 2, 0))
    assert state.current_player() == 1 and len(state.legal_actions()) == 5
    assert state.legal_actions(0) == []


def test_returns_are_rank_based_with_shared_places():
    state = load("starlanes").new_initial_state(seed=1, players=4)
    for player, cash in zip(state.game.players, (9000, 5000, 9000, 100), strict=True):
        player.cash = cash
    assert state.returns() == [2 / 3, -1 / 3, 2 / 3, -1.0]
    assert load("starlanes").new_initial_state(seed=1, players=1).returns() == [0.0]


@pytest.mark.parametrize("rule_name", ["1995", "1977"])
def test_a_random_game_ends_and_round_trips(rule_name):
    game = load("starlanes")
    state = game.new_initial_state(seed=5, players=3, rules=rule_name)
    assert state.game.rules.name == rule_name and state.num_players() == 3
    play = random.Random(5)
    steps = 0
    while not state.is_terminal():
        state.apply_action(play.choice(state.legal_actions()))
        steps += 1
        if steps % 97 == 0:
            assert game.deserialize_state(state.serialize()).serialize() == state.serialize()
    assert state.current_player() == TERMINAL and len(state.legal_actions()) == 0
    if rule_name == "1977":
        assert state.game.moves == 48 or state.game.end_reason() == "no moves"
    assert max(state.returns()) == state.returns()[state.game.winners()[0]]


def test_bad_options_and_text_are_value_errors():
    game = load("starlanes")
    for options, message in [({"players": 5}, "players must be a whole number 1..4, not 5"),
                             ({"players": "2"}, "players must be a whole number"),
                             ({"rules": "1980"}, "rules must be one of 1995, 1977, not '1980'"),
                             ({"names": ["a"]}, "names"), ({"names": 3}, "names must be a list"),
                             ({"seats": 2}, "unknown starlanes option 'seats'")]:
        with pytest.raises(ValueError, match=message):
            game.new_initial_state(seed=1, **options)
    state = json.loads(game.new_initial_state(seed=1).serialize())
    for text, message in [("{", "Star Lanes state:1:2: Input data was truncated"),
                          ("[]", "Star Lanes state: $: expected object, got array"),
                          ('{"rules": "1977"}', "Star Lanes state: $: object missing required field map"),
                          (json.dumps({**state, "current": 7}), "Star Lanes state: current: no such player")]:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            game.deserialize_state(text)
    for names in (["", "b"], ["x" * 21, "b"]):
        with pytest.raises(ValueError, match=r"^names: a name is text of 1 to 20 characters, not '"):
            game.new_initial_state(seed=1, names=names)
