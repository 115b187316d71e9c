"""Worked scenarios T1–T27 of spec/starlanes.md §12 and the rules of §1–§9 (T26–T28 keys: e2e tests)."""

from __future__ import annotations

import random

import pytest

from starlanes import rules
from starlanes.rules import (
    Company,
    Destroyed,
    EndTurn,
    Expanded,
    Game,
    GameOver,
    IllegalAction,
    Merged,
    MergeRow,
    Move,
    NewCompany,
    Outpost,
    Player,
    Split,
    Stillborn,
    SuckedSite,
    Trade,
    cell_index,
)

A, B, C, D, E = range(5)


class FixedCoin(random.Random):
    """A generator whose ``randrange`` always answers ``value`` (the merger coin flip of T19)."""

    def __init__(self, value: int) -> None:
        super().__init__(0)
        self.value = value

    def randrange(self, *args, **kwargs):
        return self.value


def make(
    cells: dict[tuple[int, int], str] | None = None,
    rows: dict[int, str] | None = None,
    companies: dict[int, tuple[int, int]] | None = None,
    holdings: dict[int, dict[int, int]] | None = None,
    cash: dict[int, int] | None = None,
    players: int = 2,
    rng: random.Random | None = None,
) -> Game:
    """A game in the move phase with P0 on turn; the rest of the map is ``.`` (spec §12 defaults)."""
    grid = ["."] * rules.CELLS
    for y, text in (rows or {}).items():
        assert len(text) == 12
        for x, symbol in enumerate(text):
            grid[cell_index(x, y)] = symbol
    for (x, y), symbol in (cells or {}).items():
        grid[cell_index(x, y)] = symbol
    people = [Player(f"P{i}") for i in range(players)]
    for player, held in (holdings or {}).items():
        for company, amount in held.items():
            people[player].holdings[company] = amount
    for player, amount in (cash or {}).items():
        people[player].cash = amount
    companies_list = [Company() for _ in range(5)]
    for company, (size, price) in (companies or {}).items():
        companies_list[company] = Company(size, price)
    return Game(grid, people, rng or random.Random(1), companies_list, current=0,
                candidates=[cell_index(5, 5)])


def row(game: Game, y: int) -> str:
    return "".join(game.grid[y * 12:(y + 1) * 12])


def at(game: Game, x: int, y: int) -> str:
    return game.grid[cell_index(x, y)]


MOVE = cell_index(5, 5)


def test_t1_outpost():
    game = make()
    events = game.place(MOVE)
    assert events[0] == Outpost(MOVE)
    assert at(game, 5, 5) == "+"
    assert game.grid.count(".") == 119
    assert [p.cash for p in game.players] == [6000, 6000]
    assert not game.active_companies()


def test_t2_edge_counts_as_empty():
    game = make()
    game.place(cell_index(0, 0))
    assert at(game, 0, 0) == "+"


def test_t3_sucked_site():
    game = make(cells={(5, 4): "@"})
    before = list(game.grid)
    events = game.place(MOVE)
    assert events[0] == SuckedSite(MOVE)
    assert game.grid == before
    assert [p.cash for p in game.players] == [6000, 6000]


def test_t4_found_on_star():
    game = make(cells={(5, 4): "*"})
    events = game.place(MOVE)
    assert events[0] == NewCompany(A, MOVE, 0)
    assert at(game, 5, 5) == "A"
    assert game.companies[A] == Company(1, 600)
    assert game.players[0].holdings[A] == 5
    assert events[1] == rules.HoldingBonus(0, 150)
    assert game.players[0].cash == 6150
    assert game.phase == rules.TRADE


def test_t5_found_and_absorb():
    game = make(rows={5: "....+.*....."})
    game.place(MOVE)
    assert row(game, 5) == "....AA*....."
    assert game.companies[A] == Company(2, 700)
    assert game.players[0].holdings[A] == 5


def test_t6_star_and_hole():
    game = make(cells={(5, 4): "*", (5, 6): "@"})
    game.place(MOVE)
    assert game.companies[A] == Company(1, 100)
    assert game.players[0].holdings[A] == 5


def test_t7_stillborn():
    game = make(rows={5: "....+.@....."})
    events = game.place(MOVE)
    assert events[0] == Stillborn(A)
    assert row(game, 5) == "......@....."
    assert not game.companies[A].active
    assert game.players[0].holdings == [0] * 5


