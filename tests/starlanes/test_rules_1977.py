"""The 1977 rule set: worked scenarios S1–S29 and whole games G1–G3 of spec/starlanes-1977.md §15, under the
project's decisions of §16 where §15 names one, and the 1977 state checks and save format."""

from __future__ import annotations

import random

import pytest

from starlanes import rules
from starlanes.rules import (
    RULES_1977,
    Company,
    EndTurn,
    Game,
    GameOver,
    IllegalAction,
    Merged,
    Move,
    NewCompany,
    Outpost,
    Player,
    Split,
    Trade,
    cell_index,
)

A, B, C, D, E = range(5)
P1, P2 = 0, 1


def cell(name: str) -> int:
    """A cell in the game's own labels, ``"5F"`` = row 5, column F (spec/starlanes-1977.md conventions)."""
    return cell_index(ord(name[-1]) - ord("A"), int(name[:-1]) - 1)


def make(
    rows: dict[int, str] | None = None,
    cells: dict[str, str] | None = None,
    companies: dict[int, tuple[int, int]] | None = None,
    holdings: dict[int, dict[int, int]] | None = None,
    cash: dict[int, int] | None = None,
    players: int = 2,
    moves: int = 0,
    move: str = "5F",
) -> Game:
    """A 1977 game in the move phase, P1 on turn, ``move`` the only candidate (§15 defaults)."""
    grid = ["."] * rules.CELLS_1977
    for r, text in (rows or {}).items():
        assert len(text) == 12
        for x, symbol in enumerate(text):
            grid[cell_index(x, r - 1)] = symbol
    for name, symbol in (cells or {}).items():
        grid[cell(name)] = symbol
    people = [Player(f"P{i + 1}") for i in range(players)]
    for player, held in (holdings or {}).items():
        for company, amount in held.items():
            people[player].holdings[company] = amount
    for player, amount in (cash or {}).items():
        people[player].cash = amount
    listed = [Company(0, 100) for _ in range(5)]
    for company, (size, price) in (companies or {}).items():
        listed[company] = Company(size, price)
    return Game(grid, people, random.Random(1), listed, rules=RULES_1977, moves=moves,
                candidates=[cell(move)])


def play(game: Game, answers: dict[int, int] | None = None) -> list:
    """P1 takes the candidate, then answers each company asked (0 unless given); returns the events."""
    events = game.apply(Move(0))
    while game.phase == rules.TRADE and game.current == P1:
        events += game.apply(Trade(game.asking, (answers or {}).get(game.asking, 0)))
    return events


def row(game: Game, r: int) -> str:
    return "".join(game.grid[cell_index(0, r - 1):cell_index(0, r)])


def cash(game: Game) -> list[int]:
    return [p.cash for p in game.players]


def held(game: Game, player: int) -> list[int]:
    return game.players[player].holdings


def test_s1_outpost():
    game = make()
    assert play(game)[0] == Outpost(cell("5F"))
    assert game.grid[cell("5F")] == "+" and game.grid.count(".") == 107
    assert cash(game) == [6000, 6000] and not game.active_companies()
    assert game.current == P2 and game.phase == rules.MOVE


def test_s2_edge_counts_as_empty():
    game = make(move="1A")
    play(game)
    assert game.grid[cell("1A")] == "+"


def test_s3_founding_on_a_star():
    game = make(rows={4: ".....*......"})
    assert play(game)[0] == NewCompany(A, cell("5F"), P1)
    assert game.grid[cell("5F")] == "A"
    assert game.companies[A] == Company(1, 600)
    assert held(game, P1)[A] == 5 and cash(game) == [6150, 6000]


def test_s4_founding_absorbs_outposts():
    game = make(rows={5: "....+.*.....", 6: ".....+......"})
    play(game)
    assert row(game, 5) == "....AA*....." and row(game, 6) == ".....A......"
    assert game.companies[A] == Company(3, 800)
    assert held(game, P1)[A] == 5 and cash(game) == [6200, 6000]


def test_s5_four_stars():
    game = make(cells={"4F": "*", "5E": "*", "5G": "*", "6F": "*"})
    play(game)
    assert game.companies[A] == Company(1, 2100)
    assert held(game, P1)[A] == 5 and cash(game) == [6525, 6000]


