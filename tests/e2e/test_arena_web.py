"""The arena spectator in a real headless Chromium (spec/arena.md §4): a replay's page from a file:// URL with
the network off, and the same page live."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from browser import canvas_box, chromium, poll, screenshot, shown, wait_round
from deadline import deadline
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arena import ratings, replay
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
                            capture_output=True, text=True, timeout=deadline(40),
                            env={"XDG_STATE_HOME": str(folder), "PATH": "/usr/bin:/bin"})
    assert played.returncode == 0, played.stderr
    out = folder / "game.html"
    made = subprocess.run(arena_cmd("replay", str(game), "--html", str(out)), capture_output=True, text=True,
                          timeout=deadline(20))
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


def test_a_cut_off_replay_says_so_at_its_last_round(office_page, browser, tmp_path):
    # A replay whose file ends before its final line (a game stopped, a file cut short): its last round says
    # "cut off" in the title band, where a whole game's says "game over".
    page, rep = office_page
    cut = tmp_path / "cut.jsonl"
    lines = page.with_name("game.jsonl").read_text().splitlines()
    cut.write_text("\n".join(lines[:11]) + "\n")
    out = tmp_path / "cut.html"
    made = subprocess.run(arena_cmd("replay", str(cut), "--html", str(out)), capture_output=True, text=True,
                          timeout=deadline(20))
    assert made.returncode == 0 and made.stdout == f"page: {out} (10 rounds, cut off: no final table)\n"
    browser.get(out.as_uri() + "#10")
    wait_round(browser, 10)
    assert "   cut off: no final table" in browser.execute_script("return document.body.dataset.head")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait_round(browser, 9)
    assert "cut off" not in browser.execute_script("return document.body.dataset.head")
    browser.get(page.as_uri() + f"#{len(rep.rounds)}")
    wait_round(browser, len(rep.rounds))
    head = browser.execute_script("return document.body.dataset.head")
    assert "   game over" in head and "cut off" not in head


def _rounds_written(path: Path) -> int:
    try:
        return path.read_bytes().count(b'"type":"round"')
    except FileNotFoundError:
        return 0


def test_a_game_stopped_by_a_signal_says_so_in_print_and_at_the_last_round_of_its_page(browser, tmp_path):
    # The replay of a game stopped by Ctrl-C printed "game over after 24 rounds" and its page's title band
    # said "game over" at the last round, though the game had been stopped (and said so at the time)
    game = tmp_path / "game.jsonl"
    process = subprocess.Popen(arena_cmd("play", "office", "--bots", "4", "--no-window", "--round-ms", "200",
                                         "--prep-ms", "0", "--seed", "3", "--replay", str(game), "-q"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={"XDG_STATE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    try:
        poll(lambda: _rounds_written(game) >= 5, "round 5 written")
        process.send_signal(signal.SIGINT)
        played, stderr = process.communicate(timeout=deadline(20))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    rep = replay.load(game)
    last = len(rep.rounds)
    assert rep.final["stopped"] == "interrupted" and rep.final["rounds"] == last >= 5
    table = played.splitlines()[:6]
    assert table[0] == f"game stopped after {last} rounds (interrupted)"
    printed = subprocess.run(arena_cmd("replay", str(game)), capture_output=True, text=True,
                             timeout=deadline(20), env={"PATH": "/usr/bin:/bin"})
    assert printed.returncode == 0 and printed.stdout.splitlines()[-6:] == table, printed.stderr
    out = tmp_path / "game.html"
    made = subprocess.run(arena_cmd("replay", str(game), "--html", str(out)), capture_output=True, text=True,
                          timeout=deadline(20))
    assert made.returncode == 0 and made.stdout == f"page: {out} ({table[0]})\n", made.stderr
    browser.get(out.as_uri() + "#0")
    wait_round(browser, 0)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    bots = wait_round(browser, last)
    reds = sum(b["team"] == "RED" for b in bots)
    assert browser.execute_script("return document.body.dataset.head") == (
        f"office (replay)  round {last}/{rep.header['max_rounds']}   blue {len(bots) - reds}  red {reds}   "
        f"game stopped after {last} rounds (interrupted)   paused")
    body.send_keys(Keys.ARROW_LEFT)
    wait_round(browser, last - 1)
    assert "stopped" not in browser.execute_script("return document.body.dataset.head")



@pytest.mark.parametrize(("rounds", "said"), [
    (0, "game stopped before round 1 (interrupted)"),
    (1, "game stopped after 1 round (interrupted)"),
    (4, "game stopped after 4 rounds (interrupted)")])
def test_the_page_words_a_stopped_game_by_the_rounds_it_played(office_page, browser, tmp_path, rounds, said):
    # A game stopped before round 1 said "game stopped after 0 rounds (interrupted)" in its page's title
    # band, one stopped after round 1 "after 1 rounds": the page picks the words as the print does
    page, rep = office_page
    lines = page.with_name("game.jsonl").read_text().splitlines()
    final = json.loads(lines[-1]) | {"rounds": rounds, "stopped": "interrupted"}
    game = tmp_path / "stopped.jsonl"
    game.write_text("\n".join([*lines[:1 + rounds], json.dumps(final)]) + "\n")
    out = tmp_path / "stopped.html"
    made = subprocess.run(arena_cmd("replay", str(game), "--html", str(out)), capture_output=True, text=True,
                          timeout=deadline(20))
    assert (made.returncode, made.stdout) == (0, f"page: {out} ({said})\n"), made.stderr
    browser.get(out.as_uri() + f"#{rounds}")
    bots = wait_round(browser, rounds)
    reds = sum(b["team"] == "RED" for b in bots)
    assert browser.execute_script("return document.body.dataset.head") == (
        f"office (replay)  round {rounds}/{rep.header['max_rounds']}   blue {len(bots) - reds}  red {reds}   "
        f"{said}   paused")

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
    assert "http://" not in text and "https://" not in text and "src=" not in text
    assert re.findall(r'href="([^"]*)"', text) == ["data:,"]  # its icon, empty, so none is asked for
    assert text.count("\n") > len(rep.rounds)  # one line per round inside


def test_a_live_game_is_followed_to_its_end_and_a_late_viewer_sees_the_game_so_far(tmp_path):
    from web_helpers import ServeProcess

    game = tmp_path / "game.jsonl"
    server = ServeProcess("play", "office", "--bots", "4", "--no-window", "--round-ms", "300", "--prep-ms",
                          "1500", "--seed", "6", "--web", "0", "--replay", str(game),
                          env={"XDG_STATE_HOME": str(tmp_path)})
    driver = chromium(size=PAGE_SIZE)
    try:
        url = f"http://127.0.0.1:{server.web_port}/"
        driver.get(url)
        early = driver.current_window_handle
        poll(lambda: (shown(driver)[0] or 0) >= 5, "round 5 live")
        driver.switch_to.new_window("tab")
        driver.get(url)
        late = driver.current_window_handle
        joined = wait_round_at_least(driver, 5)  # the game so far, at once
        assert joined >= 5
        assert server.wait() == 0, server.lines
        rep = replay.load(game)
        last = len(rep.rounds)
        assert joined < last  # it joined a game under way
        for handle in (early, late):
            driver.switch_to.window(handle)
            assert wait_round(driver, last) == expected_bots(rep, last)
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.HOME)  # the late viewer has every round, from the first
        assert wait_round(driver, 0) == expected_bots(rep, 0)
        body.send_keys(Keys.ARROW_RIGHT)
        assert wait_round(driver, 1) == expected_bots(rep, 1)
        assert centre_pixels(driver, rep, expected_bots(rep, 1)) == [
            TEAM_RGB[b["team"]] for b in expected_bots(rep, 1)]
    finally:
        driver.quit()
        server.kill()


def console_errors(driver) -> list[str]:
    """The messages the pages of *driver* have logged to the console since the last call (the favicon's 404
    among them)."""
    return [entry["message"] for entry in driver.get_log("browser")]


def test_the_live_page_says_it_is_connected_while_it_waits_for_the_game(tmp_path):
    # The page said "connecting" for the whole wait before the game, though its WebSocket was open
    from web_helpers import ServeProcess, instant_bots

    game = tmp_path / "game.jsonl"
    server = ServeProcess("serve", "office", "--players", "2", "--port", "0", "--web", "0", "--prep-ms", "0",
                          "--round-ms", "200", "--seed", "6", "--replay", str(game))
    driver = chromium(size=PAGE_SIZE)
    try:
        driver.get(f"http://127.0.0.1:{server.web_port}/")
        status = driver.find_element(By.ID, "status")
        poll(lambda: status.text == "connected, waiting for the game", "the status connected")
        assert driver.execute_script("return document.body.dataset.round") == ""
        instant_bots(server.port, 2, seed=6)
        poll(lambda: (shown(driver)[0] or 0) >= 3, "round 3 live")
        assert status.text == "live"
        server.process.send_signal(signal.SIGTERM)
        assert server.wait() == 143, server.lines
        rep = replay.load(game)
        last = len(rep.rounds)
        assert rep.final["stopped"] == "terminated"
        assert server.out.splitlines()[0] == f"game stopped after {last} rounds (terminated)"
        bots = wait_round(driver, last)
        reds = sum(b["team"] == "RED" for b in bots)
        assert driver.execute_script("return document.body.dataset.head") == (
            f"office  round {last}/{rep.header['max_rounds']}   blue {len(bots) - reds}  red {reds}   "
            f"game stopped after {last} rounds (terminated)")
        poll(lambda: status.text == "", "the status cleared at the end")
        assert console_errors(driver) == []
    finally:
        driver.quit()
        server.kill()


def wait_round_at_least(driver, number: int) -> int:
    return poll(lambda: (shown(driver)[0] or 0) >= number and shown(driver)[0], f"round {number} or later")


def _ended(path: Path) -> bool:
    """Whether the replay being written at *path* holds its final line; a last line still half written
    (the server writes as the game goes) is not an end yet."""
    try:
        return replay.load(path).final is not None
    except replay.ReplayError:
        return False


@contextmanager
def watched_tournament(*args: str) -> Iterator[tuple[subprocess.Popen[str], list[str], Any, str]]:
    """``arena tournament ARGS --web 0`` run, a browser and the address it serves at: (process, its stderr
    lines so far, the driver, the address). The browser quits and the process is killed if still running."""
    import threading

    process = subprocess.Popen(arena_cmd("tournament", *args, "--web", "0"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr or ()), daemon=True)
    reader.start()
    driver = chromium(size=PAGE_SIZE)
    try:
        url = poll(lambda: next((m.group(1) for line in list(lines)
                                 if (m := re.search(r"watch at (http://\S+)", line))), None), "the address")
        yield process, lines, driver, url
    finally:
        driver.quit()
        if process.poll() is None:
            process.kill()
            process.wait()


def standings_cells(driver) -> list[list[str]]:
    """The standings table's rows, each a list of its cells' text, read in one go: the page rebuilds the
    table at every poll (2 s), and a row found by one call may be gone by the next on a busy machine."""
    cells: list[list[str]] = driver.execute_script(
        "return [...document.querySelectorAll('#standings tr')]"
        ".map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.innerText));")
    return cells


def test_a_tournament_shows_its_standings_its_finished_games_and_the_game_under_way(tmp_path):
    out = tmp_path / "results"
    with watched_tournament("random", "hunt", "flee", "--maps", "office", "--games", "3", "--players", "3",
                            "--jobs", "1", "--prep-ms", "2500", "--move-ms", "1000", "--seed", "8", "--out",
                            str(out)) as (process, lines, driver, url):
        driver.get(url)
        poll(lambda: driver.execute_script("return document.body.dataset.underWay") == "[1]",
             "game 1 under way")
        driver.find_element(By.CSS_SELECTOR, "#under-way a").click()
        poll(lambda: driver.current_url.endswith("/live/1"), "the live page")
        first = poll(lambda: shown(driver)[0] is not None and shown(driver), "a round of game 1")
        assert len(first[1]) == 3
        folder = next((out / "games").glob("001-*"))
        poll(lambda: _ended(folder / "replay.jsonl"), "game 1's end", deadline(40))
        rep = replay.load(folder / "replay.jsonl")
        assert wait_round(driver, len(rep.rounds)) == expected_bots(rep, len(rep.rounds))
        assert console_errors(driver) == []  # "/" and "/live/1" asked for no favicon.ico (404)
        driver.get(url)
        poll(lambda: driver.execute_script("return document.body.dataset.played") in ("1", "2", "3"),
             "the standings after game 1")
        rows = [" ".join(row).split() for row in standings_cells(driver)]
        assert rows[0][:3] == ["rank", "bot", "points"] and len(rows) == 4
        assert {row[1] for row in rows[1:]} == {"random", "hunt", "flee"}
        rounds = len(rep.rounds)  # "1 round", never "1 rounds"
        said = driver.execute_script("return document.querySelector('#games a').innerText")
        assert said == f"#1 office, seed {rep.header['seed']}, {rounds} round{'' if rounds == 1 else 's'}"
        driver.execute_script("document.querySelector('#games a').click()")  # the page may redraw meanwhile
        poll(lambda: driver.current_url.endswith("/game/1"), "game 1's replay page")
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
        assert wait_round(driver, len(rep.rounds)) == expected_bots(rep, len(rep.rounds))
        assert console_errors(driver) == []
        assert process.wait(deadline(60)) == 0, lines


def test_a_tournament_page_lists_a_bot_that_played_no_game_after_the_others_with_no_place(tmp_path):
    # The standings page ranked a bot whose program ends at once (it never connected) 3rd, on its idle body's
    # points; standings.json now gives it no rank and no points (null), which the page shows as "-".
    out = tmp_path / "results"
    with watched_tournament("hunt", "flee", "sh -c 'exit 3' {port}", "--maps", "office", "--games", "2",
                            "--players", "3", "--jobs", "1", "--prep-ms", "4000", "--move-ms", "300",
                            "--seed", "5", "--out", str(out)) as (process, lines, driver, url):
        driver.get(url)
        script = "return document.body.dataset.played"
        played = poll(lambda: (n := driver.execute_script(script)) in ("1", "2") and n,
                      "the standings after game 1", deadline(40))
        rows = standings_cells(driver)
        assert rows[0] == ["rank", "bot", "points", "office", "games", "wins", "catches", "caught",
                           "mean rank", "rating", "mu ± sigma", "rated", "faults"]
        assert sorted((row[0], row[1]) for row in rows[1:3]) in (
            [("1", "flee"), ("2", "hunt")], [("1", "hunt"), ("2", "flee")], [("1", "flee"), ("1", "hunt")])
        # no place, and a new bot's rating: mu 25, sigma 25/3, conservative 0 (as the printed table says)
        assert rows[3] == ["-", "exit 3", "-", "-", "0", "0", "0", "0", "-", "0.00", "25.00 ± 8.33", "-",
                           f"{played} never connected"]
        assert console_errors(driver) == []
        assert process.wait(deadline(60)) == 0, lines
    # the others' ratings after the games the page showed: the places in them of the bots that played
    games = json.loads((out / "standings.json").read_text())["games"][:int(played)]
    now = ratings.rate([[(s["bot"], s["rank"]) for s in g["seats"] if s["status"] != "never connected"]
                        for g in games], names=["hunt", "flee"])
    places = ratings.ranks(now, ["hunt", "flee"])
    assert {row[1]: row[9:12] for row in rows[1:3]} == {
        bot: [f"{r.conservative:.2f}", f"{r.mu:.2f} ± {r.sigma:.2f}", str(places[bot])]
        for bot, r in now.items()}
