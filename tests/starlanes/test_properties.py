"""Rules invariants of Star Lanes (Hypothesis): a split conserves every holding's worth (up to the rule set's
rounding of an odd price), and every state random play reaches passes the rule set's checks."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from starlanes.rules import RULES_1977, RULES_1995, Game, Split, rule_set

RULE_SETS = st.sampled_from([RULES_1995, RULES_1977])


@settings(max_examples=200, deadline=None)
@given(rules=RULE_SETS, seed=st.integers(0, 2**32 - 1), price=st.integers(1, 6000),
       holdings=st.lists(st.integers(0, 10**6), min_size=2, max_size=4), company=st.integers(0, 4))
def test_a_split_conserves_every_holdings_worth(rules, seed, price, holdings, company):
    game = Game.new([f"P{i}" for i in range(len(holdings))], random.Random(seed), rules=rules)
    game.companies[company].price = price
    for player, held in zip(game.players, holdings, strict=True):
        player.holdings[company] = held
    before = [p.holdings[company] * price for p in game.players]
    assert game.split(company) == Split(company)
    after = [p.holdings[company] * game.companies[company].price for p in game.players]
    rounding = price % 2
    for held, old, new in zip(holdings, before, after, strict=True):
        # 1995 rounds the halved price up, 1977 down: an odd price gains or loses $1 per share held before.
        assert new - old == (held * rounding if rules is RULES_1995 else -held * rounding)


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(["1995", "1977"]), seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_random_play_keeps_every_invariant(rules, seed, players):
    game = Game.new([f"P{i}" for i in range(players)], random.Random(seed), rules=rule_set(rules))
    play = random.Random(seed ^ 0x5EED)
    while not game.is_terminal():
        game.apply(play.choice(game.legal_actions()))
        game.check()
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
