"""motti/view.py: the pinned layout, colours and probe pixels of spec/motti.md §6, toolbar, dirty rects."""

from __future__ import annotations

import random

import numpy as np
import pygame
import pytest

from motti import view
from motti.compose import Composer
from motti.rules import Action, Board, Game


class Draws(random.Random):
    """An rng whose randrange returns scripted attack draws."""

    def __init__(self, *draws: int) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def randrange(self, *args, **kwargs) -> int:  # the draws are scripted
        return self.draws.pop(0)


def board(rows: list[str], capitals: dict[int, tuple[int, int]]) -> Board:
    """A Board from grid rows in the map notation of §3.2 (. sea, a-i unoccupied, A-I occupied)."""
    land = np.array([[ch != "." for ch in row] for row in rows])
    owner = np.array([[0 if ch == "." else ord(ch.lower()) - ord("a") + 1 for ch in row] for row in rows],
                     dtype=np.int8)
    occupied = np.array([[ch.isupper() for ch in row] for row in rows])
    return Board(land=land, owner=owner, occupied=occupied, capitals=dict(capitals), players=len(capitals))


T1 = (["aabb", "aAbb", "aabb"], {1: (0, 0), 2: (3, 0)})
MIXED = (["aaab.fF", "AaBbb.f", ".cCbbgG", "dDeEhHi"], {1: (0, 0), 2: (3, 0), 3: (1, 2), 4: (0, 3), 5: (2, 3),
                                                       6: (5, 0), 7: (5, 2), 8: (4, 3), 9: (6, 3)})


def game(spec=T1, *draws: int) -> Game:
    return Composer(Game(board(*spec), Draws(*draws)))


def expected_colour(rows: list[str], x: int, y: int) -> tuple[int, int, int]:
    ch = rows[y][x]
    if ch == ".":
        return view.SEA
    player = ord(ch.lower()) - ord("a") + 1
    return view.bright(player) if ch.isupper() else view.dark(player)


def rgb(surface: pygame.Surface, x: int, y: int) -> tuple[int, int, int]:
    return tuple(surface.get_at((x, y)))[:3]


def test_colours_are_the_pinned_ones():
    assert view.bright(1) == (220, 50, 47)
    assert view.dark(1) == (99, 22, 21)
    assert view.dark(2) == (27, 76, 27)
    assert view.dark(4) == (103, 90, 18)
    assert view.dark(9) == (108, 108, 108)
    assert view.SEA == (120, 170, 230)


@pytest.mark.parametrize(("width", "height", "size"), [
    (20, 15, (640, 552)),     # c = 32
    (8, 4, (480, 200)),       # c = 32, width raised to 480
    (200, 150, (1000, 822)),  # c = min(32, 6, 5) = 5
    (40, 30, (1160, 942)),    # c = min(32, 32, 29) = 29
    (1000, 1000, (1280, 960)),   # c would be 1: a 1280x960 window that opens zoomed in
])
def test_default_size(width, height, size):
    assert view.default_size(width, height) == size


@pytest.mark.parametrize(("win", "dims", "expected"), [
    ((640, 552), (20, 15), (0, 48, 32)),
    ((480, 200), (8, 4), (112, 48, 32)),
    ((1000, 600), (20, 15), (150, 48, 35)),   # c = min(50, 35.2)
    ((641, 553), (20, 15), (0, 48, 32)),
    ((100, 80), (20, 15), (-10, 7, 6)),       # fits only below c = 4: c = 6 centred on the board's centre
])
def test_layout(win, dims, expected):
    assert view.layout(*win, *dims) == expected


