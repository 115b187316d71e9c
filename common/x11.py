"""Windows on any X display through python-xlib, one I/O thread per connection (ARCHITECTURE seam 4).

SDL binds one X display per process, so every window, the local ``$DISPLAY`` included, is a plain X window
that this module fills with the pixels of a pygame Surface (rendered with no display at all). Each
:class:`Window` owns its connection in its own daemon thread: the thread opens it (with a deadline), presents
frames, reads events and turns them into :mod:`common.loop` events in the game's :class:`~common.loop.Inbox`.
A frozen or dead display therefore blocks only its own thread; :meth:`Window.present` never blocks the caller.

Measured facts behind the details (strips under ``max_request_length``, TCP_NODELAY, the event-drain rule, the
ECONNRESET retry) are in the project's x11 notes.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import struct
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import contextlib

import pygame
from Xlib import XK, X, Xutil, xauth
from Xlib import error as xerror
from Xlib.display import Display
from Xlib.support import connect as xconnect

from common.loop import Click, Closed, DisplayLost, Inbox, Key, Resize

__all__ = ["DisplayError", "Window", "open_window", "open_windows"]

_log = logging.getLogger(__name__)


def _xauth_warning(*args: object, **_kwargs: object) -> None:
    _log.info("python-xlib: %s", " ".join(map(str, args)))


# python-xlib 0.33 reports an empty or unparsable XAUTHORITY file with print() on stdout, which would tear a
# curses screen sharing the terminal or a table a server prints. The connection goes on without a cookie (and
# fails with a DisplayError of its own if the server wanted one), so the line goes to the log instead.
xauth.print = _xauth_warning

_X11_UNIX = "/tmp/.X11-unix/X{}"
_xlib_get_socket = xconnect.get_socket


def _get_socket_by_name(dname: str, protocol: str | None, host: str, dno: int) -> socket.socket:
    """python-xlib's own connection (TCP for a host name, the socket file else)."""
    sock: socket.socket = _xlib_get_socket(dname, protocol, host, dno)
    return sock


def _local_socket(dname: str, protocol: str | None, host: str, dno: int) -> socket.socket:
    """Connect to a local display (``:N``, ``unix:N``) as libxcb does: the abstract socket
    ``@/tmp/.X11-unix/XN`` first (Linux), then the socket file. python-xlib alone tries only the file when it
    exists, so a socket file it may not open (another user's, or one left by an old server) made it fall back
    to TCP and report "connection refused" although every other X client gets in. Other names go to
    python-xlib unchanged. Raises Xlib.error.DisplayConnectionError."""
    if host not in ("", "unix") or protocol not in (None, "unix"):
        return _get_socket_by_name(dname, protocol, host, dno)
    path = _X11_UNIX.format(dno)
    addresses = ["\0" + path, path] if sys.platform.startswith("linux") else [path]
    failed: OSError | None = None
    for address in addresses:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(address)
        except OSError as exc:
            sock.close()
            failed = exc
            continue
        return sock
    if isinstance(failed, PermissionError):
        raise xerror.DisplayConnectionError(dname, f"{path}: {failed.strerror} (and no abstract socket)")
    # No server there: python-xlib's own way, which also tries TCP for a name without a host.
    return _get_socket_by_name(dname, protocol, host, dno)


xconnect.get_socket = _local_socket

_EVENT_MASK = X.ExposureMask | X.ButtonPressMask | X.KeyPressMask | X.StructureNotifyMask
_SELECT_TIMEOUT_S = 0.1
_RETRY_DELAY_S = 0.1
_MAX_RECTS = 16
_PUT_IMAGE_HEADER = 24
# Shift, Control, Caps/Shift Lock, Meta, Alt, Super, Hyper; ISO level shifts and locks; Mode_switch, Num_Lock.
_MODIFIER_KEYSYMS = frozenset(range(0xFFE1, 0xFFEF)) | frozenset(range(0xFE01, 0xFE14)) | {0xFF7E, 0xFF7F}


