"""motti/viewport.py: zoom and pan of spec/motti.md §6 — the opening view, Home, wheel/+/- about the pointer,
arrows, view_cells, and pixel -> cell at every zoom."""

from __future__ import annotations

import math

import pytest

from motti.viewport import MAX_CELL, Geometry, Viewport, fit_cell


def test_a_board_that_fits_at_4_opens_whole_with_the_spec_layout():
    # continent (200x150) in a 1000x768 window cut to a 1024x768 screen: c = floor(min(5, 4.64)) = 4
    g = Viewport(focus=(10, 10)).geometry((1000, 768), 200, 150)
    assert (g.x0, g.y0, g.c) == (100, 48, 4)
    assert g.view_cells() == (0, 0, 200, 150)
    # the classic 20x15 at the default size: c = 32
    assert Viewport().geometry((640, 552), 20, 15) == Geometry((640, 552), 20, 15, 0, 48, 32)


def test_a_larger_board_opens_at_6_centred_on_the_first_players_capital():
    g = Viewport(focus=(500, 400)).geometry((1024, 768), 1000, 1000)
    assert g.c == 6
    assert g.cell_centre(500, 400) == (512, 396)      # the capital's centre is the area's centre
    assert g.cell_at(512, 396) == (500, 400)
    assert (g.x0, g.y0) == (512 - 3003, 396 - 2403)
    assert g.view_cells() == (415, 342, 586, 459)     # the cells under pixels 0..1023 and 48..743
    # an observer's window centres the board's centre
    assert Viewport().geometry((1024, 768), 1000, 1000).cell_at(512, 396) == (500, 500)


def test_a_capital_near_the_edge_is_shown_without_a_gap_beyond_the_board():
    g = Viewport(focus=(2, 997)).geometry((1024, 768), 1000, 1000)
    assert (g.x0, g.c) == (0, 6)
    assert g.y0 + 6 * 1000 == 768 - 24                # the board's last row ends at the legend band
    assert g.cell_at(0, 48 + 695) == (0, 999)
    assert g.view_cells() == (0, 884, 171, 1000)


def test_home_fits_the_whole_board_below_one_pixel_a_cell():
    vp = Viewport(focus=(500, 400))
    vp.home()
    g = vp.geometry((1024, 768), 1000, 1000)
    assert g.c == pytest.approx(0.696)
    assert g.view_cells() == (0, 0, 1000, 1000)
    assert (g.x0, g.y0) == (math.floor((1024 - 696) / 2), 48)
    # each pixel shows the cell under its centre: pixel column x0 + k shows cell floor((k + 0.5) / 0.696)
    assert g.cell_at(g.x0, 48) == (0, 0)
    assert g.cell_at(g.x0 + 695, 48 + 695) == (999, 999)
    assert g.cell_at(g.x0 + 1, 48) == (2, 0)           # (1.5 / 0.696) = 2.16
    assert g.cell_at(g.x0 - 1, 48) is None and g.cell_at(g.x0 + 696, 48) is None
    assert fit_cell((1024, 768), 1000, 1000) == pytest.approx(0.696)
    assert fit_cell((1024, 768), 20, 15) == 46


@pytest.mark.parametrize("dims", [(1000, 1000), (1000, 7), (7, 1000), (2000, 2000), (1, 2000)])
@pytest.mark.parametrize("size", [(1024, 768), (640, 552), (300, 200), (1920, 1080)])
def test_home_shows_every_cell_of_any_board_in_any_window(dims, size):
    # §6: after Home the status says the window shows the whole board, also when a pixel covers several cells
    vp = Viewport(focus=(3, 3))
    vp.zoom(size, *dims, 2, (100, 100))
    vp.home()
    g = vp.geometry(size, *dims)
    assert g.view_cells() == (0, 0, *dims)
    assert g.as_status()["view_cells"] == [0, 0, *dims]
    left, top, right, bottom = g.area()
    assert left <= g.x0 and g.x0 + g.c * dims[0] <= right and top <= g.y0 and g.y0 + g.c * dims[1] <= bottom