def test_cell_at_and_toolbar_box_at():
    size = (480, 200)   # 8x4 board: x0 = 112, y0 = 48, c = 32
    assert view.cell_at(112, 48, size, 8, 4) == (0, 0)
    assert view.cell_at(111, 60, size, 8, 4) is None
    assert view.cell_at(112 + 32 * 8 - 1, 48 + 32 * 4 - 1, size, 8, 4) == (7, 3)
    assert view.cell_at(112 + 32 * 8, 60, size, 8, 4) is None
    assert view.cell_at(150, 47, size, 8, 4) is None
    assert view.cell_at(112 + 32 * 3 + 5, 48 + 32 * 2, size, 8, 4) == (3, 2)
    assert view.cell_at(200, 48 + 32 * 4, size, 8, 4) is None   # legend band
    assert [view.toolbar_box_at(x, 10, size) for x in (0, 119, 120, 239, 240, 359, 360, 479)] == \
        [0, 0, 1, 1, 2, 2, 3, 3]
    assert view.toolbar_box_at(10, 48, size) is None
    assert view.toolbar_box_at(10, 30, size) is None    # the information line under the boxes
    assert view.info_rect(size) == pygame.Rect(0, 30, 480, 18)
    assert view.toolbar_box_at(480, 10, size) is None
    odd = (643, 300)
    for index in range(4):
        rect = view.box_rect(index, odd)
        assert view.toolbar_box_at(rect.left, 0, odd) == index
        assert view.toolbar_box_at(rect.right - 1, 29, odd) == index


