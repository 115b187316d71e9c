"""arena web page: the size of a replay's page and how soon headless Chromium draws its first frame.

The replay: 180 rounds of 16 players on the 204×204 shipped map metropolis, played by the rules with seeded
random moves (every player moves every round, as busy bots do) and written as the server writes a replay
(header, round lines, a final line); its page is made as ``arena replay FILE --html OUT`` makes it.

First frame: the page opened from a ``file://`` URL in headless Chromium (Debian's chromium and
chromium-driver, through Selenium) with the network off; the browser is started once, before the clock, and
the page is loaded :data:`LOADS` times. The figure is the page's own ``arena-first-frame`` performance mark,
set once the first round is drawn: milliseconds since the navigation started (the Navigation Timing origin).
Median and worst, with the load average beside them (wall-clock figures on a shared machine).

Bars: page < 2 MB; median first frame < 1000 ms.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bars import bar

from arena import replay, web
from arena.mapfile import find_map, load_arena
from arena.rules import DIRECTIONS, MOVES, Game
from arena.server import final_table

ROUNDS = 180
PLAYERS = 16
LOADS = 7
BAR_BYTES = 2_000_000
BAR_MS = 1000.0


def game_replay(path: Path, seed: int = 1) -> Path:
    """A replay of ROUNDS rounds of PLAYERS players on metropolis (seeded random moves)."""
    import json

    arena = load_arena(find_map("metropolis"))
    rng = random.Random(seed)
    game = Game(arena, PLAYERS, random.Random(seed), quiet_rounds=30)
    ids = list(range(PLAYERS))
    lines = [replay.header(arena, game, seed=seed, wire_ids=ids, settings={"bench": True})]
    while game.round < ROUNDS and not game.is_over():
        moves = [(pid, rng.choice(MOVES), rng.choice(DIRECTIONS)) for pid in range(PLAYERS)]
        result = game.play_round(moves)
        lines.append(replay.round_line(game, result, moves, [True] * PLAYERS, rng.uniform(1, 5)))
    table = [row.as_json() for row in final_table(game, ids)]
    lines.append({"type": "final", "rounds": game.round, "table": table, "diagnostics": [],
                  **({} if game.is_over() else {"stopped": f"bench: {ROUNDS} rounds"})})
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    return driver


def first_frame_ms(driver, url: str) -> dict[str, float]:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    driver.get(url)
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return performance.getEntriesByName('arena-first-frame').length"))
    return driver.execute_script("""
        const nav = performance.getEntriesByType('navigation')[0];
        return {first: performance.getEntriesByName('arena-first-frame')[0].startTime,
                response: nav.responseEnd, interactive: nav.domInteractive,
                resources: performance.getEntriesByType('resource').length};""")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        source = game_replay(Path(tmp) / "metropolis.jsonl")
        rep = replay.load(source)
        out = Path(tmp) / "metropolis.html"
        web.write_page(rep, out)
        size = out.stat().st_size
        print(f"replay {source.stat().st_size} bytes, {len(rep.rounds)} rounds, {PLAYERS} players; "
              f"page {size} bytes")
        ok = bar(f"page of a {ROUNDS}-round {PLAYERS}-bot metropolis game < 2 MB", f"{size / 1e6:.2f} MB",
                 size < BAR_BYTES)
        driver = browser()
        try:
            first_frame_ms(driver, out.as_uri())  # the browser's own first-page costs, not counted
            runs = [first_frame_ms(driver, out.as_uri()) for _ in range(LOADS)]
        finally:
            driver.quit()
    firsts = [r["first"] for r in runs]
    median = statistics.median(firsts)
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"first frame after navigation start, {LOADS} loads: median {median:.0f} ms, worst "
          f"{max(firsts):.0f} ms (document received {statistics.median(r['response'] for r in runs):.0f} ms, "
          f"interactive {statistics.median(r['interactive'] for r in runs):.0f} ms; "
          f"{max(r['resources'] for r in runs)} other resources loaded); load average {load}")
    ok &= bar("first frame in headless Chromium < 1 s after navigation starts",
              f"median {median:.0f} ms (load {load})", median < BAR_MS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