def test_t8_lowest_free_letter():
    game = make(cells={(0, 0): "A", (2, 2): "C", (5, 4): "*"},
                companies={A: (1, 600), B: (0, 1700), C: (1, 600)})
    events = game.place(MOVE)
    assert events[0] == NewCompany(B, MOVE, 0)
    assert game.companies[B] == Company(1, 600)
    assert game.players[0].holdings[B] == 5


def test_t9_all_five_active_defensive_outpost():
    cells = {(0, 0): "A", (2, 0): "B", (4, 0): "C", (6, 0): "D", (8, 0): "E", (5, 4): "*"}
    game = make(cells=cells, companies={i: (1, 100) for i in range(5)})
    assert not game.is_legal_cell(MOVE)
    events = game.place(MOVE)
    assert events[0] == Outpost(MOVE)
    assert at(game, 5, 5) == "+"


def test_t10_expand_with_star_and_outpost():
    game = make(cells={(4, 5): "A", (6, 5): "*", (5, 6): "+"}, companies={A: (1, 600)}, holdings={0: {A: 5}})
    events = game.place(MOVE)
    assert events[0] == Expanded(A, MOVE)
    assert at(game, 4, 5) == at(game, 5, 5) == at(game, 5, 6) == "A"
    assert game.companies[A] == Company(3, 1300)


def test_t11_diagonal_outpost_stays():
    game = make(cells={(4, 5): "A", (6, 6): "+"}, companies={A: (1, 600)})
    game.place(MOVE)
    assert game.companies[A] == Company(2, 700)
    assert at(game, 6, 6) == "+"


def test_t12_black_hole_survived():
    game = make(rows={5: "...AA......."}, cells={(5, 4): "@"}, companies={A: (2, 1200)})
    game.place(MOVE)
    assert game.companies[A] == Company(3, 800)


def test_t13_black_hole_destroys():
    game = make(rows={5: "...AA......."}, cells={(5, 4): "@"}, companies={A: (2, 300)},
                holdings={0: {A: 5}, 1: {A: 7}})
    events = game.place(MOVE)
    assert Destroyed(A) in events
    assert "A" not in game.grid
    assert [p.holdings[A] for p in game.players] == [0, 0]
    assert game.companies[A] == Company(0, 0)
    assert events[-1] == rules.HoldingBonus(0, 0) or rules.HoldingBonus(0, 0) in events
    assert [p.cash for p in game.players] == [6000, 6000]


def test_t14_split():
    game = make(cells={(4, 5): "A", (6, 5): "*"}, companies={A: (10, 2900)}, holdings={0: {A: 10}, 1: {A: 3}})
    events = game.place(MOVE)
    assert Split(A) in events
    assert game.companies[A] == Company(11, 1750)
    assert [p.holdings[A] for p in game.players] == [20, 6]


def test_t15_no_split_at_3000():
    game = make(cells={(4, 5): "A"}, companies={A: (10, 2900)}, holdings={0: {A: 10}})
    events = game.place(MOVE)
    assert not any(isinstance(e, Split) for e in events)
    assert game.companies[A] == Company(11, 3000)
    assert [p.holdings[A] for p in game.players] == [10, 0]


def test_t16_odd_split_and_truncated_bonus():
    game = make(cells={(4, 5): "A", (6, 5): "*"}, companies={A: (6, 2425)}, holdings={0: {A: 3}})
    game.place(MOVE)
    assert game.companies[A].price == 1513
    assert game.players[0].holdings[A] == 6
    assert game.players[0].cash == 6453


def test_t17_two_way_merge():
    game = make(rows={5: "..AAA.BB...."}, companies={A: (3, 900), B: (2, 700)},
                holdings={0: {A: 10, B: 5}, 1: {B: 15}})
    events = game.place(MOVE)
    assert events[0] == Merged(B, A, (MergeRow(0, 5, 3, 13, 1750), MergeRow(1, 15, 8, 8, 5250)))
    assert row(game, 5) == "..AAAAAA...."
    assert game.companies[A] == Company(6, 1700)
    assert not game.companies[B].active
    assert [p.holdings[A] for p in game.players] == [13, 8]
    assert [p.holdings[B] for p in game.players] == [0, 0]
    assert [p.cash for p in game.players] == [8855, 11250]


