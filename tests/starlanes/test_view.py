"""Star Lanes in X windows without a display: the view's pixels (font-independent probes: cell fills, the
trading cursor's band, pop-ups, chart lines) and the front end's state machine driven with fake windows."""

from __future__ import annotations

import random

import pygame
import pytest

from common.displays import Seat
from common.loop import Click, Closed, DisplayLost, Inbox, Key, Timer
from starlanes import view
from starlanes.rules import (
    BLACK_HOLE,
    EMPTY,
    OUTPOST,
    STAR,
    TRADE,
    Company,
    Game,
    Player,
    cell_index,
)
from starlanes.save import HUMAN
from starlanes.session import AMOUNT, ANNOUNCE, COMPUTER, INVALID, MOVING, OVER, POPUP, QUIT, TRADING
from starlanes.xfront import FINAL_TITLE, XGame, final_lines, key_name, seat_title

SIZES = [view.DEFAULT_SIZE, (640, 480), (1280, 1000)]


def make_game(phase: str = "move", cash: int = 6000) -> Game:
    """A 2-player game: A at (4,5) ($600, size 1, Ann holds 5), a star at (6,5), a black hole at (0,0), an
    outpost at (9,9); Ann (player 0) in turn with the candidates (1,1), (2,2), (3,3), (10,1), (5,8)."""
    grid = [EMPTY] * 120
    grid[cell_index(4, 5)] = "A"
    grid[cell_index(6, 5)] = STAR
    grid[cell_index(0, 0)] = BLACK_HOLE
    grid[cell_index(9, 9)] = OUTPOST
    companies = [Company(1, 600)] + [Company() for _ in range(4)]
    players = [Player("Ann", cash, [5, 0, 0, 0, 0]), Player("Bob")]
    candidates = [cell_index(1, 1), cell_index(2, 2), cell_index(3, 3), cell_index(10, 1), cell_index(5, 8)]
    return Game(grid, players, random.Random(1), companies, 0, phase, candidates if phase == "move" else [])


def probe(surface: pygame.Surface, cell: int) -> tuple[int, int, int]:
    rect = view.cell_rect(cell, surface.get_size())
    return tuple(surface.get_at((rect.x + 2, rect.y + 2)))[:3]


# ---------------------------------------------------------------------------------------------------- view


@pytest.mark.parametrize("size", SIZES)
def test_candidates_and_symbols_fill_their_cells(size):
    game = make_game()
    marks = {cell: str(i + 1) for i, cell in enumerate(game.candidates)}
    surface = view.render(game, size, view.Screen(marks=marks))
    for cell in game.candidates:
        assert probe(surface, cell) == view.CANDIDATE
    assert probe(surface, cell_index(4, 5)) == view.COMPANY_COLOURS[0]
    assert probe(surface, cell_index(6, 5)) == view.SYMBOL_COLOURS[STAR]
    assert probe(surface, cell_index(0, 0)) == view.SYMBOL_COLOURS[BLACK_HOLE]
    assert probe(surface, cell_index(9, 9)) == view.SYMBOL_COLOURS[OUTPOST]
    assert probe(surface, cell_index(11, 0)) == view.SYMBOL_COLOURS[EMPTY]
    # Without marks the candidates show as the empty space they are.
    plain = view.render(game, size, view.Screen())
    assert all(probe(plain, cell) == view.SYMBOL_COLOURS[EMPTY] for cell in game.candidates)


@pytest.mark.parametrize("size", SIZES)
def test_cell_at_inverts_cell_rect(size):
    for cell in range(120):
        rect = view.cell_rect(cell, size)
        assert view.cell_at(rect.centerx, rect.centery, size) == cell
        assert view.cell_at(rect.x, rect.y, size) == cell
        assert view.cell_at(rect.right - 1, rect.bottom - 1, size) == cell
    lay = view.layout(size)
    assert view.cell_at(lay.origin[0] - 1, lay.origin[1], size) is None
    assert view.cell_at(lay.origin[0] + 12 * lay.cell, lay.origin[1], size) is None
    assert view.cell_at(lay.origin[0], lay.origin[1] + 10 * lay.cell, size) is None