def test_every_cell_is_hit_by_a_pixel_and_every_pixel_of_the_board_hits_its_cell():
    # c >= 1: cell (x, y) covers [x0 + c x, x0 + c (x+1)); c < 1: the pixel centres decide
    cases = [((700, 500), (37, 25), 0), ((700, 500), (37, 25), 3), ((1024, 768), (1000, 1000), 0),
             ((1024, 768), (1000, 1000), -4)]
    for size, dims, steps in cases:
        vp = Viewport()
        vp.zoom(size, *dims, steps, (300, 200))
        g = vp.geometry(size, *dims)
        x0c, y0c, x1c, y1c = g.view_cells()
        row = [g.cell_at(px, 300) for px in range(size[0])]
        column = [g.cell_at(512, py) for py in range(48, size[1] - 24)]
        xs, ys = {cell[0] for cell in row if cell}, {cell[1] for cell in column if cell}
        if g.c >= 1:
            assert (xs, ys) == (set(range(x0c, x1c)), set(range(y0c, y1c))), (size, dims, steps)
        else:       # below 1 px a cell some cells fall between pixel centres; view_cells spans those covered
            assert x0c <= min(xs) < x0c + 1 / g.c and x1c - 1 / g.c <= max(xs) + 1 <= x1c, (size, dims, steps)
            assert y0c <= min(ys) < y0c + 1 / g.c and y1c - 1 / g.c <= max(ys) + 1 <= y1c, (size, dims, steps)
        for px, cell in enumerate(row):
            if cell is not None and g.c >= 1:
                assert g.x0 + g.c * cell[0] <= px < g.x0 + g.c * (cell[0] + 1)
            elif cell is not None:
                assert math.floor((px + 0.5 - g.x0) / g.c) == cell[0]


def test_zooming_keeps_the_cell_under_the_pointer_and_doubles_or_halves_c():
    vp = Viewport()
    size, dims = (700, 500), (37, 25)
    assert vp.geometry(size, *dims).c == 17         # floor(min(700/37, 428/25))
    pointer = (250, 160)
    under = vp.geometry(size, *dims).cell_at(*pointer)
    assert vp.zoom(size, *dims, 1, pointer)
    g = vp.geometry(size, *dims)
    assert g.c == 34 and g.cell_at(*pointer) == under
    assert vp.zoom(size, *dims, 1, pointer)
    assert vp.geometry(size, *dims).c == 68 and vp.geometry(size, *dims).cell_at(*pointer) == under
    assert vp.zoom(size, *dims, -1, pointer)
    assert vp.geometry(size, *dims).c == 34 and vp.geometry(size, *dims).cell_at(*pointer) == under
    assert vp.zoom(size, *dims, -1, pointer)
    assert vp.geometry(size, *dims) == Geometry(size, *dims, 35, 48, 17)     # the whole board, as it opened
    for _ in range(12):
        vp.zoom(size, *dims, 1, pointer)
    assert vp.geometry(size, *dims).c == MAX_CELL


@pytest.mark.parametrize(("size", "dims", "whole"), [((640, 552), (20, 15), 32), ((700, 500), (37, 25), 17),
                                                     ((1024, 768), (200, 150), 4)])
def test_zooming_out_stops_at_the_whole_board(size, dims, whole):
    # §6: wheel down and - zoom out "down to the whole board"; they used to halve on to 1 px a cell
    vp = Viewport()
    vp.home()
    fitted = vp.geometry(size, *dims)
    assert fitted.c == whole and fitted.view_cells() == (0, 0, *dims)
    for pointer in ((300, 200), None):
        assert not vp.zoom(size, *dims, -1, pointer)
        assert not vp.zoom(size, *dims, -3, pointer)
        assert vp.geometry(size, *dims) == fitted
    assert vp.zoom(size, *dims, 3, (300, 200))
    assert vp.zoom(size, *dims, -5, (300, 200))
    assert vp.geometry(size, *dims) == fitted
    # zoomed out to the whole board, the view follows the window's size as after Home (it kept the cells)
    assert vp.zoom(size, *dims, 1, None)
    assert vp.zoom(size, *dims, -1, None)
    larger = (size[0] * 2, size[1] * 2)
    assert vp.geometry(larger, *dims) == Viewport(mode="fit").geometry(larger, *dims)
    assert vp.geometry(larger, *dims).c == fit_cell(larger, *dims) > whole
    # a zoomed view whose window has grown since is smaller than the whole board now: zooming out keeps it
    vp.home()
    assert vp.zoom(size, *dims, 1, None)
    kept = vp.geometry(larger, *dims)
    assert kept.c == 2 * whole <= fit_cell(larger, *dims)
    assert not vp.zoom(larger, *dims, -1, None)
    assert vp.geometry(larger, *dims) == kept


@pytest.mark.parametrize(("size", "dims", "whole"), [((640, 552), (2, 1), 320), ((640, 552), (5, 3), 128),
                                                     ((640, 552), (4, 3), 160)])
