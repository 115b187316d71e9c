"""Helpers of the arena web tests: an ``arena serve --web`` process, instant bots, WebSocket viewers."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time

from deadline import deadline

from arena import protocol as wire
from arena.rules import DIRECTIONS

DEADLINE_S = deadline(40)


class ServeProcess:
    """``arena ARGS`` (serve or play with ``--web``) as a process; its log lines are collected as they come,
    the game's and the web page's ports read from them."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-u", "-m", "arena", *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        self.lines: list[str] = []
        self.out = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        web = self.wait_line(r"watch the game at (http://[^ ]+)")
        self.web_port = int(web.rsplit(":", 1)[1].rstrip("/"))
        self.port = int(self.wait_line(r"listening on [^ ]+:([0-9]+)$"))

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_line(self, pattern: str, timeout: float = DEADLINE_S) -> str:
        """The first group of the first log line matching *pattern*."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                found = re.search(pattern, line)
                if found:
                    return found.group(1)
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"no log line {pattern!r}: {self.lines}")

    def wait(self, timeout: float = DEADLINE_S) -> int:
        """Its exit status, once it has ended; its standard output in ``out`` (its log in ``lines``)."""
        assert self.process.stdout is not None
        self.out = self.process.stdout.read()
        self.process.wait(timeout)
        self._reader.join(timeout)
        return self.process.returncode

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def instant_bots(port: int, n: int, seed: int) -> threading.Thread:
    """*n* bots in a thread answering ID with ID_OKAY and every START at once with a random MOVE."""

    async def bot(k: int) -> None:
        rng = random.Random(seed * 100 + k)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        splitter = wire.Splitter(limit=1 << 20)
        while data := await reader.read(65536):
            out = []
            for text in splitter.feed(data):
                if text.startswith("ID "):
                    out.append(b"ID_OKAY|")
                elif text.startswith("START "):
                    out.append(f"MOVE {rng.choice(DIRECTIONS)} {rng.choice(DIRECTIONS)}|".encode())
            if out:
                writer.write(b"".join(out))
        writer.close()

    async def main() -> None:
        await asyncio.gather(*(bot(k) for k in range(n)))

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    return thread


def handshake(port: int, path: str = "/ws", *, receive_buffer: int | None = None) -> socket.socket:
    """A raw socket that has opened a WebSocket at *path* (the 101 answer read, nothing more). With
    *receive_buffer*, its kernel receive buffer is that small (set before connecting)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(deadline(10))
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    answer = b""
    while not answer.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            break
        answer += byte
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return sock


def http_get(port: int, request: bytes) -> bytes:
    """Send *request* raw; everything the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=deadline(10)) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def read_all(sock: socket.socket) -> bytes:
    """Read *sock* to its end (a close or a reset)."""
    data = b""
    sock.settimeout(deadline(10))
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(1 << 20):
            data += chunk
    return data