def test_layout_keeps_the_panels_apart_and_inside():
    for size in SIZES:
        lay = view.layout(size)
        window = pygame.Rect(0, 0, *size)
        for panel in (lay.map, lay.companies, lay.general, lay.players):
            assert window.contains(panel)
        assert not lay.map.colliderect(lay.companies)
        assert not lay.map.colliderect(lay.general)
        assert not lay.general.colliderect(lay.players)
        assert lay.map.contains(view.cell_rect(119, size))
        assert lay.companies.contains(view.company_row_rect(4, size))
    assert view.layout(view.DEFAULT_SIZE).cell == 30  # min((432 - 16) // 12, (374 - 70) // 10)


def test_company_rows_and_the_trading_cursor():
    game = make_game("trade")
    game.grid[cell_index(0, 9)] = "C"
    game.companies[2] = Company(1, 100)
    size = view.DEFAULT_SIZE
    for row in range(2):
        rect = view.company_row_rect(row, size)
        assert view.company_row_at(rect.centerx, rect.centery, size, 2) == row
    below = view.company_row_rect(2, size)
    assert view.company_row_at(below.centerx, below.centery, size, 2) is None
    for cursor in (0, 1):
        surface = view.render(game, size, view.Screen(cursor=cursor))
        for row in range(2):
            rect = view.company_row_rect(row, size)
            colour = tuple(surface.get_at((rect.x + 1, rect.y + 1)))[:3]
            assert colour == (view.HIGHLIGHT if row == cursor else view.PANEL)
        swatch = view.company_row_rect(1, size)
        assert tuple(surface.get_at((swatch.x + 4, swatch.y + 5)))[:3] == view.COMPANY_COLOURS[2]


def test_popup_covers_the_middle():
    game = make_game()
    lines = view.standings_lines(game)
    surface = view.render(game, view.DEFAULT_SIZE, view.Screen(popup=(" Standings ", lines)))
    rect = view.popup_rect(view.DEFAULT_SIZE, " Standings ", lines)
    assert rect.center == (480, 340)
    assert tuple(surface.get_at((rect.x + 4, rect.centery)))[:3] == view.POPUP
    assert tuple(surface.get_at((rect.x, rect.centery)))[:3] == view.BORDER
    without = view.render(game, view.DEFAULT_SIZE, view.Screen())
    assert tuple(without.get_at((rect.x + 4, rect.centery)))[:3] != view.POPUP


def test_standings_lines_sort_by_net_worth_then_player():
    game = make_game()
    game.players.append(Player("Cid", 9000))
    rows = view.standings_lines(game)
    assert rows[0] == (("Player", "Stock Value", "Cash", "Net Worth"), "head")
    assert [row[0][0] for row in rows[1:4]] == ["Ann", "Cid", "Bob"]  # tie: by player number
    assert rows[1][0] == ("Ann", "$3000", "$6000", "$9000")
    assert rows[-1] == ("Available company sectors remaining: 64", "")


def test_chart_points_linear_and_log():
    rect = pygame.Rect(100, 50, 201, 101)
    points, log = view.chart_points([[6000, 6000], [9000, 6000], [12000, 3000]], rect)
    assert not log
    assert points[0] == [(100, 100), (200, 75), (300, 50)]
    assert points[1] == [(100, 100), (200, 100), (300, 125)]
    points, log = view.chart_points([[6000, 6000], [6000, 700000]], rect)
    assert log
    assert points[1][-1] == (300, 50) and points[1][0] == (100, 150)


def test_chart_draws_each_players_line():
    game = make_game()
    game.history = [[6000, 6000], [9000, 6000], [12000, 3000]]
    game.phase = "over"
    size = view.DEFAULT_SIZE
    surface = view.render(game, size, view.Screen(chart=True))
    points, _ = view.chart_points(game.history, view.chart_area(size))
    assert tuple(surface.get_at(points[0][-1]))[:3] == view.PLAYER_COLOURS[0]
    assert tuple(surface.get_at(points[1][-1]))[:3] == view.PLAYER_COLOURS[1]


def test_huge_numbers_keep_the_layout():
    game = make_game(cash=10**40)
    game.companies[0].price = 2999
    game.players[0].holdings[0] = 10**35
    surface = view.render(game, (640, 480), view.Screen(cursor=0, lines=[(("x", str(10**50)), "")]))
    assert probe(surface, cell_index(4, 5)) == view.COMPANY_COLOURS[0]
    assert surface.get_size() == (640, 480)