def test_t18_equal_size_worth_decides():
    game = make(rows={5: "...AA.BB...."}, companies={A: (2, 500), B: (2, 800)},
                holdings={0: {A: 10}, 1: {B: 5}})
    events = game.place(MOVE)
    assert events[0].survivor == A and events[0].loser == B
    assert game.players[1].holdings[A] == 3
    assert game.players[1].cash == 14000
    assert game.companies[A] == Company(5, 1400)


@pytest.mark.parametrize(("coin", "survivor"), [(0, A), (1, B)])
def test_t19_full_tie_coin_flip(coin, survivor):
    game = make(rows={5: "...AA.BB...."}, companies={A: (2, 500), B: (2, 500)}, rng=FixedCoin(coin))
    events = game.place(MOVE)
    assert events[0].survivor == survivor
    assert game.companies[survivor] == Company(5, 1100)
    assert row(game, 5) == "..." + rules.LETTERS[survivor] * 5 + "...."


def test_t20_three_way_order_lets_the_middle_win():
    game = make(cells={(5, 2): "C", (5, 3): "C", (5, 4): "C"}, rows={5: ".AAAA.BB...."},
                companies={A: (4, 1000), B: (2, 600), C: (3, 800)},
                holdings={0: {A: 10}, 1: {B: 6, C: 4}})
    events = game.place(MOVE)
    merges = [e for e in events if isinstance(e, Merged)]
    assert merges == [
        Merged(B, C, (MergeRow(0, 0, 0, 0, 0), MergeRow(1, 6, 3, 7, 6000))),
        Merged(A, C, (MergeRow(0, 10, 5, 5, 10000), MergeRow(1, 0, 0, 7, 0))),
    ]
    assert game.companies[C] == Company(10, 2500)
    assert sorted(i for i, s in enumerate(game.grid) if s != ".") == sorted(
        i for i, s in enumerate(game.grid) if s == "C")
    assert game.grid.count("C") == 10
    assert (game.players[0].cash, game.players[0].holdings[C]) == (16625, 5)
    assert (game.players[1].cash, game.players[1].holdings[C]) == (12000, 7)


def test_t21_four_way():
    cells = {(5, 3): "A", (5, 4): "A", (5, 6): "B", (5, 7): "B", (5, 8): "B", (6, 5): "D"}
    cells.update({(x, 5): "C" for x in range(1, 5)})
    game = make(cells=cells, companies={A: (2, 300), B: (3, 400), C: (4, 500), D: (1, 600)},
                holdings={0: {A: 4, C: 2}, 1: {B: 6, D: 3}})
    events = game.place(MOVE)
    merges = [(e.loser, e.survivor, [(r.new_stock, r.total_holdings, r.bonus) for r in e.rows])
              for e in events if isinstance(e, Merged)]
    assert merges == [
        (A, B, [(2, 2, 3000), (0, 6, 0)]),
        (D, B, [(0, 2, 0), (2, 8, 6000)]),
        (C, B, [(1, 3, 5000), (0, 8, 0)]),
    ]
    assert game.companies[B] == Company(11, 1900)
    assert (game.players[0].cash, game.players[0].holdings[B]) == (14285, 3)
    assert (game.players[1].cash, game.players[1].holdings[B]) == (12000, 8)


def test_t22_split_inside_merger():
    game = make(rows={5: "AAAAA.BBB..."}, companies={A: (5, 2000), B: (3, 1500)},
                holdings={0: {A: 10, B: 4}, 1: {B: 4}})
    events = game.place(MOVE)
    kinds = [type(e) for e in events]
    assert kinds[:3] == [Merged, Split, Expanded]
    assert [(r.total_holdings, r.bonus) for r in events[0].rows] == [(12, 7500), (2, 7500)]
    assert game.companies[A] == Company(9, 1850)
    assert [p.holdings[A] for p in game.players] == [24, 4]
    assert [p.cash for p in game.players] == [15720, 13500]


