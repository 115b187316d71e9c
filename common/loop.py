"""The one event loop every game uses: display threads, the terminal and timers feed one :class:`Inbox`.

The events are small frozen dataclasses. Display events carry ``source``, the name the front end gave the
window (or terminal) when it opened it; window coordinates are pixels with the origin at the top-left corner.
The game's main thread calls :meth:`Inbox.get` in a loop and reacts to what arrives (ARCHITECTURE seam 4).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

MAX_WAIT_S = 86400.0
"""The longest single wait of :meth:`Inbox.get` (a far timer, e.g. ``--delay 1e300``, would overflow the
platform's timeout); it then looks again and waits for what is left."""


@dataclass(frozen=True)
class Click:
    """A mouse button pressed in a window: ``button`` 1 left, 2 middle, 3 right (4/5 wheel); window pixels."""

    source: str
    button: int
    x: int
    y: int


@dataclass(frozen=True)
class Key:
    """A key pressed; ``name`` is the X keysym name, Shift applied ("a", "A", "Tab", "Escape", "space").
    From a window, ``x`` and ``y`` are where the pointer was (window pixels, possibly outside the window);
    None from a terminal."""

    source: str
    name: str
    x: int | None = None
    y: int | None = None


@dataclass(frozen=True)
class Resize:
    """The window's size changed to ``width`` x ``height`` pixels; the front end re-renders at that size."""

    source: str
    width: int
    height: int


@dataclass(frozen=True)
class Closed:
    """The window manager asked to close the window (WM_DELETE_WINDOW); spec/motti.md §6 and §2.7."""

    source: str


@dataclass(frozen=True)
class DisplayLost:
    """The window's display went away (server gone, ``xkill``, broken pipe); sent exactly once per window."""

    source: str
    reason: str


@dataclass(frozen=True)
class Timer:
    """A timer set with :meth:`Inbox.call_later` has expired."""

    name: str


@dataclass(frozen=True)
class Command:
    """A front-end-neutral game command, e.g. ``Command("console", "toggle", ((3, 4),))``.

    motti verbs (``motti.commands``): ``toggle`` with args ``((x, y),)``, ``select`` with
    ``("attack"|"defend"|"guerilla",)``, ``cycle``, ``perform`` (optionally with an action name), ``pass``,
    ``save``, ``tip`` (motti.session.Session.give_tip), ``quit``.
    """

    source: str
    verb: str
    args: tuple[Any, ...] = ()


class Inbox:
    """A thread-safe queue of events plus one-shot named timers.

    Any thread may :meth:`put`; one consumer calls :meth:`get`. Expired timers are delivered as :class:`Timer`
    events in deadline order (ties in the order they were set), queued behind the events already waiting when
    the consumer next looks. Nothing polls: waiting uses a condition variable with the next deadline.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._events: deque[object] = deque()
        self._timers: list[tuple[float, int, str]] = []
        self._order = itertools.count()

    def put(self, event: object) -> None:
        """Queue ``event`` and wake the consumer."""
        with self._cond:
            self._events.append(event)
            self._cond.notify()

    def call_later(self, delay_s: float, name: str) -> None:
        """Deliver ``Timer(name)`` once, ``delay_s`` seconds (float, >= 0) from now."""
        with self._cond:
            heapq.heappush(self._timers, (time.monotonic() + max(0.0, delay_s), next(self._order), name))
            self._cond.notify()

    def cancel(self, name: str) -> int:
        """Drop every pending (not yet expired) timer called ``name``; returns how many were dropped."""
        with self._cond:
            kept = [timer for timer in self._timers if timer[2] != name]
            dropped = len(self._timers) - len(kept)
            heapq.heapify(kept)
            self._timers = kept
            return dropped

    def wait_time(self) -> float | None:
        """Seconds until :meth:`get` has something: 0 when an event is waiting or a timer has expired, the
        time to the next timer, or None when nothing is pending (for a consumer that also waits elsewhere,
        e.g. for a terminal key)."""
        with self._cond:
            if self._events:
                return 0.0
            if not self._timers:
                return None
            return max(0.0, self._timers[0][0] - time.monotonic())

    def get(self, timeout: float | None = None) -> object | None:
        """The next event, waiting at most ``timeout`` seconds (None = for ever); None on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                now = time.monotonic()
                while self._timers and self._timers[0][0] <= now:
                    self._events.append(Timer(heapq.heappop(self._timers)[2]))
                if self._events:
                    return self._events.popleft()
                waits = [] if end is None else [end - now]
                if self._timers:
                    waits.append(self._timers[0][0] - now)
                if end is not None and end - now <= 0:
                    return None
                self._cond.wait(min(*waits, MAX_WAIT_S) if waits else None)