def test_tables_abbreviate_numbers_and_shrink_the_font_but_keep_names_and_headers():
    """At 960x680 $6000000000000000 was cut to $600 and Net Worth vanished; at 640x480 names and headers were
    cut ('Altair S', 'Compa', 'Net W'); at 480x360 the holdings were drawn over the colour squares."""
    rows = [("Player", "Stock Value", "Cash", "Net Worth"),
            ("Altair Starway Guy", "$12000", "$6000000000000000", "$6000000000012000"),
            ("Bob", "$5000", "$8725", "$13725")]
    wide = view.fit_table(rows, 1000)
    assert wide.points == view.TEXT_POINTS and wide.cells == [list(row) for row in rows]
    fitted = view.fit_table(rows, 390)
    assert fitted.points == view.TEXT_POINTS and fitted.width <= 390
    assert fitted.cells[0] == list(rows[0]) and fitted.cells[1][0] == "Altair Starway Guy"
    assert fitted.cells[1][2:] == ["$6e15", "$6e15"] and fitted.cells[2] == list(rows[2])
    assert fitted.widths[0] == view._width("Altair Starway Guy")
    small = view.fit_table(rows, 230)
    assert small.points < view.TEXT_POINTS and small.width <= 230 and small.cells[0] == list(rows[0])
    assert small.widths[0] >= view._width("Altair", points=small.points)
    ordinary = [rows[0], ("Altair Starway Guy", "$12000", "$10200", "$22200"), rows[2]]
    panel = view.layout(view.MIN_SIZE).players.w - 2 * view.PAD  # the Players panel at the smallest size
    tiny = view.fit_table(ordinary, panel)  # short names, never $1e4
    assert tiny.cells == [list(row) for row in ordinary] and tiny.width <= panel
    for size in ((960, 680), (640, 480), view.MIN_SIZE):
        lay = view.layout(size)
        names = [("Company", "Price", "Holdings", "Size", "Total Worth"),
                 ("Altair Starways", "$600", "5", "1", "$600")]
        inner = lay.companies.w - 2 * view.PAD - (lay.row_height - 6) - 10
        table = view.fit_table(names, inner)
        assert table.width <= inner and table.cells == [list(row) for row in names], size


def crowded(players: int) -> Game:
    """A game of ``players`` with a 20-letter name, all five companies and huge holdings and cash."""
    game = Game.new(["W" * 20, "Bob", "Cid", "Dee"][:players], random.Random(3))
    for company, letter in enumerate("ABCDE"):
        game.companies[company] = Company(1, 2999)
        game.grid[cell_index(2 * company, 5)] = letter
    for player in game.players:
        player.holdings, player.cash = [10**15, 10**14, 10**13, 10**12, 10**11], 10**16
    return game


def test_everything_fits_the_smallest_window_with_three_or_four_players():
    """At 480x360 'Available company sectors remaining' was cut off and table text shrank to about 5 px: the
    smallest window grew to where every panel, table and pop-up fits with table text of 14 points or more."""
    assert view.TABLE_POINTS[-1] >= 14
    for players in (3, 4):
        game = crowded(players)
        game.current = 0
        front_end = front(game, controllers=[HUMAN] * players, seats=((1,),))
        screens = {"move": front_end.screen(front_end.views["seat0"])}
        keys(front_end, "seat0", "s")
        screens["standings"] = front_end.screen(front_end.views["seat0"])
        keys(front_end, "seat0", "x", "c")
        screens["companies"] = front_end.screen(front_end.views["seat0"])
        keys(front_end, "seat0", "x", "1")
        while front_end.session.mode == ANNOUNCE:
            screens[f"announce {game.phase}"] = front_end.screen(front_end.views["seat0"])
            keys(front_end, "seat0", "space")
        screens["trade"] = front_end.screen(front_end.views["seat0"])
        keys(front_end, "seat0", "Return", "1")
        screens["amount"] = front_end.screen(front_end.views["seat0"])
        game.phase = "over"
        screens["final"] = view.Screen(popup=(FINAL_TITLE, final_lines(game)))
        for name, screen in screens.items():
            assert view.misfits(game, view.MIN_SIZE, screen) == [], (players, name)
        # There the companies' title fits too since names are shortened as far as needed (7 W's and "…").
        assert view.misfits(game, (480, 360), screens["move"]) == ["players"]


