"""How long the tests wait for an event (a window mapped, a status field, a line on a terminal, a process's
end) before they fail: one setting for the whole suite.

Every wait is :func:`deadline` of a base in seconds, the time the event may take on an idle machine with room
to spare, times ``TEST_DEADLINE_SCALE`` (environment; default :data:`DEFAULT_SCALE`, for a machine ten times
busier than an idle one: the suite shares two cores with other work). A test never waits a fixed time for an
event: it polls for it (:func:`wait_until`) and fails at the deadline, naming what it waited for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_SCALE = 10.0
"""The scale when ``TEST_DEADLINE_SCALE`` is not set."""


def _scale() -> float:
    text = os.environ.get("TEST_DEADLINE_SCALE", "")
    if not text:
        return DEFAULT_SCALE
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise SystemExit(f"TEST_DEADLINE_SCALE={text!r}: expected a number > 0 (default {DEFAULT_SCALE:g})")
    return value


SCALE = _scale()
"""``TEST_DEADLINE_SCALE`` as read when the tests start."""


def deadline(seconds: float) -> float:
    """*seconds* (what the wait needs on an idle machine, with room) times :data:`SCALE`, in seconds."""
    return seconds * SCALE


def wait_until(predicate: Callable[[], T], what: str, seconds: float = 3.0, poll_s: float = 0.05) -> T:
    """Poll *predicate* every *poll_s* until it returns something true, and return that; AssertionError
    naming *what* after :func:`deadline` of *seconds*."""
    end = time.monotonic() + deadline(seconds)
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {deadline(seconds):.0f} s waiting for {what}")
        time.sleep(poll_s)
