"""The inbox every game loop reads: thread-safe queue plus named timers."""

from __future__ import annotations

import threading

import pytest
from deadline import deadline

from common.loop import Click, Closed, Command, DisplayLost, Inbox, Key, Resize, Timer


def test_events_come_out_in_order():
    inbox = Inbox()
    events = [Click("a", 1, 3, 4), Key("a", "Tab"), Resize("b", 640, 480), Closed("b"),
              DisplayLost("c", "gone"), Command("console", "toggle", (3, 4))]
    for event in events:
        inbox.put(event)
    assert [inbox.get(0) for _ in events] == events
    assert inbox.get(0) is None


def test_get_times_out_with_none():
    assert Inbox().get(0.01) is None


def test_events_are_frozen_values():
    assert Command("console", "cycle") == Command("console", "cycle", ())
    with pytest.raises(AttributeError):
        Click("a", 1, 2, 3).x = 5  # type: ignore[misc]


def test_timers_fire_in_deadline_order_and_only_once():
    inbox = Inbox()
    inbox.call_later(0.08, "late")
    inbox.call_later(0.02, "early")
    inbox.call_later(0.02, "early-too")
    got = [inbox.get(deadline(2)), inbox.get(deadline(2)), inbox.get(deadline(2))]
    assert got == [Timer("early"), Timer("early-too"), Timer("late")]
    assert inbox.get(0.1) is None


def test_zero_delay_timer_is_ready_at_once():
    inbox = Inbox()
    inbox.call_later(0, "now")
    assert inbox.get(0) == Timer("now")


def test_a_waiting_get_wakes_for_a_put_from_another_thread():
    inbox = Inbox()
    started = threading.Event()

    def producer():
        started.wait(deadline(2))
        inbox.put(Key("x", "q"))

    thread = threading.Thread(target=producer)
    thread.start()
    started.set()
    assert inbox.get(deadline(3)) == Key("x", "q")
    thread.join(deadline(2))


def test_a_waiting_get_wakes_for_a_timer_set_while_waiting():
    inbox = Inbox()
    threading.Timer(0.02, inbox.call_later, (0.01, "tick")).start()
    assert inbox.get(deadline(3)) == Timer("tick")


def test_cancel_drops_pending_timers_by_name():
    inbox = Inbox()
    inbox.call_later(0.01, "a")
    inbox.call_later(0.01, "a")
    inbox.call_later(0.02, "b")
    assert inbox.cancel("a") == 2
    assert inbox.get(deadline(2)) == Timer("b")
    assert inbox.get(0.05) is None


def test_many_producers_lose_nothing():
    inbox = Inbox()

    def producer(name):
        for i in range(500):
            inbox.put(Click(name, 1, i, 0))

    threads = [threading.Thread(target=producer, args=(f"p{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(deadline(3))
    seen = {}
    while (event := inbox.get(0)) is not None:
        seen.setdefault(event.source, []).append(event.x)
    assert seen == {f"p{n}": list(range(500)) for n in range(4)}


def test_wait_time_says_when_get_has_something():
    inbox = Inbox()
    assert inbox.wait_time() is None
    inbox.call_later(30.0, "later")
    assert 29.0 < inbox.wait_time() <= 30.0
    inbox.call_later(0.0, "now")
    assert inbox.wait_time() == 0.0
    assert inbox.get(0) == Timer("now")
    inbox.put(Key("w", "a"))
    assert inbox.wait_time() == 0.0


def test_a_timer_ages_away_does_not_break_waiting_for_an_event():
    """A timer 1e300 seconds away (``--delay 1e300``) used to make ``get()`` overflow the platform's wait."""
    inbox = Inbox()
    inbox.call_later(1e300, "never")
    threading.Timer(0.05, inbox.put, (Key("a", "x"),)).start()
    assert inbox.get() == Key("a", "x")
    assert inbox.wait_time() > 1e299