def test_t23_split_after_merger():
    game = make(rows={5: "..AAA.BB...."}, cells={(5, 4): "*"}, companies={A: (3, 1500), B: (2, 1400)},
                holdings={0: {A: 10, B: 4}, 1: {B: 4}})
    events = game.place(MOVE)
    kinds = [type(e) for e in events]
    assert kinds[:3] == [Merged, Expanded, Split]
    assert [(r.total_holdings, r.bonus) for r in events[0].rows] == [(12, 7000), (2, 7000)]
    assert game.companies[A] == Company(6, 1750)
    assert [p.holdings[A] for p in game.players] == [24, 4]


def test_t24_merger_then_black_hole():
    game = make(cells={(5, 4): "A", (5, 6): "B", (4, 5): "@"}, companies={A: (1, 100), B: (1, 100)},
                holdings={0: {A: 5}, 1: {B: 3}})
    events = game.place(MOVE)
    assert events[0] == Merged(B, A, (MergeRow(0, 0, 0, 5, 0), MergeRow(1, 3, 2, 2, 1000)))
    assert Destroyed(A) in events
    assert "A" not in game.grid and "B" not in game.grid
    assert [p.holdings for p in game.players] == [[0] * 5, [0] * 5]
    assert [p.cash for p in game.players] == [6000, 7000]


def test_t25_no_shareholders():
    game = make(rows={5: "..AAA.BB...."}, companies={A: (3, 900), B: (2, 700)}, holdings={0: {A: 10}})
    events = game.place(MOVE)
    assert [r.bonus for r in events[0].rows] == [0, 0]
    assert game.companies[A] == Company(6, 1700)


def trading_game() -> Game:
    game = make(cells={(0, 0): "A", (2, 0): "B"}, companies={A: (1, 300)}, holdings={0: {A: 2}},
                cash={0: 1000})
    game.phase = rules.TRADE
    game.candidates = []
    return game


def test_t26_trading_max_min_and_invalid():
    game = trading_game()
    assert game.trade_limits(A) == (-2, 3)
    game.apply(Trade(A, 3))
    assert (game.players[0].holdings[A], game.players[0].cash) == (5, 100)
    game = trading_game()
    game.apply(Trade(A, -2))
    assert (game.players[0].holdings[A], game.players[0].cash) == (0, 1600)
    game = trading_game()
    with pytest.raises(IllegalAction):
        game.apply(Trade(A, 5))
    assert (game.players[0].holdings[A], game.players[0].cash) == (2, 1000)
    game = trading_game()
    game.companies[B] = Company(1, 700)
    game.players[0].holdings[B] = 4
    game.apply(Trade(B, -1))
    assert (game.players[0].holdings[B], game.players[0].cash) == (3, 1700)
    assert game.trade_limits(B) == (-3, 2)
    with pytest.raises(IllegalAction):
        game.apply(Trade(B, 3))
    assert (game.players[0].holdings[B], game.players[0].cash) == (3, 1700)


def end_game(size: int) -> Game:
    return make(cells={(4, 5): "A"}, companies={A: (size, 500)}, holdings={0: {A: 10}})


def test_t27_game_continues_at_64():
    game = end_game(64)
    assert game.sectors_remaining() == 1
    game.place(cell_index(9, 9))
    assert game.phase == rules.TRADE
    assert not game.is_terminal()


def test_t27_game_ends_at_65_without_trading():
    game = end_game(64)
    events = game.place(MOVE)
    assert events[-1] == GameOver("sectors")
    assert game.is_terminal() and game.current_player == rules.TERMINAL
    assert game.sectors() == 65 and game.sectors_remaining() == 0
    assert game.grid.count(".") >= 4
    assert game.players[0].cash == 6000 + 10 * 600 // 20
    assert game.legal_actions() == []
    assert game.history[-1] == game.net_worths()


