"""Click-to-pixel latency of the display layer on three Xvfb displays (640x480, dirty rectangles).

Starts three Xvfb servers, opens a window on each through ``common.x11.open_window`` and runs a small game
loop: on every Click it re-renders one 80x80 cell and presents that dirty rectangle to all three windows.
Clicks are injected with XTEST on the first display; separate client connections poll GetImage on each display
until the cell's pixel shows the new colour. Prints the median and 90th percentile per display and PASS/FAIL
against the bar (median <= 5 ms). Printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
from _bars import bar
from Xlib import X
from Xlib.display import Display
from Xlib.ext import xtest

from common.loop import Click, Inbox
from common.x11 import open_window

WIDTH, HEIGHT, CELL = 640, 480, 80
BAR_MS = 5.0


def start_xvfb() -> tuple[subprocess.Popen, str]:
    read_end, write_end = os.pipe()
    command = ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "800x600x24", "-nolisten", "tcp"]
    proc = subprocess.Popen(command, pass_fds=(write_end,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as handle:
        number = handle.readline().strip()
    if not number:
        proc.kill()
        raise SystemExit("Xvfb did not start")
    return proc, f":{number}"


def colour_of(click: int) -> tuple[int, int, int]:
    """A colour that differs from every earlier click's."""
    return (click * 7) % 256, 255 - (click * 13) % 256, 40 + click % 200


def game_loop(inbox: Inbox, windows: list, stop: threading.Event) -> None:
    """Re-render the clicked cell in the next colour and present only that cell to every window."""
    surface = pygame.Surface((WIDTH, HEIGHT), 0, 32)
    surface.fill((0, 0, 0))
    for window in windows:
        window.present(surface)
    clicks = 0
    while not stop.is_set():
        event = inbox.get(0.1)
        if isinstance(event, Click):
            clicks += 1
            rect = pygame.Rect(event.x // CELL * CELL, event.y // CELL * CELL, CELL, CELL)
            surface.fill(colour_of(clicks), rect)
            for window in windows:
                window.present(surface, [rect])


def pixel(display: Display, window_id: int, x: int, y: int) -> tuple[int, int, int]:
    window = display.create_resource_object("window", window_id)
    data = window.get_image(x, y, 1, 1, X.ZPixmap, 0xFFFFFFFF).data
    return data[2], data[1], data[0]


def measure(clicks: int) -> list[list[float]]:
    servers = [start_xvfb() for _ in range(3)]
    inbox = Inbox()
    windows = []
    probes: list[Display] = []
    stop = threading.Event()
    try:
        for index, (_, name) in enumerate(servers):
            windows.append(open_window(name, title=f"latency {index}", size=(WIDTH, HEIGHT), inbox=inbox,
                                       source=name))
        probes = [Display(name) for _, name in servers]
        injector = Display(servers[0][1])
        loop = threading.Thread(target=game_loop, args=(inbox, windows, stop), daemon=True)
        loop.start()
        for probe, window in zip(probes, windows, strict=True):
            wait_for(probe, window.window_id, WIDTH - 1, HEIGHT - 1, (0, 0, 0))
        columns, rows = WIDTH // CELL, HEIGHT // CELL
        latencies: list[list[float]] = [[] for _ in servers]
        for click in range(1, clicks + 1):
            cell = (click * 5) % (columns * rows)
            x, y = cell % columns * CELL + CELL // 2, cell // columns * CELL + CELL // 2
            expected = colour_of(click)
            xtest.fake_input(injector, X.MotionNotify, x=x, y=y)
            injector.sync()
            start = time.perf_counter()
            xtest.fake_input(injector, X.ButtonPress, 1)
            xtest.fake_input(injector, X.ButtonRelease, 1)
            injector.flush()
            pending = set(range(len(servers)))
            deadline = start + 5.0
            while pending and time.perf_counter() < deadline:
                for index in list(pending):
                    if pixel(probes[index], windows[index].window_id, x, y) == expected:
                        latencies[index].append((time.perf_counter() - start) * 1000)
                        pending.discard(index)
            if pending:
                raise SystemExit(f"click {click}: no pixel change on {sorted(pending)} within 5 s")
        injector.close()
        return latencies
    finally:
        stop.set()
        for window in windows:
            window.close()
        for probe in probes:
            probe.close()
        for proc, _ in servers:
            proc.terminate()
            proc.wait(10)


def wait_for(probe: Display, window_id: int, x: int, y: int, rgb: tuple[int, int, int]) -> None:
    deadline = time.monotonic() + 10
    while pixel(probe, window_id, x, y) != rgb:
        if time.monotonic() > deadline:
            raise SystemExit("the first frame never arrived")
        time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=60, help="clicks to measure (default 60)")
    args = parser.parse_args()
    latencies = measure(args.clicks)
    print(f"click -> pixel latency, 3 Xvfb displays, {WIDTH}x{HEIGHT}, one {CELL}x{CELL} dirty cell, "
          f"{args.clicks} XTEST clicks on display 1")
    ok = True
    for index, values in enumerate(latencies, 1):
        median = statistics.median(values)
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"  display {index}: median {median:.2f} ms, p90 {p90:.2f} ms")
        ok &= bar(f"X11 click -> pixel on display {index}: median <= {BAR_MS:g} ms",
                  f"{median:.2f} ms (p90 {p90:.2f}, load average {os.getloadavg()[0]:.1f})", median <= BAR_MS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
