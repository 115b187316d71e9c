"""Real X servers for tests: Xvfb started with ``-displayfd``.

Xvfb picks a free display number and reports it on that descriptor once it is ready.

Also the small X helpers window tests share: screenshots (xwd + convert), pixels through GetImage, xdotool.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest
from deadline import deadline


def silent_x_listener(numbers: range) -> tuple[socket.socket, int]:
    """A socket listening on 127.0.0.1:6000+N for the first N of *numbers* free to bind, and N.

    It accepts connections (the caller's thread may answer them) but is no X server: a stand-in for a display
    that never answers, or answers garbage. Binding directly avoids a race with other test workers.
    """
    for number in numbers:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", 6000 + number))
        except OSError:
            listener.close()
            continue
        listener.listen(8)
        return listener, number
    raise RuntimeError(f"no free X TCP port for displays {numbers.start}-{numbers.stop - 1}")


class Xvfb:
    """One Xvfb server; ``name`` is its display string (":N").

    Stop it with :meth:`stop` (SIGTERM, so no stale lock file is left).
    """

    def __init__(self, size: str = "1280x1024x24", tcp: bool = False, extra: tuple[str, ...] = ()):
        if shutil.which("Xvfb") is None:
            pytest.fail("Xvfb is not installed (Debian package xvfb); `make test` installs it")
        read_end, write_end = os.pipe()
        listen = "-listen" if tcp else "-nolisten"
        args = ["Xvfb", "-displayfd", str(write_end), "-screen", "0", size, listen, "tcp", *extra]
        self.proc = subprocess.Popen(args, pass_fds=(write_end,), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end) as handle:
            number = handle.readline().strip()
        if not number:
            self.proc.kill()
            raise RuntimeError("Xvfb did not report a display number")
        self.number = int(number)
        self.name = f":{number}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(deadline(2))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def env(self, **extra: str) -> dict[str, str]:
        """A copy of the environment with DISPLAY set to this server."""
        env = dict(os.environ, DISPLAY=self.name, **extra)
        return env

    def xdotool(self, *args: str) -> str:
        """Run xdotool on this display and return its stdout."""
        out = subprocess.run(["xdotool", *args], env=self.env(), capture_output=True, text=True,
                             timeout=deadline(3), check=True)
        return out.stdout

    def screenshot(self, path: str | os.PathLike[str]) -> Path:
        """Save the whole screen as PNG (xwd piped into ImageMagick's /usr/bin/convert)."""
        xwd = subprocess.run(["xwd", "-root", "-silent", "-display", self.name], capture_output=True,
                             timeout=deadline(7), check=True).stdout
        subprocess.run(["/usr/bin/convert", "xwd:-", str(path)], input=xwd, timeout=deadline(10), check=True)
        return Path(path)

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        """The RGB colour of root-window pixel (x, y), read with GetImage (depth 24, B,G,R,X bytes)."""
        from Xlib import X
        from Xlib.display import Display

        display = Display(self.name)
        try:
            root = display.screen().root
            image = root.get_image(x, y, 1, 1, X.ZPixmap, 0xFFFFFFFF)
            blue, green, red = image.data[0], image.data[1], image.data[2]
            return red, green, blue
        finally:
            display.close()

    def __enter__(self) -> Xvfb:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def window_of(status: dict, display: str) -> dict:
    """The entry of a game's ``--status`` JSON (``windows`` list) for the window on *display*."""
    return next(w for w in status["windows"] if w["display"] == display)


def origin(server: Xvfb, window_id: int) -> tuple[int, int]:
    """Absolute position of an X window on its screen (xwininfo)."""
    out = subprocess.run(["xwininfo", "-display", server.name, "-id", str(window_id)], capture_output=True,
                         text=True, timeout=deadline(3), check=True).stdout
    x = int(re.search(r"Absolute upper-left X:\s+(-?\d+)", out).group(1))
    y = int(re.search(r"Absolute upper-left Y:\s+(-?\d+)", out).group(1))
    return x, y


def grab(server: Xvfb, x: int, y: int, width: int, height: int) -> np.ndarray:
    """Root-window pixels as an (height, width, 3) uint8 RGB array, read with GetImage (depth 24)."""
    from Xlib import X
    from Xlib.display import Display

    display = Display(server.name)
    try:
        image = display.screen().root.get_image(x, y, width, height, X.ZPixmap, 0xFFFFFFFF)
        data = np.frombuffer(image.data, dtype=np.uint8).reshape(height, width, 4)
        return data[:, :, 2::-1].copy()
    finally:
        display.close()