def test_s6_lowest_free_letter():
    game = make(cells={"1A": "A", "9L": "C", "4F": "*"}, companies={A: (1, 600), C: (1, 600)},
                holdings={P2: {A: 5, C: 5}})
    assert play(game)[0] == NewCompany(B, cell("5F"), P1)
    assert game.companies[B] == Company(1, 600)
    assert game.companies[A] == game.companies[C] == Company(1, 600)
    assert held(game, P1)[B] == 5 and cash(game) == [6150, 6000]


def test_s7_growth():
    game = make(cells={"5E": "A", "5G": "*", "6F": "+"}, companies={A: (1, 600)}, holdings={P1: {A: 5}})
    play(game)
    assert game.grid[cell("5E")] == game.grid[cell("5F")] == game.grid[cell("6F")] == "A"
    assert game.companies[A] == Company(3, 1300)
    assert cash(game) == [6325, 6000]


def test_s8_growth_reaching_exactly_3000_splits():
    game = make(rows={4: "AAAAA.......", 5: "AAAAA.*....."}, companies={A: (10, 2400)},
                holdings={P1: {A: 10}, P2: {A: 3}})
    events = play(game)
    assert Split(A) in events
    assert game.companies[A] == Company(11, 1500)
    assert held(game, P1)[A] == 20 and held(game, P2)[A] == 6
    assert cash(game) == [7500, 6000]


def test_s9_odd_split_floors():
    game = make(rows={5: "AAAAA.*.....", 6: "AAAAA.......", 7: "AA.........."}, companies={A: (12, 2875)},
                holdings={P1: {A: 3}})
    play(game)
    assert game.companies[A] == Company(13, 1737)
    assert held(game, P1)[A] == 6 and cash(game) == [6521, 6000]


def test_s10_two_way_merger():
    game = make(rows={5: "..AAA.BB...."}, companies={A: (3, 900), B: (2, 700)},
                holdings={P1: {A: 10, B: 5}, P2: {B: 15}})
    events = play(game)
    merged = next(e for e in events if isinstance(e, Merged))
    assert (merged.loser, merged.survivor) == (B, A)
    assert [(r.old_stock, r.new_stock, r.total_holdings, r.bonus) for r in merged.rows] == [
        (5, 3, 13, 1750), (15, 8, 8, 5250)]
    assert game.companies[A] == Company(5, 1600)
    assert game.companies[B] == Company(0, 100)
    assert row(game, 5) == "..AAAAAA...."
    assert held(game, P1) == [13, 0, 0, 0, 0] and held(game, P2) == [8, 0, 0, 0, 0]
    assert cash(game) == [8790, 11250]


def test_s11_equal_sizes_direction_decides():
    game = make(rows={5: "...AA.BB...."}, companies={A: (2, 500), B: (2, 800)},
                holdings={P1: {A: 10}, P2: {B: 5}})
    play(game)
    assert row(game, 5) == "...BBBBB...."
    assert game.companies[B] == Company(4, 1300) and not game.companies[A].active
    assert cash(game) == [11325, 6000]
    assert held(game, P1)[B] == 5 and held(game, P2)[B] == 5


def test_s12_three_way_the_largest_survives():
    game = make(rows={2: ".....C......", 3: ".....C......", 4: ".....C......", 5: ".AAAA.BB...."},
                companies={A: (4, 1000), B: (2, 600), C: (3, 800)},
                holdings={P1: {A: 10}, P2: {B: 6, C: 4}})
    events = play(game)
    assert [(e.loser, e.survivor) for e in events if isinstance(e, Merged)] == [(C, A), (B, A)]
    assert [e.rows[P2].bonus for e in events if isinstance(e, Merged)] == [8000, 6000]
    assert game.companies[A] == Company(9, 2400)
    assert [row(game, r) for r in (2, 3, 4)] == [".....A......"] * 3
    assert row(game, 5) == ".AAAAAAA...."
    assert cash(game) == [7200, 20000]
    assert held(game, P1)[A] == 10 and held(game, P2)[A] == 5