def test_panel_titles_keep_their_end_in_the_smallest_window():
    """At 600x450 "Companies (holdings: WWWWWWWWWWWWWWWWWWWW)" ran past its panel and lost the name's end and
    the closing parenthesis: a name too long for a title is shortened with "…", the rest is kept."""
    game = crowded(4)
    game.current = 0
    front_end = front(game, controllers=[HUMAN] * 4, seats=((1,),))
    screen = front_end.screen(front_end.views["seat0"])
    lay = view.layout(view.MIN_SIZE)
    room = lay.companies.w - 2 * view.PAD
    title = view.companies_title(game.players[0].name, room)
    assert title.startswith("Companies (holdings: WWWW") and title.endswith("W…)"), title
    assert view._width(title, True) <= room
    assert view.companies_title("Bob", room) == "Companies (holdings: Bob)"
    room = lay.general.w - 2 * view.PAD
    title = view.general_title(game, 0, room)
    assert title.startswith("WWWW") and "… (Cash: $" in title and view._width(title, True) <= room, title
    assert view.misfits(game, view.MIN_SIZE, screen) == []
    game.players[0].name = "Ann"
    assert view.general_title(game, 0, 10) == "Ann (Cash: $1e16)"


def test_the_company_window_shows_whose_holdings():
    """The holdings were the player in turn's in every window; a player's window shows its owner's, named."""
    game = make_game()
    xgame = front(game)
    ann, bob = (xgame.screen(xgame.views[source]) for source in ("seat0", "seat1"))
    assert (ann.holder, bob.holder) == (0, 1)
    observer = front(game, seats=((1,), ()))
    assert observer.screen(observer.views["seat1"]).holder == 0
    shared = front(game, seats=((1, 2),))
    assert shared.screen(shared.views["seat0"]).holder == 0
    assert view.general_title(game, 0) == "Ann (Cash: $6000)"
    game.players[0].cash = 0
    assert view.general_title(game, 0, 10) == "Ann (Cash: $0)"
    game.players[0].cash = 123456789012345678
    title = "Ann (Cash: $1.2345e17)"
    assert view.general_title(game, 0, view._width(title, True)) == title


def test_press_any_key_shows_only_where_a_key_continues():
    """'Press any key or click to continue.' showed in observer windows and under a computer's
    announcements, which go on by themselves."""
    game = make_game()
    game.candidates[0] = cell_index(7, 5)  # next to the star only: founds B
    xgame = front(game, seats=((1,), (2,), ()))
    continues = ("Press any key or click to continue.", "dim")
    keys(xgame, "seat0", "s")
    screens = [xgame.screen(xgame.views[f"seat{i}"]) for i in range(3)]
    assert continues in screens[0].popup[1]
    assert all(continues not in screen.popup[1] and screen.popup[1][-1] != ("", "") for screen in screens[1:])
    keys(xgame, "seat0", "space", "1")
    assert xgame.session.mode == ANNOUNCE
    screens = [xgame.screen(xgame.views[f"seat{i}"]) for i in range(3)]
    assert continues in screens[0].lines and all(continues not in s.lines for s in screens[1:])
    computer = front(make_game(), controllers=("hard", HUMAN), seats=((1,), (2,)))
    computer.handle(Timer("computer"))
    assert computer.session.mode == ANNOUNCE
    assert all(continues not in computer.screen(v).lines for v in computer.views.values())


def test_window_titles_and_the_chart_key_keep_to_printable_text_and_numbers():
    """U+202E in a name reached the title bar; a long name in the chart's key cut its net worth off."""
    assert seat_title((1, 2), ["Ann\u202e", "Bob\x07"]) == "Star Lanes: Ann?, Bob?"
    game = make_game()
    game.players[0].name = "W" * 20
    game.history = [[6000, 6000], [9000, 6000]]
    game.phase = "over"
    shot = view.render(game, (480, 360), view.Screen(chart=True))
    right = 2 * view.MARGIN + (480 - 4 * view.MARGIN) // 2 - 8
    top = view.chart_area((480, 360)).bottom + 6 + view.line_height() + 8
    worth = view.render_text("$9000", view.TEXT_POINTS, view.TEXT)
    box = pygame.Rect(right - worth.get_width(), top, worth.get_width(), worth.get_height())
    expected = pygame.Surface(box.size, 0, 32)
    expected.fill(view.BACKGROUND)
    expected.blit(worth, (0, 0))
    assert pygame.image.tobytes(shot.subsurface(box), "RGB") == pygame.image.tobytes(expected, "RGB")
    gap = pygame.Rect(box.x - view._width("  ") + 2, top, view._width("  ") - 2, box.h)
    assert pygame.image.tobytes(shot.subsurface(gap), "RGB") == bytes(view.BACKGROUND) * (gap.w * gap.h)


