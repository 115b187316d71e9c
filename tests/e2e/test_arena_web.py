"""The arena spectator in a real headless Chromium (spec/arena.md §4): a replay's page from a file:// URL with
the network off, and the same page live."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from browser import canvas_box, chromium, poll, screenshot, wait_round
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arena import replay
from arena.look import TEAM_RGB
from arena.rules import format_hundredths, format_points
from arena.view import layout

PAGE_SIZE = (1280, 900)


def arena_cmd(*args: str) -> list[str]:
    return [sys.executable, "-u", "-m", "arena", *args]


def expected_bots(rep: replay.Replay, number: int) -> list[dict]:
    """What data-bots must say at round *number*: per player its wire id, team and cell."""
    state = dict(rep.states())[number]
    return [{"id": rep.header["ids"][p["id"]], "team": p["team"], "cell": [p["x"], p["y"]]}
            for p in state["players"]]


@pytest.fixture(scope="module")
def office_page(tmp_path_factory) -> tuple[Path, replay.Replay]:
    """A real game of 6 example bots on office, its replay written as a page by ``arena replay --html``."""
    folder = tmp_path_factory.mktemp("web")
    game = folder / "game.jsonl"
    played = subprocess.run(arena_cmd("play", "office", "--bots", "6", "--no-window", "--round-ms", "0",
                                      "--prep-ms", "0", "--seed", "5", "--replay", str(game), "-q"),
                            capture_output=True, text=True, timeout=120,
                            env={"XDG_STATE_HOME": str(folder), "PATH": "/usr/bin:/bin"})
    assert played.returncode == 0, played.stderr
    out = folder / "game.html"
    made = subprocess.run(arena_cmd("replay", str(game), "--html", str(out)), capture_output=True, text=True,
                          timeout=60)
    rep = replay.load(game)
    assert made.returncode == 0 and made.stdout == f"page: {out} ({len(rep.rounds)} rounds)\n", made.stderr
    return out, rep


@pytest.fixture
def browser():
    driver = chromium(offline=True, size=PAGE_SIZE)
    yield driver
    driver.quit()


def centre_pixels(driver, rep: replay.Replay, bots: list[dict]) -> list[tuple[int, int, int]]:
    """The screenshot's colour at the centre of each bot's cell, placed by arena/view.py's layout."""
    left, top, width, height = canvas_box(driver)
    lay = layout((width, height), len(rep.header["walls"][0]), len(rep.header["walls"]))
    shot = screenshot(driver)
    out = []
    for bot in bots:
        x, y = lay.cell_centre(*bot["cell"])
        out.append(tuple(shot.get_at((left + x, top + y)))[:3])
    return out


def test_seeking_shows_every_bot_at_its_cell_of_that_round(office_page, browser):
    page, rep = office_page
    browser.get(page.as_uri() + "#0")
    wait_round(browser, 0)
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.execute_script("return performance.getEntriesByName('arena-first-frame').length") == 1
    target = len(rep.rounds) // 2
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("g")
    box = browser.find_element(By.ID, "round")
    box.send_keys(str(target), Keys.ENTER)
    bots = wait_round(browser, target)
    assert bots == expected_bots(rep, target)
    assert centre_pixels(browser, rep, bots) == [TEAM_RGB[b["team"]] for b in bots]
    assert {b["team"] for b in bots} == {"BLUE", "RED"}  # a round where both colours are to be seen
    body.send_keys(Keys.ARROW_RIGHT)
    bots = wait_round(browser, target + 1)
    assert bots == expected_bots(rep, target + 1)
    body.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert wait_round(browser, target - 1) == expected_bots(rep, target - 1)
    body.send_keys(Keys.END)
    assert wait_round(browser, len(rep.rounds)) == expected_bots(rep, len(rep.rounds))


def test_play_reaches_the_last_round(office_page, browser):
    page, rep = office_page
    browser.get(page.as_uri() + "#0")
    wait_round(browser, 0)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("+" * 6, " ")  # the fastest speed, then play
    assert browser.find_element(By.ID, "speed").get_attribute("value") == "20"
    bots = wait_round(browser, len(rep.rounds))
    assert bots == expected_bots(rep, len(rep.rounds))
    assert browser.find_element(By.ID, "play").text == "play"  # it stopped at the end
    final = {row["id"]: row for row in rep.final["table"]}
    assert {b["id"] for b in bots} == set(final)


def test_the_round_and_the_bots_stats_are_under_the_pointer(office_page, browser):
    page, rep = office_page
    number = 10
    browser.get(page.as_uri() + f"#{number}")
    bots = wait_round(browser, number)
    _, _, width, height = canvas_box(browser)
    lay = layout((width, height), len(rep.header["walls"][0]), len(rep.header["walls"]))
    bot = bots[2]
    x, y = lay.cell_centre(*bot["cell"])
    canvas = browser.find_element(By.ID, "view")
    ActionChains(browser).move_to_element_with_offset(canvas, x - width // 2, y - height // 2).perform()
    tip = poll(lambda: browser.find_element(By.ID, "tip").text, "the pointer's tip")
    state = dict(rep.states())[number]["players"][2]
    lines = tip.splitlines()
    assert lines[0].startswith(f"round {number}  cell ({bot['cell'][0]}, {bot['cell'][1]})  toxicity 0.")
    assert lines[1].split() == ["#", "id", "points", "energy", "sw", "catch", "team", "facing"]
    row = lines[2].split()
    assert row[:4] == [str(bot["id"]), format_points(Fraction(state["points"])),
                       format_hundredths(state["energy"]), "-" if state["switch_round"] is None
                       else str(state["switch_round"])]
    assert row[-3:] == [str(state["catches"]), bot["team"], state["facing"]]


def test_the_page_is_one_file_that_needs_nothing_else(office_page):
    page, rep = office_page
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "src=" not in text and "href=" not in text
    assert text.count("\n") > len(rep.rounds)  # one line per round inside