def test_s13_four_way_with_two_splits():
    game = make(cells={"1F": "A", "1G": "A", "2F": "A", "3F": "A", "4F": "A", "6F": "B", "7F": "B", "8F": "B",
                       "5G": "C", "5H": "C", "5E": "D"},
                companies={A: (5, 2000), B: (3, 1500), C: (2, 900), D: (1, 600)},
                holdings={P1: {A: 10, B: 4, C: 2}, P2: {B: 4, D: 3}})
    events = play(game)
    kinds = [(type(e).__name__, getattr(e, "loser", None)) for e in events if isinstance(e, Merged | Split)]
    assert kinds == [("Merged", B), ("Split", None), ("Merged", C), ("Merged", D), ("Split", None)]
    bonuses = [[r.bonus for r in e.rows] for e in events if isinstance(e, Merged)]
    assert bonuses == [[7500, 7500], [9000, 0], [0, 6000]]
    assert game.companies[A] == Company(11, 1625)
    assert row(game, 5) == "....AAAA...."
    assert cash(game) == [26562, 19500]
    assert held(game, P1)[A] == 50 and held(game, P2)[A] == 12


def test_s14_the_merger_cell_earns_nothing():
    game = make(cells={"3F": "A", "4F": "A", "6F": "B", "5G": "*", "5E": "+"},
                companies={A: (2, 1200), B: (1, 600)}, holdings={P1: {A: 5}, P2: {B: 5}})
    play(game)
    assert game.companies[A] == Company(3, 1800)
    assert row(game, 5) == "....+A*....."
    assert cash(game) == [6450, 12000]
    assert held(game, P1)[A] == 5 and held(game, P2)[A] == 3


def test_s15_the_counter_decides_not_the_cells():
    game = make(cells={"2F": "B", "3F": "B", "4F": "B", "6E": "A", "6F": "A", "6G": "A", "7F": "A"},
                companies={A: (3, 1300), B: (3, 900)}, holdings={P1: {A: 4}, P2: {B: 6}})
    play(game)
    assert game.companies[B] == Company(6, 2200) and not game.companies[A].active
    assert [row(game, r) for r in (5, 6, 7)] == [".....B......", "....BBB.....", ".....B......"]
    assert cash(game) == [19220, 6000]
    assert held(game, P1)[B] == 2 and held(game, P2)[B] == 6


def test_s16_a_loser_on_two_sides_is_absorbed_once():
    game = make(rows={4: ".....BB.....", 5: "AAAAA.B....."}, companies={A: (5, 1500), B: (3, 1100)},
                holdings={P1: {A: 6, B: 4}, P2: {B: 6}})
    events = play(game)
    assert len([e for e in events if isinstance(e, Merged)]) == 1
    assert game.companies[A] == Company(8, 2600)
    assert row(game, 4) == ".....AA....." and row(game, 5) == "AAAAAAA....."
    assert cash(game) == [11440, 12600]
    assert held(game, P1)[A] == 8 and held(game, P2)[A] == 3


def test_s17_a_merger_reaching_exactly_3000_does_not_split():
    game = make(rows={5: "..AAA.BB...."}, companies={A: (3, 1800), B: (2, 1200)},
                holdings={P1: {A: 4, B: 2}, P2: {B: 2}})
    events = play(game)
    assert not any(isinstance(e, Split) for e in events)
    assert game.companies[A] == Company(5, 3000)
    assert cash(game) == [12750, 12000]
    assert held(game, P1)[A] == 5 and held(game, P2)[A] == 1


def test_s18_no_free_letter_defensive_path():
    game = make(cells={"1A": "A", "1C": "B", "1E": "C", "1G": "D", "1I": "E", "4F": "*"},
                companies={k: (1, 600) for k in range(5)})
    assert not game.is_legal_cell(cell("5F"))
    assert game.place(cell("5F"))[0] == Outpost(cell("5F"))
    assert game.grid[cell("5F")] == "+"
    assert held(game, P1) == [0] * 5 and cash(game) == [6000, 6000]


