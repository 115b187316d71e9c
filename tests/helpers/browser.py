"""Headless Chromium for the web page tests: Debian's chromium and chromium-driver driven by Selenium."""

from __future__ import annotations

import io
import json
import time

import pygame
from deadline import deadline
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

DEADLINE_S = deadline(20)
CHROMEDRIVER = "/usr/bin/chromedriver"


def chromium(*, offline: bool = False, size: tuple[int, int] = (1280, 900)) -> webdriver.Chrome:
    """A headless Chromium of *size* CSS pixels (device pixel ratio 1); *offline*: its network off (the
    DevTools protocol's network emulation), as a page opened from a file must need none."""
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--force-device-scale-factor=1", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(DEADLINE_S)
    if offline:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    return driver


def poll(predicate, what: str, timeout: float = DEADLINE_S):
    """The first true value of *predicate*; fails naming *what* after *timeout* seconds."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def shown(driver) -> tuple[int | None, list[dict]]:
    """(data-round, data-bots) of the page's <body>: the round drawn and its bots (None, [] before)."""
    round_text, bots = driver.execute_script(
        "return [document.body.dataset.round, document.body.dataset.bots]")
    return (int(round_text) if round_text else None), (json.loads(bots) if bots else [])


def wait_round(driver, number: int, timeout: float = DEADLINE_S) -> list[dict]:
    """Wait until the page has drawn round *number*; its data-bots."""
    poll(lambda: shown(driver)[0] == number, f"round {number} drawn (drawn: {shown(driver)[0]})", timeout)
    return shown(driver)[1]


def screenshot(driver) -> pygame.Surface:
    """The viewport as a pygame Surface (PNG decoded by pygame)."""
    return pygame.image.load(io.BytesIO(driver.get_screenshot_as_png()), "shot.png")


def canvas_box(driver) -> tuple[int, int, int, int]:
    """(left, top, width, height) of the page's canvas, CSS pixels."""
    box = driver.execute_script("const r = document.getElementById('view').getBoundingClientRect();"
                                "return [r.left, r.top, r.width, r.height];")
    return tuple(round(v) for v in box)