def _keysym_names() -> dict[int, str]:
    """keysym -> its X name ("a", "A", "Tab", "space", "Up", "ISO_Left_Tab"); the first name of aliases."""
    XK.load_keysym_group("xkb")
    names: dict[int, str] = {}
    for attribute, value in vars(XK).items():
        if attribute.startswith("XK_") and isinstance(value, int):
            names.setdefault(value, attribute[3:])
    return names


_KEYSYM_NAMES = _keysym_names()


class _WindowGone(Exception):
    """Our window was destroyed by someone else."""


class DisplayError(Exception):
    """An X display could not be opened; ``str()`` is one line: ``cannot open display "NAME": REASON``."""

    def __init__(self, display: str, reason: str) -> None:
        self.display = display
        self.reason = " ".join(reason.split())
        super().__init__(f'cannot open display "{display}": {self.reason}')


@dataclass(frozen=True)
class _PixelFormat:
    """How a ZPixmap of the root visual is laid out: depth, bits per pixel, scanline pad and pygame masks."""

    depth: int
    bpp: int
    pad: int
    masks: tuple[int, int, int, int]

    def stride(self, width: int) -> int:
        """Bytes per image row of ``width`` pixels, padded to the scanline pad."""
        return (width * self.bpp + self.pad - 1) // self.pad * self.pad // 8


def _swap_bytes(mask: int, nbytes: int) -> int:
    return int.from_bytes(mask.to_bytes(nbytes, "little"), "big")


