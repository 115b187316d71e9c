"""X11 windows on real Xvfb displays: pixels through GetImage, input through xdotool, failures for real."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pygame
import pytest
from deadline import deadline
from Xlib import X
from Xlib import error as xerror
from Xlib.display import Display
from xvfb import Xvfb, silent_x_listener

from common.loop import Click, Closed, DisplayLost, Inbox, Key, Resize
from common.x11 import DisplayError, Window, open_window

DEADLINE = deadline(7)


class Probe:
    """A separate client connection that reads a window's pixels with GetImage."""

    def __init__(self, name: str):
        for attempt in (0, 1):
            try:
                self.display = Display(name)
                break
            except xerror.ConnectionClosedError:
                if attempt:
                    raise
                time.sleep(0.1)
        self.depth = self.display.screen().root_depth

    def pixel(self, window_id: int, x: int, y: int) -> tuple[int, int, int]:
        window = self.display.create_resource_object("window", window_id)
        data = bytes(window.get_image(x, y, 1, 1, X.ZPixmap, 0xFFFFFFFF).data)
        if self.depth == 16:
            value = int.from_bytes(data[:2], "little")
            return (value >> 11) * 255 // 31, (value >> 5 & 63) * 255 // 63, (value & 31) * 255 // 31
        return data[2], data[1], data[0]

    def wait_pixel(self, window_id: int, x: int, y: int, rgb: tuple[int, int, int]) -> None:
        end = time.monotonic() + DEADLINE
        while (got := self.pixel(window_id, x, y)) != rgb:
            assert time.monotonic() < end, f"pixel ({x},{y}) is {got}, expected {rgb}"
            time.sleep(0.005)

    def close(self) -> None:
        self.display.close()


@pytest.fixture
def inbox():
    return Inbox()


@pytest.fixture
def windows():
    opened: list[Window] = []
    yield opened
    for window in opened:
        window.close()


@pytest.fixture
def probes():
    opened: list[Probe] = []
    yield opened
    for probe in opened:
        probe.close()


def solid(size, rgb):
    surface = pygame.Surface(size, 0, 32)
    surface.fill(rgb)
    return surface