def test_holding_bonus_only_for_mover_and_after_sucked_move():
    game = make(cells={(0, 0): "A", (5, 4): "@"}, companies={A: (1, 1000)}, holdings={0: {A: 7}, 1: {A: 9}})
    game.place(MOVE)
    assert [p.cash for p in game.players] == [6000 + 7 * 1000 // 20, 6000]


def test_map_generation_is_column_major():
    grid = rules.generate_map(random.Random(5))
    rng = random.Random(5)
    expected = {}
    for x in range(12):
        for y in range(10):
            n = rng.randrange(60)
            expected[cell_index(x, y)] = "@" if n == 0 else "*" if n <= 3 else "."
    assert grid == [expected[i] for i in range(120)]


def test_candidates_are_rejection_sampled_in_draw_order():
    game = make(cells={(1, 1): "*"}, rng=random.Random(9))
    expected = []
    rng = random.Random(9)
    while len(expected) < 5:
        cell = rng.randrange(120)
        if cell not in expected and game.grid[cell] == ".":
            expected.append(cell)
    assert game.draw_candidates() == expected


def test_all_five_active_filters_founding_cells():
    cells = {(0, 0): "A", (2, 0): "B", (4, 0): "C", (6, 0): "D", (8, 0): "E", (5, 4): "*", (0, 9): "@"}
    game = make(cells=cells, companies={i: (1, 100) for i in range(5)})
    assert not game.is_legal_cell(cell_index(5, 5))
    assert game.is_legal_cell(cell_index(1, 0))
    assert game.is_legal_cell(cell_index(1, 9))
    assert game.is_legal_cell(cell_index(9, 9))
    for _ in range(20):
        drawn = game.draw_candidates()
        assert len(drawn) == 5 and len(set(drawn)) == 5
        assert all(game.is_legal_cell(c) for c in drawn)


def test_fewer_than_five_legal_cells_are_offered():
    grid_rows = {y: "*" * 12 for y in range(10)}
    grid_rows[9] = "**.*.*..****"
    game = make(rows=grid_rows)
    drawn = game.draw_candidates()
    assert sorted(drawn) == [cell_index(x, 9) for x in (2, 4, 6, 7)]
    assert game.begin_turn() == []
    assert game.legal_actions() == [Move(i) for i in range(4)]


def test_no_legal_cell_ends_the_game():
    game = make(rows={y: "*" * 12 for y in range(10)})
    assert game.begin_turn() == [GameOver("no moves")]
    assert game.is_terminal()


def test_illegal_actions_change_nothing():
    game = make()
    with pytest.raises(IllegalAction):
        game.apply(EndTurn())
    with pytest.raises(IllegalAction):
        game.apply(Move(1))
    assert game.grid.count(".") == 120


def test_unbounded_money():
    game = make(cells={(4, 5): "A", (6, 5): "*"}, companies={A: (3, 2900)}, holdings={0: {A: 10**15}},
                cash={1: 10**30})
    game.place(MOVE)
    assert game.companies[A].price == 1750
    assert game.players[0].holdings[A] == 2 * 10**15
    assert game.players[0].cash == 6000 + 2 * 10**15 * 1750 // 20
    assert game.net_worth(1) == 10**30


def test_standings_ties_by_player_number():
    game = make(players=4, cash={2: 7000, 0: 7000})
    assert game.standings() == [0, 2, 1, 3]


def play_random(seed: int, players: int = 4) -> Game:
    rng = random.Random(seed)
    game = Game.new([f"P{i}" for i in range(players)], random.Random(seed))
    while not game.is_terminal():
        if game.phase == rules.MOVE:
            game.apply(rng.choice(game.legal_actions()))
        else:
            for _ in range(rng.randrange(3)):
                company = rng.choice(game.active_companies())
                low, high = game.trade_limits(company)
                game.apply(Trade(company, rng.randint(low, high)))
            game.apply(EndTurn())
        for letter, company in zip(rules.LETTERS, game.companies, strict=True):
            assert game.grid.count(letter) == company.size
            assert company.size == 0 or 0 < company.price <= rules.SPLIT_PRICE
        assert all(p.cash >= 0 and min(p.holdings) >= 0 for p in game.players)
        assert "+" not in [s for c in range(120) if game.grid[c] == "+" for s in game.neighbours(c)]
        assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
    return game


@pytest.mark.parametrize("seed", range(8))
def test_random_games_keep_the_invariants_and_end(seed):
    game = play_random(seed)
    assert game.sectors() >= rules.END_SECTORS or not game.legal_cells()
    assert game.history[0] == [6000] * 4
    assert game.history[-1] == game.returns()


def test_seeded_games_are_reproducible_and_save_round_trip():
    game = play_random(3)
    again = play_random(3)
    assert game.to_dict() == again.to_dict()
    start = Game.new(["a", "b"], random.Random(11))
    copy = Game.from_dict(start.to_dict())
    assert copy.to_dict() == start.to_dict()
    assert copy.draw_candidates() == start.draw_candidates()


@pytest.mark.parametrize(("field", "value", "message"), [
    ("map", ["." * 12] * 9, "map"),
    ("phase", "dance", "phase"),
    ("current", 7, "current"),
    ("companies", [[0, 0]] * 4, "companies"),
    ("history", [[6000, 6000], [6000, True]], "history: expected an integer, got True"),
    ("history", [[6000, 6000], [6000, "6000"]], "history: expected an integer, got '6000'"),
    ("history", [[6000, 6000], [6000]], "history: rows of 2 net worths"),
    ("history", [[6000, 6000], [6000, -1]], "history: rows of 2 net worths ≥ 0"),
    ("history", [], "history: rows of 2 net worths ≥ 0, at least one"),
    ("history", [[6000, 6000], [6000, 6000]],
     r"^history: 2 rows for 0 moves done \(a row for the start and one a move\)$"),
    ("moves", 3, r"^history: 1 row for 3 moves done"),
])
def test_from_dict_rejects_bad_fields(field, value, message):
    data = Game.new(["a", "b"], random.Random(1)).to_dict()
    data[field] = value
    with pytest.raises(ValueError, match=message):
        Game.from_dict(data)


def trade_state() -> dict:
    game = make(cells={(4, 5): "A"}, companies={A: (1, 600)}, holdings={0: {A: 5}})
    game.apply(Move(0))
    return game.to_dict()


def edit_company(data, index, size, price):
    data["companies"][index] = [size, price]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: edit_company(d, A, 2, 0), "active company A has price \\$0"),
    (lambda d: edit_company(d, A, 2, -100), "A has a negative size or price"),
    (lambda d: edit_company(d, B, 3, 500), "B has size 3 but 0 sectors"),
    (lambda d: edit_company(d, A, 3, 1300), "A has size 3 but 2 sectors"),
    (lambda d: d["players"][1].update(cash=-5000), "'P1' has negative cash"),
    (lambda d: d["players"][1]["holdings"].__setitem__(C, 4), "inactive company"),
    (lambda d: d.update(history=[[1], [2, 3, 4, 5, 6, 7]]), "history"),
    (lambda d: d.update(history=[]), "history"),
    (lambda d: d.update(history=[[6000, -1]]), "history"),
    (lambda d: d.update(candidates=[0]), "none in the trade phase"),
    (lambda d: d.update(phase="move", candidates=[1, 1]), "distinct legal cells"),
    (lambda d: d.update(phase="move", candidates=[cell_index(4, 5)]), "distinct legal cells"),
    (lambda d: d.update(phase="over"), "over with sectors left"),
    (lambda d: d["map"].__setitem__(0, "+*" + "." * 10), "outpost at \\(0, 0\\)"),
    (lambda d: d["map"].__setitem__(0, "AAAAAAAAAAAA"), "A has size 2 but 14"),
])
def test_from_dict_refuses_impossible_states(edit, message):
    data = trade_state()
    Game.from_dict(data)
    edit(data)
    with pytest.raises(ValueError, match=message):
        Game.from_dict(data)