def test_the_company_popup_is_as_wide_as_its_columns():
    """The popup was sized by its widest row, so 'Altair Starway' lost its end even with a $600 price."""
    game = make_game()
    xgame = front(game)
    keys(xgame, "seat0", "c")
    title, lines = xgame.screen(xgame.views["seat0"]).popup
    rect = view.popup_rect(view.DEFAULT_SIZE, title, lines)
    table = view.fit_table([text for text, _ in lines if isinstance(text, tuple)], 10**6)
    assert rect.w - 4 * view.PAD >= table.width
    fitted = view.fit_table([text for text, _ in lines if isinstance(text, tuple)], rect.w - 4 * view.PAD)
    assert fitted.cells[1][0] == "Altair Starways" and fitted.points == view.TEXT_POINTS
    assert fitted.widths[0] == view._width("Altair Starways")


def test_changed_rect_bounds_the_difference():
    game = make_game()
    size = view.DEFAULT_SIZE
    before = view.render(game, size, view.Screen())
    assert view.changed_rect(None, before) == before.get_rect()
    assert view.changed_rect(before, view.render(game, size, view.Screen())) is None
    after = view.render(game, size, view.Screen(marks={cell_index(2, 2): "1"}))
    cell = view.cell_rect(cell_index(2, 2), size)
    assert cell.contains(view.changed_rect(before, after))


# -------------------------------------------------------------------------------------------------- front end