def next_event(inbox: Inbox, kind: type, source: str | None = None):
    """The next event of ``kind`` (and ``source``); other events are skipped."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        event = inbox.get(0.2)
        if isinstance(event, kind) and (source is None or event.source == source):
            return event
    raise AssertionError(f"no {kind.__name__} from {source} within {DEADLINE} s")


def quiet_events(inbox: Inbox, wait: float = 0.3) -> list:
    """Every event that arrives until the inbox has been quiet for ``wait`` seconds."""
    events = []
    while (event := inbox.get(wait)) is not None:
        events.append(event)
    return events


def test_windows_on_three_displays_show_the_presented_surface(xvfb3, inbox, windows, probes):
    colours = [(200, 30, 40), (20, 180, 60), (10, 40, 230)]
    for index, server in enumerate(xvfb3):
        window = open_window(server.name, title=f"motti {index}", size=(320, 200), inbox=inbox,
                             source=f"w{index}")
        windows.append(window)
        assert window.display == server.name and window.size == (320, 200) and window.alive
        surface = solid((320, 200), colours[index])
        surface.fill((255, 255, 255), pygame.Rect(100, 50, 10, 10))
        window.present(surface)
    for index, server in enumerate(xvfb3):
        probe = Probe(server.name)
        probes.append(probe)
        probe.wait_pixel(windows[index].window_id, 0, 0, colours[index])
        assert probe.pixel(windows[index].window_id, 319, 199) == colours[index]
        assert probe.pixel(windows[index].window_id, 105, 55) == (255, 255, 255)
        assert probe.pixel(windows[index].window_id, 110, 55) == colours[index]


def test_wm_properties_are_set(xvfb, inbox, windows, probes):
    window = open_window(xvfb.name, title="motti seat 1", size=(300, 200), inbox=inbox, source="a",
                         min_size=(120, 90))
    windows.append(window)
    probe = Probe(xvfb.name)
    probes.append(probe)
    remote = probe.display.create_resource_object("window", window.window_id)
    assert remote.get_wm_name() == "motti seat 1"
    assert remote.get_wm_class() == ("motti", "Motti")
    hints = remote.get_wm_normal_hints()
    assert (hints.min_width, hints.min_height) == (120, 90)
    protocols = [probe.display.get_atom_name(atom) for atom in remote.get_wm_protocols()]
    assert protocols == ["WM_DELETE_WINDOW"]


def test_dirty_rects_change_only_those_rects_and_skipped_frames_merge(xvfb, inbox, windows, probes):
    window = open_window(xvfb.name, title="dirty", size=(200, 100), inbox=inbox, source="a")
    windows.append(window)
    probe = Probe(xvfb.name)
    probes.append(probe)
    surface = solid((200, 100), (100, 100, 100))
    window.present(surface)
    probe.wait_pixel(window.window_id, 199, 99, (100, 100, 100))
    surface.fill((250, 0, 0))
    window.present(surface, [pygame.Rect(10, 10, 20, 20)])
    window.present(surface, [pygame.Rect(150, 60, 5, 5)])
    probe.wait_pixel(window.window_id, 10, 10, (250, 0, 0))
    probe.wait_pixel(window.window_id, 154, 64, (250, 0, 0))
    assert probe.pixel(window.window_id, 29, 29) == (250, 0, 0)
    for x, y in [(9, 10), (30, 10), (10, 30), (149, 60), (155, 64), (154, 65), (0, 0), (199, 99)]:
        assert probe.pixel(window.window_id, x, y) == (100, 100, 100), (x, y)


def test_full_screen_frame_is_sent_in_strips(inbox, windows, probes):
    with Xvfb("1280x1024x24") as server:
        window = open_window(server.name, title="big", size=(1280, 1024), inbox=inbox, source="a")
        windows.append(window)
        surface = solid((1280, 1024), (0, 0, 80))
        surface.fill((7, 8, 9), pygame.Rect(0, 1000, 1280, 24))
        window.present(surface)
        probe = Probe(server.name)
        probes.append(probe)
        probe.wait_pixel(window.window_id, 1279, 1023, (7, 8, 9))
        assert probe.pixel(window.window_id, 640, 500) == (0, 0, 80)
        assert window.alive
        window.close()
        probe.close()
        probes.clear()


def test_depth_16_uses_the_visual_masks(inbox, windows, probes):
    with Xvfb("640x480x16") as server:
        window = open_window(server.name, title="565", size=(64, 48), inbox=inbox, source="a")
        windows.append(window)
        surface = solid((64, 48), (255, 0, 0))
        surface.fill((0, 255, 0), pygame.Rect(33, 0, 31, 48))
        window.present(surface)
        window.present(surface, [pygame.Rect(3, 3, 7, 5)])
        probe = Probe(server.name)
        probes.append(probe)
        probe.wait_pixel(window.window_id, 63, 47, (0, 255, 0))
        assert probe.pixel(window.window_id, 0, 0) == (255, 0, 0)
        assert probe.pixel(window.window_id, 32, 0) == (255, 0, 0)
        window.close()
        probe.close()
        probes.clear()


def test_expose_repaints_from_the_last_frame(xvfb, inbox, windows, probes):
    window = open_window(xvfb.name, title="expose", size=(200, 100), inbox=inbox, source="a")
    windows.append(window)
    probe = Probe(xvfb.name)
    probes.append(probe)
    window.present(solid((200, 100), (0, 120, 240)))
    probe.wait_pixel(window.window_id, 50, 50, (0, 120, 240))
    root = probe.display.screen().root
    cover = root.create_window(0, 0, 120, 80, 0, probe.depth, X.InputOutput, X.CopyFromParent,
                               background_pixel=probe.display.screen().white_pixel, override_redirect=True)
    cover.map()
    probe.display.sync()
    assert xvfb.pixel(50, 50) == (255, 255, 255)
    cover.destroy()
    probe.display.sync()
    probe.wait_pixel(window.window_id, 50, 50, (0, 120, 240))
    probe.wait_pixel(window.window_id, 0, 0, (0, 120, 240))


def test_right_click_arrives_with_button_and_window_coordinates(xvfb, inbox, windows):
    window = open_window(xvfb.name, title="click", size=(300, 200), inbox=inbox, source="seat1")
    windows.append(window)
    window.present(solid((300, 200), (0, 0, 0)))
    xvfb.xdotool("mousemove", "37", "52", "click", "3")
    assert next_event(inbox, Click) == Click("seat1", 3, 37, 52)
    xvfb.xdotool("mousemove", "200", "150", "click", "1")
    assert next_event(inbox, Click) == Click("seat1", 1, 200, 150)


def test_keys_arrive_as_keysym_names_with_shift_and_no_modifier_events(xvfb, inbox, windows):
    window = open_window(xvfb.name, title="keys", size=(300, 200), inbox=inbox, source="k")
    windows.append(window)
    xvfb.xdotool("mousemove", "20", "20")
    xvfb.xdotool("key", "a", "shift+b", "Tab", "Escape", "space", "q", "shift+1")
    names = []
    while len(names) < 7:
        names.append(next_event(inbox, Key, "k").name)
    assert names == ["a", "B", "Tab", "Escape", "space", "q", "exclam"]
    assert not [event for event in quiet_events(inbox) if isinstance(event, Key)]
    xvfb.xdotool("mousemove", "123", "45", "key", "plus")
    assert next_event(inbox, Key, "k") == Key("k", "plus", 123, 45)    # where the pointer is (window pixels)


def test_caps_lock_shifts_letters_only(xvfb, inbox, windows):
    window = open_window(xvfb.name, title="caps", size=(300, 200), inbox=inbox, source="k")
    windows.append(window)
    xvfb.xdotool("mousemove", "20", "20")
    xvfb.xdotool("key", "Caps_Lock", "a", "shift+a", "1", "Caps_Lock", "a", "Up", "F1")
    names = []
    while len(names) < 6:
        names.append(next_event(inbox, Key, "k").name)
    assert names == ["A", "a", "1", "a", "Up", "F1"]


def test_windowsize_gives_one_resize_and_the_new_size(xvfb, inbox, windows):
    window = open_window(xvfb.name, title="resize", size=(300, 200), inbox=inbox, source="r")
    windows.append(window)
    xvfb.xdotool("windowsize", str(window.window_id), "500", "320")
    assert next_event(inbox, Resize) == Resize("r", 500, 320)
    assert window.size == (500, 320)
    xvfb.xdotool("windowmove", str(window.window_id), "10", "10")
    assert not [event for event in quiet_events(inbox) if isinstance(event, Resize)]


def test_killing_one_server_loses_only_its_window(xvfb3, inbox, windows, probes):
    for index, server in enumerate(xvfb3):
        windows.append(open_window(server.name, title="kill", size=(100, 100), inbox=inbox,
                                   source=f"w{index}"))
    probes.extend(Probe(server.name) for server in xvfb3[1:])
    xvfb3[0].stop()
    lost = next_event(inbox, DisplayLost)
    assert lost.source == "w0" and lost.reason
    assert not windows[0].alive
    for step, colour in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255)]):
        for window in windows:
            window.present(solid((100, 100), colour), None if step == 0 else [pygame.Rect(0, 0, 50, 50)])
        for window, probe in zip(windows[1:], probes, strict=True):
            probe.wait_pixel(window.window_id, 10, 10, colour)
    later = quiet_events(inbox)
    assert not [event for event in later if isinstance(event, DisplayLost)]
    assert windows[1].alive and windows[2].alive


def test_xkill_gives_display_lost_exactly_once(xvfb, inbox, windows):
    window = open_window(xvfb.name, title="xkill", size=(100, 100), inbox=inbox, source="x")
    windows.append(window)
    subprocess.run(["xkill", "-display", xvfb.name, "-id", hex(window.window_id)], capture_output=True,
                   timeout=deadline(3), check=True)
    assert next_event(inbox, DisplayLost) == DisplayLost("x", "Display connection closed by server")
    window.present(solid((100, 100), (1, 2, 3)))
    assert not [event for event in quiet_events(inbox) if isinstance(event, DisplayLost)]
    assert not window.alive


def test_close_from_the_window_manager_arrives_as_closed(xvfb, inbox, windows, tmp_path):
    env = xvfb.env(HOME=str(tmp_path))
    with open(tmp_path / "openbox.log", "wb") as log:
        ready = tmp_path / "openbox-ready"
        # A window mapped while openbox is still starting up can be lost (never managed): wait for the end of
        # its start-up, which runs the --startup command; a first run on a machine may build the font caches.
        wm = subprocess.Popen(["openbox", "--sm-disable", "--startup", f"touch {ready}"], env=env, stdout=log,
                              stderr=log)
        try:
            end = time.monotonic() + deadline(20)
            while not ready.exists():
                assert time.monotonic() < end, f"openbox did not start (exit {wm.poll()})"
                time.sleep(0.05)
            window = open_window(xvfb.name, title="closable seat", size=(200, 150), inbox=inbox, source="c")
            windows.append(window)
            end = time.monotonic() + DEADLINE
            while "closable seat" not in (listed := subprocess.run(["wmctrl", "-l"], env=env,
                                                                   capture_output=True, text=True,
                                                                   timeout=deadline(3)).stdout):
                if time.monotonic() > end:
                    info = subprocess.run(["xwininfo", "-id", hex(window.window_id)], env=env,
                                          capture_output=True, text=True, timeout=deadline(3)).stdout
                    log_text = (tmp_path / "openbox.log").read_text()
                    raise AssertionError(f"openbox does not manage the window: wmctrl -l {listed!r}; "
                                         f"openbox exit {wm.poll()}; log {log_text!r}; "
                                         f"window {' '.join(info.split())!r}")
                time.sleep(0.05)
            subprocess.run(["wmctrl", "-c", "closable seat"], env=env, timeout=deadline(3), check=True)
            assert next_event(inbox, Closed) == Closed("c")
            assert window.alive
            window.close()
            assert not window.alive
        finally:
            wm.terminate()
            wm.wait(deadline(3))


def test_a_frozen_server_blocks_only_its_own_window(xvfb3, inbox, windows, probes):
    frozen, other = xvfb3[0], xvfb3[1]
    slow = open_window(frozen.name, title="frozen", size=(640, 480), inbox=inbox, source="frozen")
    fast = open_window(other.name, title="other", size=(640, 480), inbox=inbox, source="other")
    windows.extend([slow, fast])
    probe = Probe(other.name)
    probes.append(probe)
    finished = threading.Event()
    last = (0, 0, 0)

    def play():
        nonlocal last
        for step in range(40):
            last = (step * 6, 255 - step * 6, 100)
            frame = solid((640, 480), last)
            slow.present(frame)
            fast.present(frame)
            probe.wait_pixel(fast.window_id, 320, 240, last)
        finished.set()

    os.kill(frozen.proc.pid, signal.SIGSTOP)
    try:
        player = threading.Thread(target=play, daemon=True)
        player.start()
        player.join(deadline(40))
        assert finished.is_set(), "presenting to the other display stalled"
    finally:
        os.kill(frozen.proc.pid, signal.SIGCONT)
    frozen_probe = Probe(frozen.name)
    probes.append(frozen_probe)
    frozen_probe.wait_pixel(slow.window_id, 320, 240, last)
    assert slow.alive and fast.alive
    assert not [event for event in quiet_events(inbox, 0.1) if isinstance(event, DisplayLost)]


def test_close_returns_while_the_server_is_frozen(xvfb, inbox, probes):
    window = open_window(xvfb.name, title="frozen close", size=(640, 480), inbox=inbox, source="f")
    window_id = window.window_id
    os.kill(xvfb.proc.pid, signal.SIGSTOP)
    try:
        for step in range(10):
            window.present(solid((640, 480), (step, step, step)))
        window.close()
        assert not window.alive
    finally:
        os.kill(xvfb.proc.pid, signal.SIGCONT)
    probe = Probe(xvfb.name)
    probes.append(probe)
    end = time.monotonic() + DEADLINE
    while window_id in [child.id for child in probe.display.screen().root.query_tree().children]:
        assert time.monotonic() < end, "the window outlived its closed connection"
        time.sleep(0.01)
    assert quiet_events(inbox, 0.1) == []


def test_close_stops_the_window_without_display_lost(xvfb, inbox, probes):
    window = open_window(xvfb.name, title="bye", size=(100, 100), inbox=inbox, source="b")
    window_id = window.window_id
    window.close()
    window.close()
    assert not window.alive
    window.present(solid((100, 100), (9, 9, 9)))
    probe = Probe(xvfb.name)
    probes.append(probe)
    children = [child.id for child in probe.display.screen().root.query_tree().children]
    assert window_id not in children
    assert quiet_events(inbox, 0.1) == []


def test_tcp_display_gets_nodelay(inbox, windows, probes):
    with Xvfb("320x200x24", tcp=True) as server:
        window = open_window(f"localhost:{server.number}", title="tcp", size=(50, 50), inbox=inbox,
                             source="t")
        windows.append(window)
        sock = window._conn.display.socket
        assert sock.family == socket.AF_INET
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        window.present(solid((50, 50), (1, 200, 3)))
        probe = Probe(server.name)
        probes.append(probe)
        probe.wait_pixel(window.window_id, 49, 49, (1, 200, 3))
        window.close()
        probe.close()
        probes.clear()


# --- DisplayError: one line naming the display ------------------------------------------------------------


def free_display_number() -> int:
    for number in range(300, 600):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not os.path.exists(f"/tmp/.X{number}-lock"):
            return number
    raise AssertionError("no free display number")


def test_no_server_is_refused(inbox):
    number = free_display_number()
    with pytest.raises(DisplayError) as caught:
        open_window(f":{number}", title="x", size=(10, 10), inbox=inbox, source="x")
    message = str(caught.value)
    assert message.startswith(f'cannot open display ":{number}": connection refused, no X server there')
    assert "\n" not in message


@pytest.mark.parametrize("name", ["garbage", "", "host:", ":x"])
def test_bad_display_name(inbox, name):
    with pytest.raises(DisplayError) as caught:
        open_window(name, title="x", size=(10, 10), inbox=inbox, source="x")
    expected = f'cannot open display "{name}": bad display name (expected [HOST]:NUMBER[.SCREEN])'
    assert str(caught.value) == expected


def test_screen_that_does_not_exist(xvfb, inbox):
    with pytest.raises(DisplayError) as caught:
        open_window(f"{xvfb.name}.3", title="x", size=(10, 10), inbox=inbox, source="x")
    assert str(caught.value) == f'cannot open display "{xvfb.name}.3": no screen 3 (the server has 1)'


def test_a_server_that_never_answers_times_out(inbox):
    listener, number = silent_x_listener(range(300, 600))
    try:
        with pytest.raises(DisplayError) as caught:
            open_window(f"localhost:{number}", title="x", size=(10, 10), inbox=inbox, source="x", timeout=1.0)
        assert str(caught.value) == f'cannot open display "localhost:{number}": no answer within 1 s'
    finally:
        listener.close()


def test_authorisation_refused(inbox, tmp_path, monkeypatch):
    server_auth = tmp_path / "server.auth"
    subprocess.run(["xauth", "-f", str(server_auth), "add", ":0", ".", "0123456789abcdef0123456789abcdef"],
                   capture_output=True, timeout=deadline(3), check=True)
    empty = tmp_path / "empty.auth"
    empty.write_bytes(b"")
    monkeypatch.setenv("XAUTHORITY", str(empty))
    with Xvfb("320x200x24", extra=("-auth", str(server_auth))) as server, \
            pytest.raises(DisplayError) as caught:
        open_window(server.name, title="x", size=(10, 10), inbox=inbox, source="x")
    assert str(caught.value) == (f'cannot open display "{server.name}": authorisation refused by the server '
                                 "(Authorization required, but no authorization protocol specified)")


def test_an_empty_xauthority_file_prints_nothing(xvfb, tmp_path):
    """python-xlib's own warning about the file must not reach stdout (it would tear a curses screen)."""
    empty = tmp_path / "Xauthority"
    empty.write_bytes(b"")
    script = ("from common.loop import Inbox\nfrom common.x11 import open_window\n"
              f"w = open_window({xvfb.name!r}, title='t', size=(120, 100), inbox=Inbox(), source='a')\n"
              "w.close()\n")
    done = subprocess.run([sys.executable, "-c", script], env=xvfb.env(XAUTHORITY=str(empty)),
                          timeout=deadline(10), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_a_peer_that_answers_garbage_is_not_an_x_server(inbox):
    listener, number = silent_x_listener(range(600, 900))
    listener.settimeout(deadline(3))
    done = threading.Event()

    def answer_junk() -> None:
        try:
            peer, _ = listener.accept()
        except OSError:
            return
        with peer:
            peer.recv(100)
            peer.sendall(b"\x01" + b"\x00" * 7)   # "success" and nothing else: too short for a setup reply
            peer.settimeout(0.1)
            while not done.is_set():              # kept open until the test is over: no reset races the reply
                try:
                    if not peer.recv(100):
                        return
                except TimeoutError:
                    continue

    thread = threading.Thread(target=answer_junk, daemon=True)
    thread.start()
    try:
        with pytest.raises(DisplayError) as caught:
            open_window(f"127.0.0.1:{number}", title="x", size=(10, 10), inbox=inbox, source="x",
                        timeout=deadline(2))
        assert str(caught.value) == (f'cannot open display "127.0.0.1:{number}": not an X server, or it '
                                     "answered garbage")
    finally:
        done.set()
        listener.close()
        thread.join(deadline(3))


def test_a_display_number_out_of_range(inbox):
    with pytest.raises(DisplayError) as caught:
        open_window(":99999999999", title="x", size=(10, 10), inbox=inbox, source="x")
    assert str(caught.value) == 'cannot open display ":99999999999": display number out of range'


def test_a_window_larger_than_the_screen_is_cut_to_it(inbox, windows):
    with Xvfb(size="640x480x24") as small:
        window = open_window(small.name, title="x", size=(1600, 1272), inbox=inbox, source="x")
        windows.append(window)
        assert window.size == (640, 480)
        geometry = small.xdotool("getwindowgeometry", str(window.window_id))
        assert "Geometry: 640x480" in geometry
        small.xdotool("windowsize", str(window.window_id), "5000", "300")
        assert next_event(inbox, Resize) == Resize("x", 640, 300)
        small.xdotool("windowsize", str(window.window_id), "5000", "5000")
        assert next_event(inbox, Resize) == Resize("x", 640, 480)
        assert window.size == (640, 480)
        assert "Geometry: 5000x5000" in small.xdotool("getwindowgeometry", str(window.window_id))


# --- local displays: the abstract socket, as libxcb clients use it ----------------------------------------


def _without_file_permissions() -> list[str]:
    """A command prefix under which socket-file permissions apply (root ignores them otherwise)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
            "--inh-caps=-dac_override,-dac_read_search"]


_OPEN_IN_CHILD = """
import sys
from common.loop import Inbox
from common.x11 import DisplayError, open_window
try:
    window = open_window(sys.argv[1], title="x", size=(40, 30), inbox=Inbox(), source="x")
except DisplayError as error:
    print(error)
else:
    print("opened", window.size)
    window.close()
"""


def _open_as_a_user(name: str) -> str:
    done = subprocess.run([*_without_file_permissions(), sys.executable, "-c", _OPEN_IN_CHILD, name],
                          capture_output=True, text=True, timeout=deadline(20), cwd=os.getcwd())
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.e2e
def test_a_socket_file_the_user_may_not_open_is_passed_by_the_abstract_socket(xvfb):
    path = f"/tmp/.X11-unix/X{xvfb.number}"
    os.chmod(path, 0)
    probe = subprocess.run([*_without_file_permissions(), "xdpyinfo", "-display", xvfb.name],
                           capture_output=True, text=True, timeout=deadline(10))
    assert probe.returncode == 0, "xdpyinfo (libxcb) should get in through the abstract socket"
    assert _open_as_a_user(xvfb.name) == "opened (40, 30)"


@pytest.mark.e2e
def test_a_socket_file_that_refuses_or_is_gone_is_passed_by_the_abstract_socket(xvfb, inbox, windows):
    path = f"/tmp/.X11-unix/X{xvfb.number}"
    os.rename(path, path + ".moved")
    try:
        windows.append(open_window(xvfb.name, title="x", size=(40, 30), inbox=inbox, source="gone"))
        with open(path, "w") as stale:            # a plain file where the socket was: connect() is refused
            stale.write("not a socket\n")
        windows.append(open_window(xvfb.name, title="x", size=(40, 30), inbox=inbox, source="stale"))
    finally:
        if os.path.exists(path):
            os.unlink(path)
        os.rename(path + ".moved", path)
    assert [window.size for window in windows] == [(40, 30), (40, 30)]


def test_a_socket_file_the_user_may_not_open_and_no_abstract_socket_is_named(tmp_path):
    # No Xvfb here: one started with -nolisten local could share its display number with another server's
    # abstract socket. A socket file in tmp_path stands in for /tmp/.X11-unix/XN; nothing holds its abstract
    # name.
    tmp_path.chmod(0o755)
    path = tmp_path / "X7"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    path.chmod(0)
    child = _OPEN_IN_CHILD.replace("try:", f"import common.x11\ncommon.x11._X11_UNIX = {str(tmp_path)!r} + "
                                   "'/X{}'\ntry:", 1)
    try:
        done = subprocess.run([*_without_file_permissions(), sys.executable, "-c", child, ":7"],
                              capture_output=True, text=True, timeout=deadline(20))
    finally:
        listener.close()
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.strip() == (f'cannot open display ":7": {path}: Permission denied '
                                   "(and no abstract socket)")