def test_from_dict_refuses_play_past_65_sectors():
    data = trade_state()
    data["map"] = ["AAAAAAAAAAAA"] * 5 + ["AAAAA......."] + ["." * 12] * 4
    data["companies"][A] = [65, 600]
    with pytest.raises(ValueError, match="trading needs"):
        Game.from_dict(data)
    data["phase"] = "over"
    assert Game.from_dict(data).is_terminal()


def test_legal_actions_per_phase_and_returns():
    game = make(cells={(4, 5): "A"}, companies={A: (1, 600)}, holdings={0: {A: 5}})
    assert game.current_player == 0
    assert game.legal_actions() == [Move(0)]
    game.apply(Move(0))
    assert game.phase == rules.TRADE
    assert game.players[0].cash == 6000 + 5 * 700 // 20
    assert game.legal_actions() == [EndTurn(), Trade(A, 6175 // 700), Trade(A, -5)]
    assert game.is_legal(Trade(A, 3)) and not game.is_legal(Trade(A, 9)) and not game.is_legal(Trade(B, 1))
    game.apply(EndTurn())
    assert game.current_player == 1 and game.phase == rules.MOVE and len(game.candidates) == 5
    assert game.returns() == [6175 + 5 * 700, 6000]
    assert game.history[-1] == game.returns()