def test_s19_trading_in_order_selling_up_to_the_holding():
    game = make(cells={"1A": "A", "9L": "C"}, companies={A: (1, 300), C: (1, 700)},
                cash={P1: 1000}, holdings={P1: {A: 2, C: 4}})
    game.apply(Move(0))
    assert cash(game)[P1] == 1170 and game.asking == A
    for refused in (Trade(A, 5), Trade(C, 1), EndTurn()):
        with pytest.raises(IllegalAction):
            game.apply(refused)
    game.apply(Trade(A, 3))
    assert game.asking == C and cash(game)[P1] == 270
    with pytest.raises(IllegalAction):
        game.apply(Trade(C, -6))
    assert game.asking == C and held(game, P1)[C] == 4
    game.apply(Trade(C, -4))
    assert cash(game)[P1] == 3070 and held(game, P1)[A] == 5 and held(game, P1)[C] == 0
    assert game.companies[C].active and game.current == P2 and game.phase == rules.MOVE


def test_s20_whole_amounts_only():
    game = make(cells={"1A": "A", "1C": "B", "1E": "C"}, companies={A: (1, 200), B: (1, 300), C: (1, 400)})
    game.apply(Move(0))
    with pytest.raises(IllegalAction):
        game.apply(Trade(A, 1.5))  # type: ignore[arg-type]
    for amount in (2, 0, 1):
        game.apply(Trade(game.asking, amount))
    assert cash(game)[P1] == 5200 and held(game, P1)[:3] == [2, 0, 1]


def test_s21_dividend_floored_per_company():
    game = make(cells={"1A": "A", "1C": "B"}, companies={A: (1, 1150), B: (1, 2150)},
                holdings={P1: {A: 7, B: 3}})
    play(game)
    assert cash(game)[P1] == 6724


def test_s22_exact_integers_not_four_byte_floats():
    game = make(cells={"1A": "A"}, companies={A: (1, 1300)}, holdings={P1: {A: 13}})
    play(game)
    assert cash(game)[P1] == 6845


def s23(moves: int) -> Game:
    game = make(cells={"1A": "A", "1B": "A", "1E": "B"}, companies={A: (2, 1200), B: (1, 700)},
                cash={P1: 5000, P2: 3000}, holdings={P1: {A: 10}, P2: {A: 2, B: 8}}, moves=moves)
    game.apply(Move(0))
    assert cash(game)[P1] == 5600
    game.apply(Trade(A, 1))
    assert cash(game)[P1] == 4400 and held(game, P1)[A] == 11
    return game


def test_s23_the_48th_move_trades_then_ends():
    game = s23(47)
    assert game.apply(Trade(B, 0)) == [rules.Traded(P1, B, 0, 700), GameOver("moves")]
    assert game.is_terminal() and game.end_reason() == "moves" and game.moves == 48
    assert [game.stock_value(p) for p in (P1, P2)] == [13200, 8000]
    assert cash(game) == [4400, 3000]
    assert game.net_worths() == [17600, 11000] and game.winners() == [P1]
    assert game.legal_actions() == []


def test_s24_not_yet_the_end():
    game = s23(46)
    game.apply(Trade(B, 0))
    assert not game.is_terminal() and game.moves == 47
    assert game.current == P2 and game.phase == rules.MOVE and len(game.candidates) == 5


def test_s25_no_shareholders_in_the_loser():
    game = make(rows={5: "..AAA.BB...."}, companies={A: (3, 900), B: (2, 700)}, holdings={P1: {A: 10}})
    events = play(game)
    merged = next(e for e in events if isinstance(e, Merged))
    assert [r.bonus for r in merged.rows] == [0, 0]
    assert game.companies[A] == Company(5, 1600) and game.companies[B] == Company(0, 100)
    assert cash(game) == [6800, 6000] and held(game, P1)[A] == 10


ALL_STARS = {r: "*" * 12 for r in range(2, 10)} | {5: "*****.******"}


def legal_names(game: Game) -> set[str]:
    return {f"{y + 1}{'ABCDEFGHIJKL'[x]}" for x, y in map(rules.cell_xy, game.legal_cells())}


def candidate_game(first_row: str, companies: dict[int, tuple[int, int]], seed: int) -> Game:
    game = make(rows={**ALL_STARS, 1: first_row}, companies=companies)
    game.rng = random.Random(seed)
    return game