def test_zooming_in_never_makes_cells_smaller(size, dims, whole):
    # a tiny board's whole fit is past MAX_CELL already: + and the wheel up used to cap c at 128, zooming out
    vp = Viewport()
    fitted = vp.geometry(size, *dims)
    assert fitted.c == whole >= MAX_CELL and fitted.view_cells() == (0, 0, *dims)
    for pointer in ((300, 100), None):
        assert not vp.zoom(size, *dims, 1, pointer)
        assert not vp.zoom(size, *dims, 3, pointer)
        assert vp.geometry(size, *dims) == fitted
        assert not vp.zoom(size, *dims, -1, pointer)       # - stops at the whole board: it never grows cells
        assert vp.geometry(size, *dims) == fitted
    vp.home()
    assert not vp.zoom(size, *dims, 1, (300, 100))
    assert vp.geometry(size, *dims) == fitted
    # a view zoomed in to MAX_CELL in a small window keeps its cells when + comes in a grown window
    small = (200, 200)
    assert vp.zoom(small, *dims, 5, None)
    assert vp.geometry(small, *dims).c == MAX_CELL
    assert not vp.zoom(size, *dims, 1, None)
    assert vp.geometry(size, *dims).c == MAX_CELL


def test_zooming_never_goes_the_wrong_way():
    # mirror case: a board whose whole fit is below 1 px a cell (0.0512); - never grows cells, + never shrinks
    size, dims = (1024, 768), (20000, 10000)
    vp = Viewport()
    vp.home()
    fitted = vp.geometry(size, *dims)
    assert fitted.c == pytest.approx(0.0512)
    assert not vp.zoom(size, *dims, -1, None)
    assert vp.geometry(size, *dims) == fitted
    sizes = [fitted.c]
    for steps in (1, 1, 1, 1, 1, 3, 4, 1, 1, -1, -2, -6, -1):
        before = vp.geometry(size, *dims).c
        vp.zoom(size, *dims, steps, (500, 300))
        after = vp.geometry(size, *dims).c
        assert after >= before if steps > 0 else after <= before
        sizes.append(after)
    assert sizes == pytest.approx([0.0512, 0.1024, 0.2048, 0.4096, 0.8192, 1, 8, MAX_CELL, MAX_CELL, MAX_CELL,
                                   64, 16, 0.25, 0.125])


def test_zooming_out_below_one_pixel_stops_at_the_whole_board():
    vp = Viewport(focus=(500, 500))
    size, dims = (1024, 768), (1000, 1000)
    for expected in (3, 1, 0.696):
        assert vp.zoom(size, *dims, -1, (100, 100))
        assert vp.geometry(size, *dims).c == pytest.approx(expected)
    assert vp.geometry(size, *dims).view_cells() == (0, 0, 1000, 1000)
    assert not vp.zoom(size, *dims, -1, (100, 100))
    assert vp.zoom(size, *dims, 1, (100, 100))
    assert vp.geometry(size, *dims).c == 1


def test_arrows_pan_a_quarter_window_and_stop_at_the_board_edge():
    size, dims = (1024, 768), (1000, 1000)
    vp = Viewport(focus=(500, 500))
    before = vp.geometry(size, *dims)
    assert vp.pan(size, *dims, 1, 0)
    after = vp.geometry(size, *dims)
    assert (after.x0, after.y0) == (before.x0 - 256, before.y0)
    assert vp.pan(size, *dims, 0, -1)
    assert vp.geometry(size, *dims).y0 == before.y0 + 174
    for _ in range(50):
        vp.pan(size, *dims, -1, -1)
    g = vp.geometry(size, *dims)
    assert (g.x0, g.y0) == (0, 48) and g.view_cells()[:2] == (0, 0)
    assert not vp.pan(size, *dims, -1, 0)
    # a board that fits does not move
    small = Viewport()
    assert not small.pan((700, 500), 37, 25, 1, 1)
    assert small.mode == "auto"


def test_a_zoomed_view_keeps_its_centre_through_a_resize_and_home_refits():
    vp = Viewport()
    dims = (37, 25)
    vp.zoom((700, 500), *dims, 2, (350, 262))
    centre = vp.geometry((700, 500), *dims).cell_at(350, 262)
    g = vp.geometry((900, 700), *dims)
    assert g.c == 68 and g.cell_at(450, 48 + (700 - 72) // 2) == centre
    vp.home()
    g = vp.geometry((900, 700), *dims)
    assert g.c == 24 and g.view_cells() == (0, 0, 37, 25)


def test_status_fields():
    g = Viewport(focus=(500, 400)).geometry((1024, 768), 1000, 1000)
    assert g.as_status() == {"x0": g.x0, "y0": g.y0, "c": 6, "view_cells": [415, 342, 586, 459]}


def test_a_window_without_a_board_area_shows_no_cells():
    g = Viewport().geometry((100, 60), 20, 15)
    assert g.view_cells() == (0, 0, 0, 0) and g.cell_at(50, 50) is None