@pytest.mark.parametrize("size", [(480, 200 + 0), (643, 331), (60, 88), (28 + 3, 16 + 72), (1000, 600)])
def test_probe_pixels_show_the_pure_fill_colour(size):
    rows, capitals = MIXED
    g = Composer(Game(board(rows, capitals), Draws()))
    g.toggle_cross(1, 0)    # crosses on own and enemy cells: drawn inside the cell only
    g.toggle_cross(2, 0)
    surface = view.render(g, size, (1,))
    x0, y0, c = view.layout(*size, 7, 4)
    assert c >= 4
    marked = [*capitals.values(), *g.crosses]
    for y in range(4):
        for x in range(7):
            if c < view.PROBE_MIN and any(abs(x - mx) <= 1 and abs(y - my) <= 1 for mx, my in marked):
                continue    # below c = 7 marks are drawn over the neighbours' probe pixels (spec §6)
            probe = (x0 + c * x + 1, y0 + c * y + c // 2)
            assert rgb(surface, *probe) == expected_colour(rows, x, y), (x, y, c)


def test_capital_ring_and_cross_are_drawn_inside_the_cell():
    g = game()
    g.toggle_cross(1, 0)
    surface = view.render(g, (480, 200), (1,))
    x0, y0, c = view.layout(480, 200, 4, 3)
    centre_row = y0 + c // 2
    # the capital (0,0) is unoccupied: a white ring crosses the cell's middle row somewhere inside it
    assert (255, 255, 255) in {rgb(surface, x0 + dx, centre_row) for dx in range(2, c - 2)}
    # the cross on (1,0) passes through the cell's centre
    assert rgb(surface, x0 + c + c // 2, y0 + c // 2) == (255, 255, 255)
    # a plain cell shows no white at all
    assert (255, 255, 255) not in {rgb(surface, x0 + 2 * c + dx, y0 + 2 * c + dy)
                                   for dx in range(c) for dy in range(c)}
    # grid lines: the last column of a cell
    assert rgb(surface, x0 + c - 1, y0 + 2 * c + c // 2) == view.GRID


@pytest.mark.parametrize("c", [1, 2, 3, 4, 5, 6, 7, 8, 9])
def test_below_10_px_capitals_and_crosses_are_9_px_marks_over_the_neighbours(c):
    g = game()
    g.toggle_cross(2, 1)
    size = (4 * c + 40, 3 * c + 72 + 40)
    geometry = view.Geometry(size, 4, 3, 20, 68, c)
    surface = pygame.Surface(size, 0, 32)
    view._draw_board(surface, g, geometry)
    ring = view.mark_rect(geometry, 0, 0)
    cross = view.mark_rect(geometry, 2, 1)
    assert ring.size == cross.size == (9, 9)
    assert cross.center == (20 + int(c * 2.5), 68 + int(c * 1.5))
    # the free capital (0,0): a white ring on a black disc, at least as wide as its cell when c < 10
    colours = {rgb(surface, x, y) for x in range(ring.left, ring.right) for y in range(ring.top, ring.bottom)}
    assert view.WHITE in colours and view.INK in colours
    # the cross on (2,1): white through its centre, black edges, drawn over the neighbours
    assert rgb(surface, *cross.center) == view.WHITE
    assert rgb(surface, cross.left, cross.top) == view.WHITE
    assert rgb(surface, cross.left + 1, cross.top) == view.INK
    assert rgb(surface, cross.right - 2, cross.bottom - 1) == view.INK
    assert cross.width >= c


def test_from_10_px_marks_stay_inside_their_cell_and_small_cells_have_no_grid():
    g = game()
    g.toggle_cross(1, 0)
    geometry = view.Geometry((40, 30 + 72), 4, 3, 0, 48, 10)
    assert view.mark_rect(geometry, 1, 0) == pygame.Rect(10, 48, 9, 9)               # the whole cell
    geometry = view.Geometry((52, 39 + 72), 4, 3, 0, 48, 13)
    assert view.mark_rect(geometry, 1, 0) == pygame.Rect(13 + 2, 48 + 2, 9, 9)       # its inner area
    size = (20, 15 + 72)    # c = min(20 // 4, 15 // 3) = 5
    surface = view.render(g, size)
    x0, y0, c = view.layout(*size, 4, 3)
    assert c == 5
    assert rgb(surface, x0 + 2 * c + c - 1, y0 + c + 2) == view.dark(2)   # no grid line at c < 8


def test_toolbar_boxes_start_possible_with_attack_selected():
    g = game()
    surface = view.render(g, (480, 200), (1,))
    for index in range(3):
        box = view.box_rect(index, (480, 200))
        assert rgb(surface, box.left + 8, 8) == view.BOX       # normal video
    attack, defend = view.box_rect(0, (480, 200)), view.box_rect(1, (480, 200))
    assert rgb(surface, attack.left + 4, 24) == view.INK       # bold border of the selected action
    assert rgb(surface, defend.left + 4, 24) == view.BOX       # thin border elsewhere
    indicator = view.box_rect(3, (480, 200))
    assert rgb(surface, indicator.left + 6, 6) == view.bright(1)


def test_defend_and_guerilla_are_inverted_after_an_attack():
    g = game(T1, 5)          # draw 5 with no cross: a failed attack
    g.perform()
    assert g.attacks_left == 5
    surface = view.render(g, (480, 200), (1,))
    colours = [rgb(surface, view.box_rect(index, (480, 200)).left + 8, 8) for index in range(3)]
    assert colours == [view.BOX, view.INK, view.INK]


def test_selected_box_follows_the_action_and_indicator_the_player():
    g = game()
    g.select(Action.GUERILLA)
    g.pass_turn()            # player 2's turn: Attack is selected again
    g.cycle_action()
    surface = view.render(g, (480, 200), (2,))
    assert g.selected is Action.DEFEND
    assert rgb(surface, view.box_rect(1, (480, 200)).left + 4, 24) == view.INK
    assert rgb(surface, view.box_rect(0, (480, 200)).left + 4, 24) == view.BOX
    assert rgb(surface, view.box_rect(3, (480, 200)).left + 6, 6) == view.bright(2)


def test_legend_names_the_turn_and_the_winner():
    g2 = Composer(Game(board(["aaAbbb", "aaAbbb", "aaAbbb"], {1: (0, 0), 2: (3, 1)}), Draws(0)))
    assert view.turn_text(g2, (1,)) == "Your move, player 1"
    assert view.turn_text(g2, (2,)) == "waiting for P1"
    assert view.turn_text(g2, (2,), computer={1}) == "P1 (computer) is thinking"
    assert view.turn_text(g2, ()) == "Player 1 to move"
    g2.toggle_cross(3, 1)
    g2.perform()             # T13: capital captured, player 1 wins
    assert g2.winner == 1
    assert view.turn_text(g2, (2,)) == "Player 1 wins"
    surface = view.render(g2, (480, 200), (2,))
    band = view.legend_rect((480, 200))
    assert rgb(surface, band.left + 8, band.centery) == view.bright(1)
    # game over: no action is possible any more, all three boxes inverted
    assert [rgb(surface, view.box_rect(i, (480, 200)).left + 8, 8) for i in range(3)] == [view.INK] * 3


def test_a_legend_redrawn_for_another_viewer_equals_a_full_render_for_it():
    g = game()
    g.toggle_cross(0, 0)
    size = (480, 200)
    mine = view.render(g, size, (1,), "P2's turn ended")
    shared = view.render(g, size, None, "P2's turn ended")
    assert view.dirty_rects(shared, mine) == [view.legend_rect(size)]
    view.draw_legend(shared, g, (1,), "P2's turn ended")
    assert view.dirty_rects(shared, mine) == []



def test_only_the_window_of_the_player_in_turn_names_the_pass_key():
    g = game(T1, 5)
    g.toggle_cross(0, 0)
    g.perform()                                                   # a failed attack: 5 left, p would pass
    size = (960, 200)
    mine = view.render(g, size, (1,))
    theirs = view.render(g, size, (2,))
    watcher = view.render(g, size, None)
    ends = "Turn 1 · 5 attacks left, then the turn ends"
    assert view.info_text(g, 2000).startswith(f"{ends} (p ends it now) · ")
    assert view.info_text(g, 2000, can_pass=False).startswith(f"{ends} · ")
    assert view.dirty_rects(watcher, theirs) == [view.legend_rect(size)]
    toolbar = pygame.Rect(0, 0, size[0], view.TOOLBAR_HEIGHT)     # the information line's band included
    assert view.info_rect(size).colliderect(toolbar)
    assert view.dirty_rects(watcher, mine) == [toolbar, view.legend_rect(size)]
    # the windows' loop draws the shared board once (no pass key), then each window's own legend and line
    view.draw_legend(watcher, g, (1,))
    view.draw_info(watcher, g, size, True)
    assert view.dirty_rects(watcher, mine) == []

def test_dirty_rects_cover_exactly_what_changed():
    g = game()
    size = (480, 200)
    geometry = view.Viewport().geometry(size, 4, 3)
    x0, y0, c = geometry.x0, geometry.y0, geometry.c
    first = view.render(g, size, (1,))
    assert view.dirty_rects(None, first, geometry) is None
    assert view.dirty_rects(first, view.render(g, size, (1,)), geometry) == []
    g.toggle_cross(2, 1)
    second = view.render(g, size, (1,))
    rects = view.dirty_rects(first, second, geometry)
    assert pygame.Rect(0, 0, 480, 48) in rects                      # crosses-left indicator
    assert pygame.Rect(x0 + 2 * c, y0 + c, c, c) in rects           # the crossed cell
    assert len(rects) == 2
    assert view.dirty_rects(first, view.render(g, (500, 200), (1,)), geometry) is None


def test_render_is_the_window_size_and_handles_tiny_windows():
    g = game()
    assert view.render(g, (643, 331)).get_size() == (643, 331)
    assert view.render(g, (10, 10)).get_size() == (10, 10)


def test_sea_has_waves_and_no_grid_lines_and_land_keeps_them():
    rows, capitals = MIXED
    g = Composer(Game(board(rows, capitals), Draws()))
    for size in [(480, 200), (1000, 600), (60, 88)]:
        surface = view.render(g, size, (1,))
        x0, y0, c = view.layout(*size, 7, 4)
        sea = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "."]
        if c < view.MARK_MIN:   # marks cover the neighbours of capitals below c = 7
            sea = [(x, y) for x, y in sea
                   if not any(abs(x - cx) <= 1 and abs(y - cy) <= 1 for cx, cy in capitals.values())]
        for x, y in sea:
            pixels = {rgb(surface, x0 + c * x + dx, y0 + c * y + dy) for dx in range(c) for dy in range(c)}
            assert pixels == {view.SEA, view.WAVE}, (x, y, c)
            assert rgb(surface, x0 + c * x + c - 1, y0 + c * y + c // 2) == view.SEA   # no grid line
            assert rgb(surface, x0 + c * x + 1, y0 + c * y + c // 2) == view.SEA       # the probe pixel
        if c >= view.GRID_MIN_CELL:
            assert rgb(surface, x0 + c * 1 + c - 1, y0 + c // 2) == view.GRID        # land cell (1, 0)
    # player 3's free land ((1, 2) is its capital, ringed) shows no wave
    surface = view.render(g, (480, 200), (1,))
    x0, y0, c = view.layout(480, 200, 7, 4)
    pixels = {rgb(surface, x0 + c + dx, y0 + 2 * c + dy) for dx in range(c - 1) for dy in range(c - 1)}
    assert view.dark(3) in pixels and view.WAVE not in pixels and view.SEA not in pixels


@pytest.mark.parametrize("size", [(1000, 300), (300, 200)])
def test_legend_shows_every_players_colour_and_number_and_slashes_the_ones_out(size):
    rows, capitals = MIXED
    g = Composer(Game(board(rows, capitals), Draws()))
    g.defeat([2], cause="quit")
    surface = view.render(g, size, (1,))
    band = view.legend_rect(size)
    strip_left = band.right - 6 - (9 * 19 - 3)
    top = band.centery - 8
    for player in range(1, 10):
        corner = (strip_left + (player - 1) * 19 + 1, top + 1)
        assert rgb(surface, *corner) == (view.dark(2) if player == 2 else view.bright(player)), player
    slash = (strip_left + 19 + 8, top + 7)
    assert rgb(surface, *slash) == view.WHITE


@pytest.mark.parametrize("width", [300, 200, 160])
def test_toolbar_labels_fit_their_boxes(width):
    for variants in (("Attack 5", "Att 5", "A5"), ("Crosses 6", "X 6", "6")):
        text, points = view.fit_text(variants, width // 4 - 10, bold=True)
        assert view._width(text, points, True) <= width // 4 - 10
    assert view.fit_text(("Attack 5", "Att 5", "A5"), 480 // 4 - 10) == ("Attack 5", 24)
    assert view.fit_text(("Crosses 6", "X 6", "6"), 300 // 4 - 10, bold=True)[0] == "Crosses 6"
    assert view.fit_text(("Crosses 6", "X 6", "6"), 200 // 4 - 10, bold=True) == ("Crosses 6", 14)
    assert view.fit_text(("Crosses 6", "X 6", "6"), 160 // 4 - 10, bold=True) == ("X 6", 24)
    assert view.fit_text(("Attack 5", "Att 5", "A5"), 100 // 4 - 10, bold=True) == ("A5", 14)


def test_last_turn_marks_gains_solid_in_the_movers_colour_losses_dashed_in_the_new_owners():
    """T6: player 1 defends (2,3) and encircles (2,2) of player 2 (spec §6 "The last turn")."""
    from motti.announce import Chronicle

    rows = ["aaaabbb", "aAAAbbb", "aABAbbb", "aAaAbbb", "aaaabbb"]
    g = Composer(Game(board(rows, {1: (0, 0), 2: (6, 0)}), Draws()))
    chronicle = Chronicle(1)
    chronicle.record(g.apply(("defend", [(2, 3)])), "defend")
    size = (480, 232)
    x0, y0, cell = view.layout(*size, 7, 5)
    assert cell == 32
    plain = view.render(g, size)
    marked = view.render(g, size, last_turn=chronicle.last_turn)
    changed = view.dirty_rects(plain, marked, view.Viewport().geometry(size, 7, 5))
    assert [(r.left, r.top) for r in changed] == [(x0 + 2 * cell, y0 + 2 * cell),
                                                  (x0 + 2 * cell, y0 + 3 * cell)]
    # (2,3) gained by player 1 (bright red): a solid red frame with a contrasting edge, the middle untouched
    left, top = x0 + 2 * cell, y0 + 3 * cell
    line = cell // 10
    assert rgb(marked, left + 2, top + cell // 2) == view.WHITE   # the contrasting edge on red
    assert rgb(marked, left + 3, top + cell // 2) == view.bright(1)
    assert rgb(marked, left + 3 + line, top + cell // 2) == view.WHITE
    assert rgb(marked, left + cell // 2, top + cell // 2) == view.bright(1)
    # (2,2) lost to player 1 (now dark red): bright red dashes on its edge, gaps between them
    left, top = x0 + 2 * cell, y0 + 2 * cell
    edge = [rgb(marked, x, top + 2) for x in range(left + 2, left + cell - 2)]
    assert view.bright(1) in edge and view.dark(1) in edge
    # the probe pixels keep the pure fill (spec §6)
    assert rgb(marked, left + 1, top + cell // 2) == view.dark(1)
    assert rgb(marked, left + 1, top + cell + cell // 2) == view.bright(1)


def test_marks_at_small_cells_are_nine_pixels_across():
    from motti.announce import LastTurn

    turn = LastTurn(2, "guerilla", {(1, 1): "conquered"}, {(1, 1): 2})
    rect = view.mark_rect(view.Geometry((30, 90), 4, 3, 10, 48, 4), 1, 1)
    assert rect.size == (9, 9) and rect.center == (10 + 4 + 2, 48 + 4 + 2)
    surface = view.render(game(), (16, 12 + view.BANDS), last_turn=turn)
    geometry = view.Viewport().geometry((16, 12 + view.BANDS), 4, 3)
    assert geometry.c == 4
    rect = view.mark_rect(geometry, 1, 1)
    # its bottom edge (its top lies under the capitals' marks, drawn over last-turn marks)
    assert [rgb(surface, x, rect.bottom - 1) for x in range(rect.left, rect.right)] == [view.WHITE] * 9
    assert rgb(surface, rect.left + 1, rect.bottom - 3) == view.bright(2)


def test_a_long_message_is_shortened_at_a_word_bound_on_the_legend():
    whole = "Your move, player 1 · P1 attack 3 of 6 took 5,2 — encircled 4 cells of P2"
    text, points = view.fit_words(whole, 200)
    assert points == 14 and text.endswith("…")
    assert whole.startswith(text[:-1]) and whole[len(text) - 1] == " "   # cut at a word bound


def _random_game(width: int, height: int, seed: int) -> Composer:
    rng = np.random.default_rng(seed)
    land = rng.random((height, width)) < 0.7
    columns = np.broadcast_to(np.arange(width), (height, width))
    owner = np.where(land, 1 + columns * 3 // width, 0).astype(np.int8)    # three bands of land
    occupied = land & (columns % 3 == 0) & (rng.random((height, width)) < 0.8)   # stripes touching the edges
    capitals = {}
    for player, (x, y) in zip((1, 2, 3), [(1, 1), (width - 2, 1), (width // 2, height - 2)], strict=True):
        land[y, x], owner[y, x] = True, player
        capitals[player] = (x, y)
    return Composer(Game(Board(land=land, owner=owner, occupied=occupied, capitals=capitals, players=3),
                         Draws()))


def _colour_of(g: Game, x: int, y: int) -> tuple[int, int, int]:
    b = g.board
    if not b.land[y, x]:
        return view.SEA
    return view.bright(int(b.owner[y, x])) if b.occupied[y, x] else view.dark(int(b.owner[y, x]))


@pytest.mark.parametrize("steps", [-3, -1, 0, 1, 3])
def test_a_zoomed_or_panned_window_draws_the_cells_its_geometry_maps_pixels_to(steps):
    g = _random_game(300, 200, steps + 10)
    size = (500, 400)
    viewport = view.Viewport(focus=(150, 100))
    viewport.zoom(size, 300, 200, steps, (123, 234))
    viewport.pan(size, 300, 200, 1, 1)
    geometry = viewport.geometry(size, 300, 200)
    surface = view.render(g, size, (1,), geometry=geometry)
    marks = [geometry.cell_centre(*cell) for cell in g.board.capitals.values()]
    pixels = pygame.surfarray.pixels3d(surface)
    c = geometry.c
    checked = 0
    for py in range(48, size[1] - 24, 8):
        for px in range(0, size[0], 8):
            cell = geometry.cell_at(px, py)
            if cell is None or any(abs(px - mx) < 12 and abs(py - my) < 12 for mx, my in marks):
                continue
            qx, qy = px, py
            if c >= 8:          # grid lines and waves: the probe pixel is the pure fill
                qx, qy = geometry.x0 + int(c) * cell[0] + 1, geometry.y0 + int(c) * cell[1] + int(c) // 2
                if not (48 <= qy < size[1] - 24 and 0 <= qx < size[0]):
                    continue
            elif c >= 4 and not g.board.land[cell[1], cell[0]]:
                continue        # sea waves
            assert tuple(pixels[qx, qy]) == _colour_of(g, *cell), (qx, qy, cell, c)
            checked += 1
    del pixels
    assert checked > 800
    assert rgb(surface, 5, 10) != view.SEA                           # the toolbar is not drawn over
    assert rgb(surface, 2, size[1] - 2) == view.INK                  # nor the legend band


@pytest.mark.parametrize("c", [10, 11, 12, 13, 20])
def test_from_10_px_marks_are_at_least_9_px_inside_their_cell_and_the_probe_pixel_stays_pure(c):
    from motti.announce import LastTurn

    g = game()
    g.toggle_cross(2, 1)
    turn = LastTurn(1, "attack", {(2, 1): "conquered"}, {(2, 1): 1})
    geometry = view.Geometry((4 * c + 40, 3 * c + 72 + 40), 4, 3, 20, 68, c)
    surface = pygame.Surface(geometry.size, 0, 32)
    surface.fill(view.BACKGROUND)
    view._draw_board(surface, g, geometry, turn)
    rows = T1[0]
    for x, y in [(0, 0), (3, 0), (2, 1)]:           # two capitals, a cross with a last-turn mark
        rect = view.mark_rect(geometry, x, y)
        cell = pygame.Rect(20 + c * x, 68 + c * y, c, c)
        assert rect.width >= 9 and rect.height >= 9 and cell.contains(rect), (x, y, rect)
        fill = expected_colour(rows, x, y)
        drawn = [(px, py) for px in range(cell.left, cell.right) for py in range(cell.top, cell.bottom)
                 if rgb(surface, px, py) not in (fill, view.GRID)]
        assert max(px for px, _ in drawn) - min(px for px, _ in drawn) + 1 >= 9, (x, y)
        assert rgb(surface, cell.left + 1, cell.top + c // 2) == fill            # the probe pixel (spec §6)
    for x, y in [(1, 0), (3, 2)]:                    # unmarked cells are untouched
        assert rgb(surface, 20 + c * x + c // 2, 68 + c * y + c // 2) == expected_colour(rows, x, y)


def test_legend_says_an_ending_once_when_the_announcement_is_the_heading():
    # Two islands (spec §2.9): a draw at once; the heading and the announcement are the same words.
    g = Composer(Game(board(["aa.bb"], {1: (0, 0), 2: (4, 0)}), Draws()))
    assert g.game.is_terminal()
    said = "draw: no player can reach another"
    assert view.legend_text(g, (1,), said) == "Draw: no player can reach another"
    assert view.legend_text(g, (1,), "saved to g.map") == "Draw: no player can reach another · saved to g.map"


def test_legend_keeps_how_the_game_ended_after_a_key_once_it_is_over():
    # Player 1 takes player 2's capital by Guerilla on the first turn; then p is answered "the game is over":
    # the band still says how it ended, turns included, before the answer.
    g = Composer(Game(board(["aAob"], {1: (0, 0), 2: (2, 0)}), Draws()))
    g.game.guerilla((2, 0))
    assert g.game.is_terminal()
    assert view.legend_text(g, (1,), "the game is over") == "Player 1 wins after 1 turn · the game is over"


def test_the_legend_text_is_drawn_whole_in_the_system_face_with_its_kerning():
    """The legend spaced letters unevenly ("compute r", "think ing"): pygame's built-in face placed at 14-18
    points. The band now shows the whole string as common.render draws it (DejaVu Sans where installed)."""
    from common.render import font, render_text, text_runs

    message = "P2 (computer) is thinking; P1 attack 1 of 6 failed"
    surface = view.render(game(), (900, 200), (1,), message)
    band = view.legend_rect(surface.get_size())
    text = view.legend_text(game(), (1,), message)
    text, points = view.fit_words(text, band.width, 18)
    assert points == 18 and text.endswith(message)
    expected = pygame.Surface(surface.get_size())
    expected.fill(view.INK)
    image = render_text(text, points, view.WHITE)
    left = band.left + 6 + 12 + 6
    expected.blit(image, image.get_rect(midleft=(left, band.centery)))
    area = pygame.Rect(left, band.top, view._width(text, points), band.height)
    got = pygame.surfarray.array3d(surface.subsurface(area))
    assert (got == pygame.surfarray.array3d(expected.subsurface(area))).all()
    if text_runs(text, points)[0][0] is not font(points):   # a system face is installed (make sysdeps)
        assert view._width(text, points) != font(points).size(text)[0]


@pytest.mark.parametrize("steps", [0, 1, 2])
def test_a_last_turn_of_many_cells_draws_the_same_pixels_as_marking_every_cell(monkeypatch, steps):
    """A player leaving a large board marks its land for the next turn: only the marks that can reach the
    view are drawn, and the frame is the one every mark drawn gives (cells of 6, 12 and 24 px)."""
    from motti.announce import LastTurn
    from motti.generate import generate
    from motti.viewport import Viewport

    g = Composer(Game(generate(300, 240, 4, random.Random(5)), Draws()))
    owner = g.board.owner
    lost = {(int(x), int(y)): "encircled" for y, x in zip(*np.nonzero(owner == 2), strict=True)}
    gained = {(int(x), int(y)): "conquered" for y, x in zip(*np.nonzero(owner == 1), strict=True)}
    owners = dict.fromkeys(lost, 3) | dict.fromkeys(gained, 1)
    turn = LastTurn(1, "attack", {**lost, **gained}, owners)
    size = (640, 480 + view.BANDS)
    viewport = Viewport(focus=g.board.capitals[2])
    viewport.zoom(size, 300, 240, steps, None)
    geometry = viewport.geometry(size, 300, 240)
    shown = view.render(g, size, last_turn=turn, geometry=geometry)
    monkeypatch.setattr(view, "_near_view", lambda geometry: lambda x, y: True)
    every = view.render(g, size, last_turn=turn, geometry=geometry)
    assert geometry.view_cells() != (0, 0, 300, 240)
    assert pygame.image.tobytes(shown, "RGB") == pygame.image.tobytes(every, "RGB")
    assert view.dirty_rects(view.render(g, size, geometry=geometry), shown, geometry)   # marks are drawn


@pytest.mark.parametrize("c", [1, 3, 4, 6, 7, 8, 13, 24, 30])
def test_whole_cells_are_drawn_as_filling_each_cell_with_its_waves_or_grid_line(c):
    """The cells of a zoomed and panned board, drawn at once from one tile per colour, are the pixels of
    drawing each cell alone: its fill, from 4 px the waves on sea, from 8 px the grid line on land."""
    g = _random_game(90, 70, c)
    size = (437, 311)
    geometry = view.Geometry(size, 90, 70, -3 * c - c // 2, 30 - 5 * c, c)
    surface = pygame.Surface(size, 0, 32)
    surface.fill(view.BACKGROUND)
    view._draw_cells(surface, g, geometry)
    expected = pygame.Surface(size, 0, 32)
    expected.fill(view.BACKGROUND)
    left, top, right, bottom = geometry.area()
    expected.set_clip(pygame.Rect(left, top, right - left, bottom - top))
    x0, y0, x1, y1 = geometry.view_cells()
    for y in range(y0, y1):
        for x in range(x0, x1):
            px, py = geometry.x0 + c * x, geometry.y0 + c * y
            expected.fill(_colour_of(g, x, y), (px, py, c, c))
            land = g.board.land[y, x]
            if land and c >= view.GRID_MIN_CELL:
                expected.fill(view.GRID, (px + c - 1, py, 1, c))
                expected.fill(view.GRID, (px, py + c - 1, c, 1))
            elif not land and c >= 4:
                for dx, dy in zip(*np.nonzero(view._waves(c)), strict=True):
                    if expected.get_clip().collidepoint(px + dx, py + dy):
                        expected.set_at((px + int(dx), py + int(dy)), view.WAVE)
    assert pygame.image.tobytes(surface, "RGB") == pygame.image.tobytes(expected, "RGB")