@pytest.mark.parametrize("seed", range(6))
def test_s26_all_five_active_exactly_five_legal_cells(seed):
    game = candidate_game("A.B.C.D.E.**", {k: (1, 600) for k in range(5)}, seed)
    assert row(game, 5) == "*****.******"
    assert legal_names(game) == {"1B", "1D", "1F", "1H", "1J"}
    drawn = game.draw_candidates()
    assert len(drawn) == 5 and set(drawn) == {cell(n) for n in ("1B", "1D", "1F", "1H", "1J")}


@pytest.mark.parametrize("seed", range(3))
def test_s27_only_four_legal_cells_are_offered(seed):
    game = candidate_game("A.B.C.D.E***", {k: (1, 600) for k in range(5)}, seed)
    assert sorted(game.draw_candidates()) == sorted(cell(n) for n in ("1B", "1D", "1F", "1H"))


def test_s27_the_game_ends_when_no_cell_is_left():
    sizes = {A: (1, 600), B: (2, 700), C: (2, 700), D: (2, 700), E: (2, 700)}
    game = candidate_game("ABBCCDDEE***", sizes, 0)
    assert game.legal_cells() == []
    assert game.begin_turn() == [GameOver("no moves")]
    assert game.is_terminal() and game.end_reason() == "no moves"


@pytest.mark.parametrize("seed", range(6))
def test_s28_a_free_letter(seed):
    game = candidate_game("A.B.C.D..***", {k: (1, 600) for k in range(4)}, seed)
    six = {cell(n) for n in ("1B", "1D", "1F", "1H", "1I", "5F")}
    assert set(game.legal_cells()) == six
    drawn = game.draw_candidates()
    assert len(drawn) == len(set(drawn)) == 5 and set(drawn) <= six


def test_s29_companies_that_touch():
    game = make(cells={"3F": "A", "4F": "A", "5F": "A", "6F": "A", "5E": "+", "5G": "*"},
                companies={A: (3, 1800)}, holdings={P1: {A: 5}, P2: {A: 3}}, move="5D")
    assert play(game)[0] == NewCompany(B, cell("5D"), P1)
    assert game.companies[B] == Company(2, 200) and game.companies[A] == Company(3, 1800)
    assert row(game, 5) == "...BBA*....."
    assert cash(game) == [6500, 6000]
    assert held(game, P1)[:2] == [5, 5] and held(game, P2)[:2] == [3, 0]


# ------------------------------------------------------------------------------------------- whole games


def whole_game(players: int, seed: int) -> tuple[Game, list[int], list[int]]:
    """G1–G3: always the first candidate, one share of each active company when affordable. Returns the game,
    the movers in order and the number of trades made after each move."""
    game = Game.new([f"P{i + 1}" for i in range(players)], random.Random(seed), RULES_1977)
    movers: list[int] = []
    trades: list[int] = []
    while not game.is_terminal():
        movers.append(game.current)
        game.apply(Move(0))
        game.check()
        count = 0
        while game.phase == rules.TRADE and game.current == movers[-1] and game.moves == len(movers) - 1:
            company = game.asking
            assert company is not None
            buy = 1 if game.trade_limits(company)[1] >= 1 else 0
            game.apply(Trade(company, buy))
            count += buy
            game.check()
        trades.append(count)
        assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
    return game, movers, trades


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (2, 7), (3, 8), (4, 9)])
def test_g1_g3_whole_games(players, seed):
    game, movers, trades = whole_game(players, seed)
    assert len(movers) == 48 and game.moves == 48 and game.end_reason() == "moves"
    first = movers[0]
    assert movers == [(first + i) % players for i in range(48)]
    assert 48 // players == movers.count(first)
    assert trades[-1] > 0, "the 48th move still trades"
    assert len(game.history) == 49 and game.history[-1] == game.net_worths()
    assert game.net_worths() == [game.stock_value(p) + game.players[p].cash for p in range(players)]
    assert game.rules.make_map is rules.generate_map_1977


def test_map_generation_row_by_row_stars_only():
    draws = random.Random(5)
    expected = ["*" if draws.randrange(20) == 9 else "." for _ in range(108)]
    grid = rules.generate_map_1977(random.Random(5))
    assert grid == expected and "*" in grid
    assert rules.cell_xy(1) == (1, 0) and rules.cell_xy(12) == (0, 1)
    many = [s for seed in range(200) for s in rules.generate_map_1977(random.Random(seed))]
    assert 0.04 < many.count("*") / len(many) < 0.06