class FakeWindow:
    """Stands in for common.x11.Window: records presents and closes."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.size = view.DEFAULT_SIZE
        self.window_id = 0
        self.frames: list[pygame.Surface] = []
        self.closed = False

    def present(self, surface, rects=None) -> None:
        self.frames.append(surface)

    def close(self) -> None:
        self.closed = True


def front(game: Game, controllers=(HUMAN, HUMAN), seats=((1,), (2,)), tmp_path=None) -> XGame:
    windows = {f"seat{i}": (FakeWindow(f":{i}"), Seat(players, f":{i}")) for i, players in enumerate(seats)}
    status = str(tmp_path / "status.json") if tmp_path is not None else None
    xgame = XGame(game, Inbox(), windows, list(controllers), status=status, delay=0.0)
    xgame.session.advance()
    return xgame


def keys(xgame: XGame, source: str, *names: str) -> None:
    for name in names:
        xgame.handle(Key(source, name))


def click_cell(xgame: XGame, source: str, cell: int) -> None:
    rect = view.cell_rect(cell, view.DEFAULT_SIZE)
    xgame.handle(Click(source, 1, rect.centerx, rect.centery))


def test_key_names():
    names = ("Return", "KP_Enter", "Escape", "BackSpace", "Up", "KP_Down", "minus", "KP_7", "m", "5")
    assert [key_name(n) for n in names] == ["ENTER", "ENTER", "ESC", "BACKSPACE", "UP", "DOWN", "-", "7", "m",
                                            "5"]
    # Printable keysyms are their characters, as a terminal delivers them (the 1977 amount shows "0.5").
    names = ("period", "KP_Decimal", "X", "exclam", "eacute", "space", "F1", "Tab")
    assert [key_name(n) for n in names] == [".", ".", "X", "!", "é", " ", "F1", "Tab"]


def test_only_the_player_in_turn_moves_and_clicks_work():
    game = make_game()
    xgame = front(game)
    keys(xgame, "seat1", "1", "2")
    click_cell(xgame, "seat1", game.candidates[0])
    assert game.phase == "move" and game.current == 0 and xgame.session.mode == MOVING
    click_cell(xgame, "seat0", cell_index(0, 1))  # not a candidate
    assert game.phase == "move"
    click_cell(xgame, "seat0", cell_index(5, 8))  # candidate 5, empty space all round: an outpost
    assert game.grid[cell_index(5, 8)] == OUTPOST
    assert game.phase == TRADE and xgame.session.mode == TRADING and xgame.session.actor() == 0


def test_announcement_waits_for_the_movers_window():
    game = make_game()
    game.candidates[0] = cell_index(5, 5)  # between A and the star: A grows to $1200
    xgame = front(game)
    keys(xgame, "seat0", "1")
    assert game.companies[0].price == 1200 and game.companies[0].size == 2
    assert xgame.session.mode == TRADING  # growth is silent
    game2 = make_game()
    game2.candidates[0] = cell_index(7, 5)  # next to the star only: founds B
    xgame = front(game2)
    keys(xgame, "seat0", "1")
    assert xgame.session.mode == ANNOUNCE and xgame.session.actor() == 0
    assert xgame.session.status_data()["lines"][:2] == ["A new shipping company has been formed!",
                                                "Its name is Beetlejuice, Ltd."]
    keys(xgame, "seat1", "space")
    xgame.handle(Click("seat1", 1, 10, 10))
    assert xgame.session.mode == ANNOUNCE
    xgame.handle(Click("seat0", 1, 10, 10))
    assert xgame.session.mode == TRADING and game2.players[0].holdings[1] == 5


def test_trading_by_keys_and_clicks(tmp_path):
    game = make_game("trade", cash=1000)
    game.grid[cell_index(0, 9)] = "C"
    game.companies[2] = Company(1, 100)
    xgame = front(game, tmp_path=tmp_path)
    assert xgame.session.mode == TRADING and xgame.session.cursor == 0
    keys(xgame, "seat0", "Return", "m")  # A at $600: max 1
    assert game.players[0].holdings[0] == 6 and game.players[0].cash == 400
    keys(xgame, "seat0", "j", "Return", "5", "Return")  # C at $100: 5 of max 4 -> invalid
    assert xgame.session.mode == INVALID and game.players[0].holdings[2] == 0
    xgame.handle(Timer("invalid"))
    assert xgame.session.mode == TRADING and xgame.session.cursor == 1
    row = view.company_row_rect(0, view.DEFAULT_SIZE)
    xgame.handle(Click("seat0", 1, row.centerx, row.centery))
    assert xgame.session.mode == AMOUNT and xgame.session.cursor == 0
    keys(xgame, "seat0", "minus", "3", "BackSpace", "2", "Return")
    assert game.players[0].holdings[0] == 4 and game.players[0].cash == 1600
    keys(xgame, "seat0", "Escape")
    assert game.current == 1 and game.phase == "move" and xgame.session.mode == MOVING
    assert '"mode": "move"' in (tmp_path / "status.json").read_text()


def test_popups_and_quit():
    game = make_game()
    xgame = front(game)
    keys(xgame, "seat0", "s")
    assert xgame.session.mode == POPUP and xgame.session.popup[0] == " Standings "
    keys(xgame, "seat0", "1")  # closes the pop-up, does not move
    assert xgame.session.mode == MOVING and game.phase == "move"
    keys(xgame, "seat0", "c")
    assert xgame.session.popup[0] == " Companies "
    keys(xgame, "seat0", "x", "q")
    assert xgame.session.mode == QUIT
    keys(xgame, "seat0", "n")
    assert xgame.session.mode == MOVING and not xgame.over
    keys(xgame, "seat0", "Q", "y")
    assert xgame.session.over and xgame.session.mode == OVER and not xgame.over  # quit: left unfinished
    _title, lines = xgame.screen(xgame.views["seat0"]).popup
    assert lines[-4:] == [("The game was left unfinished: Ann quit.", "bold"),
                          ("It was not saved (--save FILE saves a game to go on with later).", ""), ("", ""),
                          ("Press a key or click for the chart of net worth per turn.", "dim")]
    assert [s.stage for s in xgame.views.values()] == ["final", "final"]
    keys(xgame, "seat1", "space")
    assert xgame.views["seat1"].stage == "chart"
    keys(xgame, "seat1", "space")
    assert "seat1" not in xgame.views
    keys(xgame, "seat0", "q")
    assert not xgame.views


def test_a_lost_window_hands_its_player_to_the_computer():
    game = make_game()
    xgame = front(game)
    keys(xgame, "seat0", "s")
    xgame.handle(DisplayLost("seat0", "gone"))
    assert xgame.session.controllers == ["hard", HUMAN]
    assert xgame.session.mode == COMPUTER and xgame.session.popup is None
    assert xgame.session.notice == "Ann's window closed: the computer plays for Ann."
    window = xgame.views["seat1"].window
    xgame.handle(Timer("computer"))
    # The computer moved for Ann; its announcements go on by timer until Bob's turn.
    for _ in range(10):
        if xgame.session.mode not in (ANNOUNCE, COMPUTER):
            break
        xgame.handle(Timer("page" if xgame.session.mode == ANNOUNCE else "computer"))
    assert game.current == 1 and xgame.session.mode == MOVING and xgame.session.actor() == 1
    assert xgame.dirty and not window.closed
    xgame.render()
    assert not xgame.dirty and len(window.frames) == 1
    assert window.frames[0].get_size() == view.DEFAULT_SIZE
    xgame.handle(Closed("seat1"))
    assert not xgame.views and xgame.session.controllers == ["hard", "hard"]


def test_the_game_is_saved_at_every_prompt(tmp_path):
    from starlanes.save import load_game

    game = make_game()
    windows = {"seat0": (FakeWindow(":0"), Seat((1, 2), ":0"))}
    path = tmp_path / "game.json"
    xgame = XGame(game, Inbox(), windows, [HUMAN, HUMAN], save_path=str(path), delay=0.0)
    xgame.session.advance()
    saved, controllers = load_game(path)
    assert saved.to_dict() == game.to_dict() and controllers == [HUMAN, HUMAN]
    keys(xgame, "seat0", "5")
    saved, _ = load_game(path)
    assert saved.phase == TRADE and saved.grid[cell_index(5, 8)] == OUTPOST


def test_announcements_are_titled_with_the_player_they_are_about():
    """A computer's trades and a move sucked into a black hole stay under the mover's name and cash, even
    after the turn has passed to the next player."""
    game = make_game("trade", cash=1000)
    xgame = front(game, controllers=("hard", HUMAN))
    xgame.handle(Timer("computer"))
    assert game.current == 1 and xgame.session.mode == ANNOUNCE and xgame.session.page_owner == 0
    screen = xgame.screen(xgame.views["seat1"])
    assert screen.lines[0][0].startswith("Ann ")
    assert screen.title_player == 0
    assert view.general_title(game, screen.title_player) == f"Ann (Cash: ${game.players[0].cash})"
    game2 = make_game()
    game2.companies[0] = Company()
    game2.grid[cell_index(4, 5)] = EMPTY
    game2.players[0].holdings[0] = 0
    game2.candidates[0] = cell_index(1, 0)  # next to the black hole at (0,0)
    xgame = front(game2)
    keys(xgame, "seat0", "1")
    assert game2.current == 1 and xgame.session.mode == ANNOUNCE
    screen = xgame.screen(xgame.views["seat0"])
    assert screen.lines[0] == ("The new company site just placed has been sucked into a black hole!", "bold")
    assert view.general_title(game2, screen.title_player).startswith("Ann (Cash: ")


def test_final_standings_say_why_the_game_ended():
    from starlanes.xfront import final_lines

    game = make_game("over")
    game.grid = ["+" if i % 2 == 0 and (i // 12) % 2 == 0 else "@" for i in range(120)]
    game.grid[cell_index(4, 5)] = "A"
    game.grid[cell_index(6, 5)] = "@"
    game.grid[cell_index(9, 9)] = "@"
    assert not game.legal_cells()
    assert ("The game is over: no sector can be offered any more.", "bold") in final_lines(game)
    game.phase = "trade"
    assert not any("game is over" in str(text) for text, _ in final_lines(game))


def test_the_amount_line_of_a_window_fits_its_general_window():
    """With $10^30 the amount line ran past the general window: the range is abbreviated to fit it, and the
    digits typed stay in the line."""
    game = make_game("trade", cash=10**30)
    xgame = front(game)
    keys(xgame, "seat0", "Return", "1", "2")
    lines = xgame.screen(xgame.views["seat0"]).lines
    assert lines[1] == ("Amount (-5 to 1.6666e27): 12_", "bold")
    room = view.layout(view.DEFAULT_SIZE).general.w - 2 * view.PAD
    assert view.text_pixels(lines[1][0], bold=True) <= room
    assert view.misfits(game, view.DEFAULT_SIZE, xgame.screen(xgame.views["seat0"])) == []
