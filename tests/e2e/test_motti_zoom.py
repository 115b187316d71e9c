"""motti windows on a 1024x768 Xvfb screen: a board too large to show whole opens zoomed in on the player's
capital; the wheel and +/- zoom about the pointer, arrows pan, Home fits the whole board; clicks reach the
right cell at every zoom; every capital stays visible as a mark at least 7 px across (spec/motti.md §6 "Zoom
and pan", "Marks at small sizes"). Checked through the --status file and GetImage pixels; screenshots are
kept in the test's directory."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from deadline import wait_until
from statusrun import StatusRun
from xvfb import Xvfb, grab, origin, window_of

from motti import view
from motti.viewport import Geometry

MOTTI = [sys.executable, "-m", "motti"]
SCREEN = "1024x768x24"

#: A 1000x1000 board: four players in the quarters, a sea cross between them with land bridges (so that the
#: game can end, spec §2.9), capitals near the corners.
CAPITALS = {1: (100, 100), 2: (900, 120), 3: (130, 880), 4: (870, 900)}


def big_map() -> str:
    size = 1000
    ys, xs = np.mgrid[0:size, 0:size]
    owner = 1 + (xs >= size // 2) + 2 * (ys >= size // 2)
    bridges = (np.abs(xs % (size // 2) - size // 4) < 5) | (np.abs(ys % (size // 2) - size // 4) < 5)
    sea = ((np.abs(xs - size // 2) < 3) | (np.abs(ys - size // 2) < 3)) & ~bridges
    letters = np.array(list(".abcd"))
    grid = letters[np.where(sea, 0, owner)]
    lines = ["motti-map 1", f"size {size} {size}", "players 4"]
    lines += [f"capital {p} {x} {y}" for p, (x, y) in CAPITALS.items()]
    lines.append("grid")
    lines += ["".join(row) for row in grid]
    return "\n".join(lines) + "\n"


@pytest.fixture
def screen():
    server = Xvfb(SCREEN)
    yield server
    server.stop()


def geometry_of(win: dict, width: int, height: int) -> Geometry:
    return Geometry(tuple(win["size"]), width, height, win["x0"], win["y0"], win["c"])


def pointer_to(server: Xvfb, win: dict, px: int, py: int) -> None:
    left, top = origin(server, win["window_id"])
    server.xdotool("mousemove", str(left + px), str(top + py))


def click_pixel(server: Xvfb, win: dict, px: int, py: int, button: int = 1) -> None:
    left, top = origin(server, win["window_id"])
    server.xdotool("mousemove", str(left + px), str(top + py), "click", str(button))


def capital_marks(server: Xvfb, win: dict, capitals: dict[str, list[int]], width: int,
                  height: int) -> dict[int, set[tuple[int, int, int]]]:
    """The colours in the 7x7 px square centred on each capital, read from the screen."""
    left, top = origin(server, win["window_id"])
    geometry = geometry_of(win, width, height)
    pixels = grab(server, left, top, *win["size"])
    marks = {}
    for player, (x, y) in capitals.items():
        rect = view.mark_rect(geometry, x, y)
        block = pixels[rect.top:rect.bottom, rect.left:rect.right].reshape(-1, 3)
        marks[int(player)] = {tuple(int(v) for v in rgb) for rgb in block}
    return marks


def test_a_large_board_opens_on_the_capital_and_zooms_pans_and_fits_with_clicks_on_the_right_cells(
        screen, tmp_path):
    (tmp_path / "big.map").write_text(big_map())
    game = StatusRun(MOTTI, ["big.map", "--seed", "5"], tmp_path, screen.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        win = window_of(status, screen.name)
        # opened at c = 6, the window cut to the screen, centred on player 1's capital (100, 100)
        assert win["size"] == [1024, 768] and win["c"] == 6
        assert (win["x0"], win["y0"]) == (512 - 603, 396 - 603)
        assert win["view_cells"] == [15, 42, 186, 159]
        geometry = geometry_of(win, 1000, 1000)
        assert geometry.cell_at(512, 396) == (100, 100)

        # the wheel zooms in about the pointer: the cell under it stays under it
        px, py = 300, 200
        under = geometry.cell_at(px, py)
        click_pixel(screen, win, px, py, 4)
        status = game.wait(lambda s: s["windows"][0]["c"] == 12, "zoomed in to c = 12")
        win = status["windows"][0]
        assert geometry_of(win, 1000, 1000).cell_at(px, py) == under
        # a click at c = 12 crosses the cell under the pointer
        click_pixel(screen, win, px, py)
        status = game.wait(lambda s: s["crosses"] == [list(under)], "a cross at c = 12")

        # + zooms in again, - twice out, about the pointer too
        pointer_to(screen, win, 700, 500)
        under = geometry_of(win, 1000, 1000).cell_at(700, 500)
        screen.xdotool("key", "plus")
        status = game.wait(lambda s: s["windows"][0]["c"] == 24, "c = 24")
        assert geometry_of(status["windows"][0], 1000, 1000).cell_at(700, 500) == under
        screen.xdotool("key", "minus")
        status = game.wait(lambda s: s["windows"][0]["c"] == 12, "c = 12")
        assert geometry_of(status["windows"][0], 1000, 1000).cell_at(700, 500) == under
        # further out the board's corner would leave the window's corner: the board stays in view instead
        screen.xdotool("key", "minus", "minus")
        status = game.wait(lambda s: s["windows"][0]["c"] == 3, "c = 3")
        win = status["windows"][0]
        assert (win["x0"], win["y0"], win["view_cells"][:2]) == (0, 48, [0, 0])

        # the arrows pan a quarter window; Right then Down
        before = win
        screen.xdotool("key", "Right")
        status = game.wait(lambda s: s["windows"][0]["x0"] == before["x0"] - 256, "panned right")
        screen.xdotool("key", "Down")
        status = game.wait(lambda s: s["windows"][0]["y0"] == before["y0"] - 174, "panned down")
        win = status["windows"][0]
        target = geometry_of(win, 1000, 1000).cell_at(400, 300)
        assert target is not None and target[0] < 500 and target[1] < 500    # still player 1's quarter
        click_pixel(screen, win, 400, 300)
        status = game.wait(lambda s: len(s["crosses"]) == 2, "a cross at c = 3")
        assert status["crosses"][1] == list(target)

        # Home: the whole board, below one pixel a cell
        screen.xdotool("key", "Home")
        status = game.wait(lambda s: s["windows"][0]["view_cells"] == [0, 0, 1000, 1000], "the whole board")
        win = status["windows"][0]
        assert win["c"] == pytest.approx(0.696)
        geometry = geometry_of(win, 1000, 1000)
        target = geometry.cell_at(300, 250)
        assert target is not None and target[0] < 500 and target[1] < 500
        c = win["c"]
        assert target == (math.floor((300.5 - win["x0"]) / c), math.floor((250.5 - win["y0"]) / c))
        click_pixel(screen, win, 300, 250)
        status = game.wait(lambda s: len(s["crosses"]) == 3, "a cross below 1 px a cell")
        assert status["crosses"][2] == list(target)

        # every capital shows as a mark 7 px across: a white ring on a black disc over its neighbours
        marks = capital_marks(screen, win, status["capitals"], 1000, 1000)
        for player, colours in marks.items():
            assert {view.WHITE, view.INK} <= colours, (player, colours)
        screen.screenshot(tmp_path / "big-home.png")

        # a window stretched far beyond the screen still renders frames no larger than the screen
        screen.xdotool("windowsize", str(win["window_id"]), "5000", "5000")
        screen.xdotool("windowsize", str(win["window_id"]), "900", "700")
        status = game.wait(lambda s: s["windows"][0]["size"] == [900, 700], "900x700")
        screen.xdotool("windowsize", str(win["window_id"]), "5000", "5000")
        status = game.wait(lambda s: s["windows"][0]["size"] == [1024, 768], "the frame cut to the screen")
        assert game.proc.poll() is None
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert "Traceback" not in err


def test_continent_at_1024x768_is_shown_whole_with_every_capital_marked(screen, tmp_path):
    game = StatusRun(MOTTI, ["continent", "--seed", "2"], tmp_path, screen.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        win = window_of(status, screen.name)
        assert (win["size"], win["c"], win["x0"], win["y0"]) == ([1024, 768], 4, 32, 48)
        assert win["view_cells"] == [0, 0, 240, 160]
        seen: list[dict[int, set[tuple[int, int, int]]]] = []

        def every_capital_marked() -> bool:
            # the window may be mapped before its first frame is whole: read the screen until it is
            seen[:] = [capital_marks(screen, win, status["capitals"], 240, 160)]
            return sorted(seen[0]) == list(range(1, 9)) and all(
                {view.WHITE, view.INK} <= colours for colours in seen[0].values())

        try:
            wait_until(every_capital_marked, "every capital marked in white and ink", seconds=10)
        except AssertionError as error:
            raise AssertionError(f"{error}; the marks' colours: {seen[0]}") from None
        # a click maps to its cell at c = 4: player 1 crosses its capital's right neighbour
        x, y = status["capitals"]["1"]
        click_pixel(screen, win, 32 + 4 * (x + 3) + 2, 48 + 4 * y + 2)
        status = game.wait(lambda s: s["crosses"] == [[x + 3, y]], "a cross at c = 4")
        screen.screenshot(tmp_path / "continent.png")
        # the whole board is as far as zooming out goes: - and the wheel change nothing, + then doubles c
        pointer_to(screen, win, 500, 400)
        screen.xdotool("key", "minus")
        click_pixel(screen, win, 500, 400, 5)
        screen.xdotool("key", "plus")
        status = game.wait(lambda s: s["windows"][0]["c"] != 4, "the cell size changed")
        assert status["windows"][0]["c"] == 8
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert "Traceback" not in err


@pytest.mark.parametrize(("width", "height"), [(1000, 1000), (1000, 7)])
def test_home_on_a_small_screen_shows_every_cell_of_a_generated_board(tmp_path, width, height):
    # A 480x360 screen: Home fits 1000 cells into fewer than 480 pixels (c < 0.5), and the status says the
    # window shows the whole board, [0, 0, W, H] (spec §6; it used to lose the first and last row).
    with Xvfb("480x360x24") as small:
        game = StatusRun(MOTTI, ["generate", "-w", str(width), "-h", str(height), "-p", "9", "-d", "3",
                                 "--seed", "2"], tmp_path, small.env())
        game.deadline_s = 90.0     # generating a 1000x1000 map on a busy machine
        try:
            win = game.wait(lambda s: len(s["windows"]) == 1, "the window")["windows"][0]
            pointer_to(small, win, 200, 150)
            small.xdotool("key", "Home")
            status = game.wait(lambda s: s["windows"][0]["view_cells"] == [0, 0, width, height],
                               "the whole board after Home")
            win = status["windows"][0]
            assert win["c"] == pytest.approx(min(win["size"][0] / width, (win["size"][1] - 72) / height))
            assert win["c"] < 0.5
            geometry = geometry_of(win, width, height)
            first = geometry.cell_at(win["x0"], win["y0"])
            assert first is not None and first[0] <= 2 and first[1] <= 2
        finally:
            game.stop()