def test_the_1977_map_has_nine_rows_and_edges():
    game = Game.new(["a", "b"], random.Random(4), RULES_1977)
    assert len(game.grid) == 108 and len(game.to_dict()["map"]) == 9
    assert game.rules.neighbours[cell("9L")] == (cell("8L"), -1, cell("9K"), -1)
    assert all(0 <= c < 108 for c in game.candidates)
    assert [c.price for c in game.companies] == [100] * 5


def test_legal_actions_walk_the_companies():
    game = make(cells={"1A": "A", "1E": "C"}, companies={A: (1, 300), C: (1, 700)}, holdings={P1: {A: 2}})
    game.apply(Move(0))
    low, high = game.trade_limits(A)
    assert game.legal_actions() == [Trade(A, 0), Trade(A, high), Trade(A, low)]
    assert game.tradable() == [A] and not game.can_end_trading()
    game.apply(Trade(A, 0))
    assert game.tradable() == [C] and game.legal_actions()[0] == Trade(C, 0)


# ------------------------------------------------------------------------------------------- saves and checks


def traded_state() -> dict:
    game = make(rows={5: "..AAA.BB...."}, companies={A: (3, 900), B: (2, 700)},
                holdings={P1: {A: 10, B: 5}, P2: {B: 15}}, moves=3)
    game.history = [[6000, 6000]] * 4
    game.apply(Move(0))
    assert game.phase == rules.TRADE and game.asking == A
    return game.to_dict()


def test_save_records_the_rules_and_round_trips():
    data = traded_state()
    assert data["rules"] == "1977" and data["moves"] == 3 and data["asking"] == A and len(data["map"]) == 9
    game = Game.from_dict(data)
    assert game.rules is RULES_1977 and game.companies[A] == Company(5, 1600)
    assert game.to_dict() == data
    old = Game.new(["a"], random.Random(2)).to_dict()
    del old["rules"], old["moves"], old["asking"]
    assert Game.from_dict(old).rules is rules.RULES_1995


def edit_company(data, index, size, price):
    data["companies"][index] = [size, price]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: edit_company(d, A, 7, 1600), "A has size counter 7 but 6 sectors"),
    (lambda d: edit_company(d, A, 4, 1600), None),
    (lambda d: edit_company(d, B, 0, 0), "inactive company B has price \\$0, not \\$100"),
    (lambda d: edit_company(d, A, 5, 3100), "active company A has price \\$3100"),
    (lambda d: edit_company(d, A, 5, 100), "active company A has price \\$100"),
    (lambda d: d["map"].__setitem__(0, "+*" + "." * 10), "outpost at \\(0, 0\\) has a star"),
    (lambda d: d["map"].__setitem__(0, "+..........."), None),
    (lambda d: d["map"].__setitem__(0, "@..........."), "unknown symbol '@' in the 1977 rules"),
    (lambda d: d["map"].append("." * 12), "expected 9 rows"),
    (lambda d: d.update(moves=48), "48 moves end the game"),
    (lambda d: d.update(moves=49), "moves: 49 moves done"),
    (lambda d: d.update(moves=47), "^history: 4 rows for 47 moves done"),
    (lambda d: d.update(asking=B), "trading asks an active company"),
    (lambda d: d.update(asking=None), "trading asks an active company"),
    (lambda d: d.update(asking=9), "asking: not a company"),
    (lambda d: d.update(phase="over", asking=None), "over with moves left"),
    (lambda d: d.update(rules="1980"), "unknown rules '1980'"),
    (lambda d: d["players"][1]["holdings"].__setitem__(B, 4), "inactive company"),
])
def test_from_dict_checks_1977_states(edit, message):
    data = traded_state()
    edit(data)
    if message is None:
        Game.from_dict(data)
    else:
        with pytest.raises(ValueError, match=message):
            Game.from_dict(data)


def test_a_game_over_after_48_moves_loads():
    data = traded_state()
    data.update(phase="over", asking=None, moves=48, history=[*data["history"], *[data["history"][-1]] * 45])
    assert Game.from_dict(data).end_reason() == "moves"