def _pixel_format(name: str, display: Display) -> _PixelFormat:
    """The pixel layout of the default screen's root visual (TrueColor/DirectColor, 16, 24 or 32 bpp)."""
    screen = display.screen()
    visual = None
    for depth_info in screen.allowed_depths:
        for candidate in depth_info.visuals:
            if candidate.visual_id == screen.root_visual:
                visual = candidate
    if visual is None or visual.visual_class not in (X.TrueColor, X.DirectColor):
        raise DisplayError(name, "unsupported visual (need TrueColor)")
    formats = [f for f in display.display.info.pixmap_formats if f.depth == screen.root_depth]
    if not formats or formats[0].bits_per_pixel not in (16, 24, 32):
        raise DisplayError(name, f"unsupported pixel format at depth {screen.root_depth}")
    bpp = formats[0].bits_per_pixel
    masks = [visual.red_mask, visual.green_mask, visual.blue_mask]
    server_little = display.display.info.image_byte_order == X.LSBFirst
    if server_little != (sys.byteorder == "little"):
        if bpp == 24:
            raise DisplayError(name, "unsupported pixel format (24 bpp with foreign byte order)")
        masks = [_swap_bytes(m, bpp // 8) for m in masks]
    try:
        pygame.Surface((1, 1), 0, bpp, (*masks, 0))
    except (pygame.error, ValueError) as exc:
        raise DisplayError(name, f"unsupported pixel format ({exc})") from exc
    return _PixelFormat(screen.root_depth, bpp, formats[0].scanline_pad, (masks[0], masks[1], masks[2], 0))


def _connect_reason(exc: Exception) -> str:
    """One line saying why python-xlib could not connect."""
    if isinstance(exc, xerror.DisplayNameError):
        return "bad display name (expected [HOST]:NUMBER[.SCREEN])"
    if isinstance(exc, xerror.DisplayConnectionError):
        message = exc.msg
        if isinstance(message, bytes):
            return f"authorisation refused by the server ({message.decode('latin-1').strip()})"
        if "refused" in str(message) or "No such file" in str(message):
            return f"connection refused, no X server there ({message})"
        return str(message)
    return str(exc) or type(exc).__name__


def _merge_rects(rects: list[pygame.Rect]) -> list[pygame.Rect]:
    """Drop empty rects and rects inside others; more than a few become their bounding box."""
    merged: list[pygame.Rect] = []
    for rect in rects:
        if rect.w <= 0 or rect.h <= 0 or any(other.contains(rect) for other in merged):
            continue
        merged = [other for other in merged if not rect.contains(other)]
        merged.append(rect)
    if len(merged) > _MAX_RECTS:
        return [merged[0].unionall(merged[1:])]
    return merged


def _image_bytes(frame: pygame.Surface, rect: pygame.Rect, fmt: _PixelFormat) -> bytes:
    """The ZPixmap bytes of ``rect`` of ``frame`` (a Surface in the server's format), rows padded."""
    pitch = frame.get_pitch()
    stride = fmt.stride(rect.w)
    row = rect.w * fmt.bpp // 8
    proxy = frame.get_buffer()
    with memoryview(proxy) as view:  # type: ignore[arg-type]  # a BufferProxy exports the buffer
        if rect.x == 0 and rect.w == frame.get_width() and pitch == stride:
            data = bytes(view[rect.y * pitch:rect.bottom * pitch])
        else:
            start = rect.x * fmt.bpp // 8
            pad = bytes(stride - row)
            parts: list[bytes | memoryview] = []
            for y in range(rect.y, rect.bottom):
                parts.append(view[y * pitch + start:y * pitch + start + row])
                if pad:
                    parts.append(pad)
            data = b"".join(parts)
            parts.clear()
    del proxy
    return data


class Window:
    """One top-level X window on one display, served by its own I/O thread. Create with :func:`open_window`.

    Attributes: ``source`` (the name events carry), ``display`` (the display string), ``size`` (current
    ``(width, height)`` in pixels, updated on ConfigureNotify, never larger than the screen: that is the size
    of the frames to present), ``window_id`` (the X window id), ``alive``.
    """

    def __init__(self, display: str, inbox: Inbox, source: str, size: tuple[int, int]) -> None:
        self.source = source
        self.display = display
        self.size = size
        self.window_id = 0
        self._inbox = inbox
        self._lock = threading.Lock()
        self._frame: pygame.Surface | None = None
        self._dirty: list[pygame.Rect] = []
        self._closing = False
        self._lost = False
        self._abandoned = False
        self._opened = threading.Event()
        self._open_error: DisplayError | None = None
        self._xerror: xerror.XError | None = None
        self._conn: Display | None = None
        self._format: _PixelFormat | None = None
        self._screen_size = (1 << 15, 1 << 15)
        self._wake_recv, self._wake_send = socket.socketpair()
        self._wake_recv.setblocking(False)
        self._wake_send.setblocking(False)
        self._thread: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        """True until :meth:`close` is called or the display is lost."""
        return not (self._closing or self._lost)

    def present(self, surface: pygame.Surface, rects: list[pygame.Rect] | None = None) -> None:
        """Show ``surface`` at the window origin; ``rects`` = what changed since the last present (None: all).

        Never blocks on the X server: the pixels are copied into the window's frame and its I/O thread sends
        them (a newer frame supersedes one not yet sent; the dirty rects of both are merged). Per-pixel alpha
        is composed over black. A surface of another size than the previous one is always sent whole. A
        window that is closed or lost ignores the call.
        """
        with self._lock:
            if not self.alive or self._format is None:
                return
            size = surface.get_size()
            alpha = bool(surface.get_flags() & pygame.SRCALPHA)
            if self._frame is None or self._frame.get_size() != size:
                self._frame = pygame.Surface(size, 0, self._format.bpp, self._format.masks)
                rects = None
            bounds = self._frame.get_rect()
            for rect in [bounds] if rects is None else rects:
                rect = pygame.Rect(rect).clip(bounds)
                if rect.w and rect.h:
                    if alpha:
                        self._frame.fill((0, 0, 0), rect)
                    self._frame.blit(surface, rect, rect)
                    self._dirty.append(rect)
            self._dirty = [bounds] if rects is None else _merge_rects(self._dirty)
        self._wake()

    def close(self, wait: float = 0.5) -> None:
        """Destroy the window and close the connection; waits up to ``wait`` s (then again after cutting the
        socket) for the I/O thread. No DisplayLost follows a close. Closing twice is harmless."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        self._wake()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return
        thread.join(wait)
        if thread.is_alive() and self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.display.socket.shutdown(socket.SHUT_RDWR)
            thread.join(wait)

    # --- everything below runs in the window's own thread, except _wake -------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_send.send(b"\0")

    def _start(self, title: str, min_size: tuple[int, int], app: str) -> None:
        self._thread = threading.Thread(target=self._run, args=(title, min_size, app),
                                        name=f"x11 {self.display}", daemon=True)
        self._thread.start()

    def _run(self, title: str, min_size: tuple[int, int], app: str) -> None:
        try:
            conn = self._connect()
            self._setup(conn, title, min_size, app)
        except Exception as exc:  # any failure must reach open_window
            self._open_error = exc if isinstance(exc, DisplayError) else DisplayError(self.display, repr(exc))
            self._opened.set()
            self._finish(None)
            return
        with self._lock:
            abandoned = self._abandoned
            self._conn = conn
        if abandoned:
            self._finish(conn)
            return
        self._opened.set()
        reason = None
        try:
            self._serve(conn)
        except xerror.XError as exc:
            reason = f"X protocol error {type(exc).__name__}"
        except _WindowGone:
            reason = "the window was destroyed"
        except (xerror.ConnectionClosedError, OSError, struct.error) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
        except Exception as exc:  # the game must hear of any end of the thread
            reason = f"display thread failed: {exc!r}"
        with self._lock:
            report = not self._closing
            self._lost = True
        if report and reason is not None:
            self._inbox.put(DisplayLost(self.source, reason))
        self._finish(conn)

    def _connect(self) -> Display:
        """Open the connection; one retry after 100 ms (intermittent ECONNRESET right after another close)."""
        name = self.display
        try:
            screen_number = xconnect.get_display(name)[4]
        except xerror.DisplayNameError as exc:
            raise DisplayError(name, _connect_reason(exc)) from None
        for attempt in (0, 1):
            try:
                conn = Display(name)
                break
            except xerror.DisplayNameError as exc:
                raise DisplayError(name, _connect_reason(exc)) from None
            except xerror.DisplayConnectionError as exc:
                if attempt or isinstance(exc.msg, bytes):
                    raise DisplayError(name, _connect_reason(exc)) from None
            except (xerror.ConnectionClosedError, OSError) as exc:
                if attempt:
                    raise DisplayError(name, _connect_reason(exc)) from None
            except struct.error:
                raise DisplayError(name, "not an X server, or it answered garbage") from None
            except OverflowError:
                raise DisplayError(name, "display number out of range") from None
            time.sleep(_RETRY_DELAY_S)
        screens = len(conn.display.info.roots)
        if screen_number >= screens:
            conn.close()
            raise DisplayError(name, f"no screen {screen_number} (the server has {screens})")
        sock = conn.display.socket
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def _setup(self, conn: Display, title: str, min_size: tuple[int, int], app: str) -> None:
        try:
            conn.set_error_handler(self._on_xerror)
            self._format = _pixel_format(self.display, conn)
            screen = conn.screen()
            width = min(self.size[0], screen.width_in_pixels)
            height = min(self.size[1], screen.height_in_pixels)
            self.size = (width, height)
            win = screen.root.create_window(0, 0, width, height, 0, screen.root_depth, X.InputOutput,
                                            X.CopyFromParent, background_pixel=screen.black_pixel,
                                            event_mask=_EVENT_MASK)
            latin = title.encode("latin-1", "replace")
            win.set_wm_name(latin)
            win.set_wm_icon_name(latin)
            win.change_property(conn.intern_atom("_NET_WM_NAME"), conn.intern_atom("UTF8_STRING"), 8,
                                title.encode())
            win.set_wm_class(app, app[:1].upper() + app[1:])
            self._wm_protocols = conn.intern_atom("WM_PROTOCOLS")
            self._wm_delete = conn.intern_atom("WM_DELETE_WINDOW")
            win.set_wm_protocols([self._wm_delete])
            self._screen_size = (screen.width_in_pixels, screen.height_in_pixels)
            win.set_wm_normal_hints(flags=Xutil.PMinSize | Xutil.PMaxSize | Xutil.PSize,
                                    min_width=min(min_size[0], width), min_height=min(min_size[1], height),
                                    max_width=self._screen_size[0], max_height=self._screen_size[1],
                                    width=width, height=height)
            win.set_wm_hints(flags=Xutil.InputHint, input=1)
            self._gc = win.create_gc()
            win.map()
            conn.sync()
            if self._xerror is not None:
                raise self._xerror
        except xerror.XError as exc:
            conn.display.socket.close()
            reason = f"the server refused the window (X error {type(exc).__name__})"
            raise DisplayError(self.display, reason) from None
        except (xerror.ConnectionClosedError, OSError, struct.error) as exc:
            conn.display.socket.close()
            reason = f"the connection broke while creating the window ({exc})"
            raise DisplayError(self.display, reason) from None
        self._win = win
        self.window_id = win.id

    def _on_xerror(self, err: xerror.XError, request: object) -> None:
        if self._xerror is None:
            self._xerror = err

    def _serve(self, conn: Display) -> None:
        """Until closed: send the pending frame, drain all queued events, wait for the server or a wake."""
        while not self._closing:
            self._send_frame(conn)
            while conn.pending_events():
                self._handle(conn, conn.next_event())
            if self._xerror is not None:
                raise self._xerror
            readable, _, _ = select.select([conn, self._wake_recv], [], [], _SELECT_TIMEOUT_S)
            if self._wake_recv in readable:
                try:
                    while self._wake_recv.recv(4096):
                        pass
                except BlockingIOError:
                    pass

    def _send_frame(self, conn: Display) -> None:
        fmt = self._format
        with self._lock:
            if self._frame is None or not self._dirty or fmt is None:
                return
            images = [(rect, _image_bytes(self._frame, rect, fmt)) for rect in self._dirty]
            self._dirty = []
        limit = (conn.display.info.max_request_length << 2) - _PUT_IMAGE_HEADER
        for rect, data in images:
            stride = fmt.stride(rect.w)
            rows = max(1, limit // stride)
            for top in range(0, rect.h, rows):
                count = min(rows, rect.h - top)
                self._win.put_image(self._gc, rect.x, rect.y + top, rect.w, count, X.ZPixmap, fmt.depth, 0,
                                    data[top * stride:(top + count) * stride])
        conn.flush()

    def _handle(self, conn: Display, event: Any) -> None:
        kind = event.type
        if kind == X.ButtonPress:
            self._inbox.put(Click(self.source, event.detail, event.event_x, event.event_y))
        elif kind == X.KeyPress:
            name = self._key_name(conn, event)
            if name is not None:
                self._inbox.put(Key(self.source, name, event.event_x, event.event_y))
        elif kind == X.ConfigureNotify:
            # A window stretched beyond its screen (xdotool, a WM ignoring the maximum-size hint) still gets
            # frames no larger than the screen: the part past the screen's edge could never be seen, and
            # drawing it would cost every other window's turn time and memory.
            size = (min(event.width, self._screen_size[0]), min(event.height, self._screen_size[1]))
            if event.window.id == self.window_id and size != self.size:
                self.size = size
                self._inbox.put(Resize(self.source, *size))
        elif kind == X.Expose:
            with self._lock:
                if self._frame is not None:
                    rect = pygame.Rect(event.x, event.y, event.width, event.height)
                    self._dirty = _merge_rects([*self._dirty, rect.clip(self._frame.get_rect())])
        elif kind == X.ClientMessage:
            if event.client_type == self._wm_protocols and event.data[1][0] == self._wm_delete:
                self._inbox.put(Closed(self.source))
        elif kind == X.DestroyNotify and event.window.id == self.window_id:
            raise _WindowGone

    @staticmethod
    def _key_name(conn: Display, event: Any) -> str | None:
        """The keysym name with Shift (and Caps Lock for letters) applied; None for modifier keys."""
        base = conn.keycode_to_keysym(event.detail, 0)
        if base == X.NoSymbol or base in _MODIFIER_KEYSYMS:
            return None
        shifted = bool(event.state & X.ShiftMask)
        name = _KEYSYM_NAMES.get(base, "")
        if event.state & X.LockMask and len(name) == 1 and name.isalpha():
            shifted = not shifted
        keysym = conn.keycode_to_keysym(event.detail, 1) if shifted else base
        if keysym == X.NoSymbol:
            keysym = base
        return _KEYSYM_NAMES.get(keysym, f"0x{keysym:x}")

    def _finish(self, conn: Display | None) -> None:
        """Close the wake sockets and, when given, destroy the window and close the connection politely."""
        if conn is not None:
            try:
                if self.window_id:
                    self._win.destroy()
                conn.close()
            except (xerror.ConnectionClosedError, xerror.XError, OSError, struct.error):
                conn.display.socket.close()
        with self._lock:
            self._wake_recv.close()
            self._wake_send.close()


def open_window(display: str, *, title: str, size: tuple[int, int], inbox: Inbox, source: str,
                timeout: float = 5.0, min_size: tuple[int, int] = (160, 120),
                app: str | None = None) -> Window:
    """Open a ``size`` = (width, height) pixel window titled ``title`` on X display ``display`` ("host:N.S");
    a size larger than the screen is cut to the screen's (``Window.size`` tells the size opened).

    Events reach ``inbox`` tagged with ``source``. ``min_size`` is the WM minimum-size hint (pixels); ``app``
    the WM_CLASS instance name (default: the title's first word, lower case). Connection, window creation and
    mapping happen in the window's own thread within ``timeout`` seconds; the connection is retried once after
    100 ms when the server resets it. TCP displays get TCP_NODELAY.

    Raises DisplayError (one line naming the display) for a bad name, a display number out of range, a
    refused connection (no server), a peer that is not an X server, refused authorisation, an unsupported
    visual or no answer within ``timeout``.
    """
    window = Window(display, inbox, source, (max(1, size[0]), max(1, size[1])))
    words = title.split()
    window._start(title, min_size, app or (words[0].lower() if words else "window"))
    if not window._opened.wait(timeout):
        with window._lock:
            window._abandoned = True
            conn = window._conn
        if conn is None:
            raise DisplayError(display, f"no answer within {timeout:g} s")
    if window._open_error is not None:
        raise window._open_error
    return window


def open_windows(specs: Sequence[tuple[str, str, str]], *, size: tuple[int, int], inbox: Inbox,
                 timeout: float = 5.0, **options: Any) -> dict[str, Window]:
    """Open one window per ``(source, display, title)`` of ``specs``, all or nothing, before a game starts.

    Every window gets ``size``, ``inbox``, ``timeout`` and the further :func:`open_window` ``options``. On the
    first DisplayError the windows opened so far are closed again and the error propagates, so a game never
    starts with some of its displays missing. Returns ``{source: window}`` in the order of ``specs``.

    Raises DisplayError (one line naming the display that failed).
    """
    opened: dict[str, Window] = {}
    try:
        for source, display, title in specs:
            opened[source] = open_window(display, title=title, size=size, inbox=inbox, source=source,
                                         timeout=timeout, **options)
    except BaseException:
        for window in opened.values():
            window.close()
        raise
    return opened
